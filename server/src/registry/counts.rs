//! Per-address counts of connections, rooms and seeks: a place is taken under a limit and
//! given back by the guard that holds it.

use std::sync::Arc;

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;

use crate::net::network::{Network, Slot};

/// How many of one thing each network holds. Entries go when their count reaches zero, so the map
/// holds only networks with something open.
#[derive(Debug, Default)]
pub(super) struct Counts {
    held: DashMap<Network, usize>,
}

impl Counts {
    /// Takes one place for `network`, unless it already holds `limit`.
    pub(super) fn take(self: &Arc<Self>, network: Network, limit: usize) -> Option<Slot> {
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
        let counts = self.clone();
        Some(Slot::new(move || counts.give_back(network)))
    }

    /// How many places `network` holds now.
    #[cfg(test)]
    pub(super) fn held(&self, network: Network) -> usize {
        self.held.get(&network).map_or(0, |n| *n)
    }

    /// Networks holding anything.
    #[cfg(test)]
    pub(super) fn networks(&self) -> usize {
        self.held.len()
    }

    pub(super) fn give_back(&self, network: Network) {
        if let Entry::Occupied(mut held) = self.held.entry(network) {
            *held.get_mut() = held.get().saturating_sub(1);
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}

/// The per-network counts of connections, open rooms and waiting seeks.
#[derive(Debug, Default)]
pub(crate) struct PerNetwork {
    /// Connections, for [`crate::config::Config::max_connections_per_ip`].
    connections: Arc<Counts>,
    /// Open rooms, for [`crate::config::Config::max_rooms_per_ip`].
    rooms: Arc<Counts>,
    /// Waiting seeks, for [`crate::config::Config::max_seeks_per_ip`].
    seeks: Arc<Counts>,
}

impl PerNetwork {
    /// A place for one more connection from `network`, unless it holds `limit` already.
    pub(crate) fn connection(&self, network: Network, limit: usize) -> Option<Slot> {
        self.connections.take(network, limit)
    }

    /// A place for one more open room from `network`, unless it has `limit` open already.
    pub(crate) fn room(&self, network: Network, limit: usize) -> Option<Slot> {
        self.rooms.take(network, limit)
    }

    /// A place for one more waiting seek from `network`, unless it has `limit` waiting already.
    pub(crate) fn seek(&self, network: Network, limit: usize) -> Option<Slot> {
        self.seeks.take(network, limit)
    }
}
