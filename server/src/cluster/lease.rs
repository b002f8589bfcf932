//! Who owns a live game: a lease in Redis with a fencing epoch.
//!
//! `game:{id}:owner` holds `NODE:EPOCH` and expires unless its node renews it; `game:{id}:epoch`
//! counts every lease ever taken on the game and never goes down. A node takes a game only when
//! no lease stands, and gets the next epoch; it renews and gives back only its own lease (checked
//! inside Redis, in one script, so a lease that expired and was taken by another node is never
//! touched). Every write of a game's log carries its owner's epoch, and the store refuses a write
//! whose epoch is below the highest it has seen for the game: so a node that lost its lease
//! (paused, partitioned, presumed dead) can never advance the game after another node has taken
//! it, however late its writes arrive.

use noughts_protocol::GameId;
use redis::Script;

use super::{Cluster, ClusterError};

/// A node's hold on one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub game: GameId,
    /// Above every epoch given before on this game: what fences the holder's writes.
    pub epoch: u64,
}

/// Takes the lease if none stands: the next epoch, or nil.
const ACQUIRE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return epoch
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

fn owner_key(game: GameId) -> String {
    format!("game:{}:owner", game.0)
}

fn epoch_key(game: GameId) -> String {
    format!("game:{}:epoch", game.0)
}

impl Cluster {
    fn holder(&self, lease: Lease) -> String {
        format!("{}:{}", self.node, lease.epoch)
    }

    pub(super) fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// Takes `game` unless another node holds it.
    pub async fn acquire(&self, game: GameId) -> Result<Option<Lease>, ClusterError> {
        let epoch: Option<u64> = Script::new(ACQUIRE)
            .key(owner_key(game))
            .key(epoch_key(game))
            .arg(&self.node)
            .arg(self.lease_ms())
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(epoch.map(|epoch| Lease { game, epoch }))
    }

    /// Extends each of `leases` (at most [`RENEW_AT_ONCE`]) for another lease time, in one call;
    /// for each, false if it has been lost (expired, and maybe taken by another node): that game
    /// is no longer this node's to advance.
    pub async fn renew_all(&self, leases: &[Lease]) -> Result<Vec<bool>, ClusterError> {
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        let script = Script::new(RENEW_ALL);
        let mut call = script.prepare_invoke();
        call.arg(self.lease_ms());
        for lease in leases {
            call.key(owner_key(lease.game)).arg(self.holder(*lease));
        }
        let renewed: Vec<u64> = call.invoke_async(&mut self.redis.clone()).await?;
        Ok(renewed.into_iter().map(|renewed| renewed == 1).collect())
    }

    /// Gives `lease` back (the game ended, or the node stops politely); false if it was no
    /// longer held.
    pub async fn release(&self, lease: Lease) -> Result<bool, ClusterError> {
        let released: u64 = Script::new(RELEASE)
            .key(owner_key(lease.game))
            .arg(self.holder(lease))
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(released == 1)
    }

    /// The node holding `game` and its epoch, if a lease stands.
    pub async fn owner(&self, game: GameId) -> Result<Option<(String, u64)>, ClusterError> {
        let holder: Option<String> = redis::cmd("GET")
            .arg(owner_key(game))
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(holder.and_then(|holder| {
            let (node, epoch) = holder.rsplit_once(':')?;
            Some((node.to_owned(), epoch.parse().ok()?))
        }))
    }
}

impl Cluster {
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
