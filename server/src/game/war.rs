//! War games: the server keeps an AI-vs-AI game running for each configured variant, starting the
//! next one a few seconds after each ends, so there is always something to watch. They are the
//! engines' league's games (see `crate::league`): each is the round robin's next pairing after
//! the games the store has counted, and its end is counted as it is stored. In a cluster, only
//! the node holding a variant's war slot plays its war game (see `war_slot`); a war game of the
//! server's that is not its variant's is ended (see `takeover`).

use std::collections::HashMap;
use std::sync::Arc;

use noughts_protocol::{ClockSpec, GameId, GameKind, Level, Variant};
use tokio::sync::oneshot;
use tokio::time::sleep;
use tracing::warn;

use super::setup::EndWait;
#[cfg(feature = "cluster")]
use super::war_slot::{self, Held, Slot};
use crate::game::{self, Setup};
use crate::rules::sitter::Sitter;
use crate::session::Session;
use crate::shared::Shared;
use crate::store::GameStart;

/// A bot's time a move in a league game: its clock starts with this much and gains as much a
/// move (the levels think for the war games' budget a move).
const BOT_MOVE_MS: u64 = 10_000;

/// A lone server's war slot: there is none.
#[cfg(not(feature = "cluster"))]
type Slot = std::convert::Infallible;

/// Starts the first war game of every variant at once (so the lobby lists them from the start),
/// and a keeper per variant that starts the next. A variant whose war game was restored from the
/// store keeps that one (`restored` tells when it ends) rather than start another.
pub(crate) async fn start(shared: &Arc<Shared>, mut restored: HashMap<Variant, EndWait>) {
    for variant in shared.config.war_variants.clone() {
        #[cfg(feature = "cluster")]
        let slot = war_slot::hold(shared, variant);
        #[cfg(not(feature = "cluster"))]
        let slot: Option<Slot> = None;
        let first = match (restored.remove(&variant), &slot) {
            (Some(ended), _) => Some(ended),
            (None, None) => {
                let seats = next_seats(shared, variant).await;
                start_one(shared, variant, seats).map(|(_, ended)| ended)
            }
            // A node of a cluster starts one only once it holds the variant's slot.
            (None, Some(_)) => None,
        };
        let keeper = keep(shared.clone(), variant, first, slot);
        shared.lifecycle.tasks.spawn(keeper);
    }
    let told = shared.clone();
    shared.lifecycle.tasks.spawn(async move {
        let stop = told.lifecycle.stop_games.clone();
        let store = told.store.clone();
        told.leagues.keep_followers_told(store, stop).await;
    });
}

/// Whether `start` is a war game of the server's own (not one a player started).
pub(crate) fn is_the_servers(start: &GameStart) -> bool {
    start.kind == GameKind::War && start.owner.is_none()
}

/// The seats of `variant`'s next league game: the league's next pairing whose bots (if any)
/// are connected here, or stand in here for their connections to other nodes.
async fn next_seats(shared: &Arc<Shared>, variant: Variant) -> [Sitter<Arc<Session>>; 2] {
    let here = |player| {
        let session = shared.registry.session(player)?;
        (session.is_bot() && session.is_connected()).then_some(session)
    };
    shared.leagues.next(&shared.store, variant, here).await
}

/// Starts one war game between `seats` (X's, O's); its id, and the receiver that hears when
/// it ends. A game with a bot in a seat is played on the league's clock for bots.
fn start_one(
    shared: &Arc<Shared>,
    variant: Variant,
    seats: [Sitter<Arc<Session>>; 2],
) -> Option<(GameId, EndWait)> {
    let clock = seats
        .iter()
        .any(|seat| seat.human().is_some())
        .then_some(ClockSpec {
            initial_ms: BOT_MOVE_MS,
            increment_ms: BOT_MOVE_MS,
        });
    let (on_end, ended) = oneshot::channel();
    let setup = Setup {
        on_end: Some(on_end),
        clock,
        seats,
        ..Setup::war(variant, Level::Perfect, Level::Perfect)
    };
    match game::start(shared, setup) {
        Ok(id) => Some((id, ended)),
        Err(refusal) => {
            warn!(%variant, %refusal, "could not start a war game");
            None
        }
    }
}

/// Waits for each war game of `variant` to end, then starts the next after the restart delay
/// (in a cluster, once this node holds the variant's slot, carrying on the last holder's war
/// game if there is one).
async fn keep(
    shared: Arc<Shared>,
    variant: Variant,
    mut current: Option<EndWait>,
    slot: Option<Slot>,
) {
    let stop = shared.lifecycle.stop_games.clone();
    loop {
        if let Some(ended) = current.take() {
            tokio::select! {
                _ = ended => {}
                () = stop.cancelled() => return,
            }
            // Its end is stored, and counted if it was a league game: the followers hear.
            shared.leagues.ended(&shared.store, variant).await;
            tokio::select! {
                () = sleep(shared.config.war_restart_delay) => {}
                () = stop.cancelled() => return,
            }
        }
        current = match &slot {
            #[cfg(feature = "cluster")]
            Some(slot) => match war_slot::next_held(&shared, slot, variant).await {
                Some(Held::CarryOn(ended)) => Some(ended),
                Some(Held::Start) => {
                    let seats = next_seats(&shared, variant).await;
                    match start_one(&shared, variant, seats) {
                        Some((game, ended)) => {
                            war_slot::note(&shared, variant, game).await;
                            Some(ended)
                        }
                        None => None,
                    }
                }
                None => return,
            },
            #[cfg(not(feature = "cluster"))]
            Some(slot) => match *slot {},
            None => {
                let seats = next_seats(&shared, variant).await;
                start_one(&shared, variant, seats).map(|(_, ended)| ended)
            }
        };
        if current.is_none() {
            tokio::select! {
                () = sleep(shared.config.war_restart_delay) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}
