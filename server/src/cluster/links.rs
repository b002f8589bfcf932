//! Who speaks to whom across nodes: this node's connections that reach games on other nodes
//! ([`Links`]: where their frames come back to, and which nodes to tell when they go), and the
//! stand-ins this node runs for other nodes' connections ([`StandIns`]: where their mail goes).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use noughts_protocol::PlayerId;
use tokio::sync::mpsc;

use super::mail::Mail;
use crate::network::Network;
use crate::outbound::{ConnId, Outbound};

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
    pub(crate) fn link(&self, out: &Outbound, (player, network): (PlayerId, Network), node: &str) {
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
    stand_ins: Mutex<HashMap<(String, u64), mpsc::Sender<Mail>>>,
}

impl StandIns {
    fn stand_ins(&self) -> MutexGuard<'_, HashMap<(String, u64), mpsc::Sender<Mail>>> {
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
            .or_insert_with(start)
            .clone()
    }

    /// The stand-in for `conn` of `node`, if there is one.
    pub(crate) fn get(&self, node: &str, conn: u64) -> Option<mpsc::Sender<Mail>> {
        self.stand_ins().get(&(node.to_owned(), conn)).cloned()
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
            .map(|(_, tx)| tx.clone())
            .collect()
    }
}
