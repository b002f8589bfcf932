//! Games: each one an actor task that owns its connections, seats and watchers, and takes
//! [`Command`]s over a channel; the rules it plays by ([`rules`]) are a pure state machine. Starting a game ([`start`]) is the one way a game comes to be;
//! [`restore_all`] brings back, at start, the games the store says were being played.

mod actor;
mod agreements;
mod audience;
mod ending;
pub(crate) mod expiry;
mod pause;
mod people;
mod retry;
#[doc(hidden)]
mod seat;
mod setup;
mod stored;
#[cfg(feature = "cluster")]
pub(crate) mod takeover;
pub(crate) mod war;
#[cfg(feature = "cluster")]
pub(crate) mod war_slot;

use setup::Starter;
pub(crate) use setup::{Counted, EndWait, Setup};

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameId, GameKind, Variant};
use tokio::sync::{mpsc, oneshot};
use tracing::{Instrument, debug, error, info};

use crate::error::Refusal;
use crate::registry::games::{COMMAND_QUEUE, LocalGame};
use crate::rules::sitter::Sitter;
use crate::session::Session;
use crate::shared::Shared;
use crate::store::{ArenaHold, GameStart, LiveGame, now_ms};

/// Starts a game: registers it, seats its players and spawns its actor, which sends everyone
/// their first snapshot.
pub(crate) fn start(shared: &Arc<Shared>, setup: Setup) -> Result<GameId, Refusal> {
    start_in(shared, setup, None)
}

/// Starts a game an arena's director pairs, as [`start`] does: its row in the arena is stored
/// with it, under the director's fencing epoch (a game its director may no longer pair is
/// called off before anyone sees it).
pub(crate) fn start_in_arena(
    shared: &Arc<Shared>,
    setup: Setup,
    hold: ArenaHold,
) -> Result<GameId, Refusal> {
    start_in(shared, setup, Some(hold))
}

fn start_in(
    shared: &Arc<Shared>,
    setup: Setup,
    arena: Option<ArenaHold>,
) -> Result<GameId, Refusal> {
    if shared.lifecycle.stop_games.is_cancelled() {
        return Err(Refusal::new(
            ErrorCode::ShuttingDown,
            "the server is shutting down",
        ));
    }
    if !shared.registry.games.start_live(shared.config.max_games) {
        return Err(Refusal::new(
            ErrorCode::ServerFull,
            "the server holds as many games as it can",
        ));
    }
    let Some(id) = shared.registry.games.next_id() else {
        shared.registry.games.end_live();
        return Err(Refusal::new(
            ErrorCode::ServerFull,
            "the server cannot start games just now",
        ));
    };
    let seat = |seat: &Sitter<Arc<Session>>| seat.as_ref().map(|session| session.player);
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
    shared.registry.games.hide_unlisted(&start);
    shared.registry.games.add(id, LocalGame::new(tx));
    if let Some(wing) = &shared.wing {
        let humans = start.seats.iter().filter_map(|seat| seat.human());
        wing.started(id, humans.map(|player| player.0).collect());
    }
    if let Some((session, _)) = &setup.watcher {
        session.set_watching(id, true);
    }
    let game = actor::Game::new(
        shared.clone(),
        id,
        weak,
        setup,
        start.started_ms,
        self::start as Starter,
    )
    .starting(start, arena);
    let span = tracing::info_span!(parent: None, "game", id = id.0);
    shared.lifecycle.tasks.spawn(game.run(rx).instrument(span));
    Ok(id)
}

/// Brings back the games that were being played when the server stopped: same id, board, `seq`
/// and clocks (the time the server was down is not charged), listed and watchable, their players
/// away until they resume with their tokens. Returns, per variant, the end of a restored war game
/// of the server's own, so the war-game keeper waits for it rather than start another.
pub(crate) fn restore_all(shared: &Arc<Shared>, live: Vec<LiveGame>) -> HashMap<Variant, EndWait> {
    let mut wars = HashMap::new();
    let mut sessions = HashSet::new();
    for game in live {
        let id = game.start.game;
        let seats = game.seats.clone().map(|seat| {
            seat.map(|player| {
                let session = shared.registry.stored_session(&player);
                // A player already connected here (a node taking over a game) is not away.
                if sessions.insert(session.player) && !session.is_connected() {
                    session.mark_away();
                    crate::game::expiry::expire_after_grace(shared, session.clone());
                }
                session
            })
        });
        let (on_end, ended) = oneshot::channel();
        let start = &game.start;
        let owner = start.owner.and_then(|owner| {
            seats.iter().find_map(|seat| match seat {
                Sitter::Human(session) if session.player == owner => Some(session.clone()),
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
        let game = match actor::Game::restore(
            shared.clone(),
            tx.downgrade(),
            setup,
            self::start as Starter,
            &game,
        ) {
            Ok(game) => game,
            Err(err) => {
                error!(game = id.0, cause = %err, "cannot restore a game; it stays as it was stored");
                continue;
            }
        };
        // Restored games count as live whatever the limit: they were already being played.
        shared.registry.games.start_live(usize::MAX);
        shared.registry.games.hide_unlisted(start);
        shared.registry.games.add(id, LocalGame::new(tx));
        game.list();
        let span = tracing::info_span!(parent: None, "game", id = id.0);
        shared.lifecycle.tasks.spawn(game.run(rx).instrument(span));
        if start.kind == GameKind::War {
            debug!(game = id.0, "restored");
        } else {
            info!(game = id.0, "restored");
        }
        match (start.kind, start.owner, owner) {
            (GameKind::War, None, _) => {
                wars.insert(start.variant, ended);
            }
            (_, _, Some(session)) => {
                // It counts against its owner's limit until it ends, as when it started.
                session.start_game(usize::MAX);
                shared.lifecycle.tasks.spawn(async move {
                    let _ = ended.await;
                    session.game_ended();
                });
            }
            _ => {}
        }
    }
    wars
}

/// Restores `taken` here, and has every connection of their players reach them: those of this
/// node (stand-ins included) are attached here, and the other nodes they are on are told.
#[cfg(feature = "cluster")]
pub(crate) async fn restore_and_reach(
    shared: &Arc<Shared>,
    taken: Vec<LiveGame>,
) -> HashMap<Variant, EndWait> {
    if taken.is_empty() {
        return HashMap::new();
    }
    let players: Vec<(GameId, Vec<noughts_protocol::PlayerId>)> = taken
        .iter()
        .map(|game| {
            let humans = game.seats.iter().filter_map(|seat| match seat {
                Sitter::Human(player) => Some(player.player),
                Sitter::Ai(_) => None,
            });
            (game.start.game, humans.collect())
        })
        .collect();
    let wars = restore_all(shared, taken);
    for (game, seated) in players {
        let Some(handle) = shared.registry.games.get(game) else {
            continue;
        };
        for &player in &seated {
            let Some(session) = shared.registry.session(player) else {
                continue;
            };
            for out in session.outbounds() {
                handle.attach(player, out).await;
            }
        }
        if let Some(cluster) = shared.wing.as_ref().map(|wing| &wing.cluster) {
            cluster.tell_seated(game, seated.iter().map(|player| player.0).collect());
        }
    }
    wars
}
