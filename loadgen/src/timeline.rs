//! Latency over the seconds of a run: a histogram per second of the schedule, to tell a warm-up
//! (the first leases, id blocks, connections and statements) from the steady state.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::report::Latency;

/// Latencies by the second (from [`Timeline::start`]) their operation was scheduled in.
#[derive(Debug, Default)]
pub struct Timeline {
    origin: OnceLock<Instant>,
    seconds: Mutex<Vec<Histogram<u64>>>,
}

/// One second of a timeline.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Second {
    /// Seconds since the start.
    pub second: usize,
    pub count: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid histogram bounds")
}

impl Timeline {
    /// Starts keeping latencies, second 0 beginning at `origin`; before this, nothing is kept.
    pub fn start(&self, origin: Instant) {
        let _ = self.origin.set(origin);
    }

    /// Keeps one latency of an operation scheduled at `scheduled`.
    pub fn record(&self, scheduled: Instant, latency: Duration) {
        let Some(origin) = self.origin.get() else {
            return;
        };
        let second = scheduled.saturating_duration_since(*origin).as_secs();
        let second = usize::try_from(second).unwrap_or(usize::MAX).min(86_400);
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        let mut seconds = self.seconds.lock().expect("timeline lock");
        while seconds.len() <= second {
            seconds.push(histogram());
        }
        seconds[second].saturating_record(us.max(1));
    }

    /// Adds every latency `other` holds, second by second (both started at the same origin).
    pub fn absorb(&self, other: &Timeline) {
        if let Some(origin) = other.origin.get() {
            self.start(*origin);
        }
        let theirs = other.seconds.lock().expect("timeline lock").clone();
        let mut seconds = self.seconds.lock().expect("timeline lock");
        while seconds.len() < theirs.len() {
            seconds.push(histogram());
        }
        for (mine, theirs) in seconds.iter_mut().zip(&theirs) {
            mine.add(theirs).expect("same bounds");
        }
    }

    /// Every second so far, empty ones included.
    pub fn seconds(&self) -> Vec<Second> {
        let seconds = self.seconds.lock().expect("timeline lock");
        seconds
            .iter()
            .enumerate()
            .map(|(second, h)| Second {
                second,
                count: h.len(),
                p50_us: if h.is_empty() {
                    0
                } else {
                    h.value_at_quantile(0.5)
                },
                p99_us: if h.is_empty() {
                    0
                } else {
                    h.value_at_quantile(0.99)
                },
                max_us: h.max(),
            })
            .collect()
    }

    /// The percentiles of the seconds from `from` on (the steady state after a warm-up).
    pub fn since(&self, from: usize) -> Option<Latency> {
        let seconds = self.seconds.lock().expect("timeline lock");
        let mut merged = histogram();
        for h in seconds.iter().skip(from) {
            merged.add(h).expect("same bounds");
        }
        Latency::of(&merged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_land_in_the_second_they_were_scheduled_in() {
        let timeline = Timeline::default();
        let origin = Instant::now();
        timeline.record(origin, Duration::from_millis(9));
        timeline.start(origin);
        timeline.record(origin, Duration::from_millis(1));
        timeline.record(
            origin + Duration::from_millis(2500),
            Duration::from_millis(3),
        );
        timeline.record(
            origin + Duration::from_millis(2900),
            Duration::from_millis(500),
        );
        let seconds = timeline.seconds();
        assert_eq!(seconds.len(), 3);
        assert_eq!(
            seconds.iter().map(|s| s.count).collect::<Vec<_>>(),
            [1, 0, 2]
        );
        assert!(seconds[2].max_us >= 499_000);
        let steady = timeline.since(1).expect("two latencies");
        assert_eq!(steady.count, 2);
        assert!(timeline.since(3).is_none());
    }
}
