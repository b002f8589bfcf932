//! Who a per-address limit counts: the [`Network`] an address belongs to, and the [`Slot`] a
//! connection, room or seek holds in its network's count, which gives its place back when dropped,
//! so a count cannot outlive what it counts. The counts themselves live in the registry.
//!
//! An IPv4 address counts on its own; an IPv6 address counts with the rest of its /64, which one
//! household or machine usually gets whole (so cycling through it gains nothing). An IPv4-mapped
//! IPv6 address counts as the IPv4 address it carries.

use std::net::{IpAddr, Ipv6Addr};

/// What a per-address limit counts under: an IPv4 address, or an IPv6 /64 prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Network(IpAddr);

impl Network {
    /// The network as an account's owner is shown it beside a device: an IPv4 address's /24 or
    /// an IPv6 address's /48, never the whole address.
    pub(crate) fn shown(&self) -> String {
        match self.0 {
            IpAddr::V4(v4) => {
                let [a, b, c, _] = v4.octets();
                format!("{a}.{b}.{c}.0/24")
            }
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::MAX >> 48);
                format!("{}/48", Ipv6Addr::from(prefix))
            }
        }
    }

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

impl Network {
    /// The address it counts under (for an IPv6 /64, its first address).
    pub(crate) fn ip(self) -> IpAddr {
        self.0
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

/// One place taken in a network's count; dropping it gives the place back.
pub(crate) struct Slot {
    /// Gives the place back; run once, on drop.
    give_back: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl Slot {
    /// A place whose `give_back` runs when it is dropped.
    pub(crate) fn new(give_back: impl FnOnce() + Send + Sync + 'static) -> Slot {
        Slot {
            give_back: Some(Box::new(give_back)),
        }
    }
}

impl Slot {
    /// One place made of two: dropping it gives both back.
    pub(crate) fn both(a: Slot, b: Slot) -> Slot {
        Slot::new(move || drop((a, b)))
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Slot")
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(give_back) = self.give_back.take() {
            give_back();
        }
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
    fn an_owner_is_shown_the_network_never_the_address() {
        assert_eq!(network("203.0.113.77").shown(), "203.0.113.0/24");
        assert_eq!(network("::ffff:203.0.113.77").shown(), "203.0.113.0/24");
        assert_eq!(network("2001:db8:1:2:3::9").shown(), "2001:db8:1::/48");
    }
}
