//! `hello`: new sessions, resuming old ones, and what a session keeps when its connection goes.

use noughts_protocol::{ErrorCode, PROTOCOL_VERSION, RequestId, ServerMessage, validate_name};
use tokio::sync::oneshot;
use tokio::time::{Instant, sleep};
use tracing::{debug, info};

use super::{Client, Reply, refuse};
use crate::code;
use crate::error::Refusal;
use crate::game::{Command, Requester};
use crate::outbound::Close;
use crate::session::Session;

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
        let name =
            validate_name(name).map_err(|err| Refusal::new(ErrorCode::BadName, err.to_string()))?;
        let Some(token) = token else {
            let session = self.shared.registry.new_session(name);
            session.attach(self.out.clone());
            tracing::Span::current().record("player", session.player.0);
            info!("welcome");
            self.welcome(id, &session, false);
            self.session = Some(session);
            return Ok(());
        };
        let Some(session) = self.shared.registry.session(&token) else {
            return refuse(
                ErrorCode::UnknownToken,
                "that session is unknown or has expired; say hello without a token",
            );
        };
        tracing::Span::current().record("player", session.player.0);
        info!("resumed");
        let attached = session.attach(self.out.clone());
        self.welcome(id, &session, true);
        self.session = Some(session.clone());
        if let Some(previous) = attached.previous {
            previous.close(Close::REPLACED);
        }
        // Games first (each answers with its snapshot), then the lobby, then watched games.
        for game in attached.games {
            if let Some(handle) = self.shared.registry.game(game) {
                let (done, answered) = oneshot::channel();
                let attach = Command::Attach {
                    player: session.player,
                    out: self.out.clone(),
                    done,
                };
                if handle.send(attach).await {
                    let _ = answered.await;
                }
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
            let watch = Command::Watch {
                session: session.clone(),
                from,
            };
            let sent = match self.shared.registry.game(game) {
                Some(handle) => handle.send(watch).await,
                None => false,
            };
            if !sent {
                session.set_watching(game, false);
            }
        }
        Ok(())
    }

    fn welcome(&self, id: Option<RequestId>, session: &Session, resumed: bool) {
        self.out.reply(
            id,
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                player: session.player,
                name: session.name.clone(),
                token: session.token.clone(),
                resumed,
                ratings: Vec::new(),
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
                handle
                    .send(Command::Detach {
                        player: session.player,
                        conn,
                    })
                    .await;
            }
        }
        for game in detached.watching {
            if let Some(handle) = shared.registry.game(game) {
                handle
                    .send(Command::Unwatch {
                        player: session.player,
                        conn,
                        from: None,
                    })
                    .await;
            }
        }
        let shared = shared.clone();
        let grace = shared.config.grace;
        let stop = shared.stop_games.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = sleep(grace) => {}
                () = stop.cancelled() => return,
            }
            if session.away_for(grace, Instant::now()) && shared.registry.expire_session(&session) {
                debug!(player = session.player.0, "session expired");
                for code in session.take_rooms() {
                    if let Some(room) = shared.registry.close_room(&code, session.player)
                        && !room.private
                    {
                        shared.lobby.remove_room(&code::display(&room.code));
                    }
                }
            }
        });
    }
}
