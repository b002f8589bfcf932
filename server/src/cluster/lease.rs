//! Who plays a live game: a lease in Redis, and a fencing epoch in the store.
//!
//! `{gID}:owner` holds `NODE:TOKEN` and expires unless its node renews it; the token is new
//! at each taking, so that a holder renews and gives back only the lease it took (checked inside
//! Redis, in one script: a lease that expired and was taken by another node is never touched).
//! The lease is the fast path that keeps two nodes from taking a game at once. It is not what
//! makes a second writer harmless: Redis may restart empty or stall past a lease time. That is
//! the fencing epoch, which the store (PostgreSQL) counts and raises each time a node takes a
//! game: every write of a game's log carries its holder's epoch, and the store refuses one under
//! an older epoch. So a node that lost its lease (paused, partitioned, presumed dead, or the
//! lease forgotten by Redis) can never advance the game after another node has taken it, however
//! late its writes arrive.

use std::collections::HashMap;

use noughts_protocol::GameId;
use redis::Script;

use super::{Cluster, ClusterError};

/// A node's hold on one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub game: GameId,
    /// The game's fencing epoch in the store when this node took it: what fences its writes.
    pub epoch: u64,
    /// Names this taking in Redis, beside the node's name.
    pub token: u64,
}

/// Takes the lease if none stands: 1 if taken, else 0.
const ACQUIRE: &str = r"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
";

/// Extends each lease `KEYS[i]` that is still holder `ARGV[i + 1]`'s by `ARGV[1]` ms: 1 for each
/// one extended, 0 for each lost. One call for many leases: a node renews all its games' leases
/// in a few calls a round instead of one a game (the renewals were most of Redis's commands).
const RENEW_ALL: &str = r"
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    renewed[i] = redis.call('PEXPIRE', key, ARGV[1])
  else
    renewed[i] = 0
  end
end
return renewed
";

/// Leases renewed in one call at most: each call holds Redis for a moment.
pub(super) const RENEW_AT_ONCE: usize = 256;

/// Gives the lease back if it is still this holder's.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// The key of `game`'s lease. Every key of one game carries the hash tag `{gID}`, so that on a
/// Redis Cluster they sit in one slot, and the games spread over the shards.
pub(super) fn owner_key(game: GameId) -> String {
    format!("{{g{}}}:owner", game.0)
}

impl Cluster {
    fn holder(&self, token: u64) -> String {
        format!("{}:{token}", self.node)
    }

    pub(super) fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// Takes `game`'s lease in Redis under `token` unless another node holds it: true if taken.
    /// The caller then takes the game's fencing epoch from the store.
    pub async fn acquire(&self, game: GameId, token: u64) -> Result<bool, ClusterError> {
        let taken: u64 = Script::new(ACQUIRE)
            .key(owner_key(game))
            .arg(self.holder(token))
            .arg(self.lease_ms())
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(taken == 1)
    }

    /// Extends each of `leases` (at most [`RENEW_AT_ONCE`]) for another lease time, in one call
    /// (on a Redis Cluster, one call a slot);
    /// for each, false if it has been lost (expired, and maybe taken by another node): that game
    /// is no longer this node's to advance.
    pub async fn renew_all(&self, leases: &[Lease]) -> Result<Vec<bool>, ClusterError> {
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        if !self.is_sharded() {
            return self.renew_together(leases).await;
        }
        // On a Redis Cluster a script touches one slot: one call for the leases of each slot
        // (most often one lease a call, the games being spread), sent together.
        let mut by_slot: HashMap<_, Vec<usize>> = HashMap::new();
        for (at, lease) in leases.iter().enumerate() {
            by_slot
                .entry(super::link::slot_of(&owner_key(lease.game)))
                .or_default()
                .push(at);
        }
        let calls = by_slot.into_values().map(|at| async move {
            let group: Vec<Lease> = at.iter().map(|&i| leases[i]).collect();
            self.renew_together(&group)
                .await
                .map(|renewed| (at, renewed))
        });
        let mut all = vec![false; leases.len()];
        for (at, renewed) in futures_util::future::try_join_all(calls).await? {
            for (i, renewed) in at.into_iter().zip(renewed) {
                all[i] = renewed;
            }
        }
        Ok(all)
    }

    /// Renews `leases` in one call (all in one slot, on a Redis Cluster).
    async fn renew_together(&self, leases: &[Lease]) -> Result<Vec<bool>, ClusterError> {
        let script = Script::new(RENEW_ALL);
        let mut call = script.prepare_invoke();
        call.arg(self.lease_ms());
        for lease in leases {
            call.key(owner_key(lease.game))
                .arg(self.holder(lease.token));
        }
        let renewed: Vec<u64> = call.invoke_async(&mut self.redis.clone()).await?;
        Ok(renewed.into_iter().map(|renewed| renewed == 1).collect())
    }

    /// Gives `lease` back (the game ended, or the node stops politely); false if it was no
    /// longer held.
    pub async fn release(&self, lease: Lease) -> Result<bool, ClusterError> {
        let released: u64 = Script::new(RELEASE)
            .key(owner_key(lease.game))
            .arg(self.holder(lease.token))
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(released == 1)
    }

    /// The node holding `game`, if a lease stands.
    pub async fn owner(&self, game: GameId) -> Result<Option<String>, ClusterError> {
        Ok(self.owners(&[game]).await?.pop().flatten())
    }

    /// The node holding each of `games`, if a lease stands: one round trip for all of them.
    pub async fn owners(&self, games: &[GameId]) -> Result<Vec<Option<String>>, ClusterError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = games.iter().map(|&game| owner_key(game)).collect();
        let holders: Vec<Option<String>> = redis::cmd("MGET")
            .arg(keys)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(holders
            .into_iter()
            .map(|holder| Some(holder?.rsplit_once(':')?.0.to_owned()))
            .collect())
    }
}
