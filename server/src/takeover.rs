//! Taking over the games of a node that stopped, in a cluster. The store (PostgreSQL, shared by
//! every node) holds every live game's log; a game whose lease no node holds has lost its node.
//! Every lease time, each node looks for such games and takes over those whose lease it wins,
//! by the path a restart takes: restored from the store with the same board, `seq` and clocks.
//! A player who comes back to a node has that node take over their games first, so that they
//! find them there. A game seen without a holder only once is left alone: its node may be taking
//! its lease at that moment.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameId, PlayerId};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::cluster::leases::Leases;
use crate::game;
use crate::shared::Shared;
use crate::store::LiveGame;

/// Takes over, every lease time until `stop`, the live games no node holds. A game is taken
/// only once it has been seen without a holder twice, a lease time apart: a player coming back
/// to some node meanwhile has that node take it, so that they find it where they are.
pub(crate) async fn keep_taking_over(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(leases) = shared.leases.clone() else {
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
    let Some(leases) = shared.leases.clone() else {
        return alive;
    };
    let Ok(ids) = shared.store.live_ids_of(player).await else {
        return alive;
    };
    let cluster = leases.cluster();
    let mut elsewhere: Vec<GameId> = ids
        .into_iter()
        .filter(|&game| shared.registry.game(game).is_none())
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
            if shared.registry.game(*game).is_some() {
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
        .filter(|&game| shared.registry.game(game).is_none())
        .collect();
    let owners = leases
        .cluster()
        .owners(&ids)
        .await
        .map_err(|err| err.to_string())?;
    Ok(ids.into_iter().zip(owners).collect())
}

/// Takes over those of `games` that `wanted` picks and whose lease this node wins.
async fn take(
    shared: &Arc<Shared>,
    leases: &Leases,
    games: Vec<GameId>,
    wanted: impl Fn(&LiveGame) -> bool,
) {
    if shared.stop_games.is_cancelled() {
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
        if wanted(&game) && leases.take(id).await {
            info!(game = id.0, "taking over a game whose node is gone");
            taken.push(game);
        }
    }
    if !taken.is_empty() {
        game::restore_all(shared, taken);
    }
}
