//! Moderation enforced on this node: reading the moderation log forward: at start, every second (`follow`), and at once after this
//! node wrote a fact (`catch_up`); and doing what the new facts ask of the running server (a
//! banned player's connections closed, an ended game aborted).

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::ErrorCode;
use tracing::{info, warn};

use crate::moderation::{Effect, OVERLAP};
use crate::net::outbound::Close;
use crate::shared::Shared;
use crate::store::MODERATION_PAGE;

/// How often a node reads the log for what other nodes and the operator wrote.
pub(crate) const POLL: Duration = Duration::from_secs(1);

/// Reads the log every [`POLL`] until the server stops.
pub(crate) async fn follow(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shared.lifecycle.stop_connections.cancelled() => return,
            _ = tick.tick() => catch_up(&shared).await,
        }
    }
}

/// Folds in every fact of the log not yet folded (and the last [`OVERLAP`] again), and does what
/// the new ones ask.
pub(crate) async fn catch_up(shared: &Arc<Shared>) {
    let moderation = &shared.accounts.moderation;
    let _reading = moderation.reading().await;
    loop {
        let from = moderation.state().applied;
        let facts = match shared
            .store
            .moderation_since(from.saturating_sub(OVERLAP))
            .await
        {
            Ok(facts) => facts,
            Err(err) => {
                warn!(cause = %err, "cannot read the moderation log");
                return;
            }
        };
        let full = facts.len() >= MODERATION_PAGE as usize;
        let effects: Vec<Effect> = {
            let mut state = moderation.state_mut();
            facts
                .iter()
                .filter_map(|fact| {
                    let new = fact.id > from;
                    state.apply(fact).filter(|_| new)
                })
                .collect()
        };
        for effect in effects {
            act(shared, effect).await;
        }
        if !full || moderation.state().applied == from {
            return;
        }
    }
}

/// Does what a new fact asks of this node.
async fn act(shared: &Arc<Shared>, effect: Effect) {
    match effect {
        Effect::Ban(player, reason) => {
            let Some(session) = shared.registry.session(player) else {
                return;
            };
            info!(player = player.0, "a banned player's connections closed");
            for out in session.outbounds() {
                out.error(None, ErrorCode::Banned, banned_message(&reason));
                out.close(Close::BANNED);
            }
        }
        Effect::EndGame(game) => {
            if let Some(handle) = shared.registry.games.get(game) {
                info!(game = game.0, "the operator ended a game");
                handle.end_by_operator().await;
            }
        }
    }
}

/// What a banned player is told.
pub(crate) fn banned_message(reason: &str) -> String {
    if reason.is_empty() {
        "you are banned from this server".to_owned()
    } else {
        format!("you are banned from this server: {reason}")
    }
}
