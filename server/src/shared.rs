//! What every task of the server shares: the configuration, the cluster, the registry, the store, the lobby,
//! the metrics, the AI's permits, the verdicts on finished games, the task trackers and the two shutdown signals. It knows no task:
//! connections, handlers and games hold it; it holds none of them.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::account::{Attempts, Live, Passwords, Quotas};
use crate::analysis::Analyses;
use crate::cluster::Cluster;
use crate::cluster::games::{Publication, RemoteWatches};
use crate::cluster::leases::Leases;
use crate::cluster::links::{Links, StandIns};
use crate::cluster::mail::Marks;
use crate::config::Config;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::moderation::Moderation;
use crate::ops::health::Health;
use crate::registry::Registry;
use crate::store::Store;

/// What every task of the server shares.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The knobs, fixed for the server's life.
    pub config: Config,
    /// The cluster this node belongs to; `None` for a lone server.
    pub cluster: Option<Cluster>,
    /// The leases of the games this node plays, in a cluster.
    pub leases: Option<Arc<Leases>>,
    /// Where this node's listed games publish what their watchers get, for other nodes' watchers.
    pub publications: Option<tokio::sync::mpsc::UnboundedSender<Publication>>,
    /// This node's watchers of games other nodes hold.
    pub remote_watches: Option<Arc<RemoteWatches>>,
    /// This node's connections that reach games on other nodes.
    pub links: Links,
    /// The stand-ins this node runs for other nodes' connections.
    pub stand_ins: StandIns,
    /// Requests to other nodes waiting for their answer.
    pub marks: Marks,
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
    /// What operators scrape.
    pub metrics: Arc<Metrics>,
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
    /// Whether the node is ready for players, and draining.
    pub health: Arc<Health>,
    /// The moderation log as this node has folded it: mutes, blocks, bans, reserved names.
    pub moderation: Arc<Moderation>,
}
