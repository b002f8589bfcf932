//! Who speaks to whom across nodes: this node's connections that reach games on other nodes
//! ([`Links`]: where their frames come back to, and which nodes to tell when they go), and the
//! stand-ins this node runs for other nodes' connections ([`StandIns`]: where their mail goes).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use noughts_protocol::PlayerId;
use tokio::sync::mpsc;

use super::mail::Mail;
use crate::net::network::Network;
use crate::net::outbound::{ConnId, Outbound};

/// A connection of this node with stand-ins on other nodes.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    /// Where frames mailed for it go.
    pub out: Outbound,
    /// The player it speaks for.
    pub player: PlayerId,
    /// The network it comes from.
    pub network: Network,
    /// The nodes with a stand-in for it.
    pub nodes: Vec<String>,
}

/// This node's connections with stand-ins elsewhere, by connection.
#[derive(Debug, Default)]
pub(crate) struct Links {
    links: Mutex<HashMap<ConnId, Link>>,
}

impl Links {
    fn links(&self) -> MutexGuard<'_, HashMap<ConnId, Link>> {
        self.links.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes that `out`, speaking for `player` from `network`, has a stand-in on `node`.
    pub(crate) fn link(&self, out: &Outbound, player: PlayerId, network: Network, node: &str) {
        let mut links = self.links();
        let link = links.entry(out.conn).or_insert_with(|| Link {
            out: out.clone(),
            player,
            network,
            nodes: Vec::new(),
        });
        if !link.nodes.iter().any(|n| n == node) {
            link.nodes.push(node.to_owned());
        }
    }

    /// The link of connection `conn`, if it has one.
    pub(crate) fn get(&self, conn: ConnId) -> Option<Link> {
        self.links().get(&conn).cloned()
    }

    /// Where frames mailed for `conn` go, if it is linked.
    pub(crate) fn out(&self, conn: ConnId) -> Option<Outbound> {
        self.links().get(&conn).map(|link| link.out.clone())
    }

    /// The nodes with a stand-in for `conn`.
    pub(crate) fn nodes_of(&self, conn: ConnId) -> Vec<String> {
        self.links()
            .get(&conn)
            .map(|link| link.nodes.clone())
            .unwrap_or_default()
    }

    /// The network `conn` comes from, if it is linked.
    pub(crate) fn network_of(&self, conn: ConnId) -> Option<Network> {
        self.links().get(&conn).map(|link| link.network)
    }

    /// Forgets `conn` (it has gone); returns its link, to tell the nodes.
    pub(crate) fn unlink(&self, conn: ConnId) -> Option<Link> {
        self.links().remove(&conn)
    }

    /// Every node some connection here is linked to.
    pub(crate) fn nodes(&self) -> Vec<String> {
        let mut nodes: Vec<String> = self
            .links()
            .values()
            .flat_map(|link| link.nodes.iter().cloned())
            .collect();
        nodes.sort();
        nodes.dedup();
        nodes
    }

    /// The connections linked to `node`.
    pub(crate) fn conns_to(&self, node: &str) -> Vec<u64> {
        self.links()
            .iter()
            .filter(|(_, link)| link.nodes.iter().any(|n| n == node))
            .map(|(conn, _)| conn.0)
            .collect()
    }

    /// The connections linked to `node`, which is gone: they are linked to it no more.
    pub(crate) fn cut(&self, node: &str) -> Vec<Link> {
        let mut cut = Vec::new();
        for link in self.links().values_mut() {
            if let Some(at) = link.nodes.iter().position(|n| n == node) {
                link.nodes.remove(at);
                cut.push(link.clone());
            }
        }
        cut
    }
}

/// Other nodes' connections served here, by node and connection: where their mail goes.
#[derive(Debug, Default)]
pub(crate) struct StandIns {
    stand_ins: Mutex<HashMap<(String, u64), StandIn>>,
}

/// One stand-in's mailbox, and whether its node left it out of the last list of its connections.
#[derive(Debug)]
struct StandIn {
    mail: mpsc::Sender<Mail>,
    missed: bool,
}

impl StandIns {
    fn stand_ins(&self) -> MutexGuard<'_, HashMap<(String, u64), StandIn>> {
        self.stand_ins.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the stand-in for `conn` of `node` reads its mail; `start` makes one if there is none.
    pub(crate) fn route(
        &self,
        node: &str,
        conn: u64,
        start: impl FnOnce() -> mpsc::Sender<Mail>,
    ) -> mpsc::Sender<Mail> {
        self.stand_ins()
            .entry((node.to_owned(), conn))
            .or_insert_with(|| StandIn {
                mail: start(),
                missed: false,
            })
            .mail
            .clone()
    }

    /// The stand-in for `conn` of `node`, if there is one.
    pub(crate) fn get(&self, node: &str, conn: u64) -> Option<mpsc::Sender<Mail>> {
        self.stand_ins()
            .get(&(node.to_owned(), conn))
            .map(|s| s.mail.clone())
    }

    /// The stand-in for `conn` of `node` has ended.
    pub(crate) fn remove(&self, node: &str, conn: u64) {
        self.stand_ins().remove(&(node.to_owned(), conn));
    }

    /// Every node with a connection served here.
    pub(crate) fn nodes(&self) -> Vec<String> {
        let mut nodes: Vec<String> = self.stand_ins().keys().map(|(n, _)| n.clone()).collect();
        nodes.sort();
        nodes.dedup();
        nodes
    }

    /// The stand-ins for the connections of `node`, which is gone.
    pub(crate) fn of_node(&self, node: &str) -> Vec<mpsc::Sender<Mail>> {
        self.stand_ins()
            .iter()
            .filter(|((n, _), _)| n == node)
            .map(|(_, s)| s.mail.clone())
            .collect()
    }

    /// `node` says `conns` are its connections served here: the stand-ins it has left out of
    /// two such lists in a row (their `Gone` was lost) are returned, to end. One list is not
    /// enough: a connection linked just after the list was made is not in it yet.
    pub(crate) fn missing(&self, node: &str, conns: &[u64]) -> Vec<mpsc::Sender<Mail>> {
        let mut ended = Vec::new();
        for ((n, conn), stand_in) in self.stand_ins().iter_mut() {
            if n != node {
                continue;
            }
            if conns.contains(conn) {
                stand_in.missed = false;
            } else if stand_in.missed {
                ended.push(stand_in.mail.clone());
            } else {
                stand_in.missed = true;
            }
        }
        ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stand_in_left_out_of_two_lists_in_a_row_ends() {
        let stand_ins = StandIns::default();
        let (tx, _rx) = mpsc::channel(1);
        for conn in [1, 2] {
            stand_ins.route("b", conn, || tx.clone());
        }
        stand_ins.route("c", 1, || tx.clone());
        assert!(
            stand_ins.missing("b", &[1]).is_empty(),
            "once is not enough"
        );
        assert!(stand_ins.missing("b", &[1, 2]).is_empty(), "2 is back");
        assert!(stand_ins.missing("b", &[1]).is_empty());
        assert_eq!(stand_ins.missing("b", &[1]).len(), 1, "2 missed twice");
        assert!(stand_ins.missing("c", &[1]).is_empty(), "other nodes' stay");
    }
}
