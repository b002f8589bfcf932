//! What a scenario measured: throughput, latency percentiles, connections, errors and the
//! processes' CPU and memory, printed as text or JSON.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::usage::Usage;

/// One scenario's results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// The scenario's name and size, e.g. `games 1000 × 1/s`.
    pub scenario: String,
    /// Connections open and welcomed at the peak.
    pub connections: usize,
    /// The measured window, in seconds.
    pub secs: f64,
    /// What `ops` counts: `moves`, `messages`, `connections`.
    pub unit: String,
    /// Operations completed in the window.
    pub ops: u64,
    /// `ops` per second of the window.
    pub ops_per_sec: f64,
    /// Latency of the operations, when they have one.
    pub latency: Option<Latency>,
    /// Errors by kind: error codes from the server, `closed`, `connect`, `timeout`…
    pub errors: BTreeMap<String, u64>,
    /// The server process over the window, when its pid is known.
    pub server: Option<Usage>,
    /// This generator over the window (all its processes, for a sharded scenario).
    pub generator: Option<Usage>,
    /// Figures particular to the scenario (e.g. RSS per connection), by name.
    pub figures: BTreeMap<String, f64>,
}

impl Report {
    /// The number of errors of every kind.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// Latency percentiles, in microseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Latency {
    pub count: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub max_us: u64,
    pub mean_us: f64,
}

impl Latency {
    /// The percentiles of a histogram of microseconds; `None` if it is empty.
    pub fn of(histogram: &Histogram<u64>) -> Option<Latency> {
        (!histogram.is_empty()).then(|| Latency {
            count: histogram.len(),
            p50_us: histogram.value_at_quantile(0.50),
            p99_us: histogram.value_at_quantile(0.99),
            p999_us: histogram.value_at_quantile(0.999),
            max_us: histogram.max(),
            mean_us: histogram.mean(),
        })
    }
}

/// A latency histogram in microseconds (1 µs to 10 minutes, 3 significant digits), shared by the
/// tasks of a scenario.
#[derive(Debug)]
pub struct Recorder {
    histogram: Mutex<Histogram<u64>>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            histogram: Mutex::new(
                Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid histogram bounds"),
            ),
        }
    }
}

impl Recorder {
    /// Records one latency.
    pub fn record(&self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.histogram
            .lock()
            .expect("histogram lock")
            .saturating_record(us.max(1));
    }

    /// Adds every latency `other` holds.
    pub fn absorb(&self, other: &Recorder) {
        let theirs = other.histogram.lock().expect("histogram lock").clone();
        self.histogram
            .lock()
            .expect("histogram lock")
            .add(&theirs)
            .expect("same bounds");
    }

    /// The percentiles so far.
    pub fn latency(&self) -> Option<Latency> {
        Latency::of(&self.histogram.lock().expect("histogram lock"))
    }

    /// Adds `{name}_p50_ms` and `{name}_p99_ms` to `figures`.
    pub fn add_figures(&self, name: &str, figures: &mut BTreeMap<String, f64>) {
        if let Some(l) = self.latency() {
            figures.insert(format!("{name}_p50_ms"), l.p50_us as f64 / 1000.0);
            figures.insert(format!("{name}_p99_ms"), l.p99_us as f64 / 1000.0);
        }
    }
}

/// Errors by kind, shared by the tasks of a scenario.
#[derive(Debug, Default)]
pub struct Errors {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl Errors {
    /// Counts one error of `kind`.
    pub fn add(&self, kind: &str) {
        *self
            .counts
            .lock()
            .expect("error lock")
            .entry(kind.to_owned())
            .or_default() += 1;
    }

    /// Counts a failed setup step, by the first words of its error.
    pub fn add_err(&self, err: &anyhow::Error) {
        let text = format!("{err:#}");
        let kind: String = text
            .split([':', '('])
            .next()
            .unwrap_or("error")
            .trim()
            .replace(' ', "_");
        self.add(&kind);
    }

    /// The counts so far.
    pub fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts.lock().expect("error lock").clone()
    }
}

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

fn usage(f: &mut fmt::Formatter<'_>, who: &str, usage: &Usage) -> fmt::Result {
    writeln!(
        f,
        "  {who:<10} {:.2} CPU s ({:.0}% of a core), RSS {:.1} MiB (peak {:.1} MiB)",
        usage.cpu_secs,
        usage.cores * 100.0,
        usage.rss_kib as f64 / 1024.0,
        usage.peak_rss_kib as f64 / 1024.0
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.scenario)?;
        writeln!(
            f,
            "  {:<10} {} held; {} {} in {:.1} s = {:.0} {}/s",
            "load", self.connections, self.ops, self.unit, self.secs, self.ops_per_sec, self.unit
        )?;
        if let Some(l) = &self.latency {
            writeln!(
                f,
                "  {:<10} p50 {}, p99 {}, p99.9 {}, max {} (n = {})",
                "latency",
                ms(l.p50_us),
                ms(l.p99_us),
                ms(l.p999_us),
                ms(l.max_us),
                l.count
            )?;
        }
        if self.errors.is_empty() {
            writeln!(f, "  {:<10} none", "errors")?;
        } else {
            let list: Vec<String> = self
                .errors
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            writeln!(f, "  {:<10} {}", "errors", list.join(", "))?;
        }
        if let Some(server) = &self.server {
            usage(f, "server", server)?;
        }
        if let Some(generator) = &self.generator {
            usage(f, "generator", generator)?;
        }
        for (name, value) in &self.figures {
            writeln!(f, "  {name:<10} {value:.2}")?;
        }
        Ok(())
    }
}
