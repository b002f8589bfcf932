//! The churn soak: a population of clients that, for a long while, connect, find games by quick
//! match or against the AI, play them, watch others' games, chat, drop without a goodbye (the
//! socket reset, no close frame), come back with their token or as someone new, and start again.
//! Meanwhile the server's resident memory (from `/proc`) and its runtime's live tasks (from its
//! metrics endpoint) are sampled every few seconds; at the end the soak says whether they stayed
//! flat.
//!
//! Flat means: after a warm-up (the first quarter of the run, while the population ramps up and
//! the allocator settles), the mean of the last quarter's samples is within [`RSS_MARGIN`] of the
//! mean of the second quarter's (RSS) and within [`TASKS_MARGIN`] (tasks). The population is the
//! same all along, so what a leak would add shows as a tail above the steady state; the margins
//! absorb the noise of a busy machine without hiding a leak that grows with time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until, timeout};

use crate::churn::{Tally, live};
use crate::client::{self};
use crate::report::Report;
use crate::target::{Probe, Window};

/// How far a series' tail may sit above its steady state and still count as flat.
#[derive(Debug, Clone, Copy)]
pub struct Margin {
    /// A part of the steady state (0.10 is 10%)...
    pub fraction: f64,
    /// ...plus this much, in the series' own unit.
    pub absolute: f64,
}

/// How far the tail's mean RSS may sit above the steady state's: 10% plus 4 MiB.
pub const RSS_MARGIN: Margin = Margin {
    fraction: 0.10,
    absolute: 4096.0,
};
/// How far the tail's mean task count may sit above the steady state's: 10% plus 16 tasks.
pub const TASKS_MARGIN: Margin = Margin {
    fraction: 0.10,
    absolute: 16.0,
};

/// How a soak is shaped.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Clients in the population.
    pub clients: usize,
    /// How long it runs.
    pub secs: f64,
    /// Seconds between two samples of the server.
    pub sample_secs: f64,
    /// The server's metrics endpoint (`http://HOST:PORT/metrics`), for its task count.
    pub metrics: Option<String>,
    /// The chance that a player drops its connection instead of making a move (and that a
    /// watcher drops instead of leaving politely).
    pub drop_chance: f64,
}

/// One sample of the server.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Point {
    /// Seconds since the soak started.
    pub secs: f64,
    /// Resident memory, KiB.
    pub rss_kib: Option<u64>,
    /// Tasks alive in the server's runtime.
    pub tasks: Option<u64>,
    /// Connections the server holds.
    pub connections: Option<u64>,
}

/// Start, end, peak and trend of one series.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Series {
    pub start: f64,
    pub end: f64,
    pub max: f64,
    /// Mean of the second quarter of the run.
    pub steady: f64,
    /// Mean of the last quarter.
    pub tail: f64,
    /// Least-squares slope over the second half, per minute.
    pub slope_per_min: f64,
    /// Whether `tail` is within the margin of `steady`.
    pub flat: bool,
}

impl Series {
    /// The summary of `(secs, value)` points over a run of `secs`, with `margin` above the
    /// steady state.
    pub fn of(points: &[(f64, f64)], secs: f64, margin: Margin) -> Option<Series> {
        let (first, last) = (points.first()?, points.last()?);
        let mean = |from: f64, to: f64| {
            let values: Vec<f64> = points
                .iter()
                .filter(|(t, _)| *t >= from && *t <= to)
                .map(|&(_, v)| v)
                .collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let steady = mean(secs * 0.25, secs * 0.5)?;
        let tail = mean(secs * 0.75, f64::INFINITY)?;
        let half: Vec<(f64, f64)> = points
            .iter()
            .copied()
            .filter(|(t, _)| *t >= secs * 0.5)
            .collect();
        let n = half.len() as f64;
        let (mt, mv) = (
            half.iter().map(|p| p.0).sum::<f64>() / n,
            half.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let (cov, var) = half.iter().fold((0.0, 0.0), |(c, v), &(t, x)| {
            (c + (t - mt) * (x - mv), v + (t - mt) * (t - mt))
        });
        Some(Series {
            start: first.1,
            end: last.1,
            max: points.iter().map(|p| p.1).fold(f64::MIN, f64::max),
            steady,
            tail,
            slope_per_min: if var > 0.0 { cov / var * 60.0 } else { 0.0 },
            flat: tail <= steady * (1.0 + margin.fraction) + margin.absolute,
        })
    }
}

/// Everything a soak found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SoakResult {
    pub report: Report,
    /// Resident memory, KiB.
    pub rss: Option<Series>,
    /// Tasks alive in the server's runtime.
    pub tasks: Option<Series>,
    /// Flat memory and tasks (those that were measured) and no errors.
    pub pass: bool,
    pub samples: Vec<Point>,
}

impl std::fmt::Display for SoakResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.report)?;
        for (name, series) in [("rss KiB", &self.rss), ("tasks", &self.tasks)] {
            match series {
                Some(s) => writeln!(
                    f,
                    "  {name:<10} start {:.0}, end {:.0}, max {:.0}; steady {:.0}, tail {:.0}, slope {:+.1}/min over the second half: {}",
                    s.start,
                    s.end,
                    s.max,
                    s.steady,
                    s.tail,
                    s.slope_per_min,
                    if s.flat { "flat" } else { "GROWING" }
                )?,
                None => writeln!(f, "  {name:<10} not measured")?,
            }
        }
        writeln!(f, "{}", if self.pass { "pass" } else { "FAIL" })
    }
}

/// Reads the samples `names` from a Prometheus endpoint (`http://HOST:PORT/metrics`).
pub async fn scrape(url: &str, names: &[&str]) -> anyhow::Result<Vec<Option<f64>>> {
    let rest = url.strip_prefix("http://").context("not an http:// url")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream = timeout(client::STEP, tokio::net::TcpStream::connect(host))
        .await
        .context("metrics connect timed out")??;
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = String::new();
    timeout(client::STEP, stream.read_to_string(&mut response))
        .await
        .context("metrics read timed out")??;
    Ok(names
        .iter()
        .map(|name| {
            response.lines().find_map(|line| {
                line.strip_prefix(name)?
                    .strip_prefix(' ')?
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .collect())
}

/// Runs the soak against `url`, sampling `server`.
pub async fn run(url: &str, server: Probe, options: &SoakOptions) -> anyhow::Result<SoakResult> {
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let end = started + Duration::from_secs_f64(options.secs);
    let window = Window::start(server);
    let mut population = JoinSet::new();
    for i in 0..options.clients {
        population.spawn(live(
            i,
            url.to_owned(),
            end,
            options.drop_chance,
            tally.clone(),
        ));
    }
    let mut samples = Vec::new();
    let period = Duration::from_secs_f64(options.sample_secs.max(0.1));
    let mut next = started;
    while next <= end {
        sleep_until(next).await;
        let mut point = Point {
            secs: started.elapsed().as_secs_f64(),
            rss_kib: server.sample().map(|s| s.rss_kib),
            ..Point::default()
        };
        if let Some(metrics) = &options.metrics {
            match scrape(metrics, &["noughts_tasks", "noughts_connections"]).await {
                Ok(values) => {
                    point.tasks = values[0].map(|v| v as u64);
                    point.connections = values[1].map(|v| v as u64);
                }
                Err(err) => tally.errors.add_err(&err.context("metrics")),
            }
        }
        samples.push(point);
        next += period;
    }
    while population.join_next().await.is_some() {}
    let (elapsed, server_use, generator) = window.end();

    let secs = elapsed.as_secs_f64();
    let series = |value: fn(&Point) -> Option<u64>, margin| {
        let points: Vec<(f64, f64)> = samples
            .iter()
            .filter_map(|p| Some((p.secs, value(p)? as f64)))
            .collect();
        Series::of(&points, options.secs, margin)
    };
    let rss = series(|p| p.rss_kib, RSS_MARGIN);
    let tasks = series(|p| p.tasks, TASKS_MARGIN);
    let finished = tally.finished.lock().expect("finished lock").len() as u64;
    let count = |n: &AtomicU64| n.load(Ordering::Relaxed) as f64;
    let mut report = Report {
        scenario: format!(
            "soak: {} clients connecting, playing, watching, dropping and coming back for {:.0} s",
            options.clients, options.secs
        ),
        connections: tally.peak_online.load(Ordering::Relaxed),
        secs,
        unit: "games".to_owned(),
        ops: finished,
        ops_per_sec: finished as f64 / secs,
        latency: None,
        errors: tally.errors.snapshot(),
        server: server_use,
        generator,
        ..Report::default()
    };
    for (name, value) in [
        ("connects", count(&tally.connects)),
        ("resumes", count(&tally.resumes)),
        ("returns", count(&tally.returns)),
        ("drops", count(&tally.drops)),
        ("moves", count(&tally.moves)),
        ("watches", count(&tally.watches)),
        ("chats", count(&tally.chats)),
        ("races", tally.races.snapshot().values().sum::<u64>() as f64),
        ("samples", samples.len() as f64),
    ] {
        report.figures.insert(name.to_owned(), value);
    }
    let pass =
        report.error_count() == 0 && rss.is_none_or(|s| s.flat) && tasks.is_none_or(|s| s.flat);
    Ok(SoakResult {
        report,
        rss,
        tasks,
        pass,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN_PERCENT: Margin = Margin {
        fraction: 0.1,
        absolute: 0.0,
    };

    #[test]
    fn a_level_series_is_flat_and_a_growing_one_is_not() {
        let level: Vec<(f64, f64)> = (0..=100).map(|t| (t as f64, 100.0)).collect();
        let s = Series::of(&level, 100.0, TEN_PERCENT).unwrap();
        assert!(s.flat);
        assert_eq!(
            (s.start, s.end, s.max, s.steady, s.tail),
            (100.0, 100.0, 100.0, 100.0, 100.0)
        );
        assert_eq!(s.slope_per_min, 0.0);

        // One unit a second: the tail (~87) is well above the steady state (~37).
        let growing: Vec<(f64, f64)> = (0..=100).map(|t| (t as f64, t as f64)).collect();
        let s = Series::of(&growing, 100.0, TEN_PERCENT).unwrap();
        assert!(!s.flat, "{s:?}");
        assert!((s.slope_per_min - 60.0).abs() < 1e-9, "{s:?}");
        assert_eq!(s.max, 100.0);
    }
}
