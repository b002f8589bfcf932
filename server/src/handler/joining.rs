//! A node joining its cluster: the link to Redis and the wing's parts made at start, then the
//! tasks that keep the node in the cluster until it stops: ids in blocks, the lobby relayed both
//! ways, mail read, links to other nodes kept, leases renewed and reported, games whose lease
//! lapsed stepped down, and the league's bots made known to the node that pairs them.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameId, Totals};
use tokio::sync::mpsc;
use tokio::time::sleep;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

use super::league_bots::keep_league_bots_known;
use super::remote::keep_links;
use super::seek::listed_elsewhere;
use super::stand_in::receive_mail;
use crate::cluster::leases::{Claim, Judge};
use crate::cluster::lobby::Heard;
use crate::cluster::wing::Wing;
use crate::cluster::{self, Cluster};
use crate::config::Config;
use crate::game::takeover;
use crate::lobby::Change;
use crate::moderation::Moderation;
use crate::ops::health;
use crate::registry::ids;
use crate::shared::Shared;
use crate::store::{Store, StoreConfig};

/// The cluster's parts of a node `config` makes one of, joined through Redis, with the receiver
/// of the games whose lease lapsed; `None` for a lone server. Its publishing and its watching
/// of other nodes' games run on `tasks` until `stop`.
pub(crate) async fn open(
    config: &Config,
    store: &Store,
    moderation: &Arc<Moderation>,
    tasks: &TaskTracker,
    stop: &CancellationToken,
) -> anyhow::Result<Option<(Wing, mpsc::UnboundedReceiver<GameId>)>> {
    let Some(options) = &config.cluster else {
        return Ok(None);
    };
    let ca = options.redis_ca.as_deref();
    let joined = Cluster::join_trusting(&options.redis, ca, &options.node, options.lease);
    let joined = joined.await?;
    if !options.insecure_redis {
        joined.refuse_open_redis().await?;
    }
    let cluster = match &options.secret {
        Some(secret) => joined.with_secret(secret)?,
        None => joined,
    };
    let judge = Box::new(StoreJudge(store.clone()));
    let started = Wing::start(cluster, judge, moderation.clone(), tasks, stop).await?;
    Ok(Some(started))
}

/// How long joining waits for this node's mailbox to be read.
const MAILBOX_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The readiness check of the cluster's Redis.
pub(crate) fn redis_ping(wing: &Wing) -> health::Ping {
    let cluster = wing.cluster.clone();
    Box::new(move || {
        let cluster = cluster.clone();
        Box::pin(async move { cluster.ping().await.map_err(|err| err.to_string()) })
    })
}

/// Joins the cluster: says this node is alive, clears what it listed in an earlier life, and
/// from then on publishes its lobby changes (with the node's `totals`) and follows the other
/// nodes', until connections stop; games whose lease `lapsed` step down; ids are taken in blocks
/// above the `stored_ids` the store knows.
pub(crate) async fn join(
    shared: &Arc<Shared>,
    wing: &Wing,
    lapsed: mpsc::UnboundedReceiver<GameId>,
    stored_ids: &[(&'static str, u64)],
    totals: fn(&Shared) -> Totals,
) -> anyhow::Result<()> {
    let cluster = wing.cluster.clone();
    let tasks = &shared.lifecycle.connections;
    tasks.spawn(step_down_lapsed(shared.clone(), lapsed));
    cluster.count_forged_in(shared.operator.metrics.forged_messages.clone());
    cluster.heartbeat().await?;
    for &(kind, floor) in stored_ids {
        let ids = shared.registry.ids(kind);
        ids.use_blocks(reserve_ids(shared, &cluster, kind, floor).await?);
        tasks.spawn(refill_ids(cluster.clone(), shared.clone(), kind, floor));
    }
    cluster::lobby::clear_own(&cluster).await?;
    cluster.sweep_places(cluster.node()).await?;
    let (relay, changes) = mpsc::unbounded_channel();
    shared.lobby.relay_to(relay);
    let stop = shared.lifecycle.stop_connections.clone();
    let republish = Arc::new(tokio::sync::Notify::new());
    let counted = shared.clone();
    tasks.spawn(cluster::lobby::relay(
        cluster.clone(),
        changes,
        republish.clone(),
        stop.clone(),
        move || totals(&counted),
    ));
    let lobby = shared.clone();
    tasks.spawn(cluster::lobby::follow(
        cluster.clone(),
        move |heard| match heard {
            Heard::Change(change) => {
                lobby.lobby.apply_remote(change);
                if let Change::Seek { seek } = change {
                    listed_elsewhere(&lobby, seek);
                }
            }
            Heard::Totals(node, totals) => lobby.lobby.remote_totals(node, totals),
        },
        republish,
        stop.clone(),
    ));
    let mail = shared.clone();
    let (reading, read) = tokio::sync::oneshot::channel();
    tasks.spawn(cluster.clone().read_mail(
        move |mail_in| receive_mail(&mail, mail_in),
        stop.clone(),
        reading,
    ));
    // Mail for this node finds it from the first connection on (until its mailbox is read, the
    // other nodes take it for gone). A Redis out of reach now is waited for no longer than the
    // first subscription's own tries.
    if tokio::time::timeout(MAILBOX_WITHIN, read).await.is_err() {
        warn!("this node's mailbox is not read yet; other nodes take it for gone until it is");
    }
    tasks.spawn(keep_links(shared.clone(), stop.clone()));
    tasks.spawn(cluster.clone().keep_alive(stop.clone()));
    tasks.spawn(wing.leases.clone().keep(stop.clone()));
    tasks.spawn(takeover::keep_resuming(
        shared.clone(),
        shared.lifecycle.stop_games.clone(),
    ));
    tasks.spawn(report_leases(shared.clone(), stop.clone()));
    tasks.spawn(keep_league_bots_known(
        shared.clone(),
        shared.lifecycle.stop_games.clone(),
    ));
    tasks.spawn(takeover::keep_taking_over(
        shared.clone(),
        shared.lifecycle.stop_games.clone(),
    ));
    info!(node = %cluster.node(), "joined the cluster");
    tasks.spawn(cluster::nodes::sweep_gone(cluster, stop));
    Ok(())
}

/// The store as the judge of the cluster's leases: it counts each game's fencing epoch.
struct StoreJudge(Store);

impl Judge for StoreJudge {
    fn claim(&self, game: GameId, held: Option<u64>) -> Claim {
        let store = self.0.clone();
        Box::pin(async move { store.claim(game, held).await.map_err(|err| err.to_string()) })
    }

    fn fence(&self, game: GameId, epoch: Option<u64>) {
        self.0.fence(game, epoch);
    }
}

/// Keeps the leases' series current, every second until `stop`: held, paused, lost.
async fn report_leases(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(leases) = shared.wing.as_ref().map(|wing| wing.leases.clone()) else {
        return;
    };
    let mut lost = 0;
    loop {
        let metrics = &shared.operator.metrics;
        metrics
            .leases_held
            .set(i64::try_from(leases.count()).unwrap_or(i64::MAX));
        metrics
            .games_paused
            .set(i64::try_from(leases.paused_count()).unwrap_or(i64::MAX));
        let now = leases.lost();
        metrics.leases_lost.inc_by(now.saturating_sub(lost));
        lost = now;
        tokio::select! {
            () = sleep(Duration::from_secs(1)) => {}
            () = stop.cancelled() => return,
        }
    }
}

/// Steps down, here, each game whose lease lapsed or was lost: it stops being served at once,
/// its people told it is paused, until a node takes it again.
/// Ends when connections stop, so that the node's shutdown does not wait for it.
async fn step_down_lapsed(shared: Arc<Shared>, mut lapsed: mpsc::UnboundedReceiver<GameId>) {
    let stop = shared.lifecycle.stop_connections.clone();
    loop {
        let game = tokio::select! {
            game = lapsed.recv() => game,
            () = stop.cancelled() => return,
        };
        let Some(game) = game else { return };
        if let Some(handle) = shared.registry.games.get(game) {
            handle.step_down().await;
        }
    }
}

/// The next block of `kind` ids: from PostgreSQL, which remembers every block given, when the
/// nodes share it; from Redis when each node keeps records of its own (tests of the cluster
/// alone), where no store is shared to count them.
async fn reserve_ids(
    shared: &Shared,
    cluster: &Cluster,
    kind: &'static str,
    floor: u64,
) -> anyhow::Result<std::ops::Range<u64>> {
    if matches!(shared.config.store, StoreConfig::Postgres(_)) {
        Ok(shared.store.reserve_ids(kind, ids::BLOCK, floor).await?)
    } else {
        Ok(cluster.reserve_ids(kind, ids::BLOCK, floor).await?)
    }
}

/// Keeps a spare block of `kind` ids ready until connections stop.
async fn refill_ids(cluster: Cluster, shared: Arc<Shared>, kind: &'static str, floor: u64) {
    let ids = shared.registry.ids(kind);
    let stop = shared.lifecycle.stop_connections.clone();
    loop {
        tokio::select! {
            () = ids.spare_wanted() => {}
            () = stop.cancelled() => return,
        }
        match reserve_ids(&shared, &cluster, kind, floor).await {
            Ok(block) => ids.add_spare(block),
            Err(err) => {
                warn!(cause = %err, kind, "cannot take ids from the cluster; trying again");
                tokio::select! {
                    () = sleep(Duration::from_millis(250)) => {}
                    () = stop.cancelled() => return,
                }
            }
        }
    }
}
