//! War games: the server keeps an AI-vs-AI game running for each configured variant, starting the
//! next one a few seconds after each ends, so there is always something to watch.

use std::collections::HashMap;
use std::sync::Arc;

use noughts_protocol::Variant;
use tokio::sync::oneshot;
use tokio::time::sleep;
use tracing::warn;

use crate::game::{self, Setup};
use crate::shared::Shared;

/// Starts the first war game of every variant at once (so the lobby lists them from the start),
/// and a keeper per variant that starts the next. A variant whose war game was restored from the
/// store keeps that one (`restored` tells when it ends) rather than start another.
pub(crate) fn start(shared: &Arc<Shared>, mut restored: HashMap<Variant, oneshot::Receiver<()>>) {
    for variant in shared.config.war_variants.clone() {
        let first = match restored.remove(&variant) {
            Some(ended) => Some(ended),
            None => start_one(shared, variant),
        };
        shared.tasks.spawn(keep(shared.clone(), variant, first));
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

/// Waits for each war game of `variant` to end, then starts the next after the restart delay.
async fn keep(shared: Arc<Shared>, variant: Variant, mut current: Option<oneshot::Receiver<()>>) {
    let stop = shared.stop_games.clone();
    loop {
        if let Some(ended) = current.take() {
            tokio::select! {
                _ = ended => {}
                () = stop.cancelled() => return,
            }
        }
        tokio::select! {
            () = sleep(shared.config.war_restart_delay) => {}
            () = stop.cancelled() => return,
        }
        current = start_one(&shared, variant);
    }
}
