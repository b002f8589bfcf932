//! `hello`: new sessions, resuming old ones, and what a session keeps when its connection goes.

use noughts_protocol::{
    ErrorCode, PROTOCOL_VERSION, Rating, RequestId, ServerMessage, Variant, normalize_name,
};

use tracing::{error, info};

use super::client::{Client, Reply, refuse};
use crate::error::Refusal;
use crate::expiry::expire_after_grace;
use crate::game_handle::Requester;
use crate::outbound::Close;
use crate::rating;
use crate::session::Session;
use crate::store::TokenHash;

impl Client {
    /// `hello`: a new session, or the resumption of an earlier one.
    pub(super) async fn hello(
        &mut self,
        id: Option<RequestId>,
        protocol: u32,
        name: &str,
        token: Option<String>,
    ) -> Reply {
        if protocol != PROTOCOL_VERSION {
            return refuse(
                ErrorCode::UnsupportedVersion,
                format!("this server speaks protocol {PROTOCOL_VERSION}, not {protocol}"),
            );
        }
        let name = normalize_name(name)
            .map_err(|err| Refusal::new(ErrorCode::BadName, err.to_string()))?;
        let Some(token) = token else {
            let (session, token) = self.shared.registry.new_session(&name);
            let stored = self
                .shared
                .store
                .add_player(session.player, &session.name, session.key)
                .await;
            if let Err(err) = stored {
                error!(cause = %err, "cannot store a new player");
                self.shared.registry.forget_session(&session);
                return refuse(
                    ErrorCode::Internal,
                    "the server cannot take new players now",
                );
            }
            session.attach(self.out.clone());
            tracing::Span::current().record("player", session.player.0);
            info!("welcome");
            self.welcome(id, &session, token, false);
            self.session = Some(session);
            return Ok(());
        };
        let key = TokenHash::of(&token);
        let Some(session) = self.shared.registry.session(&key) else {
            return self.come_back(id, key, token).await;
        };
        tracing::Span::current().record("player", session.player.0);
        info!("resumed");
        self.shared.store.seen(session.player);
        let attached = session.attach(self.out.clone());
        self.welcome(id, &session, token, true);
        self.session = Some(session.clone());
        if let Some(previous) = attached.previous {
            previous.close(Close::REPLACED);
        }
        // Games first (each answers with its snapshot), then the lobby, then watched games.
        for game in attached.games {
            if let Some(handle) = self.shared.registry.game(game) {
                handle.attach(session.player, self.out.clone()).await;
            }
        }
        if attached.lobby {
            self.shared
                .lobby
                .subscribe(session.player, self.out.clone(), None);
        }
        for game in attached.watching {
            let from = Requester {
                player: session.player,
                out: self.out.clone(),
                id: None,
            };
            let sent = match self.shared.registry.game(game) {
                Some(handle) => handle.watch(session.clone(), from).await,
                None => false,
            };
            if !sent {
                session.set_watching(game, false);
            }
        }
        Ok(())
    }

    /// `hello` with the token of a player whose session has expired (or who played before the
    /// server restarted): a new session as the same player.
    async fn come_back(&mut self, id: Option<RequestId>, key: TokenHash, token: String) -> Reply {
        let stored = match self.shared.store.player_by_token(key).await {
            // The database found the row by the hash; the match is confirmed in constant time.
            Ok(Some(stored)) if stored.token == key => stored,
            Ok(_) => {
                return refuse(
                    ErrorCode::UnknownToken,
                    "that token is unknown here; say hello without a token",
                );
            }
            Err(err) => {
                error!(cause = %err, "cannot look a token up");
                return refuse(ErrorCode::Internal, "the server cannot look players up now");
            }
        };
        let session = self.shared.registry.stored_session(&stored);
        tracing::Span::current().record("player", session.player.0);
        info!("returned");
        self.shared.store.seen(session.player);
        let attached = session.attach(self.out.clone());
        if let Some(previous) = attached.previous {
            previous.close(Close::REPLACED);
        }
        self.welcome(id, &session, token, false);
        self.session = Some(session);
        Ok(())
    }

    fn welcome(&self, id: Option<RequestId>, session: &Session, token: String, resumed: bool) {
        let ratings = session.ratings();
        let ratings = Variant::ALL
            .iter()
            .map(|&variant| Rating {
                variant,
                rating: rating::points(ratings.get(variant).rating),
                deviation: rating::points(ratings.get(variant).deviation),
                games: ratings.games(variant),
            })
            .collect();
        self.out.reply(
            id,
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                player: session.player,
                name: session.name.clone(),
                token,
                resumed,
                ratings,
            },
        );
    }

    /// The connection has ended: the player's games are told, its seek withdrawn, and its session
    /// kept for the grace period in case it comes back.
    pub(crate) async fn disconnected(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let conn = self.out.conn;
        let Some(detached) = session.detach(conn) else {
            // Another connection has taken over this session.
            return;
        };
        let shared = &self.shared;
        shared.lobby.unsubscribe(session.player);
        if let Some(key) = detached.seek {
            shared.registry.cancel_seek(session.player, key);
        }
        for game in detached.games {
            if let Some(handle) = shared.registry.game(game) {
                handle.detach(session.player, conn).await;
            }
        }
        for game in detached.watching {
            if let Some(handle) = shared.registry.game(game) {
                handle.unwatch(session.player, conn, None).await;
            }
        }
        shared.store.seen(session.player);
        expire_after_grace(shared, session);
    }
}
