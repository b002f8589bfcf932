//! The listener: opens the store and restores the games that were live, accepts connections up to
//! the cap, starts the war games, and shuts everything down in order when asked.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, sleep, timeout_at};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, error, info, info_span, warn};

use crate::account::{Attempts, Live, Passwords, Quotas};
#[cfg(not(feature = "cluster"))]
use crate::cluster::Wing;
#[cfg(feature = "cluster")]
use crate::cluster::wing::Wing;
use crate::config::Config;
#[cfg(feature = "cluster")]
use crate::game::takeover;
use crate::game::war;
use crate::handler::connection::{self, Gate};
use crate::handler::enforce;
#[cfg(feature = "cluster")]
use crate::handler::joining;
use crate::league::Leagues;
use crate::lobby::Lobby;
use crate::metrics;
use crate::moderation::Moderation;
use crate::net::proxy::Door;
use crate::net::socket::Socket;
use crate::ops::backup::Backups;
use crate::ops::health::Health;
use crate::ops::operator;
use crate::ops::port;
use crate::registry::Registry;
use crate::shared::{Accounts, Engine, Lifecycle, Operator, Shared};
use crate::store::Store;
use noughts_protocol::Totals;

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
    if let Some(refusal) = config.unbuilt() {
        anyhow::bail!(refusal);
    }
    let entrances = Entrances::open(listener, &config)?;
    let (store, startup) = Store::open_keeping(
        &config.store,
        config.memory_finished_games,
        config.durability,
    )
    .await?;
    // Made once the store is this server's (a SQLite file is held by one server at a time).
    let admin_door = match &config.admin_socket {
        Some(socket) => operator::open_admin_socket(socket)?,
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
    let metrics = Arc::new(metrics::Metrics::new(store.errors.clone(), &store.flush));
    #[cfg(feature = "cluster")]
    let (wing, lapsed) = joining::open(
        &config,
        &store,
        &moderation,
        &connections,
        &stop_connections,
    )
    .await?
    .unzip();
    #[cfg(not(feature = "cluster"))]
    let wing = None;
    let health = node_health(&store, &config, wing.as_ref(), &metrics);
    if wing.is_some() || metrics_listener.is_some() {
        connections.spawn(health.clone().keep_probing(stop_connections.clone()));
    }
    let lobby = Lobby::new(config.lobby_sends_per_sec);
    let league_variants = if config.war_games {
        config.war_variants.clone()
    } else {
        Vec::new()
    };
    let leagues = Leagues::new(
        &league_variants,
        &config.league_levels,
        config.war_levels.map(|(x, o)| [x, o]),
    );
    let passwords = Passwords::new(config.accounts.concurrent_hashes);
    let attempts = Attempts::new(config.accounts.clone());
    let quotas = Quotas::new(&config.accounts);
    let shared = Arc::new(Shared {
        config,
        registry: Registry::default(),
        store,
        lobby,
        leagues,
        engine: Engine {
            ai_slots,
            analyses: Default::default(),
        },
        accounts: Accounts {
            passwords,
            attempts,
            quotas,
            live: Live::default(),
            moderation,
        },
        lifecycle: Lifecycle {
            tasks: TaskTracker::new(),
            connections,
            stop_games: CancellationToken::new(),
            stop_connections,
        },
        operator: Operator { metrics, health },
        wing,
    });
    // The moderation log as it stands, before the first player arrives; then kept up with.
    enforce::catch_up(&shared).await;
    let connections = &shared.lifecycle.connections;
    connections.spawn(enforce::follow(shared.clone()));
    shared
        .registry
        .continue_ids(startup.last_player, startup.last_game);
    shared.store.prune_tokens(shared.config.token_rules());
    #[cfg(feature = "cluster")]
    if let (Some(wing), Some(lapsed)) = (&shared.wing, lapsed) {
        let startup_ids = [
            ("player", startup.last_player),
            ("game", startup.last_game),
            ("seek", 0),
        ];
        joining::join(&shared, wing, lapsed, &startup_ids, local_totals).await?;
    }
    // A node of a cluster restores only the games no other node plays.
    #[cfg(feature = "cluster")]
    let restored = takeover::restore_at_start(&shared, startup.live).await;
    #[cfg(not(feature = "cluster"))]
    let restored = crate::game::restore_all(&shared, startup.live);
    // In a cluster the node that holds an arena's slot directs it; the others list it.
    #[cfg(feature = "cluster")]
    if shared.wing.is_some() {
        let kept = shared.clone();
        shared
            .lifecycle
            .tasks
            .spawn(crate::arena::keep_arenas(kept));
    }
    if shared.wing.is_none() {
        crate::arena::restore_all(&shared).await;
    }
    if shared.config.arena_schedule {
        let scheduled = shared.clone();
        shared
            .lifecycle
            .tasks
            .spawn(crate::arena::keep_schedule(scheduled));
    }
    entrances.say_where();
    serve_operator(&shared, metrics_listener, admin_door);
    let (lobby, counted) = (shared.clone(), shared.clone());
    connections.spawn(async move {
        let stop = lobby.lifecycle.stop_connections.clone();
        let local = move || local_totals(&counted);
        lobby.lobby.keep_sending(local, stop).await;
    });
    if shared.config.war_games {
        war::start(&shared, restored).await;
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
    let Lifecycle {
        connections,
        stop_connections,
        ..
    } = &shared.lifecycle;
    if let Some(door) = admin {
        connections.spawn(operator::serve_admin_socket(
            door,
            Backups::new(shared.store.clone(), &shared.config.store),
            stop_connections.clone(),
            connections.clone(),
        ));
    }
    if let Some(listener) = metrics {
        let registry = shared.clone();
        let source = port::Source {
            metrics: shared.operator.metrics.clone(),
            live_games: Box::new(move || registry.registry.games.live_count()),
            health: shared.operator.health.clone(),
        };
        connections.spawn(port::serve(
            source,
            listener,
            stop_connections.clone(),
            connections.clone(),
        ));
    }
}

/// The node's health checks: its store and, in a cluster, Redis.
fn node_health(
    store: &Store,
    config: &Config,
    wing: Option<&Wing>,
    metrics: &metrics::Metrics,
) -> Arc<Health> {
    #[cfg(feature = "cluster")]
    let redis = wing.map(joining::redis_ping);
    #[cfg(not(feature = "cluster"))]
    let redis = wing.map(|wing| match *wing {});
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
            shared.lifecycle.connections.spawn(serve.instrument(span));
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

/// This node's connections and live games, for the lobby's totals.
fn local_totals(shared: &Shared) -> Totals {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Totals {
        online: u32::try_from(shared.operator.metrics.connections.get()).unwrap_or(0),
        games: count(shared.registry.games.live_count()),
    }
}

/// Stops games, then connections, within [`SHUTDOWN_LIMIT`].
async fn stop(shared: &Shared) {
    let started = Instant::now();
    info!("shutting down");
    let lifecycle = &shared.lifecycle;
    lifecycle.stop_games.cancel();
    lifecycle.tasks.close();
    if timeout_at(started + GAMES_STOP_LIMIT, lifecycle.tasks.wait())
        .await
        .is_err()
    {
        warn!("some games did not stop in time");
    }
    if let Err(err) = shared.store.flush().await {
        error!(cause = %err, "the store could not finish its writes");
    }
    lifecycle.stop_connections.cancel();
    lifecycle.connections.close();
    if timeout_at(started + SHUTDOWN_LIMIT, lifecycle.connections.wait())
        .await
        .is_err()
    {
        warn!("some connections did not close in time");
    }
    info!("stopped");
}
