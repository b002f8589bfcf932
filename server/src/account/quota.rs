//! What one address or player may pile up over time: registrations and new accounts per
//! address, reports per address and per reporter. Each is a count of the times in a sliding
//! window, kept in memory on each node (as the limit on password guesses is); a node that
//! restarts forgets them.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use noughts_protocol::PlayerId;
use tokio::time::Instant;

use super::AccountConfig;
use crate::net::network::Network;

/// The most keys one window remembers; past it, those with nothing in the window go, then the
/// oldest half.
const MAX_KEYS: usize = 100_000;

/// At most `limit` times per `window` for each key.
#[derive(Debug)]
struct Window<K> {
    limit: u32,
    window: Duration,
    times: Mutex<HashMap<K, VecDeque<Instant>>>,
}

impl<K: Hash + Eq + Clone> Window<K> {
    fn new(limit: u32, window: Duration) -> Window<K> {
        Window {
            limit,
            window,
            times: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `key` may have one more now: `Ok` (and counted), or how long until it may.
    fn take(&self, key: &K) -> Result<(), Duration> {
        let now = Instant::now();
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        if times.len() >= MAX_KEYS && !times.contains_key(key) {
            let window = self.window;
            times.retain(|_, seen| seen.back().is_some_and(|t| now.duration_since(*t) < window));
            if times.len() >= MAX_KEYS {
                let mut lasts: Vec<Instant> =
                    times.values().filter_map(|s| s.back()).copied().collect();
                lasts.sort_unstable();
                let cut = lasts[lasts.len() / 2];
                times.retain(|_, seen| seen.back().is_some_and(|t| *t > cut));
            }
        }
        let seen = times.entry(key.clone()).or_default();
        while seen
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            seen.pop_front();
        }
        if seen.len() >= self.limit as usize {
            let oldest = seen.front().copied().unwrap_or(now);
            return Err((oldest + self.window).saturating_duration_since(now));
        }
        seen.push_back(now);
        Ok(())
    }

    /// Gives back the last one `key` took (a request that turned out not to count).
    fn give_back(&self, key: &K) {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(seen) = times.get_mut(key) {
            seen.pop_back();
        }
    }
}

/// How long to wait, in words for a refusal.
pub(crate) fn in_words(wait: Duration) -> String {
    let minutes = wait.as_secs().div_ceil(60).max(1);
    if minutes >= 120 {
        format!("{} hours", minutes.div_ceil(60))
    } else {
        format!("{minutes} minutes")
    }
}

/// The quotas of a node.
#[derive(Debug)]
pub(crate) struct Quotas {
    /// `register` requests per address per hour.
    registrations: Window<Network>,
    /// Accounts made per address per day.
    accounts: Window<Network>,
    /// Reports per reporter per hour.
    reports: Window<PlayerId>,
    /// Reports per address per hour, whoever sends them.
    address_reports: Window<Network>,
}

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

impl Quotas {
    pub(crate) fn new(config: &AccountConfig) -> Quotas {
        Quotas {
            registrations: Window::new(config.registrations_per_hour, HOUR),
            accounts: Window::new(config.accounts_per_day, DAY),
            reports: Window::new(config.reports_per_hour, HOUR),
            address_reports: Window::new(config.address_reports_per_hour, HOUR),
        }
    }

    /// A `register` from `network`: counted, or how long until one may be.
    pub(crate) fn register(&self, network: Network) -> Result<(), Duration> {
        self.registrations.take(&network)
    }

    /// A new account from `network`: counted, or how long until one may be made.
    pub(crate) fn new_account(&self, network: Network) -> Result<(), Duration> {
        self.accounts.take(&network)
    }

    /// The account counted for `network` was not made after all.
    pub(crate) fn no_account(&self, network: Network) {
        self.accounts.give_back(&network);
    }

    /// A report by `reporter` from `network`: counted under both, or how long until one may be
    /// sent (neither counted then).
    pub(crate) fn report(&self, reporter: PlayerId, network: Network) -> Result<(), Duration> {
        self.address_reports.take(&network)?;
        if let Err(wait) = self.reports.take(&reporter) {
            self.address_reports.give_back(&network);
            return Err(wait);
        }
        Ok(())
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
    async fn each_key_has_its_own_window_and_it_slides() {
        let quotas = Quotas::new(&AccountConfig::default());
        for _ in 0..5 {
            assert_eq!(quotas.register(net(1)), Ok(()));
        }
        assert_eq!(quotas.register(net(1)), Err(HOUR));
        assert_eq!(quotas.register(net(2)), Ok(()), "another address");
        tokio::time::advance(Duration::from_secs(600)).await;
        assert_eq!(quotas.register(net(1)), Err(Duration::from_secs(3000)));
        tokio::time::advance(Duration::from_secs(3000)).await;
        assert_eq!(quotas.register(net(1)), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn reports_count_per_reporter_and_per_address() {
        let config = AccountConfig {
            reports_per_hour: 2,
            address_reports_per_hour: 3,
            ..AccountConfig::default()
        };
        let quotas = Quotas::new(&config);
        let (ada, bo, cy) = (PlayerId(1), PlayerId(2), PlayerId(3));
        assert!(quotas.report(ada, net(1)).is_ok() && quotas.report(ada, net(1)).is_ok());
        assert!(
            quotas.report(ada, net(2)).is_err(),
            "the reporter's own limit"
        );
        assert!(quotas.report(bo, net(1)).is_ok());
        assert!(
            quotas.report(cy, net(1)).is_err(),
            "a fresh player from the same address shares its quota"
        );
        assert!(quotas.report(cy, net(2)).is_ok());
    }
}
