//! War games: the server keeps an AI-vs-AI game running for each configured variant, starting the
//! next one a few seconds after each ends, so there is always something to watch. In a cluster,
//! only the node holding a variant's war slot starts its war games, so each runs once.

use std::collections::HashMap;
use std::sync::Arc;

use noughts_protocol::Variant;
use tokio::sync::oneshot;
use tokio::time::sleep;
use tracing::warn;

use crate::cluster::slot::Slot;
use crate::game::{self, Setup};
use crate::shared::Shared;

/// Starts the first war game of every variant at once (so the lobby lists them from the start),
/// and a keeper per variant that starts the next. A variant whose war game was restored from the
/// store keeps that one (`restored` tells when it ends) rather than start another.
pub(crate) fn start(shared: &Arc<Shared>, mut restored: HashMap<Variant, oneshot::Receiver<()>>) {
    for variant in shared.config.war_variants.clone() {
        let slot = shared.cluster.clone().map(|cluster| {
            let slot = Slot::default();
            let name = format!("war:{variant}");
            let stop = shared.stop_games.clone();
            shared.tasks.spawn(slot.clone().keep(cluster, name, stop));
            slot
        });
        let first = match (restored.remove(&variant), &slot) {
            (Some(ended), _) => Some(ended),
            (None, None) => start_one(shared, variant),
            // A node of a cluster starts one only once it holds the variant's slot.
            (None, Some(_)) => None,
        };
        shared
            .tasks
            .spawn(keep(shared.clone(), variant, first, slot));
    }
}

/// Starts one war game; the receiver hears when it ends.
fn start_one(shared: &Arc<Shared>, variant: Variant) -> Option<oneshot::Receiver<()>> {
    let (x, o) = shared.config.war_levels;
    let (on_end, ended) = oneshot::channel();
    let setup = Setup {
        on_end: Some(on_end),
        ..Setup::war(variant, x, o)
    };
    match game::start(shared, setup) {
        Ok(_) => Some(ended),
        Err(refusal) => {
            warn!(%variant, %refusal, "could not start a war game");
            None
        }
    }
}

/// Waits for each war game of `variant` to end, then starts the next after the restart delay
/// (in a cluster, once this node holds the variant's slot).
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
        if let (Some(slot), Some(cluster)) = (&slot, &shared.cluster) {
            while !slot.held() {
                tokio::select! {
                    () = sleep(cluster.lease() / 3) => {}
                    () = stop.cancelled() => return,
                }
            }
        }
        current = start_one(&shared, variant);
        if current.is_none() {
            tokio::select! {
                () = sleep(shared.config.war_restart_delay) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}
