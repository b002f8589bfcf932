//! Prometheus metrics for operators: a registry per server, updated where connections open and
//! close, games start and end, watchers come and go, moves are played, the AI thinks, frames are
//! dropped and errors are sent. The metrics port (`crate::ops::port`) serves it.

use std::time::Duration;

use noughts_protocol::ErrorCode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use crate::store::FlushSeries;

/// The label of the dependency series: what the node depends on, `redis` (a node of a
/// cluster) or its store by kind, `postgres`, `sqlite` or `memory`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct DependencyLabel {
    pub(crate) dependency: &'static str,
}

/// The buckets of a probe's round trip: from half a millisecond to about 4 s, twice as wide
/// each; a probe gives up at 2 s.
fn probe_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 14))
}

/// The series the probes keep, (`crate::ops::health`), registered with the server's others.
#[derive(Debug, Clone)]
pub(crate) struct HealthSeries {
    /// Whether each dependency answered its last probe (1) or not (0): the first thing to look
    /// at when players are refused or games pause.
    pub up: Family<DependencyLabel, Gauge>,
    /// Each probe's round trip, by dependency: a Redis or PostgreSQL that slows down shows here
    /// before it fails.
    pub latency: Family<DependencyLabel, Histogram, fn() -> Histogram>,
    /// What `/readyz` answers now (1 ready, 0 not): what the balancer sees of this node.
    pub ready: Gauge,
}

impl Default for HealthSeries {
    fn default() -> HealthSeries {
        HealthSeries {
            up: Family::default(),
            latency: Family::new_with_constructor(probe_histogram),
            ready: Gauge::default(),
        }
    }
}

impl HealthSeries {
    /// Records a probe of `dependency`: whether it answered, and how long it took to answer or
    /// to fail.
    pub(crate) fn probed(&self, dependency: &'static str, up: bool, took: Duration) {
        let label = DependencyLabel { dependency };
        self.up.get_or_create(&label).set(i64::from(up));
        self.latency
            .get_or_create(&label)
            .observe(took.as_secs_f64());
    }
}

/// The label of `noughts_errors_total`: the protocol's error code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct CodeLabel {
    code: &'static str,
}

/// The label of `noughts_bad_upgrades_total`: why the upgrade was refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

/// One server's metrics. Cheap to update: each is an atomic, and errors a lookup by code.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    /// WebSocket connections being served.
    pub connections: Gauge,
    /// Games being played; read from the registry when scraped.
    live_games: Gauge,
    /// Tasks alive in the server's runtime (connections, games, timers); read from the runtime
    /// when scraped, so that a leak of tasks shows as a count that only grows.
    tasks: Gauge,
    /// Watchers over all games.
    pub watchers: Gauge,
    /// Moves played, by people and AI seats.
    pub moves: Counter,
    /// How long each AI search took, in seconds.
    pub ai_think: Histogram,
    /// Connections dropped for reading too slowly: their outbound queue filled, or a write waited
    /// too long.
    pub queue_drops: Counter,
    /// Error replies sent, by code.
    errors: Family<CodeLabel, Counter>,
    /// WebSocket upgrades refused, by reason.
    bad_upgrades: Family<ReasonLabel, Counter>,
    /// What the health probes keep: whether each dependency answers and how fast, and what
    /// `/readyz` answers.
    pub health: HealthSeries,
    /// Leases of live games this node holds: the games it plays in a cluster.
    #[allow(
        dead_code,
        reason = "counted where it happens, as the cluster code learns to"
    )]
    pub leases_held: Gauge,
    /// Leases this node lost to another node or to time (it could not renew them): each is a
    /// game it stopped serving, a sign of Redis trouble or of a node too slow to renew.
    #[allow(
        dead_code,
        reason = "counted where it happens, as the cluster code learns to"
    )]
    pub leases_lost: Counter,
    /// Games this node took over from a node that stopped renewing their leases: a node died,
    /// stalled or was cut off from Redis.
    #[allow(
        dead_code,
        reason = "counted where it happens, as the cluster code learns to"
    )]
    pub leases_taken_over: Counter,
    /// Games on this node paused because it cannot confirm its lease (Redis unreachable): their
    /// players wait, so this should be zero but for seconds.
    #[allow(
        dead_code,
        reason = "counted where it happens, as the cluster code learns to"
    )]
    pub games_paused: Gauge,
    /// Messages from other nodes dropped because their MAC did not verify: something that is
    /// not a node (or a node with the wrong secret) writes to the cluster's Redis.
    #[allow(
        dead_code,
        reason = "counted where it happens, as the cluster code learns to"
    )]
    pub forged_messages: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new(Counter::default(), &FlushSeries::default())
    }
}

impl Metrics {
    /// A server's metrics, `noughts_store_errors_total` being the store's own count
    /// ([`crate::store::Store::errors`]).
    pub(crate) fn new(store_errors: Counter, flush: &FlushSeries) -> Metrics {
        let mut registry = Registry::with_prefix("noughts");
        let connections = Gauge::default();
        let live_games = Gauge::default();
        let tasks = Gauge::default();
        let watchers = Gauge::default();
        let moves = Counter::default();
        // From 0.1 ms to about 6.5 s, four times wider each.
        let ai_think = Histogram::new(exponential_buckets(0.0001, 4.0, 9));
        let queue_drops = Counter::default();
        let errors = Family::<CodeLabel, Counter>::default();
        registry.register(
            "connections",
            "WebSocket connections being served",
            connections.clone(),
        );
        registry.register(
            "live_games",
            "Games being played (war games included)",
            live_games.clone(),
        );
        registry.register(
            "tasks",
            "Tasks alive in the server's async runtime",
            tasks.clone(),
        );
        registry.register("watchers", "Watchers over all games", watchers.clone());
        registry.register(
            "moves",
            "Moves played, by people and AI seats",
            moves.clone(),
        );
        registry.register_with_unit(
            "ai_think",
            "Time an AI search took",
            Unit::Seconds,
            ai_think.clone(),
        );
        registry.register(
            "outbound_drops",
            "Connections dropped because they read too slowly: their queue filled or a write stalled",
            queue_drops.clone(),
        );
        registry.register("errors", "Error replies sent, by code", errors.clone());
        let bad_upgrades = Family::<ReasonLabel, Counter>::default();
        registry.register(
            "bad_upgrades",
            "WebSocket upgrades refused with an HTTP error, by reason",
            bad_upgrades.clone(),
        );
        let health = HealthSeries::default();
        registry.register(
            "dependency_up",
            "Whether each dependency (redis, or the store: postgres, sqlite, memory) answered its last health probe",
            health.up.clone(),
        );
        registry.register_with_unit(
            "dependency_latency",
            "Round trip of each dependency's health probe",
            Unit::Seconds,
            health.latency.clone(),
        );
        registry.register(
            "ready",
            "What /readyz answers now: 1 ready, 0 not",
            health.ready.clone(),
        );
        // Store jobs (writes and reads) that failed: the database refused, lost its connection
        // or could not commit. The store counts them; a rising count means moves are refused.
        registry.register(
            "store_errors",
            "Store writes and reads that failed",
            store_errors.clone(),
        );
        // With `--durability interval`: how the database's commits reach the disk.
        registry.register(
            "store_flush_interval_seconds",
            "The longest a committed write may wait to reach the disk (0: each is on disk before it is answered)",
            flush.interval.clone(),
        );
        registry.register_with_unit(
            "store_flush_lag",
            "How old the oldest written but unflushed write was when a flush made it durable",
            Unit::Seconds,
            flush.lag.clone(),
        );
        registry.register(
            "store_flushes",
            "Flushes that made the database's written commits durable",
            flush.flushes.clone(),
        );
        let leases_held = Gauge::default();
        registry.register(
            "leases_held",
            "Leases of live games this node holds",
            leases_held.clone(),
        );
        let leases_lost = Counter::default();
        registry.register(
            "leases_lost",
            "Leases of live games this node lost (to another node, or not renewed in time)",
            leases_lost.clone(),
        );
        let leases_taken_over = Counter::default();
        registry.register(
            "leases_taken_over",
            "Games this node took over from a node that stopped renewing their leases",
            leases_taken_over.clone(),
        );
        let games_paused = Gauge::default();
        registry.register(
            "games_paused",
            "Games on this node paused until it can confirm their leases",
            games_paused.clone(),
        );
        let forged_messages = Counter::default();
        registry.register(
            "forged_messages",
            "Messages from other nodes dropped because their MAC did not verify",
            forged_messages.clone(),
        );
        Metrics {
            registry,
            connections,
            live_games,
            tasks,
            watchers,
            moves,
            ai_think,
            queue_drops,
            errors,
            bad_upgrades,
            health,
            leases_held,
            leases_lost,
            leases_taken_over,
            games_paused,
            forged_messages,
        }
    }
}

impl Metrics {
    /// Counts an error reply.
    pub(crate) fn error(&self, code: ErrorCode) {
        self.errors
            .get_or_create(&CodeLabel {
                code: code.as_str(),
            })
            .inc();
    }

    /// Counts a refused WebSocket upgrade, by its reason's label.
    pub(crate) fn bad_upgrade(&self, reason: &'static str) {
        self.bad_upgrades
            .get_or_create(&ReasonLabel { reason })
            .inc();
    }

    /// The metrics in the OpenMetrics text format, with `live_games` and the runtime's tasks as of
    /// now (the tasks stay as they were when called outside a runtime).
    pub(crate) fn encode(&self, live_games: usize) -> String {
        self.live_games
            .set(i64::try_from(live_games).unwrap_or(i64::MAX));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let tasks = runtime.metrics().num_alive_tasks();
            self.tasks.set(i64::try_from(tasks).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// A part of a gauge held by one owner (a connection, a game's watchers), given back when the
/// owner is dropped, so the gauge cannot drift whatever way the owner ends.
#[derive(Debug)]
pub(crate) struct GaugeShare {
    gauge: Gauge,
    held: i64,
}

impl GaugeShare {
    pub(crate) fn new(gauge: &Gauge) -> GaugeShare {
        GaugeShare {
            gauge: gauge.clone(),
            held: 0,
        }
    }

    /// Makes this owner's part `count`.
    pub(crate) fn set(&mut self, count: usize) {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        if count != self.held {
            self.gauge.inc_by(count - self.held);
            self.held = count;
        }
    }
}

impl Drop for GaugeShare {
    fn drop(&mut self) {
        self.gauge.dec_by(self.held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_is_named_as_documented() {
        let metrics = Metrics::default();
        metrics.connections.inc();
        metrics.moves.inc();
        metrics.ai_think.observe(0.002);
        metrics.error(ErrorCode::IllegalMove);
        metrics
            .health
            .probed("redis", true, Duration::from_millis(3));
        let text = metrics.encode(3);
        for line in [
            "noughts_connections 1",
            "noughts_live_games 3",
            "noughts_tasks 0",
            "noughts_watchers 0",
            "noughts_moves_total 1",
            "noughts_ai_think_seconds_count 1",
            "noughts_outbound_drops_total 0",
            "noughts_errors_total{code=\"illegal_move\"} 1",
            "noughts_ready 0",
            "noughts_store_errors_total 0",
            "noughts_leases_held 0",
            "noughts_leases_lost_total 0",
            "noughts_leases_taken_over_total 0",
            "noughts_games_paused 0",
            "noughts_forged_messages_total 0",
            "noughts_dependency_up{dependency=\"redis\"} 1",
            "noughts_dependency_latency_seconds_count{dependency=\"redis\"} 1",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }

    #[test]
    fn a_share_is_given_back_when_dropped() {
        let gauge = Gauge::default();
        let mut a = GaugeShare::new(&gauge);
        let mut b = GaugeShare::new(&gauge);
        a.set(3);
        b.set(1);
        a.set(2);
        assert_eq!(gauge.get(), 3);
        drop(a);
        assert_eq!(gauge.get(), 1);
        drop(b);
        assert_eq!(gauge.get(), 0);
    }
}
