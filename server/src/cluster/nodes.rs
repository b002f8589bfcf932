//! Which nodes are alive: each keeps `{nodes}:NAME` alive in Redis, renewing it three times a lease
//! time, and is listed in the set `{nodes}` (one hash tag: one slot of a Redis Cluster, for the
//! pipeline that does both). A node whose key has expired is gone: the others remove
//! what it had listed, and (once its game leases have expired too) take its games over.
//!
//! The key holds the process's incarnation, a random number: a node killed and started again
//! under the same name within a lease time is never seen gone, but is seen with a new
//! incarnation, and the others set up again with it what its old process held for them.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::{Cluster, ClusterError};

/// The set of every node that has joined and not yet been swept away.
pub(super) const NODES: &str = "{nodes}";

pub(super) fn alive_key(node: &str) -> String {
    format!("{{nodes}}:{node}")
}

/// A node as last seen in some place (holding a slot, say): its name and its incarnation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sighting {
    node: Option<String>,
    incarnation: Option<u64>,
}

impl Sighting {
    /// Notes `node` seen now, as `incarnation` (`None` if Redis could not say); true if it is
    /// another node than was seen before, or another process under the same name.
    pub(crate) fn see(&mut self, node: &str, incarnation: Option<u64>) -> bool {
        if self.node.as_deref() != Some(node) {
            self.node = Some(node.to_owned());
            self.incarnation = incarnation;
            return true;
        }
        let restarted = matches!((self.incarnation, incarnation), (Some(a), Some(b)) if a != b);
        self.incarnation = incarnation.or(self.incarnation);
        restarted
    }
}

impl Cluster {
    /// Says this node is alive for another lease time.
    pub async fn heartbeat(&self) -> Result<(), ClusterError> {
        redis::pipe()
            .atomic()
            .cmd("SET")
            .arg(alive_key(&self.node))
            .arg(self.incarnation)
            .arg("PX")
            .arg(self.lease_ms())
            .ignore()
            .cmd("SADD")
            .arg(NODES)
            .arg(&self.node)
            .ignore()
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The incarnation of `node`'s process now alive; `None` if none is, or Redis cannot say.
    pub(crate) async fn incarnation_of(&self, node: &str) -> Option<u64> {
        redis::cmd("GET")
            .arg(alive_key(node))
            .query_async::<Option<u64>>(&mut self.redis.clone())
            .await
            .ok()
            .flatten()
    }

    /// Says this node is gone, at once (it stops politely).
    pub async fn leave(&self) -> Result<(), ClusterError> {
        redis::cmd("DEL")
            .arg(alive_key(&self.node))
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The other nodes that joined and have not been swept away.
    pub async fn others(&self) -> Result<Vec<String>, ClusterError> {
        let members: Vec<String> = redis::cmd("SMEMBERS")
            .arg(NODES)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(members.into_iter().filter(|n| *n != self.node).collect())
    }

    /// The nodes that joined and whose heartbeat has stopped.
    pub async fn gone_nodes(&self) -> Result<Vec<String>, ClusterError> {
        let mut redis = self.redis.clone();
        let members: Vec<String> = redis::cmd("SMEMBERS")
            .arg(NODES)
            .query_async(&mut redis)
            .await?;
        let mut gone = Vec::new();
        for node in members {
            let alive: bool = redis::cmd("EXISTS")
                .arg(alive_key(&node))
                .query_async(&mut redis)
                .await?;
            if !alive {
                gone.push(node);
            }
        }
        Ok(gone)
    }

    /// Forgets a gone node once everything it held has been dealt with.
    pub async fn forget_node(&self, node: &str) -> Result<(), ClusterError> {
        redis::cmd("SREM")
            .arg(NODES)
            .arg(node)
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Keeps this node's heartbeat going until `stop`, then says it is gone.
    pub async fn keep_alive(self, stop: CancellationToken) {
        let every = self.lease / 3;
        loop {
            if let Err(err) = self.heartbeat().await {
                warn!(cause = %err, "cannot reach Redis to say this node is alive");
            }
            tokio::select! {
                () = tokio::time::sleep(every.max(Duration::from_millis(10))) => {}
                () = stop.cancelled() => break,
            }
        }
        if let Err(err) = self.leave().await {
            warn!(cause = %err, "cannot tell Redis this node is leaving");
        }
    }
}

/// Every lease time until `stop`: finds the nodes whose heartbeat stopped and removes what they
/// listed in the lobby. A node is swept only when found gone twice in a row: a Redis that stalled
/// past the heartbeats' time shows every node gone until their next heartbeat.
pub(crate) async fn sweep_gone(cluster: Cluster, stop: CancellationToken) {
    let mut suspects = std::collections::HashSet::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(cluster.lease) => {}
            () = stop.cancelled() => return,
        }
        let gone = match cluster.gone_nodes().await {
            Ok(gone) => gone,
            Err(err) => {
                warn!(cause = %err, "cannot ask Redis which nodes are alive");
                continue;
            }
        };
        let suspected = std::mem::replace(&mut suspects, gone.iter().cloned().collect());
        for node in gone.into_iter().filter(|node| suspected.contains(node)) {
            match cluster.sweep_listings(&node).await {
                Ok(swept) => {
                    tracing::info!(%node, swept, "a node is gone; its listings are removed");
                    if let Err(err) = cluster.sweep_places(&node).await {
                        warn!(cause = %err, %node, "cannot give back a gone node's places");
                    }
                    if let Err(err) = cluster.forget_node(&node).await {
                        warn!(cause = %err, %node, "cannot forget a gone node");
                    }
                }
                Err(err) => warn!(cause = %err, %node, "cannot remove a gone node's listings"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sighting;

    #[test]
    fn a_sighting_tells_another_node_or_another_process_of_the_same_name() {
        let mut seen = Sighting::default();
        assert!(seen.see("a", Some(1)), "first seen");
        assert!(!seen.see("a", Some(1)));
        assert!(!seen.see("a", None), "Redis could not say");
        assert!(seen.see("a", Some(2)), "restarted");
        assert!(seen.see("b", None), "moved");
        assert!(!seen.see("b", Some(3)), "first told of b's process");
        assert!(seen.see("b", Some(4)));
    }
}
