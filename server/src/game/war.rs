//! War games: the server keeps an AI-vs-AI game running for each configured variant, starting the
//! next one a few seconds after each ends, so there is always something to watch. In a cluster,
//! only the node holding a variant's war slot plays its war game, so each runs once: the holder
//! notes in Redis which game is its variant's war game, and a node that comes to hold the slot
//! (its holder died or stopped) carries that game on, taken over from the store, rather than
//! start another; a war game of the server's that is not its variant's is ended (see
//! `takeover`).

use std::collections::HashMap;
use std::sync::Arc;

use noughts_protocol::{GameId, GameKind, Variant};
use tokio::sync::oneshot;
use tokio::time::sleep;
use tracing::{info, warn};

use crate::cluster::Cluster;
use crate::cluster::slot::Slot;
use crate::game::{self, Setup};
use crate::shared::Shared;
use crate::store::GameStart;

/// Starts the first war game of every variant at once (so the lobby lists them from the start),
/// and a keeper per variant that starts the next. A variant whose war game was restored from the
/// store keeps that one (`restored` tells when it ends) rather than start another.
pub(crate) fn start(shared: &Arc<Shared>, mut restored: HashMap<Variant, oneshot::Receiver<()>>) {
    for variant in shared.config.war_variants.clone() {
        let slot = shared
            .wing
            .as_ref()
            .map(|wing| wing.cluster.clone())
            .map(|cluster| {
                let slot = Slot::default();
                let stop = shared.stop_games.clone();
                shared
                    .tasks
                    .spawn(slot.clone().keep(cluster, slot_name(variant), stop));
                slot
            });
        let first = match (restored.remove(&variant), &slot) {
            (Some(ended), _) => Some(ended),
            (None, None) => start_one(shared, variant).map(|(_, ended)| ended),
            // A node of a cluster starts one only once it holds the variant's slot.
            (None, Some(_)) => None,
        };
        shared
            .tasks
            .spawn(keep(shared.clone(), variant, first, slot));
    }
}

/// The name of `variant`'s war slot.
fn slot_name(variant: Variant) -> String {
    format!("war:{variant}")
}

/// Whether `start` is a war game of the server's own (not one a player started).
pub(crate) fn is_the_servers(start: &GameStart) -> bool {
    start.kind == GameKind::War && start.owner.is_none()
}

/// Whether `game` is noted in the cluster as its variant's war game.
pub(crate) async fn is_current(cluster: &Cluster, variant: Variant, game: GameId) -> bool {
    matches!(cluster.work(&slot_name(variant)).await, Ok(Some(id)) if id == game.0)
}

/// Starts one war game; its id, and the receiver that hears when it ends.
fn start_one(shared: &Arc<Shared>, variant: Variant) -> Option<(GameId, oneshot::Receiver<()>)> {
    let (x, o) = shared.config.war_levels;
    let (on_end, ended) = oneshot::channel();
    let setup = Setup {
        on_end: Some(on_end),
        ..Setup::war(variant, x, o)
    };
    match game::start(shared, setup) {
        Ok(id) => Some((id, ended)),
        Err(refusal) => {
            warn!(%variant, %refusal, "could not start a war game");
            None
        }
    }
}

/// What the holder of a variant's slot does next.
enum Next {
    /// Plays this war game, which it has just taken over.
    CarryOn(oneshot::Receiver<()>),
    /// Starts a new one: no war game of the variant is being played.
    Start,
    /// Waits: the variant's war game is still held elsewhere (its node plays it to its end, or
    /// died and its lease has yet to run out), or a gone node's listings have yet to be swept.
    Wait,
}

/// What the node that has just come to hold `variant`'s slot does: carry on the war game the
/// last holder noted (or, if Redis forgot it, the newest the store has live), if it is still
/// being played and no node holds it; wait while one does; start another only when there is
/// none.
async fn next(shared: &Arc<Shared>, cluster: &Cluster, variant: Variant) -> Next {
    let Some(leases) = shared.wing.as_ref().map(|wing| &wing.leases) else {
        return Next::Start;
    };
    let noted = match cluster.work(&slot_name(variant)).await {
        Ok(noted) => noted.map(GameId),
        Err(err) => {
            warn!(cause = %err, %variant, "cannot ask which war game is being played");
            return Next::Wait;
        }
    };
    // Redis forgot which (a restart without its data, or a flush): the store still knows the
    // variant's war games, and the newest goes on; the others end when no node holds them.
    let noted = match noted {
        Some(game) => Some(game),
        None => match shared.store.live_war_games(variant).await {
            Ok(live) => live.first().copied(),
            Err(err) => {
                warn!(cause = %err, %variant, "cannot read the live war games");
                return Next::Wait;
            }
        },
    };
    let Some(game) = noted else {
        return Next::Start;
    };
    if let Err(err) = cluster.note_work(&slot_name(variant), game.0).await {
        warn!(cause = %err, %variant, "cannot note the war game being played");
        return Next::Wait;
    }
    if shared.registry.games.get(game).is_some() {
        // Played here already, by an earlier keeper of this node: it ends by itself.
        return Next::Wait;
    }
    match shared.store.live_ids().await {
        Ok(live) if !live.contains(&game) => return Next::Start,
        Ok(_) => {}
        Err(err) => {
            warn!(cause = %err, "cannot read the live games");
            return Next::Wait;
        }
    }
    match cluster.owner(game).await {
        Ok(None) => {}
        Ok(Some(_)) | Err(_) => return Next::Wait,
    }
    // The dead node's listing of the game is swept before this node lists it again, so that the
    // sweep does not take this node's listing for the dead node's.
    if !cluster.gone_nodes().await.is_ok_and(|gone| gone.is_empty()) {
        return Next::Wait;
    }
    if !leases.take(game).await {
        return Next::Wait;
    }
    // Read under the epoch just taken: whatever its last holder stored is in it.
    let live = match shared.store.live_game(game).await {
        Ok(live) => live,
        Err(err) => {
            warn!(cause = %err, game = game.0, "cannot read the war game to carry on");
            leases.give_back(game);
            return Next::Wait;
        }
    };
    info!(game = game.0, %variant, "carrying on the war game another node played");
    match game::restore_all(shared, vec![live]).remove(&variant) {
        Some(ended) => Next::CarryOn(ended),
        None => {
            // It could not be restored (and said why): another war game takes its place.
            leases.give_back(game);
            Next::Start
        }
    }
}

/// Waits for each war game of `variant` to end, then starts the next after the restart delay
/// (in a cluster, once this node holds the variant's slot, carrying on the last holder's war
/// game if there is one).
async fn keep(
    shared: Arc<Shared>,
    variant: Variant,
    mut current: Option<oneshot::Receiver<()>>,
    slot: Option<Slot>,
) {
    let stop = shared.stop_games.clone();
    loop {
        if let Some(ended) = current.take() {
            tokio::select! {
                _ = ended => {}
                () = stop.cancelled() => return,
            }
            tokio::select! {
                () = sleep(shared.config.war_restart_delay) => {}
                () = stop.cancelled() => return,
            }
        }
        current = match (&slot, shared.wing.as_ref().map(|wing| &wing.cluster)) {
            (Some(slot), Some(cluster)) => match held_next(&shared, slot, cluster, variant).await {
                Some(next) => next,
                None => return,
            },
            _ => start_one(&shared, variant).map(|(_, ended)| ended),
        };
        if current.is_none() {
            tokio::select! {
                () = sleep(shared.config.war_restart_delay) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}

/// In a cluster: waits until this node holds `variant`'s slot and may go on, then carries on the
/// variant's war game or starts the next (noting it); `None` once the server stops.
async fn held_next(
    shared: &Arc<Shared>,
    slot: &Slot,
    cluster: &Cluster,
    variant: Variant,
) -> Option<Option<oneshot::Receiver<()>>> {
    let stop = shared.stop_games.clone();
    loop {
        // The slot as it stands now, not as it stood at its last renewal.
        if slot.held()
            && cluster
                .claim_slot(&slot_name(variant))
                .await
                .unwrap_or(false)
        {
            match next(shared, cluster, variant).await {
                Next::CarryOn(ended) => return Some(Some(ended)),
                Next::Start => {
                    let Some((game, ended)) = start_one(shared, variant) else {
                        return Some(None);
                    };
                    if let Err(err) = cluster.note_work(&slot_name(variant), game.0).await {
                        warn!(cause = %err, %variant, "cannot note the war game being played");
                    }
                    return Some(Some(ended));
                }
                Next::Wait => {}
            }
        }
        tokio::select! {
            () = sleep(cluster.lease() / 3) => {}
            () = stop.cancelled() => return None,
        }
    }
}
