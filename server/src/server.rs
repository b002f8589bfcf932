//! The listener: opens the store and restores the games that were live, accepts connections up to
//! the cap, starts the war games, and shuts everything down in order when asked.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::{Instant, sleep, timeout_at};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, error, info, info_span, warn};

use crate::account::{Attempts, Live, Passwords, Quotas};
use crate::cluster::leases::{Claim, Judge};
use crate::cluster::lobby::Heard;
use crate::cluster::wing::Wing;
use crate::cluster::{self, Cluster};
use crate::config::Config;
use crate::game::takeover;
use crate::game::war;
use crate::handler;
use crate::handler::connection::{self, Gate};
use crate::handler::enforce;
use crate::lobby::{Change, Lobby};
use crate::metrics;
use crate::moderation::Moderation;
use crate::net::proxy::Door;
use crate::net::socket::Socket;
use crate::ops::backup::Backups;
use crate::ops::health::{self, Health};
use crate::ops::operator;
use crate::ops::port;
use crate::registry::Registry;
use crate::registry::ids;
use crate::shared::{Operator, Shared};
use crate::store::{Store, StoreConfig};
use noughts_protocol::{GameId, Totals};

/// The whole shutdown, from the signal to the last connection closed, takes no longer than this.
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(5);
/// Of that, games get this long to tell their players they were stopped.
const GAMES_STOP_LIMIT: Duration = Duration::from_secs(1);
/// Connections being turned away (with `server_full`) at once; beyond this, a connection over the
/// cap is dropped without a word, so a flood cannot pile up handshakes.
const REFUSALS_AT_ONCE: usize = 64;

/// Runs a noughts server on `listener` until `shutdown` completes, then tells every client, closes
/// every connection and returns (within five seconds of the signal).
///
/// Before serving, it opens the store ([`Config::store`]) and restores every game that was being
/// played when the server last stopped.
///
/// Returns an error if the store cannot be opened, and `Ok` once shut down; accept errors (such as
/// running out of file descriptors) are logged and retried rather than returned.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve(listener, None, config, shutdown).await
}

/// [`run`], also serving Prometheus metrics over HTTP at `/metrics` on `metrics`: connections,
/// live games, watchers, moves, AI think time, connections dropped as too slow, and errors by code.
///
/// The metrics belong to this server alone, so several can run in one process.
pub async fn run_with_metrics(
    listener: TcpListener,
    metrics: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve(listener, Some(metrics), config, shutdown).await
}

async fn serve(
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let entrances = Entrances::open(listener, &config)?;
    let (store, startup) = Store::open_keeping(&config.store, config.memory_finished_games).await?;
    // Made once the store is this server's (a SQLite file is held by one server at a time).
    let admin_door = match &config.admin_socket {
        Some(socket) => operator::open_admin_socket(socket)?,
        None => None,
    };
    let cluster = match &config.cluster {
        Some(cluster) => {
            let ca = cluster.redis_ca.as_deref();
            let joined = Cluster::join_trusting(&cluster.redis, ca, &cluster.node, cluster.lease);
            let joined = joined.await?;
            if !cluster.insecure_redis {
                joined.refuse_open_redis().await?;
            }
            Some(match &cluster.secret {
                Some(secret) => joined.with_secret(secret)?,
                None => joined,
            })
        }
        None => None,
    };
    let gate = Gate {
        limit: Arc::new(Semaphore::new(config.max_connections)),
        refusals: Arc::new(Semaphore::new(REFUSALS_AT_ONCE)),
    };
    let ai_slots = Arc::new(Semaphore::new(config.ai_threads.max(1)));
    let connections = TaskTracker::new();
    let stop_connections = CancellationToken::new();
    let moderation = Moderation::new();
    let metrics = Arc::new(metrics::Metrics::new(store.errors.clone()));
    let health = node_health(&store, &config, cluster.as_ref(), &metrics);
    let (wing, lapsed) = match cluster {
        Some(cluster) => {
            let judge = Box::new(StoreJudge(store.clone()));
            let started = Wing::start(
                cluster,
                judge,
                moderation.clone(),
                &connections,
                &stop_connections,
            );
            let (wing, lapsed) = started.await?;
            (Some(wing), Some(lapsed))
        }
        None => (None, None),
    };
    if wing.is_some() || metrics_listener.is_some() {
        connections.spawn(health.clone().keep_probing(stop_connections.clone()));
    }
    let lobby = Lobby::new(config.lobby_sends_per_sec);
    let passwords = Passwords::new(config.accounts.concurrent_hashes);
    let attempts = Attempts::new(config.accounts.clone());
    let quotas = Quotas::new(&config.accounts);
    let shared = Arc::new(Shared {
        passwords,
        attempts,
        quotas,
        live: Live::default(),
        ai_slots,
        analyses: Default::default(),
        config,
        wing,
        registry: Registry::default(),
        store,
        lobby,
        tasks: TaskTracker::new(),
        connections,
        stop_games: CancellationToken::new(),
        stop_connections,
        operator: Operator { metrics, health },
        moderation,
    });
    if let Some(lapsed) = lapsed {
        shared
            .connections
            .spawn(step_down_lapsed(shared.clone(), lapsed));
    }
    // The moderation log as it stands, before the first player arrives; then kept up with.
    enforce::catch_up(&shared).await;
    shared.connections.spawn(enforce::follow(shared.clone()));
    shared
        .registry
        .continue_ids(startup.last_player, startup.last_game);
    let startup_ids = [
        ("player", startup.last_player),
        ("game", startup.last_game),
        ("seek", 0),
    ];
    shared.store.prune_tokens(shared.config.token_rules());
    if let Some(wing) = &shared.wing {
        join_cluster(&shared, wing, &startup_ids).await?;
    }
    // A node of a cluster restores only the games no other node plays.
    let restored = takeover::restore_at_start(&shared, startup.live).await;
    entrances.say_where();
    serve_operator(&shared, metrics_listener, admin_door);
    let (lobby, counted) = (shared.clone(), shared.clone());
    shared.connections.spawn(async move {
        let stop = lobby.stop_connections.clone();
        let local = move || local_totals(&counted);
        lobby.lobby.keep_sending(local, stop).await;
    });
    if shared.config.war_games {
        war::start(&shared, restored);
    }
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = entrances.accept() => take(&shared, &gate, accepted).await,
        }
    }
    drain(&shared, &entrances, &gate).await;
    drop(entrances);
    stop(&shared).await;
    Ok(())
}

/// Serves the operator's side, until connections stop: the metrics port, if there is one, and the
/// operator's socket, if there is one.
fn serve_operator(shared: &Arc<Shared>, metrics: Option<TcpListener>, admin: Option<Door>) {
    if let Some(door) = admin {
        shared.connections.spawn(operator::serve_admin_socket(
            door,
            Backups::new(shared.store.clone(), &shared.config.store),
            shared.stop_connections.clone(),
            shared.connections.clone(),
        ));
    }
    if let Some(listener) = metrics {
        let registry = shared.clone();
        let source = port::Source {
            metrics: shared.operator.metrics.clone(),
            live_games: Box::new(move || registry.registry.games.live_count()),
            health: shared.operator.health.clone(),
        };
        shared.connections.spawn(port::serve(
            source,
            listener,
            shared.stop_connections.clone(),
            shared.connections.clone(),
        ));
    }
}

/// The node's health checks: its store and, in a cluster, Redis.
fn node_health(
    store: &Store,
    config: &Config,
    cluster: Option<&Cluster>,
    metrics: &metrics::Metrics,
) -> Arc<Health> {
    let redis = cluster.cloned().map(|cluster| -> health::Ping {
        Box::new(move || {
            let cluster = cluster.clone();
            Box::pin(async move { cluster.ping().await.map_err(|err| err.to_string()) })
        })
    });
    Arc::new(Health::new(
        store.clone(),
        &config.store,
        redis,
        config.readiness_grace,
        metrics.health.clone(),
    ))
}

/// Where connections come in: the TCP port, and the proxy's own socket if there is one.
struct Entrances {
    /// The node's port, open to anyone: a peer there is who it is, unless the operator trusts
    /// it as a proxy (`--trusted-proxy`).
    tcp: TcpListener,
    /// The proxy's socket (`--proxy-socket`), where every connection speaks for its client.
    proxy: Option<Door>,
}

/// Who a connection through the proxy's socket comes from, until its PROXY header says: the
/// proxy, on this machine.
const PROXY_PEER: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0);

impl Entrances {
    /// The node's port, and the proxy's socket if the configuration asks for one.
    fn open(tcp: TcpListener, config: &Config) -> anyhow::Result<Entrances> {
        let proxy = config.proxy_socket.as_ref().map(Door::open).transpose();
        let proxy = proxy.context("the proxy socket (--proxy-socket)")?;
        Ok(Entrances { tcp, proxy })
    }

    /// Logs where the node listens.
    fn say_where(&self) {
        if let Ok(addr) = self.tcp.local_addr() {
            info!(%addr, "listening");
        }
        if let Some(door) = &self.proxy {
            info!(path = %door.path().display(), "listening for the proxy");
        }
    }

    /// The next connection, on either.
    async fn accept(&self) -> std::io::Result<(Socket, SocketAddr)> {
        let proxied = async {
            match &self.proxy {
                Some(door) => door.accept().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            accepted = self.tcp.accept() => accepted.map(|(tcp, peer)| (Socket::Tcp(tcp), peer)),
            accepted = proxied => accepted.map(|unix| (Socket::Unix(unix), PROXY_PEER)),
        }
    }
}

/// Serves an accepted connection on a task of its own, or waits a moment after an accept error.
async fn take(shared: &Arc<Shared>, gate: &Gate, accepted: std::io::Result<(Socket, SocketAddr)>) {
    match accepted {
        Ok((stream, peer)) => {
            let shown: &dyn std::fmt::Display = if stream.is_proxied() {
                &"proxy socket"
            } else {
                &peer
            };
            let span = info_span!(
                "conn",
                id = tracing::field::Empty,
                peer = %shown,
                client = tracing::field::Empty,
                player = tracing::field::Empty,
            );
            let Some(admission) = gate.admit() else {
                return;
            };
            let serve = connection::serve(shared.clone(), stream, peer, admission, gate.clone());
            shared.connections.spawn(serve.instrument(span));
        }
        Err(err) => {
            // Usually out of file descriptors: wait for some to come back.
            warn!(cause = %err, "accept failed");
            sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The start of a stop: the node answers not ready from now on, and goes on serving for
/// [`Config::drain_delay`], the time its load balancer takes to notice and send new players
/// elsewhere. Then it stops taking connections, and [`stop`] hands its games over and tells its
/// players to come back (through the balancer, to another node).
async fn drain(shared: &Arc<Shared>, entrances: &Entrances, gate: &Gate) {
    shared.operator.health.drain();
    let delay = shared.config.drain_delay;
    info!(delay_ms = delay.as_millis() as u64, "draining");
    let until = sleep(delay);
    tokio::pin!(until);
    loop {
        tokio::select! {
            () = &mut until => return,
            accepted = entrances.accept() => take(shared, gate, accepted).await,
        }
    }
}

/// Joins the cluster: says this node is alive, clears what it listed in an earlier life, and
/// from then on publishes its lobby changes and follows the other nodes', until connections stop.
async fn join_cluster(
    shared: &Arc<Shared>,
    wing: &Wing,
    stored_ids: &[(&'static str, u64)],
) -> anyhow::Result<()> {
    let cluster = wing.cluster.clone();
    cluster.count_forged_in(shared.operator.metrics.forged_messages.clone());
    cluster.heartbeat().await?;
    for &(kind, floor) in stored_ids {
        let ids = shared.registry.ids(kind);
        ids.use_blocks(reserve_ids(shared, &cluster, kind, floor).await?);
        shared
            .connections
            .spawn(refill_ids(cluster.clone(), shared.clone(), kind, floor));
    }
    cluster::lobby::clear_own(&cluster).await?;
    cluster.sweep_places(cluster.node()).await?;
    let (relay, changes) = mpsc::unbounded_channel();
    shared.lobby.relay_to(relay);
    let stop = shared.stop_connections.clone();
    let tasks = &shared.connections;
    let republish = Arc::new(tokio::sync::Notify::new());
    let counted = shared.clone();
    tasks.spawn(cluster::lobby::relay(
        cluster.clone(),
        changes,
        republish.clone(),
        stop.clone(),
        move || local_totals(&counted),
    ));
    let lobby = shared.clone();
    tasks.spawn(cluster::lobby::follow(
        cluster.clone(),
        move |heard| match heard {
            Heard::Change(change) => {
                lobby.lobby.apply_remote(change);
                if let Change::Seek { seek } = change {
                    handler::listed_elsewhere(&lobby, seek);
                }
            }
            Heard::Totals(node, totals) => lobby.lobby.remote_totals(node, totals),
        },
        republish,
        stop.clone(),
    ));
    let mail = shared.clone();
    tasks.spawn(cluster.clone().read_mail(
        move |mail_in| handler::receive_mail(&mail, mail_in),
        stop.clone(),
    ));
    tasks.spawn(handler::keep_links(shared.clone(), stop.clone()));
    tasks.spawn(cluster.clone().keep_alive(stop.clone()));
    tasks.spawn(wing.leases.clone().keep(stop.clone()));
    tasks.spawn(takeover::keep_resuming(
        shared.clone(),
        shared.stop_games.clone(),
    ));
    tasks.spawn(report_leases(shared.clone(), stop.clone()));
    tasks.spawn(takeover::keep_taking_over(
        shared.clone(),
        shared.stop_games.clone(),
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
    let stop = shared.stop_connections.clone();
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

/// This node's connections and live games, for the lobby's totals.
fn local_totals(shared: &Shared) -> Totals {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Totals {
        online: u32::try_from(shared.operator.metrics.connections.get()).unwrap_or(0),
        games: count(shared.registry.games.live_count()),
    }
}

/// Keeps a spare block of `kind` ids ready until connections stop.
async fn refill_ids(cluster: Cluster, shared: Arc<Shared>, kind: &'static str, floor: u64) {
    let ids = shared.registry.ids(kind);
    let stop = shared.stop_connections.clone();
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

/// Stops games, then connections, within [`SHUTDOWN_LIMIT`].
async fn stop(shared: &Shared) {
    let started = Instant::now();
    info!("shutting down");
    shared.stop_games.cancel();
    shared.tasks.close();
    if timeout_at(started + GAMES_STOP_LIMIT, shared.tasks.wait())
        .await
        .is_err()
    {
        warn!("some games did not stop in time");
    }
    if let Err(err) = shared.store.flush().await {
        error!(cause = %err, "the store could not finish its writes");
    }
    shared.stop_connections.cancel();
    shared.connections.close();
    if timeout_at(started + SHUTDOWN_LIMIT, shared.connections.wait())
        .await
        .is_err()
    {
        warn!("some connections did not close in time");
    }
    info!("stopped");
}
