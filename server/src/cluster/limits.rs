//! Per-address caps counted across the cluster, for what outlives a request and is visible to
//! all: open rooms and waiting seeks. Each network's count is a hash in Redis, one field per
//! node (`{limits}:KIND:NETWORK` → node → count), so a place is taken, checked against the cap
//! and counted in one script, and a dead node's places can be swept: each node keeps the set of
//! the counts it holds places in (`{limits}:held:NODE`). All share the hash tag `{limits}`, so that
//! on a Redis Cluster one script may touch them together.

use redis::Script;

use super::{Cluster, ClusterError};
use crate::net::network::{Network, Slot};

fn count_key(kind: &str, network: Network) -> String {
    format!("{{limits}}:{kind}:{network}")
}

fn held_key(node: &str) -> String {
    format!("{{limits}}:held:{node}")
}

/// Takes a place if the network holds fewer than the cap across every node: 1, or 0.
const TAKE: &str = r"
local held = 0
for _, n in ipairs(redis.call('HVALS', KEYS[1])) do held = held + tonumber(n) end
if held >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('SADD', KEYS[2], KEYS[1])
return 1
";

/// Gives a place back.
const GIVE: &str = r"
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
";

/// Gives back every place `node` held.
const SWEEP: &str = r"
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('HDEL', key, ARGV[1]) end
redis.call('DEL', KEYS[1])
return 0
";

impl Cluster {
    /// A place for one more `kind` (`room` or `seek`) from `network`, unless the cluster holds
    /// `cap` of them already: `None` then. Dropping the place gives it back.
    pub(crate) async fn take_place(
        &self,
        kind: &'static str,
        network: Network,
        cap: usize,
    ) -> Result<Option<Slot>, ClusterError> {
        let key = count_key(kind, network);
        let taken: u64 = Script::new(TAKE)
            .key(&key)
            .key(held_key(&self.node))
            .arg(&self.node)
            .arg(cap)
            .invoke_async(&mut self.redis.clone())
            .await?;
        if taken == 0 {
            return Ok(None);
        }
        let cluster = self.clone();
        Ok(Some(Slot::new(move || {
            // A place cannot be given back where there is no runtime (the process is ending);
            // the node's places are swept with it then.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let given: Result<u64, _> = Script::new(GIVE)
                        .key(&key)
                        .arg(&cluster.node)
                        .invoke_async(&mut cluster.redis.clone())
                        .await;
                    if let Err(err) = given {
                        tracing::warn!(cause = %err, "cannot give a place back to the cluster");
                    }
                });
            }
        })))
    }

    /// Gives back every place `node` held (it is gone, or starts again under its name).
    pub(crate) async fn sweep_places(&self, node: &str) -> Result<(), ClusterError> {
        Script::new(SWEEP)
            .key(held_key(node))
            .arg(node)
            .invoke_async::<u64>(&mut self.redis.clone())
            .await?;
        Ok(())
    }
}
