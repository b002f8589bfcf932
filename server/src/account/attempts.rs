//! The limit on password guesses, per account and per address (as lichess keys its limits by
//! user and by IP): a number of tries are free, and each one past them makes the next wait
//! twice as long, up to a cap. A try is counted before its password is checked, so guesses sent
//! all at once count as much as guesses sent one by one, and a refused try costs no hashing.
//!
//! A device that shows it signed in to the account before (its device cookie, or the session it
//! is connected with) is counted under itself instead of the username, as OWASP's device cookies
//! are: strangers' wrong passwords make strangers wait, never the owner's own devices, and a
//! stolen cookie or session guesses no faster than a stranger. The address is counted either way.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::AccountConfig;
use crate::net::network::Network;

/// The most keys remembered; past it, the stale ones are dropped first.
const MAX_KEYS: usize = 100_000;

/// What a count is kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A username, lower-cased (known or not, so that unknown names say nothing): the tries
    /// of devices the account does not know.
    Account(String),
    /// A device the account knows (see [`Device`]).
    Device(Device),
    Address(Network),
}

/// A device that has signed in to an account before, as a try shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Device {
    /// The SHA-256 of a device cookie the account gave it.
    Cookie([u8; 32]),
    /// The id of the account's session it is connected with.
    Session(u64),
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

    /// The keys a try is counted under: the address, and the device if the account knows it,
    /// else the username.
    fn keys(username_key: &str, network: Network, device: Option<Device>) -> [Key; 2] {
        let who = match device {
            Some(device) => Key::Device(device),
            None => Key::Account(username_key.to_owned()),
        };
        [who, Key::Address(network)]
    }

    /// A try at `username`'s password from `network`, by `device` if the account knows it:
    /// refused while either of its keys must wait, and otherwise counted (as a failure until
    /// [`Attempts::succeeded`] says otherwise).
    pub(crate) fn begin(
        &self,
        username_key: &str,
        network: Network,
        device: Option<Device>,
    ) -> Verdict {
        let now = Instant::now();
        let keys = Self::keys(username_key, network, device);
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

    /// The try was right: the count of whoever made it (the username's, or the known
    /// device's) is cleared, and the address's try uncounted. Strangers' failures stay counted
    /// against the username when a known device gets in.
    pub(crate) fn succeeded(&self, username_key: &str, network: Network, device: Option<Device>) {
        let [who, address] = Self::keys(username_key, network, device);
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.remove(&who);
        if let Some(count) = counts.get_mut(&address) {
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
            assert_eq!(attempts.begin("ada", net(1), None), Verdict::Go);
        }
        assert_eq!(
            attempts.begin("ada", net(2), None),
            Verdict::Wait(Duration::from_secs(1)),
            "another address guessing the same account waits too"
        );
        assert_eq!(
            attempts.begin("bo", net(1), None),
            Verdict::Wait(Duration::from_secs(1)),
            "the same address guessing another account waits too"
        );
        assert_eq!(attempts.begin("cy", net(3), None), Verdict::Go);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(attempts.begin("ada", net(2), None), Verdict::Go);
        assert_eq!(
            attempts.begin("ada", net(4), None),
            Verdict::Wait(Duration::from_secs(2))
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        attempts.succeeded("ada", net(2), None);
        assert_eq!(attempts.begin("ada", net(5), None), Verdict::Go);
    }

    #[tokio::test(start_paused = true)]
    async fn a_known_device_does_not_wait_for_strangers_failures_but_for_its_own() {
        let attempts = Attempts::new(AccountConfig::default());
        for stranger in 1..=10 {
            assert_eq!(attempts.begin("ada", net(stranger), None), Verdict::Go);
        }
        assert!(matches!(
            attempts.begin("ada", net(11), None),
            Verdict::Wait(_)
        ));
        let phone = Some(Device::Cookie([7; 32]));
        assert_eq!(attempts.begin("ada", net(20), phone), Verdict::Go);
        attempts.succeeded("ada", net(20), phone);
        let laptop = Some(Device::Session(42));
        assert_eq!(attempts.begin("ada", net(21), laptop), Verdict::Go);
        assert!(
            matches!(attempts.begin("ada", net(12), None), Verdict::Wait(_)),
            "strangers still wait"
        );
        for _ in 1..10 {
            assert_eq!(attempts.begin("ada", net(21), laptop), Verdict::Go);
        }
        assert!(
            matches!(attempts.begin("ada", net(22), laptop), Verdict::Wait(_)),
            "a known device guessing waits after its own failures"
        );
        assert_eq!(attempts.begin("ada", net(23), phone), Verdict::Go);
    }
}
