//! Taking over the games of a node that stopped, in a cluster. The store (PostgreSQL, shared by
//! every node) holds every live game's log; a game whose lease no node holds has lost its node.
//! Every lease time, each node looks for such games and takes over those whose lease it wins,
//! by the path a restart takes: restored from the store with the same board, `seq` and clocks.
//! A player who comes back to a node first has that node take over their games at once, so that
//! they find them there.

use std::sync::Arc;

use noughts_protocol::PlayerId;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::game;
use crate::shared::Shared;
use crate::sitter::Sitter;
use crate::store::{LiveGame, now_ms};

/// Takes over, every lease time until `stop`, the live games no node holds.
pub(crate) async fn keep_taking_over(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(leases) = shared.leases.clone() else {
        return;
    };
    loop {
        tokio::select! {
            () = tokio::time::sleep(leases.cluster().lease()) => {}
            () = stop.cancelled() => return,
        }
        take_over(&shared, |_| true).await;
    }
}

/// Takes over `player`'s live games that no node holds, before they are welcomed back here.
pub(crate) async fn take_over_games_of(shared: &Arc<Shared>, player: PlayerId) {
    take_over(shared, |game| {
        game.seats
            .iter()
            .any(|seat| matches!(seat, Sitter::Human(p) if p.player == player))
    })
    .await;
}

/// Takes over the orphaned live games `wanted` picks. A game younger than two lease times is
/// left alone: its node may not have taken its lease yet.
async fn take_over(shared: &Arc<Shared>, wanted: impl Fn(&LiveGame) -> bool) {
    let Some(leases) = &shared.leases else {
        return;
    };
    if shared.stop_games.is_cancelled() {
        return;
    }
    let ids = match shared.store.live_ids().await {
        Ok(ids) => ids,
        Err(err) => {
            warn!(cause = %err, "cannot read the live games to take over");
            return;
        }
    };
    let settled = u64::try_from(2 * leases.cluster().lease().as_millis()).unwrap_or(u64::MAX);
    let mut taken = Vec::new();
    for id in ids {
        if shared.registry.game(id).is_some()
            || !matches!(leases.cluster().owner(id).await, Ok(None))
        {
            continue;
        }
        let game = match shared.store.live_game(id).await {
            Ok(game) => game,
            Err(err) => {
                warn!(cause = %err, game = id.0, "cannot read a live game to take over");
                continue;
            }
        };
        if !wanted(&game) || now_ms().saturating_sub(game.start.started_ms) < settled {
            continue;
        }
        if leases.take(id).await {
            info!(game = id.0, "taking over a game whose node is gone");
            taken.push(game);
        }
    }
    if !taken.is_empty() {
        game::restore_all(shared, taken);
    }
}
