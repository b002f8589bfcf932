//! Games: each one an actor task that owns its connections, seats and watchers, and takes
//! [`Command`]s over a channel; the rules it plays by ([`rules`]) are a pure state machine. Starting a game ([`start`]) is the one way a game comes to be;
//! [`restore_all`] brings back, at start, the games the store says were being played.

mod actor;
mod clock;
#[doc(hidden)]
pub mod rules;
mod seat;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use noughts_protocol::{
    ClockSpec, ErrorCode, GameId, GameKind, Level, PlayerId, RequestId, Variant,
};
use tokio::sync::{mpsc, oneshot};
use tracing::{Instrument, error, info};

use crate::error::Refusal;
use crate::outbound::{ConnId, Outbound};
use crate::server::Shared;
use crate::session::Session;
use crate::store::{GameStart, LiveGame, StoredSeat, now_ms};

/// Commands queued per game before senders wait.
const COMMAND_QUEUE: usize = 256;

/// How to reach a game's actor.
#[derive(Debug, Clone)]
pub(crate) struct GameHandle {
    /// The actor's command queue; bounded, so a flood waits rather than piles up.
    tx: mpsc::Sender<Command>,
}

impl GameHandle {
    /// Queues a command; false if the game has closed meanwhile.
    pub(crate) async fn send(&self, command: Command) -> bool {
        self.tx.send(command).await.is_ok()
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
    /// `text` is already cleaned and checked.
    Chat {
        from: Requester,
        name: String,
        text: String,
    },
    /// Start watching (or, for a player, get the snapshot again).
    Watch {
        session: Arc<Session>,
        from: Requester,
    },
    /// Stop watching; `from` is absent when the connection went away rather than asked.
    Unwatch {
        player: PlayerId,
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
    /// The AI seat to move at ply `ply` chose `cell`.
    AiMove {
        ply: u32,
        cell: usize,
    },
}

/// Who sits in a seat of a new game.
#[derive(Debug, Clone)]
pub(crate) enum SeatSetup {
    Human(Arc<Session>),
    Ai(Level),
}

/// Everything needed to start a game.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The board to play on.
    pub variant: Variant,
    /// Human, AI or war.
    pub kind: GameKind,
    /// X first, then O.
    pub seats: [SeatSetup; 2],
    /// The time control, if the game is timed.
    pub clock: Option<ClockSpec>,
    /// The player whose `play_ai` or `start_war` started it (it counts against their limit).
    pub owner: Option<PlayerId>,
    /// Whether the game counts for ratings (only ever between two people).
    pub rated: bool,
    /// Whether the lobby lists it (private-room games are not listed).
    pub listed: bool,
    /// The game this one is a rematch of.
    pub rematch_of: Option<GameId>,
    /// The player whose request started the game: their snapshot echoes the request id.
    pub requester: Option<Requester>,
    /// Someone who watches from the start (the player who started a war game).
    pub watcher: Option<(Arc<Session>, Requester)>,
    /// Told when the game ends (the war-game keeper waits on it).
    pub on_end: Option<oneshot::Sender<()>>,
}

impl Setup {
    /// An AI-vs-AI war game between `x` and `o`: listed, untimed, unrated, nobody watching yet.
    pub(crate) fn war(variant: Variant, x: Level, o: Level) -> Setup {
        Setup {
            variant,
            kind: GameKind::War,
            seats: [SeatSetup::Ai(x), SeatSetup::Ai(o)],
            clock: None,
            owner: None,
            rated: false,
            listed: true,
            rematch_of: None,
            requester: None,
            watcher: None,
            on_end: None,
        }
    }
}

/// Starts a game: registers it, seats its players and spawns its actor, which sends everyone
/// their first snapshot.
pub(crate) fn start(shared: &Arc<Shared>, setup: Setup) -> Result<GameId, Refusal> {
    if shared.stop_games.is_cancelled() {
        return Err(Refusal::new(
            ErrorCode::ShuttingDown,
            "the server is shutting down",
        ));
    }
    if !shared.registry.start_live_game(shared.config.max_games) {
        return Err(Refusal::new(
            ErrorCode::ServerFull,
            "the server holds as many games as it can",
        ));
    }
    let id = shared.registry.next_game_id();
    let seat = |seat: &SeatSetup| match seat {
        SeatSetup::Human(session) => Ok(session.player),
        SeatSetup::Ai(level) => Err(*level),
    };
    let start = GameStart {
        game: id,
        variant: setup.variant,
        kind: setup.kind,
        seats: [seat(&setup.seats[0]), seat(&setup.seats[1])],
        clock: setup.clock,
        rated: setup.rated,
        listed: setup.listed,
        rematch_of: setup.rematch_of,
        owner: setup.owner,
        started_ms: now_ms(),
    };
    let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
    let weak = tx.downgrade();
    shared.registry.hide_unlisted(&start);
    shared.registry.add_game(id, GameHandle { tx });
    if let Some((session, _)) = &setup.watcher {
        session.set_watching(id, true);
    }
    let game = actor::Game::new(shared.clone(), id, weak, setup, start.started_ms).starting(start);
    let span = tracing::info_span!(parent: None, "game", id = id.0);
    shared.tasks.spawn(game.run(rx).instrument(span));
    Ok(id)
}

/// Brings back the games that were being played when the server stopped: same id, board, `seq`
/// and clocks (the time the server was down is not charged), listed and watchable, their players
/// away until they resume with their tokens. Returns, per variant, the end of a restored war game
/// of the server's own, so the war-game keeper waits for it rather than start another.
pub(crate) fn restore_all(
    shared: &Arc<Shared>,
    live: Vec<LiveGame>,
) -> HashMap<Variant, oneshot::Receiver<()>> {
    let mut wars = HashMap::new();
    let mut sessions = HashSet::new();
    for game in live {
        let id = game.start.game;
        let seats = game.seats.clone().map(|seat| match seat {
            StoredSeat::Human(player) => {
                let session = shared.registry.stored_session(&player);
                if sessions.insert(session.player) {
                    session.mark_away();
                    crate::handler::expire_after_grace(shared, session.clone());
                }
                SeatSetup::Human(session)
            }
            StoredSeat::Ai(level) => SeatSetup::Ai(level),
        });
        let (on_end, ended) = oneshot::channel();
        let start = &game.start;
        let owner = start.owner.and_then(|owner| {
            seats.iter().find_map(|seat| match seat {
                SeatSetup::Human(session) if session.player == owner => Some(session.clone()),
                _ => None,
            })
        });
        let setup = Setup {
            variant: start.variant,
            kind: start.kind,
            seats,
            clock: start.clock,
            owner: start.owner,
            rated: start.rated,
            listed: start.listed,
            rematch_of: start.rematch_of,
            requester: None,
            watcher: None,
            on_end: Some(on_end),
        };
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let game = match actor::Game::restore(shared.clone(), tx.downgrade(), setup, &game) {
            Ok(game) => game,
            Err(err) => {
                error!(game = id.0, cause = %err, "cannot restore a game; it stays as it was stored");
                continue;
            }
        };
        // Restored games count as live whatever the limit: they were already being played.
        shared.registry.start_live_game(usize::MAX);
        shared.registry.hide_unlisted(start);
        shared.registry.add_game(id, GameHandle { tx });
        game.list();
        let span = tracing::info_span!(parent: None, "game", id = id.0);
        shared.tasks.spawn(game.run(rx).instrument(span));
        info!(game = id.0, "restored");
        match (start.kind, start.owner, owner) {
            (GameKind::War, None, _) => {
                wars.insert(start.variant, ended);
            }
            (_, _, Some(session)) => {
                // It counts against its owner's limit until it ends, as when it started.
                session.start_game(usize::MAX);
                shared.tasks.spawn(async move {
                    let _ = ended.await;
                    session.game_ended();
                });
            }
            _ => {}
        }
    }
    wars
}
