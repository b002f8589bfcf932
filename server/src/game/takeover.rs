//! Taking over the games of a node that stopped, in a cluster. The store (PostgreSQL, shared by
//! every node) holds every live game's log; a game whose lease no node holds has lost its node.
//! Every lease time, each node looks for such games and takes over those whose lease it wins,
//! by the path a restart takes: restored from the store with the same board, `seq` and clocks.
//! A player who comes back to a node has that node take over their games first, so that they
//! find them there. A game seen without a holder only once is left alone: its node may be taking
//! its lease at that moment. A game taken over reaches its players at once wherever they are
//! connected: this node's connections of theirs (and stand-ins) are attached to it here, and the
//! other nodes they are connected to are told, so that their connections there reach it.
//!
//! The server's own war games are not taken over here: the one noted as its variant's war game
//! is carried on by the node that holds the variant's slot (see `war`), and any other is ended,
//! so that each variant has one war game in the cluster, whichever nodes die.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameId, PlayerId, Variant};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::setup::EndWait;
use crate::cluster::leases::Leases;
use crate::game;
use crate::game::{war, war_slot};
use crate::shared::Shared;
use crate::store::{Ending, LiveGame, now_ms};

/// Takes over, every lease time until `stop`, the live games no node holds. A game is taken
/// only once it has been seen without a holder twice, a lease time apart: a player coming back
/// to some node meanwhile has that node take it, so that they find it where they are.
pub(crate) async fn keep_taking_over(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(leases) = shared.wing.as_ref().map(|wing| wing.leases.clone()) else {
        return;
    };
    let mut seen = HashSet::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(leases.cluster().lease()) => {}
            () = stop.cancelled() => return,
        }
        let orphans = match orphans(&shared, &leases).await {
            Ok(orphans) => orphans,
            Err(err) => {
                warn!(cause = %err, "cannot look for games to take over");
                continue;
            }
        };
        let unheld: HashSet<GameId> = orphans
            .into_iter()
            .filter(|(_, owner)| owner.is_none())
            .map(|(game, _)| game)
            .collect();
        let due: Vec<GameId> = unheld.intersection(&seen).copied().collect();
        seen = unheld;
        take(&shared, &leases, due, |_| true).await;
    }
}

/// Takes over `player`'s live games that another node held, before they are welcomed back here.
/// A game whose node has just died is still held for up to a lease time: this waits that long
/// (and a little) for such leases to run out; a node counts as dead as soon as it stops reading
/// its mail, so a killed node's games are waited for from the kill. A game whose node is alive
/// stays there: returns those nodes, for the player's connection to reach its games there.
pub(crate) async fn take_over_games_of(shared: &Arc<Shared>, player: PlayerId) -> Vec<String> {
    let mut alive = Vec::new();
    let Some(leases) = shared.wing.as_ref().map(|wing| wing.leases.clone()) else {
        return alive;
    };
    let Ok(ids) = shared.store.live_ids_of(player).await else {
        return alive;
    };
    let cluster = leases.cluster();
    let mut elsewhere: Vec<GameId> = ids
        .into_iter()
        .filter(|&game| shared.registry.games.get(game).is_none())
        .collect();
    let deadline =
        tokio::time::Instant::now() + leases.cluster().lease() + Duration::from_millis(250);
    let mut dead = Vec::new();
    while !elsewhere.is_empty() {
        let Ok(owners) = cluster.owners(&elsewhere).await else {
            break;
        };
        let mut free = Vec::new();
        for (game, owner) in elsewhere.iter().zip(owners) {
            match owner {
                None => free.push(*game),
                Some(node) if node == cluster.node() => {}
                Some(node) if alive.contains(&node) || dead.contains(&node) => {}
                Some(node) if cluster.is_serving(&node).await => alive.push(node),
                Some(node) => dead.push(node),
            }
        }
        take(shared, &leases, free, |_| true).await;
        // Games on live nodes stay there; the rest are waited for until their leases run out.
        let Ok(owners) = cluster.owners(&elsewhere).await else {
            break;
        };
        let mut left = Vec::new();
        for (game, owner) in elsewhere.iter().zip(owners) {
            if shared.registry.games.get(*game).is_some() {
                continue;
            }
            match owner {
                Some(node) if alive.contains(&node) => {}
                _ => left.push(*game),
            }
        }
        elsewhere = left;
        if elsewhere.is_empty() || tokio::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A game still held when the wait is over is held by a node that lives after all (its
    // mailbox was only being subscribed again): the player reaches it there.
    if let Ok(owners) = cluster.owners(&elsewhere).await {
        for node in owners.into_iter().flatten() {
            if node != cluster.node() && !alive.contains(&node) {
                alive.push(node);
            }
        }
    }
    alive
}

/// The live games this node does not play, each with the node holding it, if any.
async fn orphans(
    shared: &Shared,
    leases: &Leases,
) -> Result<Vec<(GameId, Option<String>)>, String> {
    let ids: Vec<GameId> = shared
        .store
        .live_ids()
        .await
        .map_err(|err| err.to_string())?
        .into_iter()
        .filter(|&game| shared.registry.games.get(game).is_none())
        .collect();
    let owners = leases
        .cluster()
        .owners(&ids)
        .await
        .map_err(|err| err.to_string())?;
    Ok(ids.into_iter().zip(owners).collect())
}

/// Takes over those of `games` that `wanted` picks and whose lease this node wins; a war game of
/// the server's is left to its variant's slot if it is the variant's war game, and ended if not.
async fn take(
    shared: &Arc<Shared>,
    leases: &Arc<Leases>,
    games: Vec<GameId>,
    wanted: impl Fn(&LiveGame) -> bool,
) {
    if shared.lifecycle.stop_games.is_cancelled() {
        return;
    }
    let mut taken = Vec::new();
    for id in games {
        let game = match shared.store.live_game(id).await {
            Ok(game) => game,
            Err(err) => {
                warn!(cause = %err, game = id.0, "cannot read a live game to take over");
                continue;
            }
        };
        if shared.config.war_games && war::is_the_servers(&game.start) {
            end_if_not_current(shared, &game).await;
        } else if wanted(&game) && leases.take(id).await {
            // Read again under the new epoch: a write its last holder made before the epoch was
            // raised is in it, and none can come after.
            match shared.store.live_game(id).await {
                Ok(game) => {
                    info!(game = id.0, "taking over a game no node serves");
                    shared.operator.metrics.leases_taken_over.inc();
                    taken.push(game);
                }
                Err(err) => {
                    warn!(cause = %err, game = id.0, "cannot read a game taken over");
                    leases.give_back(id);
                }
            }
        }
    }
    game::restore_and_reach(shared, taken).await;
}

/// Takes again, as soon as Redis answers (and every lease time), the games that stepped down
/// here because their lease lapsed: at once, without the two sightings a gone node's games wait
/// for, since this node knows it stopped serving them. Another node may win one first: it is
/// that node's then, and the players here reach it there when it tells them.
pub(crate) async fn keep_resuming(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(leases) = shared.wing.as_ref().map(|wing| wing.leases.clone()) else {
        return;
    };
    loop {
        tokio::select! {
            () = leases.answered() => {}
            () = tokio::time::sleep(leases.cluster().lease() / 2) => {}
            () = stop.cancelled() => return,
        }
        if !leases.has_paused() {
            continue;
        }
        // A game still closing here is taken again next time.
        let paused: Vec<GameId> = leases
            .paused()
            .await
            .into_iter()
            .filter(|&game| shared.registry.games.get(game).is_none())
            .collect();
        take(&shared, &leases, paused.clone(), |_| true).await;
        // Those now held (here or elsewhere) or ended are done with; a war game is left to its
        // variant's slot, whose holder takes it within a few lease times.
        let Ok(owners) = leases.cluster().owners(&paused).await else {
            continue;
        };
        let Ok(live) = shared.store.live_ids().await else {
            continue;
        };
        for (game, owner) in paused.into_iter().zip(owners) {
            if owner.is_some() || !live.contains(&game) {
                leases.unpause(game);
            }
        }
    }
}

/// Ends `game`, a war game of the server's that no node holds, unless it is its variant's war
/// game (which the variant's slot holder carries on): a war game another has replaced.
async fn end_if_not_current(shared: &Shared, game: &LiveGame) {
    let Some(leases) = shared.wing.as_ref().map(|wing| &wing.leases) else {
        return;
    };
    let (id, variant) = (game.start.game, game.start.variant);
    if war_slot::is_current(leases.cluster(), variant, id).await || !leases.take(id).await {
        return;
    }
    info!(game = id.0, %variant, "ending a war game another has replaced");
    let ending = Ending {
        seq: game.seq + 1,
        winner: None,
        reason: noughts_protocol::EndReason::Aborted,
        cells: Vec::new(),
        ended_ms: now_ms(),
    };
    if let Err(err) = shared.store.end_game(id, ending).await {
        warn!(cause = %err, game = id.0, "cannot end a war game another has replaced");
    }
    leases.give_back(id);
}

/// Restores, at start, the stored live games: in a cluster only those no other node holds, each
/// with its lease taken, and not the server's war games, which their variants' slots see to; and
/// tells the nodes their players are connected to. Returns what [`game::restore_all`] returns.
pub(crate) async fn restore_at_start(
    shared: &Arc<Shared>,
    live: Vec<LiveGame>,
) -> HashMap<Variant, EndWait> {
    let Some(leases) = shared.wing.as_ref().map(|wing| &wing.leases) else {
        return game::restore_all(shared, live);
    };
    let mut mine = Vec::new();
    for game in live {
        if shared.config.war_games && war::is_the_servers(&game.start) {
            continue;
        }
        if leases.take(game.start.game).await {
            mine.push(game);
        }
    }
    game::restore_and_reach(shared, mine).await
}
