//! Work that one node of the cluster does for all: a slot in Redis (`slot:{name}`) held by one
//! node at a time, claimed when free and renewed by its holder; a node that stops renewing loses
//! it a lease time later, and another node claims it. The war games use one per variant, so each
//! runs once in the cluster, not once per node.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use redis::Script;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::{Cluster, ClusterError};

/// Renews the slot if this node holds it, takes it if nobody does: 1 if held now, else 0.
const CLAIM: &str = r"
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
";

impl Cluster {
    /// Claims (or renews) the slot `name` for a lease time; true if this node holds it now.
    pub async fn claim_slot(&self, name: &str) -> Result<bool, ClusterError> {
        let held: u64 = Script::new(CLAIM)
            .key(format!("slot:{name}"))
            .arg(&self.node)
            .arg(self.lease_ms())
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(held == 1)
    }
}

/// Whether this node holds one slot, kept up to date by [`Slot::keep`].
#[derive(Debug, Clone, Default)]
pub struct Slot {
    held: Arc<AtomicBool>,
}

impl Slot {
    /// Whether this node held the slot at its last claim.
    pub fn held(&self) -> bool {
        self.held.load(Ordering::Acquire)
    }

    /// Claims the slot `name` three times a lease time until `stop`: renewing it while held,
    /// taking it when it falls free. Without Redis, it counts as lost.
    pub async fn keep(self, cluster: Cluster, name: String, stop: CancellationToken) {
        loop {
            let held = match cluster.claim_slot(&name).await {
                Ok(held) => held,
                Err(err) => {
                    warn!(cause = %err, slot = %name, "cannot claim a slot");
                    false
                }
            };
            if held != self.held.swap(held, Ordering::AcqRel) {
                info!(slot = %name, held, "slot");
            }
            tokio::select! {
                () = tokio::time::sleep(cluster.lease / 3) => {}
                () = stop.cancelled() => break,
            }
        }
        self.held.store(false, Ordering::Release);
    }
}
