//! What every task of the server shares: the configuration, the registry, the store, the lobby,
//! the AI's permits, the verdicts on finished games, the task trackers and the two shutdown
//! signals; the cluster's parts as one `Option`; the metrics and health the operator watches. It knows no task:
//! connections, handlers and games hold it; it holds none of them.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::account::{Attempts, Live, Passwords, Quotas};
use crate::analysis::Analyses;
#[cfg(not(feature = "cluster"))]
use crate::cluster::Wing;
#[cfg(feature = "cluster")]
use crate::cluster::wing::Wing;
use crate::config::Config;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::moderation::Moderation;
use crate::ops::health::Health;
use crate::registry::Registry;
use crate::store::Store;

/// What every task of the server shares: what every node has, in fields of its own; the
/// cluster's parts, as one [`Wing`]; and what the operator watches, as one [`Operator`].
#[derive(Debug)]
pub(crate) struct Shared {
    /// The knobs, fixed for the server's life.
    pub config: Config,
    /// The cluster's parts this node holds; `None` for a lone server, which knows no more of
    /// the cluster than that.
    pub wing: Option<Wing>,
    /// Every shared index.
    pub registry: Registry,
    /// Where players, games, moves and ratings are kept.
    pub store: Store,
    /// Hashes and checks passwords, a few at a time.
    pub passwords: Passwords,
    /// The count of password guesses, per account and per address.
    pub attempts: Attempts,
    /// What one address or player may pile up: registrations, accounts, reports.
    pub quotas: Quotas,
    /// The token each open connection holds, to close those of a session that was ended.
    pub live: Live,
    /// The lobby's listings and subscribers.
    pub lobby: Lobby,
    /// Permits for AI searches ([`Config::ai_threads`]).
    pub ai_slots: Arc<Semaphore>,
    /// The engine's verdicts on finished games, kept, and the permits to work out more.
    pub analyses: Analyses,
    /// Game actors, AI searches and war-game keepers, so shutdown can wait for them.
    pub tasks: TaskTracker,
    /// Connection tasks, so shutdown can wait for every goodbye.
    pub connections: TaskTracker,
    /// Cancelled first at shutdown: games end as aborted and no new ones start.
    pub stop_games: CancellationToken,
    /// Cancelled once the games have stopped: connections say goodbye and close.
    pub stop_connections: CancellationToken,
    /// What the operator watches the node by.
    pub operator: Operator,
    /// The moderation log as this node has folded it: mutes, blocks, bans, reserved names.
    pub moderation: Arc<Moderation>,
}

/// What the operator watches the node by.
#[derive(Debug)]
pub(crate) struct Operator {
    /// What operators scrape.
    pub metrics: Arc<Metrics>,
    /// Whether the node is ready for players, and draining.
    pub health: Arc<Health>,
}
