//! The games by id, and how the rest of the server reaches one: a [`GameHandle`], played here
//! ([`LocalGame`], its actor's queue) or, in a cluster, on another node (`RemoteGame`, typed
//! requests mailed to that node). A player's requests ([`Ask`]) go through either the same way;
//! the node's own business with its games (attach, step down, the operator's end) only through
//! a [`LocalGame`], whose methods are everything one can ask of an actor. Nothing outside
//! `game` sees the actor itself or builds a [`Command`]. [`Games`] holds the live and recently
//! finished games' handles, the private ones and who may watch them, and the count of live
//! games against the node's cap.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;
use noughts_protocol::{ClaimOutcome, ClientMessage, GameId, PlayerId, RequestId};
use subtle::ConstantTimeEq;
use tokio::sync::{mpsc, oneshot};

use super::ids::Ids;
#[cfg(feature = "cluster")]
use crate::cluster::remote_game::RemoteGame;
use crate::lobby::invite_code;
use crate::net::outbound::{ConnId, Outbound};
use crate::rules::Speaker;
use crate::session::Session;
use crate::store::GameStart;

/// A game from a private room: only its players, and those who give the room's code, may watch.
#[derive(Debug, Clone)]
struct Hidden {
    /// The people who play in it.
    players: Vec<PlayerId>,
    /// The canonical invite code of the room it came from (a rematch keeps it); unknown for a
    /// game restored after a restart, which then only its players may watch.
    code: Option<String>,
}

/// The games by id, and the count of those being played.
#[derive(Debug, Default)]
pub(crate) struct Games {
    /// Live and recently finished games, by id, for every request that names a game.
    by_id: DashMap<GameId, LocalGame>,
    /// Games from private rooms, by id: the players and code that may watch them.
    hidden: DashMap<GameId, Hidden>,
    /// Game ids; never reused.
    pub(super) ids: Ids,
    /// Games started and not yet ended, for [`crate::config::Config::max_games`].
    live: AtomicUsize,
}

impl Games {
    /// A fresh game id, if one can be had (see [`Ids::next`]).
    pub(crate) fn next_id(&self) -> Option<GameId> {
        self.ids.next().map(GameId)
    }

    pub(crate) fn add(&self, id: GameId, handle: LocalGame) {
        self.by_id.insert(id, handle);
    }

    pub(crate) fn get(&self, id: GameId) -> Option<LocalGame> {
        self.by_id.get(&id).map(|g| g.clone())
    }

    pub(crate) fn remove(&self, id: GameId) {
        self.by_id.remove(&id);
        self.hidden.remove(&id);
    }

    /// Marks a game that is not listed (one from a private room) as watchable only by its
    /// players and, once known, by whoever has the room's code; a rematch keeps the code of the
    /// game it follows. Called before the game is added, so it is never watchable unchecked.
    pub(crate) fn hide_unlisted(&self, start: &GameStart) {
        if start.listed {
            return;
        }
        let players = start
            .seats
            .iter()
            .filter_map(|seat| seat.human().copied())
            .collect();
        let code = start
            .rematch_of
            .and_then(|of| self.hidden.get(&of).and_then(|h| h.code.clone()));
        self.hidden.insert(start.game, Hidden { players, code });
    }

    /// Records the invite code of a hidden game's room.
    pub(crate) fn set_code(&self, id: GameId, code: &str) {
        if let Some(mut hidden) = self.hidden.get_mut(&id) {
            hidden.code = Some(code.to_owned());
        }
    }

    /// Whether `player` may watch game `id`, giving `code` (as typed): any listed game, and a
    /// game from a private room if they play in it or give its code. Codes compare in constant
    /// time.
    pub(crate) fn may_watch(&self, id: GameId, player: PlayerId, code: Option<&str>) -> bool {
        let Some(hidden) = self.hidden.get(&id) else {
            return true;
        };
        if hidden.players.contains(&player) {
            return true;
        }
        match (code.and_then(invite_code::parse), &hidden.code) {
            (Some(given), Some(code)) => given.as_bytes().ct_eq(code.as_bytes()).into(),
            _ => false,
        }
    }

    /// Counts a game that starts, unless `limit` are being played already.
    pub(crate) fn start_live(&self, limit: usize) -> bool {
        self.live
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
                (live < limit).then_some(live + 1)
            })
            .is_ok()
    }

    /// Games being played now.
    pub(crate) fn live_count(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }

    /// A game that was being played has ended.
    pub(crate) fn end_live(&self) {
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Commands queued per game before senders wait.
pub(crate) const COMMAND_QUEUE: usize = 256;

/// A game a player's request reaches.
#[derive(Debug)]
pub(crate) enum GameHandle {
    /// Played on this node.
    Local(LocalGame),
    /// Played on another node of the cluster.
    #[cfg(feature = "cluster")]
    Remote(Box<RemoteGame>),
}

/// What became of a request handed to a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// It reached the game, which answers the requester itself.
    Done,
    /// The game has closed meanwhile.
    Closed,
    /// The node that held the game is gone (it died or handed its games over).
    NodeGone,
    /// The cluster cannot be reached to carry it.
    Unreachable,
}

impl Sent {
    fn of(reached: bool) -> Sent {
        if reached { Sent::Done } else { Sent::Closed }
    }
}

/// A player's request about a game they play in (chat may come from a watcher too).
#[derive(Debug, Clone)]
pub(crate) enum Ask {
    /// Put a mark on `cell`.
    Move {
        cell: usize,
    },
    Resign,
    Rematch,
    /// Offer a draw, or accept the opponent's offer.
    OfferDraw,
    /// Ask to take the last move back, or accept the opponent's request.
    Takeback,
    /// Decline the opponent's pending offer.
    Decline,
    /// Withdraw one's own pending offer.
    CancelOffer,
    /// Claim the game while the opponent is away.
    Claim {
        outcome: ClaimOutcome,
    },
    /// End the game with no result before both sides have moved.
    Abort,
    /// A chat line, already cleaned and checked, from `speaker`; `watching` when they watch the
    /// game from another node.
    Chat {
        speaker: Speaker,
        text: String,
        watching: bool,
    },
}

impl Ask {
    /// The command the game's actor is given for it.
    fn command(self, from: Requester) -> Command {
        match self {
            Ask::Move { cell } => Command::Move { from, cell },
            Ask::Resign => Command::Resign { from },
            Ask::Rematch => Command::Rematch { from },
            Ask::OfferDraw => Command::OfferDraw { from },
            Ask::Takeback => Command::Takeback { from },
            Ask::Decline => Command::Decline { from },
            Ask::CancelOffer => Command::CancelOffer { from },
            Ask::Claim { outcome } => Command::Claim { from, outcome },
            Ask::Abort => Command::Abort { from },
            Ask::Chat {
                speaker,
                text,
                watching,
            } => Command::Chat {
                from,
                speaker,
                text,
                watching,
            },
        }
    }

    /// The request another node is sent for it about `game`: the protocol's own message, which
    /// that node serves as it would its own connection's (the speaker is who the player is).
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    fn message(self, game: GameId) -> ClientMessage {
        match self {
            Ask::Move { cell } => ClientMessage::Move { game, cell },
            Ask::Resign => ClientMessage::Resign { game },
            Ask::Rematch => ClientMessage::Rematch { game },
            Ask::OfferDraw => ClientMessage::OfferDraw { game },
            Ask::Takeback => ClientMessage::Takeback { game },
            Ask::Decline => ClientMessage::Decline { game },
            Ask::CancelOffer => ClientMessage::CancelOffer { game },
            Ask::Claim { outcome } => ClientMessage::Claim { game, outcome },
            Ask::Abort => ClientMessage::Abort { game },
            Ask::Chat { text, .. } => ClientMessage::Chat { game, text },
        }
    }
}

impl GameHandle {
    /// Hands `ask` from `from` to the game, wherever it is played.
    pub(crate) async fn ask(&self, from: Requester, ask: Ask) -> Sent {
        match self {
            GameHandle::Local(game) => Sent::of(game.send(ask.command(from)).await),
            #[cfg(feature = "cluster")]
            GameHandle::Remote(game) => {
                let watching = matches!(ask, Ask::Chat { watching: true, .. });
                let message = ask.message(game.id());
                remote_sent(
                    game.request(from.out.conn, from.id, message, watching)
                        .await,
                )
            }
        }
    }

    /// Starts watching (or, for a player, sends the snapshot again); `code` is the private
    /// game's invite code, which its own node checks.
    pub(crate) async fn watch(
        &self,
        session: Arc<Session>,
        from: Requester,
        code: Option<String>,
    ) -> Sent {
        match self {
            GameHandle::Local(game) => {
                let _ = code;
                Sent::of(game.watch(session, from).await)
            }
            #[cfg(feature = "cluster")]
            GameHandle::Remote(game) => {
                let message = ClientMessage::Watch(noughts_protocol::Watch {
                    game: game.id(),
                    code,
                });
                remote_sent(game.request(from.out.conn, from.id, message, false).await)
            }
        }
    }

    /// Stops watching.
    pub(crate) async fn unwatch(&self, from: Requester) -> Sent {
        match self {
            GameHandle::Local(game) => Sent::of(game.unwatch(from.out.conn, Some(from)).await),
            #[cfg(feature = "cluster")]
            GameHandle::Remote(game) => {
                let message = ClientMessage::Unwatch { game: game.id() };
                remote_sent(game.request(from.out.conn, from.id, message, false).await)
            }
        }
    }
}

/// What became of a request mailed to another node.
#[cfg(feature = "cluster")]
fn remote_sent(mailed: Result<bool, crate::cluster::ClusterError>) -> Sent {
    match mailed {
        Ok(true) => Sent::Done,
        Ok(false) => Sent::NodeGone,
        Err(err) => {
            tracing::warn!(cause = %err, "cannot hand a request to the node that plays its game");
            Sent::Unreachable
        }
    }
}

/// How to reach the actor of a game played here.
#[derive(Debug, Clone)]
pub(crate) struct LocalGame {
    /// The actor's command queue; bounded, so a flood waits rather than piles up.
    tx: mpsc::Sender<Command>,
}

impl LocalGame {
    /// The handle of the actor that reads `tx`'s queue.
    pub(crate) fn new(tx: mpsc::Sender<Command>) -> LocalGame {
        LocalGame { tx }
    }

    /// Queues a command; false if the game has closed meanwhile. Each of the methods below
    /// answers false when the game has closed.
    async fn send(&self, command: Command) -> bool {
        self.tx.send(command).await.is_ok()
    }

    /// The player leaves for good (it logged out): resigns if the game is live, says nothing
    /// otherwise.
    pub(crate) async fn leave(&self, player: PlayerId) -> bool {
        self.send(Command::Leave { player }).await
    }

    /// The server's operator ends the game: aborted, unrated, both players told.
    pub(crate) async fn end_by_operator(&self) -> bool {
        self.send(Command::EndByOperator).await
    }

    /// This node's lease on the game lapsed or was lost: it stops being served here at once.
    pub(crate) async fn step_down(&self) -> bool {
        self.send(Command::StepDown).await
    }

    /// Node `node` has `count` watchers of this game (a cluster's other nodes watch it through
    /// what it publishes).
    pub(crate) async fn remote_watchers(&self, node: String, count: usize) -> bool {
        self.send(Command::RemoteWatchers { node, count }).await
    }

    /// Starts watching (or, for a player, sends the snapshot again).
    pub(crate) async fn watch(&self, session: Arc<Session>, from: Requester) -> bool {
        self.send(Command::Watch { session, from }).await
    }

    /// Stops watching; `from` is absent when the connection went away rather than asked.
    pub(crate) async fn unwatch(&self, conn: ConnId, from: Option<Requester>) -> bool {
        self.send(Command::Unwatch { conn, from }).await
    }

    /// A player's new connection; returns once its snapshot is queued there, so a resume keeps
    /// the documented order.
    pub(crate) async fn attach(&self, player: PlayerId, out: Outbound) -> bool {
        let (done, answered) = oneshot::channel();
        if !self.send(Command::Attach { player, out, done }).await {
            return false;
        }
        let _ = answered.await;
        true
    }

    /// A player's connection `conn` went away.
    pub(crate) async fn detach(&self, player: PlayerId, conn: ConnId) -> bool {
        self.send(Command::Detach { player, conn }).await
    }
}

/// Who asked for something, where to answer, and the id the answer echoes.
#[derive(Debug, Clone)]
pub(crate) struct Requester {
    /// Who asks: decides whether they sit in the game.
    pub player: PlayerId,
    /// Their connection, for the reply.
    pub out: Outbound,
    /// The request's id, echoed by the reply.
    pub id: Option<RequestId>,
}

/// What a game is asked to do.
#[derive(Debug)]
pub(crate) enum Command {
    /// A player puts a mark on `cell`.
    Move {
        from: Requester,
        cell: usize,
    },
    Resign {
        from: Requester,
    },
    Rematch {
        from: Requester,
    },
    OfferDraw {
        from: Requester,
    },
    Takeback {
        from: Requester,
    },
    Decline {
        from: Requester,
    },
    CancelOffer {
        from: Requester,
    },
    /// The player claims the game while the opponent is away.
    Claim {
        from: Requester,
        outcome: ClaimOutcome,
    },
    Abort {
        from: Requester,
    },
    /// The server's operator ends the game (aborted).
    EndByOperator,
    /// This node's lease on the game lapsed or was lost: the game steps down here.
    StepDown,
    /// The player leaves for good: resign if live, nothing otherwise.
    Leave {
        player: PlayerId,
    },
    /// `text` is already cleaned and checked; `watching` if the speaker watches from another
    /// node.
    Chat {
        from: Requester,
        /// Who speaks, as the line shows them.
        speaker: Speaker,
        text: String,
        watching: bool,
    },
    /// Another node's count of this game's watchers.
    RemoteWatchers {
        node: String,
        count: usize,
    },
    /// Start watching (or, for a player, get the snapshot again).
    Watch {
        session: Arc<Session>,
        from: Requester,
    },
    /// Stop watching; `from` is absent when the connection went away rather than asked.
    Unwatch {
        conn: ConnId,
        from: Option<Requester>,
    },
    /// A player's new connection: send the snapshot there from now on. `done` is dropped once the
    /// snapshot is queued, so the connection can keep the documented order of a resume.
    Attach {
        player: PlayerId,
        out: Outbound,
        done: oneshot::Sender<()>,
    },
    /// A player's connection `conn` went away.
    Detach {
        player: PlayerId,
        conn: ConnId,
    },
    /// The AI seat to move at ply `ply` chose `cell`, after `takebacks` takebacks (a move
    /// chosen before a takeback is for a position that is gone).
    AiMove {
        ply: u32,
        cell: usize,
        takebacks: u32,
    },
}
