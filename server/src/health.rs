//! Health for load balancers and supervisors: `/healthz` (the process serves) and `/readyz` (the
//! store answers, Redis answers on a node of a cluster, and the node is not draining), served
//! for `GET` and `HEAD` on the main port and on the metrics port. A readiness answer is kept for
//! a moment, so that polling it every second from several balancers costs one store read and one
//! Redis `PING` a second at most.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::{Instant, timeout};

use crate::metrics::Metrics;
use crate::store::{Store, StoreConfig};

/// Asks the cluster's Redis whether it answers: `Err` says why not.
pub(crate) type Ping = Box<
    dyn Fn() -> std::pin::Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync,
>;

/// How long the store and Redis each have to answer before the node counts as not ready.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a readiness answer is kept.
const KEPT: Duration = Duration::from_millis(500);

/// What the health checks read: the node's draining flag, and the store and Redis to ask.
pub(crate) struct Health {
    /// Set when the node starts to drain (SIGTERM): from then on it is not ready.
    draining: AtomicBool,
    /// The store, asked whether it answers.
    store: Store,
    /// The store's kind, as its dependency series are labelled: `postgres`, `sqlite`, `memory`.
    store_kind: &'static str,
    /// Asks the cluster's Redis whether it answers; `None` for a lone server.
    redis: Option<Ping>,
    /// The last answer and when it was made; one check runs at a time, the others wait for it.
    last: tokio::sync::Mutex<Option<(Instant, Result<(), String>)>>,
    /// What the node last answered, to log a change once rather than every poll.
    logged: Mutex<Option<bool>>,
    /// Where each probe and the answer are shown.
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health")
            .field("draining", &self.is_draining())
            .finish_non_exhaustive()
    }
}

/// A health endpoint's answer: the status line and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    pub status: &'static str,
    pub body: String,
}

impl Health {
    pub(crate) fn new(
        store: Store,
        kind: &StoreConfig,
        redis: Option<Ping>,
        metrics: Arc<Metrics>,
    ) -> Health {
        Health {
            draining: AtomicBool::new(false),
            store,
            store_kind: store_kind(kind),
            redis,
            last: tokio::sync::Mutex::new(None),
            logged: Mutex::new(None),
            metrics,
        }
    }

    /// From now on the node answers not ready.
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        self.metrics.ready.set(0);
    }

    /// Whether the node is draining.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Whether the node can take players: `Err` says why not.
    pub(crate) async fn ready(&self) -> Result<(), String> {
        if self.is_draining() {
            return Err("draining".to_owned());
        }
        let mut last = self.last.lock().await;
        if let Some((at, answer)) = &*last
            && at.elapsed() < KEPT
        {
            return answer.clone();
        }
        let answer = self.check().await;
        self.metrics.ready.set(i64::from(answer.is_ok()));
        self.log_change(&answer);
        *last = Some((Instant::now(), answer.clone()));
        answer
    }

    async fn check(&self) -> Result<(), String> {
        let started = Instant::now();
        let store = timeout(CHECK_TIMEOUT, self.store.ping()).await;
        let up = matches!(store, Ok(Ok(())));
        self.metrics.probed(self.store_kind, up, started.elapsed());
        match store {
            Ok(Ok(())) => {}
            Ok(Err(err)) => return Err(format!("the store does not answer: {err}")),
            Err(_) => return Err("the store does not answer in time".to_owned()),
        }
        if let Some(redis) = &self.redis {
            let started = Instant::now();
            let answer = timeout(CHECK_TIMEOUT, redis()).await;
            let up = matches!(answer, Ok(Ok(())));
            self.metrics.probed("redis", up, started.elapsed());
            match answer {
                Ok(Ok(())) => {}
                Ok(Err(err)) => return Err(format!("Redis does not answer: {err}")),
                Err(_) => return Err("Redis does not answer in time".to_owned()),
            }
        }
        Ok(())
    }

    fn log_change(&self, answer: &Result<(), String>) {
        let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
        let ready = answer.is_ok();
        if *logged == Some(ready) {
            return;
        }
        // The first answer is news only when it is bad.
        if logged.is_some() || !ready {
            match answer {
                Ok(()) => tracing::info!("ready again"),
                Err(why) => tracing::warn!(why = %why, "not ready"),
            }
        }
        *logged = Some(ready);
    }

    /// The answer to a request for `path`, or `None` if it is not a health endpoint.
    pub(crate) async fn answer(&self, path: &str) -> Option<Answer> {
        match path {
            "/healthz" => Some(Answer {
                status: "200 OK",
                body: "ok\n".to_owned(),
            }),
            "/readyz" => Some(match self.ready().await {
                Ok(()) => Answer {
                    status: "200 OK",
                    body: "ready\n".to_owned(),
                },
                Err(why) => Answer {
                    status: "503 Service Unavailable",
                    body: format!("not ready: {why}\n"),
                },
            }),
            _ => None,
        }
    }
}

/// How the dependency series name a store: by its kind.
fn store_kind(config: &StoreConfig) -> &'static str {
    match config {
        StoreConfig::Memory => "memory",
        StoreConfig::File(_) => "sqlite",
        StoreConfig::Postgres(_) => "postgres",
    }
}

impl Answer {
    /// The whole HTTP response, without its body for `HEAD`.
    pub(crate) fn response(&self, head_only: bool) -> Vec<u8> {
        let mut response = format!(
            "HTTP/1.1 {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n\r\n",
            self.status,
            self.body.len()
        )
        .into_bytes();
        if !head_only {
            response.extend_from_slice(self.body.as_bytes());
        }
        response
    }
}
