//! Counts per network address (connections, open rooms, open seeks), each held by a [`Slot`] that
//! gives its place back when dropped, so a count cannot outlive what it counts.
//!
//! An IPv4 address counts on its own; an IPv6 address counts with the rest of its /64, which one
//! household or machine usually gets whole (so cycling through it gains nothing). An IPv4-mapped
//! IPv6 address counts as the IPv4 address it carries.

use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;

/// What a per-address limit counts under: an IPv4 address, or an IPv6 /64 prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Network(IpAddr);

impl Network {
    pub(crate) fn of(ip: IpAddr) -> Network {
        match ip {
            IpAddr::V4(v4) => Network(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Network(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !(u128::from(u64::MAX));
                    Network(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// How many of one thing each network holds. Entries go when their count reaches zero, so the map
/// holds only networks with something open.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    held: DashMap<Network, usize>,
}

impl Counts {
    /// Takes one place for `network`, unless it already holds `limit`.
    pub(crate) fn take(self: &Arc<Self>, network: Network, limit: usize) -> Option<Slot> {
        match self.held.entry(network) {
            Entry::Occupied(mut held) => {
                if *held.get() >= limit {
                    return None;
                }
                *held.get_mut() += 1;
            }
            Entry::Vacant(slot) => {
                if limit == 0 {
                    return None;
                }
                slot.insert(1);
            }
        }
        Some(Slot {
            counts: self.clone(),
            network,
        })
    }

    /// How many places `network` holds now.
    #[cfg(test)]
    pub(crate) fn held(&self, network: Network) -> usize {
        self.held.get(&network).map_or(0, |n| *n)
    }

    /// Networks holding anything.
    #[cfg(test)]
    pub(crate) fn networks(&self) -> usize {
        self.held.len()
    }

    fn give_back(&self, network: Network) {
        if let Entry::Occupied(mut held) = self.held.entry(network) {
            *held.get_mut() = held.get().saturating_sub(1);
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}

/// One place taken in a [`Counts`]; dropping it gives the place back.
#[derive(Debug)]
pub(crate) struct Slot {
    counts: Arc<Counts>,
    network: Network,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.counts.give_back(self.network);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(ip: &str) -> Network {
        Network::of(ip.parse().unwrap())
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(network("2001:db8:1:2::1"), network("2001:db8:1:2:ffff::9"));
        assert_ne!(network("2001:db8:1:2::1"), network("2001:db8:1:3::1"));
        assert_eq!(network("::ffff:192.0.2.7"), network("192.0.2.7"));
        assert_ne!(network("192.0.2.7"), network("192.0.2.8"));
        assert_eq!(network("2001:db8:1:2::1").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn places_are_capped_and_given_back_on_drop() {
        let counts = Arc::new(Counts::default());
        let home = network("192.0.2.1");
        let away = network("198.51.100.1");
        let first = counts.take(home, 2).expect("one");
        let second = counts.take(home, 2).expect("two");
        assert!(counts.take(home, 2).is_none(), "a third is over the cap");
        let other = counts
            .take(away, 2)
            .expect("another network has its own count");
        drop(first);
        assert_eq!(counts.held(home), 1);
        let third = counts.take(home, 2).expect("a place came back");
        drop((second, third, other));
        assert_eq!(counts.networks(), 0, "empty entries are removed");
        assert!(
            counts.take(home, 0).is_none(),
            "a cap of zero admits nobody"
        );
        assert_eq!(counts.networks(), 0);
    }
}
