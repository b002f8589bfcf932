//! `hello` and `logout`: new sessions, coming back with a token (which is traded for a new one
//! each time), several connections of one session, and what a session keeps when a connection
//! goes.

use std::sync::Arc;

use noughts_protocol::{
    ErrorCode, GameState, PROTOCOL_VERSION, PlayerId, Rating, RequestId, ServerMessage, Variant,
    normalize_name,
};

use tracing::{error, info};

use super::client::{Client, Reply, refuse};
use super::record_view::final_state;
#[cfg(feature = "cluster")]
use super::remote::attach_elsewhere;
use super::seek::withdraw_seek;
use crate::error::Refusal;
use crate::game::expiry::{close_rooms, expire_after_grace};
use crate::net::outbound::{Close, Outbound};
use crate::registry::games::Requester;
use crate::rules::rating;
use crate::session::{Attached, MAX_CONNECTIONS, Session, new_token};
use crate::shared::Shared;
use crate::store::TokenHash;

/// The most games that ended while a player was away shown when it comes back: the latest.
const ENDED_SHOWN: u32 = 8;

/// How long ago (in milliseconds: an hour) a game may have ended to be shown to a player coming
/// back: one gone longer finds its results in its history.
const ENDED_WINDOW_MS: u64 = 60 * 60 * 1000;

/// The refusal of a token that does not work.
fn refuse_token() -> Reply {
    refuse(
        ErrorCode::UnknownToken,
        "that token is unknown here, expired or logged out; say hello without a token",
    )
}

/// A place held among a session's connections while a `hello` with its token is answered; given
/// back (the session counting as away again, and expiring in time, if nothing else holds it)
/// unless the connection takes it.
struct Place {
    session: Arc<Session>,
    shared: Arc<Shared>,
    taken: bool,
}

impl Place {
    /// Holds a place in `session`; `None` if it has as many connections as it may.
    fn hold(shared: &Arc<Shared>, session: Arc<Session>) -> Option<Place> {
        session.reserve().then(|| Place {
            session,
            shared: shared.clone(),
            taken: false,
        })
    }

    /// The connection `out` takes the place.
    fn take(mut self, out: Outbound) -> Attached {
        self.taken = true;
        self.session.attach_reserved(out)
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if !self.taken && self.session.release() {
            expire_after_grace(&self.shared, self.session.clone());
        }
    }
}

impl Client {
    /// `hello`: a new player, or one coming back with a token.
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
        self.check_address_allowed()?;
        match token {
            Some(token) => self.come_back(id, &token, None).await,
            None => self.new_player(id, &name).await,
        }
    }

    async fn new_player(&mut self, id: Option<RequestId>, name: &str) -> Reply {
        self.check_name_free(name)?;
        let Some((session, token)) = self.shared.registry.new_session(name) else {
            return refuse(
                ErrorCode::ServerFull,
                "the server cannot take new players just now",
            );
        };
        let stored = self
            .shared
            .store
            .add_player(session.player, &session.name(), TokenHash::of(&token))
            .await;
        if let Err(err) = stored {
            error!(cause = %err, "cannot store a new player");
            self.shared.registry.forget_session(&session);
            return refuse(
                ErrorCode::Internal,
                "the server cannot take new players now",
            );
        }
        // A new session has no other connection, so there is room for this one.
        let _ = session.attach(self.out.clone());
        #[cfg(feature = "cluster")]
        self.note_presence(session.player, true);
        tracing::Span::current().record("player", session.player.0);
        info!("welcome");
        self.token = Some(TokenHash::of(&token));
        self.welcome(id, &session, token, false, None);
        self.session = Some(session);
        Ok(())
    }

    /// `hello` with a token: the token is traded for a new one, and the connection joins the
    /// player's live session (`resumed`), or starts a new session as the same player. The token
    /// is checked, and a place among the session's connections held, before the trade: a
    /// refused `hello` trades nothing. `device_cookie` goes out with the `welcome` (after a
    /// sign-in with a password).
    pub(super) async fn come_back(
        &mut self,
        id: Option<RequestId>,
        token: &str,
        device_cookie: Option<String>,
    ) -> Reply {
        let presented = TokenHash::of(token);
        let rules = self.shared.config.token_rules();
        let store = &self.shared.store;
        let stored = match store.token_player(presented, rules).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return refuse_token(),
            Err(err) => {
                error!(cause = %err, "cannot look a token up");
                return refuse(ErrorCode::Internal, "the server cannot look players up now");
            }
        };
        self.check_player_allowed(stored.player)?;
        let live = self.shared.registry.session(stored.player);
        let was_live = live.is_some();
        let session = live.unwrap_or_else(|| self.shared.registry.stored_session(&stored));
        let Some(place) = Place::hold(&self.shared, session) else {
            return refuse(
                ErrorCode::LimitReached,
                format!("this player already has {MAX_CONNECTIONS} connections open"),
            );
        };
        let fresh = new_token();
        match store
            .rotate_token(presented, TokenHash::of(&fresh), rules)
            .await
        {
            Ok(Some(_)) => {
                store.device_rotated(presented, TokenHash::of(&fresh), self.network.shown())
            }
            // It stopped working meanwhile (replaced too long ago, or revoked).
            Ok(None) => return refuse_token(),
            Err(err) => {
                error!(cause = %err, "cannot trade a token");
                return refuse(ErrorCode::Internal, "the server cannot look players up now");
            }
        }
        // In a cluster, the player's games whose node is gone come here first.
        #[cfg(feature = "cluster")]
        let elsewhere =
            crate::game::takeover::take_over_games_of(&self.shared, stored.player).await;
        let session = place.session.clone();
        // Then what ended while it was away (looked for after its live games, so that a game
        // ending meanwhile is one or the other), but for the games it still sits in here, whose
        // snapshots show their end.
        let ended = self.ended_while_away(&session, presented).await;
        // A session made just now is a resumed one if games taken over were restored into it,
        // or games that ended while it was away are shown.
        let resumed = was_live || !session.games().is_empty() || !ended.is_empty();
        let attached = place.take(self.out.clone());
        #[cfg(feature = "cluster")]
        self.note_presence(session.player, true);
        tracing::Span::current().record("player", session.player.0);
        info!(resumed, "came back");
        self.token = Some(TokenHash::of(&fresh));
        self.welcome(id, &session, fresh, resumed, device_cookie);
        self.session = Some(session.clone());
        // An account is told the arenas it is in, so that a reloaded page marks them (a guest
        // is in none).
        if session.is_account() {
            crate::arena::tell_welcomed(&self.shared, &self.out, session.player).await;
        }
        // Games first (each answers with its snapshot), then the lobby, then watched games.
        for game in attached.games {
            if let Some(handle) = self.shared.registry.games.get(game) {
                handle.attach(session.player, self.out.clone()).await;
            }
        }
        #[cfg(feature = "cluster")]
        attach_elsewhere(&self.shared, &session, &self.out, self.network, elsewhere).await;
        for state in ended {
            self.out
                .reply(None, ServerMessage::GameState(Box::new(state)));
        }
        if attached.lobby {
            self.shared.lobby.subscribe(self.out.clone(), None);
        }
        for game in attached.watching {
            let from = Requester {
                player: session.player,
                out: self.out.clone(),
                id: None,
            };
            let sent = match (self.shared.registry.games.get(game), &self.shared.wing) {
                (Some(handle), _) => handle.watch(session.clone(), from).await,
                (None, Some(wing)) => wing.watch_remote(game, from.player, from.out, None).await,
                (None, None) => false,
            };
            if !sent {
                session.set_watching(game, false);
            }
        }
        Ok(())
    }

    /// The final snapshots of `session`'s player's games that ended since token `presented` was
    /// last in use (at most [`ENDED_SHOWN`], within [`ENDED_WINDOW_MS`]), but for those it still
    /// sits in here, the earliest ended first. None if the store cannot say just now: the
    /// player is welcomed all the same, and their results are in its history.
    async fn ended_while_away(&self, session: &Session, presented: TokenHash) -> Vec<GameState> {
        let player = session.player;
        let store = &self.shared.store;
        let ended = match store
            .ended_while_away(player, presented, ENDED_WINDOW_MS, ENDED_SHOWN)
            .await
        {
            Ok(ended) => ended,
            Err(err) => {
                error!(cause = %err, "cannot look up the games that ended while a player was away");
                return Vec::new();
            }
        };
        let seated = session.games();
        let registry = &self.shared.registry;
        let connected = |other: PlayerId| {
            other == player || registry.session(other).is_some_and(|s| s.is_connected())
        };
        ended
            .into_iter()
            .filter(|game| !seated.contains(&game.game.start.game))
            .filter_map(|game| match final_state(game, player, connected) {
                Ok(state) => Some(state),
                Err(why) => {
                    error!(%why, "cannot show a game that ended while its player was away");
                    None
                }
            })
            .collect()
    }

    fn welcome(
        &self,
        id: Option<RequestId>,
        session: &Session,
        token: String,
        resumed: bool,
        device_cookie: Option<String>,
    ) {
        let live = &self.shared.accounts.live;
        live.welcomed(session.player, TokenHash::of(&token), &self.out);
        let name = session.name();
        let username = session.is_account().then(|| name.clone());
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
                name,
                token,
                resumed,
                ratings,
                device_cookie,
                username,
                bot: session.is_bot(),
            },
        );
    }

    /// `rename`: the player keeps everything but the name others see from now on; the name is
    /// stored first, then every connection of the session hears of it (this one as the reply).
    pub(super) async fn rename(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        name: &str,
    ) -> Reply {
        let name = normalize_name(name)
            .map_err(|err| Refusal::new(ErrorCode::BadName, err.to_string()))?;
        self.check_name_free(&name)?;
        // Asked of the store, which every node shares: an account may have been registered
        // from another node.
        match self.shared.store.account_of(session.player).await {
            Ok(None) => {}
            Ok(Some(_)) => {
                return refuse(
                    ErrorCode::AccountName,
                    "an account's name is its username; only a guest can rename",
                );
            }
            Err(err) => {
                error!(cause = %err, "cannot look an account up");
                return refuse(ErrorCode::Internal, "the server cannot change names now");
            }
        }
        if let Err(err) = self.shared.store.rename_player(session.player, &name).await {
            error!(cause = %err, "cannot store a new name");
            return refuse(ErrorCode::Internal, "the server cannot change names now");
        }
        info!("renamed");
        session.set_name(name.clone());
        let renamed = ServerMessage::Renamed { name };
        for out in session.outbounds() {
            if out.conn != self.out.conn {
                out.reply(None, renamed.clone());
            }
        }
        self.out.reply(id, renamed);
        Ok(())
    }

    /// `logout`: an account's ends this device's session only (see `logout_device`); a guest's
    /// ends the player: every token of the player stops working, its live games are resigned, its
    /// seek and rooms withdrawn, and every connection of its session closes after this one's `ok`.
    pub(super) async fn logout(&mut self, session: &Arc<Session>, id: Option<RequestId>) -> Reply {
        if let Some(reply) = self.logout_device(session, id.clone()).await {
            return reply;
        }
        if let Err(err) = self.shared.store.revoke_tokens(session.player).await {
            error!(cause = %err, "cannot revoke tokens");
            return refuse(
                ErrorCode::Internal,
                "the server cannot log out now; try again",
            );
        }
        info!("logged out");
        #[cfg(feature = "cluster")]
        self.logout_elsewhere().await;
        let shared = &self.shared;
        if let Some(open) = session.take_seek() {
            withdraw_seek(shared, open);
        }
        close_rooms(shared, session);
        for game in session.games() {
            if let Some(handle) = shared.registry.games.get(game) {
                handle.leave(session.player).await;
            }
        }
        shared.registry.forget_session(session);
        self.ok(id);
        for out in session.outbounds() {
            out.close(Close::LOGGED_OUT);
        }
        Ok(())
    }

    /// The connection has ended: its games and watched games lose it, and when it was the
    /// session's last, the seek is withdrawn and the session kept for the grace period in case
    /// the player comes back.
    pub(crate) async fn disconnected(&mut self) {
        #[cfg(feature = "cluster")]
        self.unlink().await;
        let Some(session) = self.session.take() else {
            return;
        };
        let conn = self.out.conn;
        let shared = &self.shared;
        // The token this connection was welcomed with was in use until now.
        if let Some(token) = self.token.take() {
            shared.store.touch_token(token);
        }
        shared.accounts.live.gone(session.player, conn);
        shared.lobby.unsubscribe(conn);
        shared.leagues.unfollow(conn);
        let Some(detached) = session.detach(conn) else {
            // The session has already let this connection go (a logout).
            return;
        };
        if let Some(open) = detached.seek {
            withdraw_seek(shared, open);
        }
        for game in detached.games {
            if let Some(handle) = shared.registry.games.get(game) {
                handle.detach(session.player, conn).await;
            }
        }
        for game in detached.watching {
            if let Some(handle) = shared.registry.games.get(game) {
                handle.unwatch(conn, None).await;
            } else if let Some(wing) = &shared.wing
                && wing.watches_remote(game, conn)
            {
                wing.unwatch_remote(game, conn).await;
            }
        }
        if detached.last {
            #[cfg(feature = "cluster")]
            self.note_presence(session.player, false);
            shared.store.seen(session.player);
            expire_after_grace(shared, session);
        }
    }
}
