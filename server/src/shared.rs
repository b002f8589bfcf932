//! What every task of the server shares: the configuration, the registry, the store and the
//! lobby, which every node has; the engine's work outside the games; the accounts and what players
//! may do; the tasks and the two shutdown signals; what the operator watches; and the cluster's
//! parts as one `Option`. It knows no task: connections, handlers and games hold it; it holds
//! none of them.

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
use crate::league::Leagues;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::moderation::Moderation;
use crate::ops::health::Health;
use crate::registry::Registry;
use crate::store::Store;

/// What every task of the server shares: what every node has to play, in fields of its own;
/// the accounts, the lifecycle and the operator's view, a part each; and the cluster's parts, as
/// one [`Wing`].
#[derive(Debug)]
pub(crate) struct Shared {
    /// The knobs, fixed for the server's life.
    pub config: Config,
    /// Every shared index: games, players, seeks, rooms and the counts kept of them.
    pub registry: Registry,
    /// Where players, games, moves and ratings are kept.
    pub store: Store,
    /// The lobby's listings and subscribers.
    pub lobby: Lobby,
    /// The engines' league on each war variant, and who follows it.
    pub leagues: Leagues,
    /// The engine's work outside the games' own tasks: the AI's moves and the analyses.
    pub engine: Engine,
    /// Who a player is and what they may do: passwords, guesses, quotas, open sessions and
    /// moderation.
    pub accounts: Accounts,
    /// The server's tasks, and the two signals that stop them in turn.
    pub lifecycle: Lifecycle,
    /// What the operator watches the node by.
    pub operator: Operator,
    /// The cluster's parts this node holds; `None` for a lone server, which knows no more of
    /// the cluster than that.
    pub wing: Option<Wing>,
}

/// The engine's work outside the games' own tasks, each kind bounded by its own permits.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Permits for AI searches ([`Config::ai_threads`]).
    pub ai_slots: Arc<Semaphore>,
    /// The engine's verdicts on finished games, kept, and the permits to work out more.
    pub analyses: Analyses,
}

/// Who a player is and what they may do.
#[derive(Debug)]
pub(crate) struct Accounts {
    /// Hashes and checks passwords, a few at a time.
    pub passwords: Passwords,
    /// The count of password guesses, per account and per address.
    pub attempts: Attempts,
    /// What one address or player may pile up: registrations, accounts, reports.
    pub quotas: Quotas,
    /// The token each open connection holds, to close those of a session that was ended.
    pub live: Live,
    /// The moderation log as this node has folded it: mutes, blocks, bans, reserved names.
    pub moderation: Arc<Moderation>,
}

/// The server's tasks and the signals that stop them: games first, then connections.
#[derive(Debug)]
pub(crate) struct Lifecycle {
    /// Game actors, AI searches and war-game keepers, so shutdown can wait for them.
    pub tasks: TaskTracker,
    /// Connection tasks, so shutdown can wait for every goodbye.
    pub connections: TaskTracker,
    /// Cancelled first at shutdown: games end as aborted and no new ones start.
    pub stop_games: CancellationToken,
    /// Cancelled once the games have stopped: connections say goodbye and close.
    pub stop_connections: CancellationToken,
}

/// What the operator watches the node by.
#[derive(Debug)]
pub(crate) struct Operator {
    /// What operators scrape.
    pub metrics: Arc<Metrics>,
    /// Whether the node is ready for players, and draining.
    pub health: Arc<Health>,
}
