//! One lobby for the whole cluster. Each node publishes the changes made to its own listings,
//! gathered: one atomic step keeps each listing in a Redis hash (`{lobby}:games`, `{lobby}:rooms`,
//! `{lobby}:seeks`, each value naming its node) and publishes the batch on the channel `{lobby}`
//! (one hash tag, so one slot of a Redis Cluster for the whole step).
//! Seeks and rooms go out within [`URGENT_SPACING`] (a seek on another node may pair with one
//! here); games, each reduced to its last change, and the node's totals once every
//! [`GAMES_EVERY`]. So a node sends the others a bounded number of messages a second (at most
//! 21), whatever the number of moves played. Each node follows that channel and applies the other
//! nodes' changes to its own lobby; it subscribes first and then reads the hashes, so no change
//! falls between the snapshot and the stream (a change seen twice is the same change: each one
//! sets or removes one listing). When a node is gone, whichever node notices removes its listings
//! and publishes their removal. Batches and listings are sealed ([`super::seal`]): a listing is
//! taken only under the field it was kept in, and a batch only from the channel.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameId, SeekId, SeekInfo, Totals};
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::{Cluster, ClusterError};
use crate::lobby::{Change, GAMES_EVERY};

/// The channel every node's changes are published on.
pub(crate) const CHANNEL: &str = "{lobby}";
/// The hash of the games listed, by id.
const GAMES: &str = "{lobby}:games";
/// The hash of the rooms listed, by code.
const ROOMS: &str = "{lobby}:rooms";
/// The hash of the seeks listed, by id.
const SEEKS: &str = "{lobby}:seeks";
/// How long to wait before trying Redis again.
const RETRY: Duration = Duration::from_millis(250);
/// Removes a listing (`KEYS[1]`, field `ARGV[1]`) only if node `ARGV[2]` still holds it (the
/// listing is its last line, after the header a sealed one starts with).
const SWEEP_ONE: &str = r"
local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
    local at = string.find(value, '\n', 1, true)
    value = string.sub(value, (at or 0) + 1)
end
if value and cjson.decode(value)['node'] == ARGV[2] then
    return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
";

/// The least time between two of a node's batches of seek and room changes.
pub(crate) const URGENT_SPACING: Duration = Duration::from_millis(50);

/// A listing as kept in a hash: which node made it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Published {
    node: String,
    change: Change,
}

/// What a node publishes on the channel: its changes, gathered, and now and then its totals.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Batch {
    node: String,
    changes: Vec<Change>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    totals: Option<Totals>,
}

/// One listing, whatever its kind: what a removal removes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Listing {
    Game(GameId),
    Room(String),
    Seek(SeekId),
}

impl Listing {
    fn of(change: &Change) -> Listing {
        match change {
            Change::Game { game } => Listing::Game(game.game),
            Change::GameRemoved { game } => Listing::Game(*game),
            Change::Room { room } => Listing::Room(room.code.clone()),
            Change::RoomRemoved { code } => Listing::Room(code.clone()),
            Change::Seek { seek } => Listing::Seek(seek.seek),
            Change::SeekRemoved { seek } => Listing::Seek(*seek),
        }
    }

    /// The hash and field it is kept under.
    fn place(&self) -> (&'static str, String) {
        match self {
            Listing::Game(game) => (GAMES, game.0.to_string()),
            Listing::Room(code) => (ROOMS, code.clone()),
            Listing::Seek(seek) => (SEEKS, seek.0.to_string()),
        }
    }

    fn removal(&self) -> Change {
        match self.clone() {
            Listing::Game(game) => Change::GameRemoved { game },
            Listing::Room(code) => Change::RoomRemoved { code },
            Listing::Seek(seek) => Change::SeekRemoved { seek },
        }
    }
}

/// The name a listing is sealed under: its hash and field.
fn kept_as(hash: &str, field: &str) -> String {
    format!("{hash} {field}")
}

fn is_removal(change: &Change) -> bool {
    matches!(
        change,
        Change::GameRemoved { .. } | Change::RoomRemoved { .. } | Change::SeekRemoved { .. }
    )
}

impl Cluster {
    /// Keeps (or drops) the listings `changes` are about, as `node`'s, and tells every node in
    /// one message, with `totals` if given.
    async fn publish_as(
        &self,
        node: &str,
        changes: &[Change],
        totals: Option<Totals>,
    ) -> Result<(), ClusterError> {
        let mut pipe = redis::pipe();
        pipe.atomic();
        for change in changes {
            let (hash, field) = Listing::of(change).place();
            if is_removal(change) {
                pipe.hdel(hash, field).ignore();
            } else {
                let entry = serde_json::to_string(&Published {
                    node: node.to_owned(),
                    change: change.clone(),
                })
                .expect("a change serialises");
                let entry = self.seal.keep(&kept_as(hash, &field), &entry).into_owned();
                pipe.hset(hash, field, entry).ignore();
            }
        }
        let batch = serde_json::to_string(&Batch {
            node: node.to_owned(),
            changes: changes.to_vec(),
            totals,
        })
        .expect("a batch serialises");
        self.publish_in(
            &mut pipe,
            CHANNEL,
            self.seal.publish(CHANNEL, &batch).as_ref(),
        );
        pipe.exec_async(&mut self.redis.clone()).await?;
        Ok(())
    }

    /// Sets this node's listings in Redis to `own` and tells every node: each kept again, and
    /// each kept there as this node's that it no longer lists removed.
    async fn restate(&self, own: &HashMap<Listing, Change>) -> Result<(), ClusterError> {
        let mut changes: Vec<Change> = own.values().cloned().collect();
        for (node, change) in self.listings().await? {
            let listing = Listing::of(&change);
            if node == self.node && !own.contains_key(&listing) {
                changes.push(listing.removal());
            }
        }
        info!(
            listings = changes.len(),
            "this node's lobby listings stated again"
        );
        self.publish_as(&self.node, &changes, None).await
    }

    /// The listings kept in `hash` that a node sealed there.
    async fn kept(&self, hash: &str) -> Result<Vec<Published>, ClusterError> {
        let fields: Vec<(String, String)> = redis::cmd("HGETALL")
            .arg(hash)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(fields
            .iter()
            .filter_map(|(field, value)| self.seal.open_kept(&kept_as(hash, field), value))
            .filter_map(|value| serde_json::from_str::<Published>(value).ok())
            .collect())
    }

    /// Every listing kept in Redis, with the node that made it.
    async fn listings(&self) -> Result<Vec<(String, Change)>, ClusterError> {
        let mut all = Vec::new();
        for hash in [GAMES, ROOMS, SEEKS] {
            all.extend(
                self.kept(hash)
                    .await?
                    .into_iter()
                    .map(|published| (published.node, published.change)),
            );
        }
        Ok(all)
    }

    /// The seeks other nodes list, each with its node.
    pub(crate) async fn seeks_elsewhere(&self) -> Result<Vec<(String, SeekInfo)>, ClusterError> {
        Ok(self
            .kept(SEEKS)
            .await?
            .into_iter()
            .filter(|published| published.node != self.node)
            .filter_map(|published| match published.change {
                Change::Seek { seek } => Some((published.node, seek)),
                _ => None,
            })
            .collect())
    }

    /// The node listing seek `seek`, if another node does.
    pub(crate) async fn seek_node(&self, seek: SeekId) -> Result<Option<String>, ClusterError> {
        let value: Option<String> = redis::cmd("HGET")
            .arg(SEEKS)
            .arg(seek.0)
            .query_async(&mut self.redis.clone())
            .await?;
        let kept = kept_as(SEEKS, &seek.0.to_string());
        let published = value
            .as_deref()
            .and_then(|v| self.seal.open_kept(&kept, v))
            .and_then(|v| serde_json::from_str::<Published>(v).ok());
        Ok(published
            .map(|published| published.node)
            .filter(|node| *node != self.node))
    }

    /// Removes what `node` listed, telling every node; returns how many listings went.
    pub(crate) async fn sweep_listings(&self, node: &str) -> Result<usize, ClusterError> {
        let mut swept = 0;
        for (owner, change) in self.listings().await? {
            if owner != node {
                continue;
            }
            let listing = Listing::of(&change);
            let (hash, field) = listing.place();
            // Only the sweeper that actually removed it tells the others; and only while the
            // listing is still the gone node's (a node that took its game over may have listed
            // it again under the same id meanwhile).
            let removed: u64 = redis::Script::new(SWEEP_ONE)
                .key(hash)
                .arg(&field)
                .arg(node)
                .invoke_async(&mut self.redis.clone())
                .await?;
            if removed == 1 {
                let message = serde_json::to_string(&Batch {
                    node: node.to_owned(),
                    changes: vec![listing.removal()],
                    totals: None,
                })
                .expect("a batch serialises");
                super::channels::publish(self.is_sharded())
                    .arg(CHANNEL)
                    .arg(self.seal.publish(CHANNEL, &message).as_ref())
                    .exec_async(&mut self.redis.clone())
                    .await?;
                swept += 1;
            }
        }
        Ok(swept)
    }
}

/// This node's changes waiting to be published: seeks and rooms in their order, games reduced
/// to the last change of each.
#[derive(Debug, Default)]
struct Waiting {
    urgent: Vec<Change>,
    games: HashMap<GameId, Change>,
}

impl Waiting {
    fn add(&mut self, change: Change) {
        match &change {
            Change::Game { game } => {
                self.games.insert(game.game, change);
            }
            Change::GameRemoved { game } => {
                self.games.insert(*game, change);
            }
            _ => self.urgent.push(change),
        }
    }
}

/// Publishes this node's changes, gathered as the module says, until `stop`; a batch Redis did
/// not take is tried again until it does. When `republish` is notified (the lobby's channel
/// broke, so Redis may have lost everything), every listing this node holds is published again;
/// on a Redis Cluster, where a shard's failover may lose a moment's writes, this node's listings
/// are also set right whenever Redis refused a batch.
/// `local` counts this node's connections and live games, sent with the games.
pub(crate) async fn relay(
    cluster: Cluster,
    mut changes: mpsc::UnboundedReceiver<Change>,
    republish: Arc<Notify>,
    stop: CancellationToken,
    local: impl Fn() -> Totals + Send,
) {
    // This node's listings as they stand, to publish again.
    let mut own: HashMap<Listing, Change> = HashMap::new();
    let mut waiting = Waiting::default();
    let mut last_urgent: Option<Instant> = None;
    let mut next_games = Instant::now() + GAMES_EVERY;
    // On a Redis Cluster, whether this node's listings are to be set right (see below).
    let mut restate = false;
    loop {
        let urgent_at = last_urgent.map_or_else(Instant::now, |last| last + URGENT_SPACING);
        let wake = if waiting.urgent.is_empty() {
            next_games
        } else {
            urgent_at.min(next_games)
        };
        tokio::select! {
            change = changes.recv() => {
                let Some(change) = change else { return };
                let mut change = Some(change);
                while let Some(next) = change {
                    let listing = Listing::of(&next);
                    if is_removal(&next) {
                        own.remove(&listing);
                    } else {
                        own.insert(listing, next.clone());
                    }
                    waiting.add(next);
                    change = changes.try_recv().ok();
                }
            }
            () = republish.notified() => {
                if cluster.is_sharded() {
                    restate = true;
                } else {
                    for change in own.values() {
                        waiting.add(change.clone());
                    }
                }
            }
            () = tokio::time::sleep_until(wake) => {}
            () = stop.cancelled() => return,
        }
        let now = Instant::now();
        let mut batch = Vec::new();
        let mut totals = None;
        if !waiting.urgent.is_empty() && now >= urgent_at {
            batch.append(&mut waiting.urgent);
            last_urgent = Some(now);
        }
        if now >= next_games {
            batch.extend(waiting.games.drain().map(|(_, change)| change));
            totals = Some(local());
            next_games = now + GAMES_EVERY;
        }
        if !batch.is_empty() || totals.is_some() {
            while let Err(err) = cluster.publish_as(&cluster.node, &batch, totals).await {
                warn!(cause = %err, "cannot publish lobby changes; trying again");
                restate |= cluster.is_sharded();
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => {}
                    () = stop.cancelled() => return,
                }
            }
        }
        // On a Redis Cluster, a shard that failed over (its primary lost) may have lost what
        // its primary had taken just before and not yet passed to its replica: once Redis
        // refused a batch, or the lobby's channel broke, this node's listings are set right
        // again, every one, and those it no longer lists removed.
        if std::mem::take(&mut restate) {
            while let Err(err) = cluster.restate(&own).await {
                warn!(cause = %err, "cannot set this node's listings right; trying again");
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => {}
                    () = stop.cancelled() => return,
                }
            }
        }
    }
}

/// What a node hears from the others: a change, or a node's totals.
#[derive(Debug)]
pub(crate) enum Heard<'a> {
    Change(&'a Change),
    Totals(&'a str, Totals),
}

/// Applies the other nodes' changes with `apply` until `stop`, following again from a fresh
/// snapshot whenever the subscription breaks, and then asking this node's relay to `republish`.
pub(crate) async fn follow(
    cluster: Cluster,
    apply: impl Fn(Heard<'_>) + Send + 'static,
    republish: Arc<Notify>,
    stop: CancellationToken,
) {
    // What this node shows from others, so that a fresh snapshot can drop what went meanwhile.
    let mut shown = HashSet::new();
    loop {
        match follow_once(&cluster, &apply, &mut shown, &stop).await {
            Ok(()) => return,
            Err(err) => {
                warn!(cause = %err, "lost the lobby's channel; following it again");
                republish.notify_one();
            }
        }
        tokio::select! {
            () = tokio::time::sleep(RETRY) => {}
            () = stop.cancelled() => return,
        }
    }
}

/// Subscribes, applies the snapshot, then every message until `stop` (Ok) or a break (Err).
async fn follow_once(
    cluster: &Cluster,
    apply: &impl Fn(Heard<'_>),
    shown: &mut HashSet<Listing>,
    stop: &CancellationToken,
) -> Result<(), ClusterError> {
    let (mut sink, mut messages) = cluster.subscribe().await?;
    sink.subscribe(CHANNEL).await?;
    let snapshot = cluster.listings().await?;
    let mut now = HashSet::new();
    for (node, change) in snapshot {
        if node != cluster.node {
            now.insert(Listing::of(&change));
            apply(Heard::Change(&change));
        }
    }
    for gone in shown.difference(&now) {
        apply(Heard::Change(&gone.removal()));
    }
    *shown = now;
    info!(listings = shown.len(), "following the cluster's lobby");
    loop {
        let message = tokio::select! {
            message = messages.next() => message,
            () = stop.cancelled() => return Ok(()),
        };
        let Some(message) = message else {
            return Err(ClusterError::Broken("the lobby's channel closed"));
        };
        let Some(payload) = cluster.seal.open(CHANNEL, &message.payload) else {
            continue;
        };
        let Ok(batch) = serde_json::from_str::<Batch>(payload) else {
            warn!("a lobby message this node cannot read");
            continue;
        };
        if batch.node == cluster.node {
            continue;
        }
        for change in &batch.changes {
            let listing = Listing::of(change);
            if is_removal(change) {
                shown.remove(&listing);
            } else {
                shown.insert(listing);
            }
            apply(Heard::Change(change));
        }
        if let Some(totals) = batch.totals {
            apply(Heard::Totals(&batch.node, totals));
        }
    }
}

/// Clears what this node listed in an earlier life (a restart under the same name), so the
/// lobby holds only what it lists from now on.
pub(crate) async fn clear_own(cluster: &Cluster) -> Result<usize, ClusterError> {
    let node = cluster.node.clone();
    cluster.sweep_listings(&node).await
}
