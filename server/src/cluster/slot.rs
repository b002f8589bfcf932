//! Work that one node of the cluster does for all: a slot in Redis (`{slot:NAME}`) held by one
//! node at a time, claimed when free and renewed by its holder; a node that stops renewing loses
//! it a lease time later, and another node claims it; a node that stops politely gives it back at
//! once. The war games use one per variant, so each runs once in the cluster, not once per node.
//! Beside the slot, its holder notes what it is working on (`{slot:NAME}:work`, the war game
//! being played), so that the next holder carries that on rather than start another, and may note,
//! sealed, what other nodes show of it (`{slot:NAME}:note`, an arena as lists show it). Each
//! arena's director holds one too (see `arena`).

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

/// Gives the slot back if this node holds it.
const GIVE_BACK: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
";

fn slot_key(name: &str) -> String {
    format!("{{slot:{name}}}")
}

fn work_key(name: &str) -> String {
    format!("{{slot:{name}}}:work")
}

fn note_key(name: &str) -> String {
    format!("{{slot:{name}}}:note")
}

impl Cluster {
    /// Claims (or renews) the slot `name` for a lease time; true if this node holds it now.
    pub async fn claim_slot(&self, name: &str) -> Result<bool, ClusterError> {
        let held: u64 = Script::new(CLAIM)
            .key(slot_key(name))
            .arg(&self.node)
            .arg(self.lease_ms())
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(held == 1)
    }

    /// Gives the slot `name` back if this node holds it, so another node claims it at once.
    pub async fn give_back_slot(&self, name: &str) -> Result<(), ClusterError> {
        Script::new(GIVE_BACK)
            .key(slot_key(name))
            .arg(&self.node)
            .invoke_async::<u64>(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Notes that the holder of slot `name` works on `work` (for a day at most).
    pub async fn note_work(&self, name: &str, work: u64) -> Result<(), ClusterError> {
        redis::cmd("SET")
            .arg(work_key(name))
            .arg(work)
            .arg("EX")
            .arg(86_400)
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The node that holds slot `name` now, if one does.
    pub(crate) async fn slot_holder(&self, name: &str) -> Result<Option<String>, ClusterError> {
        Ok(redis::cmd("GET")
            .arg(slot_key(name))
            .query_async(&mut self.redis.clone())
            .await?)
    }

    /// Notes, sealed, what the holder of slot `name` shows other nodes of its work (for a day
    /// at most).
    pub(crate) async fn note_slot(&self, name: &str, text: &str) -> Result<(), ClusterError> {
        let key = note_key(name);
        redis::cmd("SET")
            .arg(&key)
            .arg(self.seal.keep(&key, text).as_ref())
            .arg("EX")
            .arg(86_400)
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// What a holder of slot `name` last noted by [`Cluster::note_slot`], if its seal holds.
    pub(crate) async fn slot_note(&self, name: &str) -> Result<Option<String>, ClusterError> {
        let key = note_key(name);
        let note: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(note.and_then(|note| self.seal.open_kept(&key, &note).map(str::to_owned)))
    }

    /// What the holder of slot `name` last noted it works on.
    pub async fn work(&self, name: &str) -> Result<Option<u64>, ClusterError> {
        Ok(redis::cmd("GET")
            .arg(work_key(name))
            .query_async(&mut self.redis.clone())
            .await?)
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
    /// taking it when it falls free; then gives it back. Without Redis, it counts as lost.
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
        if let Err(err) = cluster.give_back_slot(&name).await {
            warn!(cause = %err, slot = %name, "cannot give a slot back");
        }
    }
}

/// A slot held by one task that renews it as it works and stops before the slot could have
/// lapsed anywhere (an arena's director holds its arena's so).
#[derive(Debug)]
pub(crate) struct SlotLease {
    cluster: Cluster,
    name: String,
    /// When the slot was last claimed for sure.
    renewed: tokio::time::Instant,
}

impl SlotLease {
    /// The slot `name`, claimed just now.
    pub(crate) fn new(cluster: Cluster, name: String) -> SlotLease {
        SlotLease {
            cluster,
            name,
            renewed: tokio::time::Instant::now(),
        }
    }

    /// Renews the slot once a third of a lease has passed since it last was: false when its
    /// holder must stop (another node holds it, or it could not be renewed for two thirds of a
    /// lease, before it could have lapsed anywhere).
    pub(crate) async fn keep(&mut self) -> bool {
        let lease = self.cluster.lease();
        if self.renewed.elapsed() < lease / 3 {
            return true;
        }
        match self.cluster.claim_slot(&self.name).await {
            Ok(true) => {
                self.renewed = tokio::time::Instant::now();
                true
            }
            Ok(false) => false,
            Err(err) => {
                warn!(cause = %err, slot = %self.name, "cannot renew a slot");
                self.renewed.elapsed() < lease * 2 / 3
            }
        }
    }

    /// Notes `text` beside the slot for the other nodes (see [`Cluster::note_slot`]).
    pub(crate) fn note(&self, text: String) {
        let (cluster, name) = (self.cluster.clone(), self.name.clone());
        tokio::spawn(async move {
            if let Err(err) = cluster.note_slot(&name, &text).await {
                warn!(cause = %err, slot = %name, "cannot note a slot's work");
            }
        });
    }

    /// Gives the slot back, so that another node takes it at once.
    pub(crate) async fn give_back(&self) {
        if let Err(err) = self.cluster.give_back_slot(&self.name).await {
            warn!(cause = %err, slot = %self.name, "cannot give a slot back");
        }
    }
}
