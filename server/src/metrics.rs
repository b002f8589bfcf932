//! Prometheus metrics for operators: a registry per server, updated where connections open and
//! close, games start and end, watchers come and go, moves are played, the AI thinks, frames are
//! dropped and errors are sent; and a small HTTP responder that serves it at `/metrics` on the
//! address given to [`crate::run_with_metrics`], with the health endpoints beside it. It answers
//! only requests addressed to it by its own address (`Host`), so that a page a browser loaded
//! from elsewhere cannot read it by DNS rebinding, and every answer carries the headers the main
//! port's do. Backups and the operator's commands are not served here, but on the operator's
//! socket (`crate::operator`), where the caller is known.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::ErrorCode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, timeout};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn};

use crate::health::{self, Health};
use crate::http::{self, Answer};

/// How long one scrape may take, from accept to the last byte.
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head read; a scraper's is a few hundred bytes.
const MAX_HEAD: usize = 8 * 1024;
/// The exposition format `encode` writes.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

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
    pub health: health::Series,
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
        Metrics::new(Counter::default())
    }
}

impl Metrics {
    /// A server's metrics, `noughts_store_errors_total` being the store's own count
    /// ([`crate::store::Store::errors`]).
    pub(crate) fn new(store_errors: Counter) -> Metrics {
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
        let health = health::Series::default();
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

    /// Counts a refused WebSocket upgrade.
    pub(crate) fn bad_upgrade(&self, refusal: crate::upgrade::Refusal) {
        self.bad_upgrades
            .get_or_create(&ReasonLabel {
                reason: refusal.as_str(),
            })
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

/// What a scrape reads: the metrics, and the count of live games, which the registry keeps; and
/// the node's health, served here too.
pub(crate) struct Source {
    pub metrics: Arc<Metrics>,
    pub live_games: Box<dyn Fn() -> usize + Send + Sync>,
    pub health: Arc<Health>,
}

/// Serves the metrics over HTTP on `listener` until `stop` is cancelled; each scrape is a task of
/// `tasks`, so shutdown waits for it.
pub(crate) async fn serve(
    source: Source,
    listener: TcpListener,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, "serving metrics");
    }
    let source = Arc::new(source);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let source = source.clone();
                    tasks.spawn(async move {
                        if timeout(SCRAPE_TIMEOUT, scrape(&source, stream)).await.is_err() {
                            debug!("a metrics request timed out");
                        }
                    });
                }
                Err(err) => {
                    warn!(cause = %err, "metrics accept failed");
                    sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Answers one HTTP request, then closes.
async fn scrape(source: &Source, mut stream: TcpStream) {
    let Some(head) = read_head(&mut stream).await else {
        return;
    };
    let listener = stream.local_addr().ok();
    let response = match listener {
        Some(listener) if names_listener(host_of(&head), listener) => answer(source, &head).await,
        _ => {
            let body = match listener {
                Some(at) => format!("this is the metrics port at {at}: ask for http://{at}/\n"),
                None => "this is a metrics port: address it by its IP and port\n".to_owned(),
            };
            http::response(Answer::text("421 Misdirected Request", &body))
        }
    };
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
}

/// Reads a request head (or what fits in [`MAX_HEAD`]); `None` if the client went away first.
pub(crate) async fn read_head<S: AsyncRead + Unpin>(stream: &mut S) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > MAX_HEAD {
            break;
        }
    }
    Some(head)
}

/// The answer to a request addressed to this port: health, the metrics, or an error.
async fn answer(source: &Source, head: &[u8]) -> Vec<u8> {
    let (method, path) = method_and_path(head);
    let head_only = method == Some(b"HEAD");
    let health = match (method, path) {
        (Some(b"GET" | b"HEAD"), Some(path)) => match std::str::from_utf8(path) {
            Ok(path) => source.health.answer(path).await,
            Err(_) => None,
        },
        _ => None,
    };
    match health {
        Some(health) => http::response(
            Answer::text(health.status, &health.body)
                .header("Cache-Control: no-store\r\n")
                .head_only(head_only),
        ),
        None => respond(head, || source.metrics.encode((source.live_games)())),
    }
}

/// A request head's method and path (without the query).
pub(crate) fn method_and_path(head: &[u8]) -> (Option<&[u8]>, Option<&[u8]>) {
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let mut words = line.split(|&b| b == b' ');
    let (method, target) = (words.next(), words.next());
    let path = target.map(|t| t.split(|&b| b == b'?').next().unwrap_or_default());
    (method, path)
}

/// The value of a request head's `Host` header; empty when it has none.
fn host_of(head: &[u8]) -> &str {
    let head = std::str::from_utf8(head).unwrap_or_default();
    head.split("\r\n")
        .skip(1)
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("host")
                .then_some(value.trim())
        })
        .unwrap_or_default()
}

/// Whether `host` (a `Host` header) names the listener at `at` itself: its IP address and port,
/// or `localhost` and the port when it is a loopback address; without the port only when it is
/// 80. A page that a browser loaded from another name (DNS rebinding points a name of the
/// attacker's at this address) sends that name, and is refused.
fn names_listener(host: &str, at: SocketAddr) -> bool {
    let host = host.to_ascii_lowercase();
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((name, "")) => (name, None),
            Some((name, port)) => match port.strip_prefix(':') {
                Some(port) => (name, Some(port)),
                None => return false,
            },
            None => return false,
        },
        None => match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host.as_str(), None),
        },
    };
    let port_ok = match port {
        Some(port) => {
            port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u16>() == Ok(at.port())
        }
        None => at.port() == 80,
    };
    let ip = at.ip().to_canonical();
    let name_ok = match name.parse::<IpAddr>() {
        Ok(named) => named.to_canonical() == ip && !(host.starts_with('[') ^ named.is_ipv6()),
        Err(_) => name == "localhost" && ip.is_loopback(),
    };
    port_ok && name_ok
}

/// The whole HTTP response to a request head: the metrics for `GET /metrics`, an error otherwise.
fn respond(head: &[u8], metrics: impl FnOnce() -> String) -> Vec<u8> {
    let (method, path) = method_and_path(head);
    let (status, content_type, body) = match (method, path) {
        (Some(b"GET"), Some(b"/metrics")) => ("200 OK", CONTENT_TYPE, metrics()),
        (_, Some(b"/backup" | b"/admin")) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "backups and admin commands are not served on the metrics port: the server takes \
             them on its admin socket, beside its database (noughts-server backup, \
             noughts-server admin)\n"
                .to_owned(),
        ),
        (Some(b"GET"), _) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "metrics are at /metrics\n".to_owned(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "only GET is served\n".to_owned(),
        ),
    };
    let allow = if status.starts_with("405") {
        "Allow: GET\r\n"
    } else {
        ""
    };
    http::response(Answer {
        content_type,
        ..Answer::text(status, &body).header(allow)
    })
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

    #[test]
    fn only_get_metrics_gets_the_metrics() {
        let ok = respond(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", || {
            "m 1\n".into()
        });
        let ok = String::from_utf8(ok).unwrap();
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("Content-Length: 4\r\n"), "{ok}");
        assert!(ok.ends_with("\r\n\r\nm 1\n"), "{ok}");
        let missing = respond(b"GET / HTTP/1.1\r\n\r\n", || unreachable!());
        assert!(missing.starts_with(b"HTTP/1.1 404 "));
        let post = respond(b"POST /metrics HTTP/1.1\r\n\r\n", || unreachable!());
        assert!(post.starts_with(b"HTTP/1.1 405 "));
        let junk = respond(b"\x00\x01", || unreachable!());
        assert!(junk.starts_with(b"HTTP/1.1 405 "));
    }

    #[test]
    fn backups_and_admin_commands_are_not_served_here_and_every_answer_has_the_headers() {
        for head in [
            &b"GET /backup HTTP/1.1\r\n\r\n"[..],
            b"POST /admin HTTP/1.1\r\n\r\n",
            b"GET /metrics HTTP/1.1\r\n\r\n",
            b"GET /nothing HTTP/1.1\r\n\r\n",
            b"PUT /metrics HTTP/1.1\r\n\r\n",
        ] {
            let answer = String::from_utf8(respond(head, String::new)).unwrap();
            if head.starts_with(b"GET /backup") || head.starts_with(b"POST /admin") {
                assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
                assert!(answer.contains("admin socket"), "{answer}");
            }
            for header in [
                "Content-Security-Policy: default-src 'none'",
                "X-Content-Type-Options: nosniff\r\n",
                "Referrer-Policy: no-referrer\r\n",
                "X-Frame-Options: DENY\r\n",
            ] {
                assert!(answer.contains(header), "no {header} in {answer}");
            }
        }
    }

    #[test]
    fn only_the_listener_s_own_address_is_a_host() {
        let v4: SocketAddr = "127.0.0.1:9100".parse().unwrap();
        let v6: SocketAddr = "[::1]:9100".parse().unwrap();
        let web: SocketAddr = "10.0.0.5:80".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:9100".parse().unwrap();
        for (host, at) in [
            ("127.0.0.1:9100", v4),
            ("localhost:9100", v4),
            ("LocalHost:9100", v4),
            ("[::1]:9100", v6),
            ("localhost:9100", v6),
            ("10.0.0.5", web),
            ("10.0.0.5:80", web),
            ("127.0.0.1:9100", mapped),
        ] {
            assert!(names_listener(host, at), "{host} for {at}");
        }
        for (host, at) in [
            ("", v4),
            ("127.0.0.1", v4),
            ("127.0.0.1:9101", v4),
            ("127.0.0.2:9100", v4),
            ("localhost", v4),
            ("rebound.example:9100", v4),
            ("localhost.:9100", v4),
            ("127.0.0.1:+9100", v4),
            ("127.0.0.1:9100:9100", v4),
            ("[127.0.0.1]:9100", v4),
            ("[::1]9100", v6),
            ("localhost", web),
            ("evil.example", web),
        ] {
            assert!(!names_listener(host, at), "{host} for {at}");
        }
        let head = b"GET /metrics HTTP/1.1\r\nhost:  127.0.0.1:9100 \r\nX: y\r\n\r\n";
        assert_eq!(host_of(head), "127.0.0.1:9100");
        assert_eq!(host_of(b"GET /metrics HTTP/1.0\r\n\r\n"), "");
    }
}
