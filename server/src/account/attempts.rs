//! The limit on password guesses, per account and per address (as lichess keys its limits by
//! user and by IP): a number of tries are free, and each one past them makes the next wait
//! twice as long, up to a cap. A try is counted before its password is checked, so guesses sent
//! all at once count as much as guesses sent one by one, and a refused try costs no hashing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::AccountConfig;
use crate::network::Network;

/// The most keys remembered; past it, the stale ones are dropped first.
const MAX_KEYS: usize = 100_000;

/// What a count is kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A username, lower-cased (known or not, so that unknown names say nothing).
    Account(String),
    Address(Network),
}

/// The tries counted under one key.
#[derive(Debug, Clone, Copy)]
struct Count {
    tries: u32,
    /// No try before then.
    wait_until: Instant,
    last: Instant,
}

/// Whether a try may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Go,
    /// Not before this long from now.
    Wait(Duration),
}

/// The counts of tries.
#[derive(Debug)]
pub(crate) struct Attempts {
    config: AccountConfig,
    counts: Mutex<HashMap<Key, Count>>,
}

impl Attempts {
    pub(crate) fn new(config: AccountConfig) -> Attempts {
        Attempts {
            config,
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// A try at `username`'s password from `network`: refused while either must wait, and
    /// otherwise counted (as a failure until [`Attempts::succeeded`] says otherwise).
    pub(crate) fn begin(&self, username_key: &str, network: Network) -> Verdict {
        let now = Instant::now();
        let keys = [Key::Account(username_key.to_owned()), Key::Address(network)];
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let wait = keys
            .iter()
            .filter_map(|key| counts.get(key))
            .filter(|count| now.duration_since(count.last) < self.config.forget_after)
            .map(|count| count.wait_until.saturating_duration_since(now))
            .max()
            .unwrap_or_default();
        if !wait.is_zero() {
            return Verdict::Wait(wait);
        }
        if counts.len() >= MAX_KEYS {
            let forget = self.config.forget_after;
            counts.retain(|_, count| now.duration_since(count.last) < forget);
            if counts.len() >= MAX_KEYS {
                // Still full: the oldest half goes.
                let mut lasts: Vec<Instant> = counts.values().map(|count| count.last).collect();
                lasts.sort_unstable();
                let cut = lasts[lasts.len() / 2];
                counts.retain(|_, count| count.last > cut);
            }
        }
        for key in keys {
            let count = counts.entry(key).or_insert(Count {
                tries: 0,
                wait_until: now,
                last: now,
            });
            if now.duration_since(count.last) >= self.config.forget_after {
                count.tries = 0;
            }
            count.tries = count.tries.saturating_add(1);
            count.last = now;
            count.wait_until = now + self.delay(count.tries);
        }
        Verdict::Go
    }

    /// The try was right: the account's count is cleared, and the address's try uncounted.
    pub(crate) fn succeeded(&self, username_key: &str, network: Network) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.remove(&Key::Account(username_key.to_owned()));
        if let Some(count) = counts.get_mut(&Key::Address(network)) {
            count.tries = count.tries.saturating_sub(1);
            count.wait_until = count.last + self.delay(count.tries);
        }
    }

    /// The wait after `tries` failed tries: none while they are free, then doubling.
    fn delay(&self, tries: u32) -> Duration {
        let config = &self.config;
        match tries.checked_sub(config.free_failures) {
            None => Duration::ZERO,
            Some(past) => config
                .first_delay
                .saturating_mul(1u32 << past.min(20))
                .min(config.max_delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn net(last: u8) -> Network {
        Network::of(IpAddr::V4(Ipv4Addr::new(192, 0, 2, last)))
    }

    #[tokio::test(start_paused = true)]
    async fn the_eleventh_quick_try_waits_and_waits_grow() {
        let attempts = Attempts::new(AccountConfig::default());
        for _ in 0..10 {
            assert_eq!(attempts.begin("ada", net(1)), Verdict::Go);
        }
        assert_eq!(
            attempts.begin("ada", net(2)),
            Verdict::Wait(Duration::from_secs(1)),
            "another address guessing the same account waits too"
        );
        assert_eq!(
            attempts.begin("bo", net(1)),
            Verdict::Wait(Duration::from_secs(1)),
            "the same address guessing another account waits too"
        );
        assert_eq!(attempts.begin("cy", net(3)), Verdict::Go);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(attempts.begin("ada", net(2)), Verdict::Go);
        assert_eq!(
            attempts.begin("ada", net(4)),
            Verdict::Wait(Duration::from_secs(2))
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        attempts.succeeded("ada", net(2));
        assert_eq!(attempts.begin("ada", net(5)), Verdict::Go);
    }
}
