//! Ids for the whole cluster: `ids:{kind}` in Redis counts the players, games or seeks given out
//! by every node, and a node takes a block of them at a time. The count never starts below the
//! highest id already stored, so a cluster that grows from one node's database gives no id twice.

use std::ops::Range;

use redis::Script;

use super::{Cluster, ClusterError};

/// Raises the count to at least the floor, then takes a block: returns the block's last id.
const RESERVE: &str = r"
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count < tonumber(ARGV[2]) then redis.call('SET', KEYS[1], ARGV[2]) end
return redis.call('INCRBY', KEYS[1], ARGV[1])
";

impl Cluster {
    /// The next `size` ids of `kind` (`player`, `game`, `seek`), all above `floor`.
    pub async fn reserve_ids(
        &self,
        kind: &str,
        size: u64,
        floor: u64,
    ) -> Result<Range<u64>, ClusterError> {
        let last: u64 = Script::new(RESERVE)
            .key(format!("ids:{kind}"))
            .arg(size)
            .arg(floor)
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(last + 1 - size..last + 1)
    }
}
