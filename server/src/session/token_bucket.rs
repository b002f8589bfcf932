//! Token buckets: how fast one connection may send requests and chat.

use std::time::Duration;

use tokio::time::Instant;

/// Holds up to `burst` tokens and gains them back at a steady rate; each message takes one.
#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    /// Tokens available now (fractional, so slow rates work).
    tokens: f64,
    /// The most tokens it holds: the burst allowance.
    burst: f64,
    /// Tokens regained per second.
    per_second: f64,
    /// When `tokens` was last brought up to date.
    updated: Instant,
}

impl Bucket {
    /// A full bucket of `burst` tokens refilled at one token per `every`.
    pub(crate) fn new(burst: u32, every: Duration) -> Bucket {
        let per_second = if every.is_zero() {
            f64::INFINITY
        } else {
            1.0 / every.as_secs_f64()
        };
        Bucket {
            tokens: f64::from(burst.max(1)),
            burst: f64::from(burst.max(1)),
            per_second,
            updated: Instant::now(),
        }
    }

    /// Takes a token if there is one.
    pub(crate) fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.updated = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_a_burst_then_the_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(3, Duration::from_millis(100));
        assert!((0..3).all(|_| bucket.take(start)));
        assert!(!bucket.take(start));
        assert!(bucket.take(start + Duration::from_millis(100)));
        assert!(!bucket.take(start + Duration::from_millis(150)));
        assert!((0..3).all(|_| bucket.take(start + Duration::from_secs(60))));
        assert!(!bucket.take(start + Duration::from_secs(60)));
    }
}
