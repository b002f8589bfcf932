//! The cluster's side of the war games: only the node holding a variant's war slot plays its war
//! game, so each runs once. The holder notes in Redis which game is its variant's war game, and a
//! node that comes to hold the slot (its holder died or stopped) carries that game on, taken over
//! from the store, rather than start another.

use std::sync::Arc;

use noughts_protocol::{GameId, Variant};
use tokio::time::sleep;
use tracing::{info, warn};

use super::setup::EndWait;
use crate::cluster::Cluster;
pub(super) use crate::cluster::slot::Slot;
use crate::game;
use crate::shared::Shared;

/// What the holder of a variant's slot goes on with.
pub(super) enum Held {
    /// The war game it has just taken over: hears when it ends.
    CarryOn(EndWait),
    /// A new war game, to be started (then noted with [`note`]).
    Start,
}

/// In a cluster, `variant`'s war slot, kept (held when this node may) until the games stop;
/// `None` on a lone server.
pub(super) fn hold(shared: &Arc<Shared>, variant: Variant) -> Option<Slot> {
    let cluster = shared.wing.as_ref()?.cluster.clone();
    let slot = Slot::default();
    let stop = shared.lifecycle.stop_games.clone();
    let keeper = slot.clone().keep(cluster, slot_name(variant), stop);
    shared.lifecycle.tasks.spawn(keeper);
    Some(slot)
}

/// The name of `variant`'s war slot.
pub(crate) fn slot_name(variant: Variant) -> String {
    format!("war:{variant}")
}

/// Whether `game` is noted in the cluster as its variant's war game.
pub(crate) async fn is_current(cluster: &Cluster, variant: Variant, game: GameId) -> bool {
    matches!(cluster.work(&slot_name(variant)).await, Ok(Some(id)) if id == game.0)
}

/// What the holder of a variant's slot does next.
enum Next {
    /// Plays this war game, which it has just taken over.
    CarryOn(EndWait),
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
    // Its players' connections, here and on other nodes, reach it (a league's bots play it).
    match game::restore_and_reach(shared, vec![live])
        .await
        .remove(&variant)
    {
        Some(ended) => Next::CarryOn(ended),
        None => {
            // It could not be restored (and said why): another war game takes its place.
            leases.give_back(game);
            Next::Start
        }
    }
}

/// Notes `game` in the cluster as `variant`'s war game, just started by this node.
pub(super) async fn note(shared: &Arc<Shared>, variant: Variant, game: GameId) {
    let Some(wing) = shared.wing.as_ref() else {
        return;
    };
    if let Err(err) = wing.cluster.note_work(&slot_name(variant), game.0).await {
        warn!(cause = %err, %variant, "cannot note the war game being played");
    }
}

/// Waits until this node holds `variant`'s slot and may go on, then carries on the
/// variant's war game or says to start the next; `None` once the server stops.
pub(super) async fn next_held(shared: &Arc<Shared>, slot: &Slot, variant: Variant) -> Option<Held> {
    let cluster = &shared.wing.as_ref()?.cluster;
    let stop = shared.lifecycle.stop_games.clone();
    loop {
        // The slot as it stands now, not as it stood at its last renewal.
        if slot.held()
            && cluster
                .claim_slot(&slot_name(variant))
                .await
                .unwrap_or(false)
        {
            match next(shared, cluster, variant).await {
                Next::CarryOn(ended) => return Some(Held::CarryOn(ended)),
                // The league's next pairing after whatever the last holder counted.
                Next::Start => return Some(Held::Start),
                Next::Wait => {}
            }
        }
        tokio::select! {
            () = sleep(cluster.lease() / 3) => {}
            () = stop.cancelled() => return None,
        }
    }
}
