//! When a committed write reaches the disk. `move` (the default): before anyone hears of it, as
//! SQLite's `synchronous=FULL` and PostgreSQL's `synchronous_commit=on` make it. `interval`: a
//! write is answered once it is written (SQLite's WAL without a sync at each commit, PostgreSQL
//! with `synchronous_commit=off`), and the store thread makes every write so far durable at least
//! every interval: a crash of the server loses nothing, a power cut (or a crash of the database's
//! machine) at most the last interval. The thread measures how old the oldest write was when it
//! reached the disk (the flush lag), for `/metrics`.

use std::time::Duration;

use std::sync::atomic::AtomicU64;
use std::time::Instant;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use tracing::error;

use super::backend::Backend;

/// When a committed write reaches the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Each write is on disk before it is answered.
    #[default]
    Move,
    /// Each write is answered once written; every write is on disk within this interval.
    Interval(Duration),
}

/// The default interval of `--durability interval`.
pub const DEFAULT_FLUSH_MS: u64 = 10;

/// What `--durability` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DurabilityMode {
    /// Every move on disk before anyone hears of it.
    Move,
    /// Moves answered once written, on disk within --flush-ms.
    Interval,
}

/// The durability options of the server's command line.
#[derive(Debug, Clone, clap::Args)]
pub struct DurabilityArgs {
    /// When a move reaches the disk: `move`, before anyone hears of it; `interval`, once
    /// written, and on disk within --flush-ms (a crash of the server loses nothing, a power
    /// cut at most that long). Ignored by --db :memory:.
    #[arg(long, env = "NOUGHTS_DURABILITY", value_enum, default_value_t = DurabilityMode::Move)]
    pub durability: DurabilityMode,
    /// With --durability interval, the longest a written move waits to reach the disk.
    #[arg(long, env = "NOUGHTS_FLUSH_MS", value_parser = clap::value_parser!(u64).range(1..=10_000), default_value_t = DEFAULT_FLUSH_MS)]
    pub flush_ms: u64,
}

impl DurabilityArgs {
    /// The durability these options ask for.
    pub fn durability(&self) -> Durability {
        match self.durability {
            DurabilityMode::Move => Durability::Move,
            DurabilityMode::Interval => Durability::Interval(Duration::from_millis(self.flush_ms)),
        }
    }
}

/// The flush series of `/metrics`, shared by the store's handles and its thread.
#[derive(Debug, Clone)]
pub(crate) struct FlushSeries {
    /// The interval in seconds, 0 when every write is flushed as it commits.
    pub interval: Gauge<f64, AtomicU64>,
    /// How old the oldest unflushed write was when a flush made it durable.
    pub lag: Histogram,
    /// Flushes done.
    pub flushes: Counter,
}

impl Default for FlushSeries {
    fn default() -> FlushSeries {
        // From 0.5 ms to about 4 s, twice wider each.
        let buckets = prometheus_client::metrics::histogram::exponential_buckets(0.0005, 2.0, 14);
        FlushSeries {
            interval: Gauge::default(),
            lag: Histogram::new(buckets),
            flushes: Counter::default(),
        }
    }
}

/// The store thread's side: when the next flush is due, and the flush itself.
pub(super) struct Flusher {
    /// The interval; `None` in `move` mode, where each commit is durable already.
    every: Option<Duration>,
    /// When the oldest write not yet flushed committed.
    oldest: Option<Instant>,
    /// When the next flush is due: an interval after `oldest`, or after a flush that failed.
    due: Option<Instant>,
    series: FlushSeries,
}

impl Flusher {
    pub(super) fn new(durability: Durability, series: FlushSeries) -> Flusher {
        let every = match durability {
            Durability::Move => None,
            Durability::Interval(every) => Some(every),
        };
        series
            .interval
            .set(every.map_or(0.0, |every| every.as_secs_f64()));
        Flusher {
            every,
            oldest: None,
            due: None,
            series,
        }
    }

    /// How long the thread may wait for its next job before a flush is due; `None`: for ever.
    pub(super) fn patience(&self) -> Option<Duration> {
        Some(self.due?.saturating_duration_since(Instant::now()))
    }

    /// A batch of writes has committed.
    pub(super) fn committed(&mut self) {
        if let Some(every) = self.every
            && self.oldest.is_none()
        {
            let now = Instant::now();
            self.oldest = Some(now);
            self.due = Some(now + every);
        }
    }

    /// Flushes if the oldest unflushed write is an interval old.
    pub(super) fn flush_if_due(&mut self, db: &mut dyn Backend) {
        if self.patience() == Some(Duration::ZERO) {
            self.flush(db);
        }
    }

    /// Makes every write so far durable, if any is not.
    pub(super) fn flush(&mut self, db: &mut dyn Backend) {
        let (Some(oldest), Some(every)) = (self.oldest, self.every) else {
            return;
        };
        if let Err(err) = db.flush() {
            // Tried again an interval later: the writes stay unflushed until a flush succeeds.
            error!(cause = %err, "cannot flush the store's writes to disk");
            self.due = Some(Instant::now() + every);
            return;
        }
        self.oldest = None;
        self.due = None;
        self.series.flushes.inc();
        self.series.lag.observe(oldest.elapsed().as_secs_f64());
    }
}
