//! What a client's requests do: `hello` and resuming, the lobby, seeks, rooms, AI games, watching,
//! and forwarding game requests to the game's actor. Every request with an id gets one reply.

mod hello;
mod records;

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{
    ClientMessage, ClockSpec, ErrorCode, GameId, GameKind, MAX_CHAT_CHARS, RequestId,
    ServerMessage, SideChoice, close, decode_client, sanitize,
};
use tokio::sync::oneshot;
use tokio::time::Instant;
use tracing::{debug, info};

use crate::error::Refusal;
use crate::game::{self, SeatSetup, Setup};
use crate::game_handle::{Command, GameHandle, Requester};
use crate::invite_code;
use crate::network::Network;
use crate::outbound::{Close, Outbound};
use crate::registry::JoinRoomError;
use crate::session::{SeekKey, Session};
use crate::shared::Shared;
use crate::token_bucket::Bucket;

/// The longest clock a game may have: three hours a side.
pub const MAX_CLOCK_MS: u64 = 3 * 60 * 60 * 1000;
/// The largest increment: one minute.
pub const MAX_INCREMENT_MS: u64 = 60 * 1000;
/// Rooms one player may have open at once, so nobody can flood the lobby.
pub const MAX_OPEN_ROOMS: usize = 3;
/// Live games one player may have started with `play_ai` or `start_war`, so nobody can fill the
/// server with games.
pub const MAX_STARTED_GAMES: usize = 5;

/// One connection's view of its player.
#[derive(Debug)]
pub(crate) struct Client {
    shared: Arc<Shared>,
    /// Where replies to this connection go.
    out: Outbound,
    /// The player, once `hello` has been answered.
    session: Option<Arc<Session>>,
    /// Limits requests of every kind.
    requests: Bucket,
    /// Limits chat lines.
    chat: Bucket,
    /// Requests refused by the rate limit since the last one accepted; too many closes the
    /// connection.
    refused: u32,
    /// The client's network, which the per-address caps on rooms and seeks count under.
    network: Network,
}

type Reply = Result<(), Refusal>;

fn refuse(code: ErrorCode, message: impl Into<String>) -> Reply {
    Err(Refusal::new(code, message))
}

impl Client {
    pub(crate) fn new(shared: Arc<Shared>, out: Outbound, network: Network) -> Client {
        let config = &shared.config;
        let requests = Bucket::new(
            config.message_burst,
            Duration::from_secs(1) / config.messages_per_second.max(1),
        );
        let chat = Bucket::new(
            config.chat_burst,
            Duration::from_secs(60) / config.chat_per_minute.max(1),
        );
        Client {
            shared,
            out,
            session: None,
            requests,
            chat,
            refused: 0,
            network,
        }
    }

    /// Handles one text frame. Returns a close when the client has to go (persistent flooding).
    pub(crate) async fn receive(&mut self, text: &str) -> Option<Close> {
        // Every frame counts against the limit, malformed ones too.
        let allowed = self.requests.take(Instant::now());
        let decoded = decode_client(text);
        if !allowed {
            self.refused += 1;
            if self.refused > self.shared.config.message_burst {
                info!("closing a connection that keeps flooding");
                return Some(Close {
                    code: close::POLICY_VIOLATION,
                    reason: "rate limit exceeded",
                });
            }
            let id = match decoded {
                Ok(frame) => frame.id,
                Err(err) => err.id,
            };
            self.out
                .error(id, ErrorCode::RateLimited, "too many messages; slow down");
            return None;
        }
        self.refused = 0;
        let frame = match decoded {
            Ok(frame) => frame,
            Err(err) => {
                self.out.error(err.id, err.code, err.message);
                return None;
            }
        };
        let id = frame.id.clone();
        if let Err(refusal) = self.dispatch(frame.id, frame.message).await {
            debug!(code = %refusal.code, "refused");
            self.out.error(id, refusal.code, refusal.message);
        }
        None
    }

    async fn dispatch(&mut self, id: Option<RequestId>, message: ClientMessage) -> Reply {
        let Some(session) = self.session.clone() else {
            return match message {
                ClientMessage::Hello {
                    protocol,
                    name,
                    token,
                } => self.hello(id, protocol, &name, token).await,
                _ => refuse(ErrorCode::HelloFirst, "say hello first"),
            };
        };
        let from = Requester {
            player: session.player,
            out: self.out.clone(),
            id: id.clone(),
        };
        match message {
            ClientMessage::Hello { .. } => refuse(
                ErrorCode::AlreadyWelcomed,
                "this connection has already said hello",
            ),
            ClientMessage::Ping => {
                self.out.reply(id, ServerMessage::Pong);
                Ok(())
            }
            ClientMessage::SubscribeLobby => {
                session.set_lobby(true);
                self.shared
                    .lobby
                    .subscribe(session.player, self.out.clone(), id);
                Ok(())
            }
            ClientMessage::UnsubscribeLobby => {
                session.set_lobby(false);
                self.shared.lobby.unsubscribe(session.player);
                self.ok(id);
                Ok(())
            }
            ClientMessage::Seek {
                variant,
                clock,
                rated,
            } => self.seek(&session, from, (variant, clock, rated)),
            ClientMessage::CancelSeek => {
                let Some(key) = session.seek() else {
                    return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
                };
                if !session.end_seek(key) {
                    return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
                }
                self.shared.registry.cancel_seek(session.player, key);
                self.ok(id);
                Ok(())
            }
            ClientMessage::CreateRoom {
                variant,
                clock,
                private,
                rated,
            } => {
                check_clock(clock)?;
                self.check_not_stopping()?;
                if session.room_count() >= MAX_OPEN_ROOMS {
                    return refuse(
                        ErrorCode::LimitReached,
                        format!(
                            "you may have at most {MAX_OPEN_ROOMS} open rooms; close one first"
                        ),
                    );
                }
                let per_ip = self.shared.config.max_rooms_per_ip;
                let Some(slot) = self.shared.registry.room_slot(self.network, per_ip) else {
                    return refuse(
                        ErrorCode::LimitReached,
                        format!(
                            "at most {per_ip} rooms may be open from one address; wait for one to \
                             be joined or closed"
                        ),
                    );
                };
                let room = self.shared.registry.open_room(
                    session.clone(),
                    variant,
                    clock,
                    private,
                    rated,
                    Some(slot),
                );
                session.add_room(&room.code);
                let shown = invite_code::display(&room.code);
                self.out.reply(
                    id,
                    ServerMessage::RoomCreated {
                        code: shown,
                        variant,
                        clock,
                        private,
                    },
                );
                if !private {
                    self.shared.lobby.add_room(room.info());
                }
                Ok(())
            }
            ClientMessage::CloseRoom { code } => {
                let room = invite_code::parse(&code)
                    .and_then(|code| self.shared.registry.close_room(&code, session.player));
                let Some(room) = room else {
                    return refuse(
                        ErrorCode::NoSuchRoom,
                        "you have no open room with that code",
                    );
                };
                session.remove_room(&room.code);
                if !room.private {
                    self.shared
                        .lobby
                        .remove_room(&invite_code::display(&room.code));
                }
                self.ok(id);
                Ok(())
            }
            ClientMessage::JoinRoom { code } => {
                let Some(code) = invite_code::parse(&code) else {
                    return refuse(ErrorCode::NoSuchRoom, "no open room has that code");
                };
                self.check_not_stopping()?;
                let room = match self.shared.registry.take_room(&code, session.player) {
                    Ok(room) => room,
                    Err(JoinRoomError::NoSuchRoom) => {
                        return refuse(ErrorCode::NoSuchRoom, "no open room has that code");
                    }
                    Err(JoinRoomError::OwnRoom) => {
                        return refuse(ErrorCode::OwnRoom, "you cannot join your own room");
                    }
                };
                room.host.remove_room(&room.code);
                if !room.private {
                    self.shared
                        .lobby
                        .remove_room(&invite_code::display(&room.code));
                }
                let mut seats = [
                    SeatSetup::Human(room.host.clone()),
                    SeatSetup::Human(session.clone()),
                ];
                if fastrand_bool() {
                    seats.swap(0, 1);
                }
                let game = game::start(
                    &self.shared,
                    Setup {
                        variant: room.variant,
                        kind: GameKind::Human,
                        seats,
                        clock: room.clock,
                        owner: None,
                        rated: room.rated,
                        listed: !room.private,
                        rematch_of: None,
                        requester: Some(from),
                        watcher: None,
                        on_end: None,
                    },
                )?;
                if room.private {
                    self.shared.registry.set_game_code(game, &room.code);
                }
                Ok(())
            }
            ClientMessage::PlayAi {
                variant,
                level,
                side,
                clock,
            } => {
                check_clock(clock)?;
                let human_is_x = match side {
                    SideChoice::X => true,
                    SideChoice::O => false,
                    SideChoice::Random => fastrand_bool(),
                };
                let human = SeatSetup::Human(session.clone());
                let ai = SeatSetup::Ai(level);
                let seats = if human_is_x { [human, ai] } else { [ai, human] };
                self.start_own_game(
                    &session,
                    Setup {
                        variant,
                        kind: GameKind::Ai,
                        seats,
                        clock,
                        owner: None,
                        rated: false,
                        listed: true,
                        rematch_of: None,
                        requester: Some(from),
                        watcher: None,
                        on_end: None,
                    },
                )
            }
            ClientMessage::StartWar {
                variant,
                x_level,
                o_level,
            } => self.start_own_game(
                &session,
                Setup {
                    watcher: Some((session.clone(), from)),
                    ..Setup::war(variant, x_level, o_level)
                },
            ),
            ClientMessage::Watch { game, code } => {
                // A private game answers as if it did not exist, so ids cannot be probed.
                if !self
                    .shared
                    .registry
                    .may_watch(game, session.player, code.as_deref())
                {
                    return Err(no_such_game(game));
                }
                let handle = self.game(game)?;
                session.set_watching(game, true);
                if !handle
                    .send(Command::Watch {
                        session: session.clone(),
                        from,
                    })
                    .await
                {
                    session.set_watching(game, false);
                    return refuse(ErrorCode::NoSuchGame, "no live game has that id");
                }
                Ok(())
            }
            ClientMessage::Unwatch { game } => {
                session.set_watching(game, false);
                let handle = self.game(game)?;
                let conn = self.out.conn;
                self.forward(
                    &handle,
                    Command::Unwatch {
                        player: session.player,
                        conn,
                        from: Some(from),
                    },
                )
                .await
            }
            ClientMessage::Move { game, cell } => {
                let handle = self.game(game)?;
                self.forward(&handle, Command::Move { from, cell }).await
            }
            ClientMessage::Resign { game } => {
                let handle = self.game(game)?;
                self.forward(&handle, Command::Resign { from }).await
            }
            ClientMessage::Rematch { game } => {
                let handle = self.game(game)?;
                self.forward(&handle, Command::Rematch { from }).await
            }
            ClientMessage::Chat { game, text } => {
                let text = sanitize(&text).trim().to_owned();
                if text.is_empty() {
                    return refuse(ErrorCode::BadChat, "a chat line needs some visible text");
                }
                if text.chars().count() > MAX_CHAT_CHARS {
                    return refuse(
                        ErrorCode::BadChat,
                        format!("a chat line has at most {MAX_CHAT_CHARS} characters"),
                    );
                }
                let handle = self.game(game)?;
                if !self.chat.take(Instant::now()) {
                    return refuse(ErrorCode::RateLimited, "too many chat lines; slow down");
                }
                let name = session.name.clone();
                self.forward(&handle, Command::Chat { from, name, text })
                    .await
            }
            ClientMessage::Leaderboard {
                variant,
                offset,
                limit,
            } => {
                self.leaderboard(id, variant, offset, limit);
                Ok(())
            }
            ClientMessage::History {
                player,
                before,
                limit,
            } => {
                let player = player.unwrap_or(session.player);
                self.history(id, player, before, limit, session.player);
                Ok(())
            }
            ClientMessage::GameRecord { game } => {
                self.record(id, game, session.player);
                Ok(())
            }
            ClientMessage::Profile { player } => {
                self.profile(id, player.unwrap_or(session.player));
                Ok(())
            }
        }
    }

    fn seek(&mut self, session: &Arc<Session>, from: Requester, key: SeekKey) -> Reply {
        let (variant, clock, rated) = key;
        check_clock(clock)?;
        self.check_not_stopping()?;
        if session.seek().is_some() {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        // Over its address's cap, a seek may still meet one that waits, but may not wait itself.
        let per_ip = self.shared.config.max_seeks_per_ip;
        let slot = self.shared.registry.seek_slot(self.network, per_ip);
        let may_wait = slot.is_some();
        if !session.start_seek(key, slot) {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        let seeking = ServerMessage::Seeking { variant, clock };
        if may_wait {
            // Before joining the queue, so a match made at once is told after it.
            self.out.reply(from.id.clone(), seeking.clone());
        }
        let Some(opponent) = self.shared.registry.seek(session, key, may_wait) else {
            if may_wait {
                return Ok(());
            }
            session.end_seek(key);
            return refuse(
                ErrorCode::LimitReached,
                format!("at most {per_ip} seeks may wait from one address; try again soon"),
            );
        };
        if !may_wait {
            self.out.reply(from.id.clone(), seeking);
        }
        session.end_seek(key);
        self.shared.registry.cancel_seek(session.player, key);
        let mut seats = [
            SeatSetup::Human(opponent.clone()),
            SeatSetup::Human(session.clone()),
        ];
        if fastrand_bool() {
            seats.swap(0, 1);
        }
        let started = game::start(
            &self.shared,
            Setup {
                variant,
                kind: GameKind::Human,
                seats,
                clock,
                owner: None,
                rated,
                listed: true,
                rematch_of: None,
                requester: None,
                watcher: None,
                on_end: None,
            },
        );
        if let Err(refusal) = started {
            // Both seekers hear why; the reply to the seek was already sent.
            for out in [opponent.outbound(), session.outbound()]
                .into_iter()
                .flatten()
            {
                out.error(None, refusal.code, refusal.message.clone());
            }
        }
        Ok(())
    }

    /// Starts a game against the AI or between AIs for `session`, within its limit of such games.
    fn start_own_game(&mut self, session: &Arc<Session>, mut setup: Setup) -> Reply {
        if !session.start_game(MAX_STARTED_GAMES) {
            return refuse(
                ErrorCode::LimitReached,
                format!("you may have at most {MAX_STARTED_GAMES} AI games running at once"),
            );
        }
        let (on_end, ended) = oneshot::channel();
        setup.on_end = Some(on_end);
        setup.owner = Some(session.player);
        if let Err(refusal) = game::start(&self.shared, setup) {
            session.game_ended();
            return Err(refusal);
        }
        let session = session.clone();
        self.shared.tasks.spawn(async move {
            // Ended, or closed without ending (which only happens at shutdown).
            let _ = ended.await;
            session.game_ended();
        });
        Ok(())
    }

    fn game(&self, id: GameId) -> Result<GameHandle, Refusal> {
        self.shared
            .registry
            .game(id)
            .ok_or_else(|| no_such_game(id))
    }

    async fn forward(&self, handle: &GameHandle, command: Command) -> Reply {
        if handle.send(command).await {
            Ok(())
        } else {
            refuse(ErrorCode::NoSuchGame, "that game has just closed")
        }
    }

    fn ok(&self, id: Option<RequestId>) {
        if id.is_some() {
            self.out.reply(id, ServerMessage::Ok);
        }
    }

    fn check_not_stopping(&self) -> Reply {
        if self.shared.stop_games.is_cancelled() {
            return refuse(ErrorCode::ShuttingDown, "the server is shutting down");
        }
        Ok(())
    }
}

fn no_such_game(id: GameId) -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, format!("no live game has id {id}"))
}

/// Checks a requested clock against the documented ranges.
fn check_clock(clock: Option<ClockSpec>) -> Reply {
    let Some(clock) = clock else {
        return Ok(());
    };
    if clock.initial_ms == 0 || clock.initial_ms > MAX_CLOCK_MS {
        return refuse(
            ErrorCode::BadClock,
            format!("initial_ms must be from 1 to {MAX_CLOCK_MS}"),
        );
    }
    if clock.increment_ms > MAX_INCREMENT_MS {
        return refuse(
            ErrorCode::BadClock,
            format!("increment_ms must be at most {MAX_INCREMENT_MS}"),
        );
    }
    Ok(())
}

/// A coin toss for sides.
fn fastrand_bool() -> bool {
    noughts_engine::Rng::new().bool()
}
