//! Health for load balancers and supervisors: `/healthz` (the process serves) and `/readyz` (the
//! node can take new players), served for `GET` and `HEAD` on the main port and on the metrics
//! port; and the probes of what the node depends on (its store, and Redis on a node of a
//! cluster), which keep the `noughts_dependency_*` and `noughts_ready` series current.
//!
//! Readiness does not amplify a blip. A node serves the lobby, watchers and the games it holds
//! through a short Redis or PostgreSQL outage, so a dependency counts against readiness only once
//! it has failed continuously for longer than a grace ([`crate::config::Config::readiness_grace`], 15 s
//! by default); meanwhile `/readyz` still answers `200`, and its body says what is failing and for
//! how long (`ready (redis failing for 3.2 s: …)`). Otherwise a 5 s Redis restart would take every
//! node out of the balancer at once, and the whole site with them. A draining node answers `503`
//! at once.
//!
//! A probe's answer is kept for a moment, so that polling `/readyz` every second from several
//! balancers costs one store read and one Redis `PING` a second at most; on a node of a cluster,
//! or one that serves metrics, a task probes every second whether anyone asks or not, so the
//! series and the failures' durations are current.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::{Instant, sleep, timeout};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::metrics::HealthSeries;
use crate::store::{Store, StoreConfig};

/// Asks a dependency whether it answers: `Err` says why not.
pub(crate) type Ping =
    Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync>;

/// How long a dependency has to answer a probe before it counts as failing.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a probe's answer is kept.
const KEPT: Duration = Duration::from_millis(500);
/// How often the node probes by itself (see [`Health::keep_probing`]).
const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Something the node depends on, and how to ask it whether it answers.
pub(crate) struct Dependency {
    /// Its name in the body of `/readyz` and in the `dependency` label: `redis`, or the store's
    /// kind (`postgres`, `sqlite`, `memory`).
    pub name: &'static str,
    /// Asks it.
    pub ping: Ping,
}

/// What the probes found of one dependency.
#[derive(Debug, Clone, Default)]
struct Standing {
    /// When the probe that found it failing began, if it has failed at every probe since.
    failing_since: Option<Instant>,
    /// Why its last probe failed.
    why: String,
}

/// The probes' findings, and when they were made.
#[derive(Debug, Default)]
struct Findings {
    /// When the last probe began; `None` before the first.
    at: Option<Instant>,
    /// Each dependency's standing, in the order of [`Health::dependencies`].
    standings: Vec<Standing>,
}

/// What the health checks read: the node's draining flag, and the dependencies to probe.
pub(crate) struct Health {
    /// Set when the node starts to drain (SIGTERM): from then on it is not ready.
    draining: AtomicBool,
    /// What the node depends on: its store, and Redis on a node of a cluster.
    dependencies: Vec<Dependency>,
    /// How long a dependency may fail without interruption before the node counts as not ready.
    grace: Duration,
    /// The last findings; one probe runs at a time, and other askers wait for it.
    findings: tokio::sync::Mutex<Findings>,
    /// What the node last answered, to log a change once rather than every poll.
    logged: Mutex<Option<bool>>,
    /// Where each probe and the answer are shown.
    series: HealthSeries,
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

/// What `/readyz` says: whether the node takes new players, and what is failing meanwhile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Readiness {
    /// Whether the node takes new players.
    pub ready: bool,
    /// Why not, or what is failing while the node is still ready: one phrase per dependency
    /// (`redis failing for 3.2 s: …`), or `draining`.
    pub notes: Vec<String>,
}

impl Health {
    /// The health of a node on `store` (of the kind `kind` names) and, in a cluster, `redis`.
    pub(crate) fn new(
        store: Store,
        kind: &StoreConfig,
        redis: Option<Ping>,
        grace: Duration,
        series: HealthSeries,
    ) -> Health {
        let mut dependencies = vec![Dependency {
            name: store_kind(kind),
            ping: Box::new(move || {
                let store = store.clone();
                Box::pin(async move { store.ping().await.map_err(|err| err.to_string()) })
            }),
        }];
        if let Some(ping) = redis {
            dependencies.push(Dependency {
                name: "redis",
                ping,
            });
        }
        Health::of(dependencies, grace, series)
    }

    /// The health of a node that depends on `dependencies`.
    pub(crate) fn of(
        dependencies: Vec<Dependency>,
        grace: Duration,
        series: HealthSeries,
    ) -> Health {
        let standings = vec![Standing::default(); dependencies.len()];
        Health {
            draining: AtomicBool::new(false),
            dependencies,
            grace,
            findings: tokio::sync::Mutex::new(Findings {
                at: None,
                standings,
            }),
            logged: Mutex::new(None),
            series,
        }
    }

    /// From now on the node answers not ready.
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        self.series.ready.set(0);
    }

    /// Whether the node is draining.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Probes every second until `stop`, so that the dependency series, the readiness gauge and
    /// the failures' durations stay current when nobody polls `/readyz`.
    pub(crate) async fn keep_probing(self: Arc<Self>, stop: CancellationToken) {
        loop {
            self.readiness().await;
            tokio::select! {
                () = sleep(PROBE_EVERY) => {}
                () = stop.cancelled() => return,
            }
        }
    }

    /// Whether the node can take new players, and what is failing; probes first if the last
    /// findings are older than [`KEPT`].
    pub(crate) async fn readiness(&self) -> Readiness {
        let readiness = {
            let mut findings = self.findings.lock().await;
            if findings.at.is_none_or(|at| at.elapsed() >= KEPT) {
                self.probe(&mut findings).await;
            }
            self.judge(&findings)
        };
        let readiness = if self.is_draining() {
            Readiness {
                ready: false,
                notes: vec!["draining".to_owned()],
            }
        } else {
            readiness
        };
        self.series.ready.set(i64::from(readiness.ready));
        self.log_change(&readiness);
        readiness
    }

    /// Asks every dependency at once, each within [`CHECK_TIMEOUT`], and notes what it found.
    async fn probe(&self, findings: &mut Findings) {
        let began = Instant::now();
        let asked = self.dependencies.iter().map(|dependency| async move {
            let answer = match timeout(CHECK_TIMEOUT, (dependency.ping)()).await {
                Ok(answer) => answer,
                Err(_) => Err(format!("no answer in {} s", CHECK_TIMEOUT.as_secs_f64())),
            };
            (answer, began.elapsed())
        });
        let answers = futures_util::future::join_all(asked).await;
        findings.at = Some(began);
        for ((dependency, standing), (answer, took)) in self
            .dependencies
            .iter()
            .zip(findings.standings.iter_mut())
            .zip(answers)
        {
            self.series.probed(dependency.name, answer.is_ok(), took);
            match (answer, standing.failing_since) {
                (Ok(()), None) => {}
                (Ok(()), Some(since)) => {
                    info!(
                        dependency = dependency.name,
                        failed_secs = since.elapsed().as_secs_f64(),
                        "a dependency answers again"
                    );
                    standing.failing_since = None;
                }
                (Err(why), since) => {
                    if since.is_none() {
                        warn!(dependency = dependency.name, why = %why, "a dependency does not answer");
                        standing.failing_since = Some(began);
                    }
                    standing.why = why;
                }
            }
        }
    }

    /// What the findings say: not ready once a dependency has failed for longer than the grace.
    fn judge(&self, findings: &Findings) -> Readiness {
        let mut readiness = Readiness {
            ready: true,
            notes: Vec::new(),
        };
        for (dependency, standing) in self.dependencies.iter().zip(&findings.standings) {
            let Some(since) = standing.failing_since else {
                continue;
            };
            let failing = since.elapsed();
            if failing > self.grace {
                readiness.ready = false;
            }
            readiness.notes.push(format!(
                "{} failing for {:.1} s: {}",
                dependency.name,
                failing.as_secs_f64(),
                standing.why
            ));
        }
        readiness
    }

    fn log_change(&self, readiness: &Readiness) {
        let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
        let ready = readiness.ready;
        if *logged == Some(ready) {
            return;
        }
        // The first answer is news only when it is bad.
        if logged.is_some() || !ready {
            if ready {
                info!("ready again");
            } else {
                warn!(why = %readiness.notes.join("; "), "not ready");
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
            "/readyz" => Some(self.readiness().await.answer()),
            _ => None,
        }
    }
}

impl Readiness {
    /// The answer to `/readyz`: `200` with `ready` (and what is failing, in brackets), or `503`
    /// with `not ready:` and why.
    pub(crate) fn answer(&self) -> Answer {
        let notes = self.notes.join("; ");
        match (self.ready, notes.is_empty()) {
            (true, true) => Answer {
                status: "200 OK",
                body: "ready\n".to_owned(),
            },
            (true, false) => Answer {
                status: "200 OK",
                body: format!("ready ({notes})\n"),
            },
            (false, _) => Answer {
                status: "503 Service Unavailable",
                body: format!("not ready: {notes}\n"),
            },
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

#[cfg(test)]
mod tests;
