//! `noughts-server`: binds, prints the address, serves until ctrl-c or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use noughts_engine::{Budget, Level, Variant};
use noughts_server::{
    AccountConfig, AdminSocket, Cidr, ClientAddress, ClusterConfig, ClusterSecret, Config,
    OperatorCommand, Proxies, ProxySocket, StoreConfig, Tls,
};
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// Host a noughts server: lobby, quick match, invite codes, AI seats and AI-vs-AI war games.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "NOUGHTS_LISTEN", default_value = "127.0.0.1:7878")]
    listen: SocketAddr,
    /// Also serve Prometheus metrics over HTTP at /metrics on this address (off by default).
    #[arg(long, env = "NOUGHTS_METRICS_LISTEN", value_name = "ADDR")]
    metrics_listen: Option<SocketAddr>,
    /// Serve wss:// with this PEM certificate chain, the server's certificate first (needs
    /// --tls-key).
    #[arg(
        long,
        env = "NOUGHTS_TLS_CERT",
        value_name = "PATH",
        requires = "tls_key"
    )]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(
        long,
        env = "NOUGHTS_TLS_KEY",
        value_name = "PATH",
        requires = "tls_cert"
    )]
    tls_key: Option<PathBuf>,
    /// Seconds a client has to complete the TLS handshake.
    #[arg(long, env = "NOUGHTS_TLS_HANDSHAKE_SECS", value_parser = clap::value_parser!(u64).range(1..=300), default_value_t = 10)]
    tls_handshake_secs: u64,
    /// Where players, games and ratings are kept: a SQLite file (created if missing; default:
    /// noughts.db in the user's data directory), `:memory:` to keep nothing after exit, or a
    /// PostgreSQL database as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (its schema is
    /// migrated at start; ?sslmode=verify-full for TLS). A password here shows in `ps`: give it
    /// by --db-url-file.
    #[arg(long, env = "NOUGHTS_DB", value_name = "PATH|URL", global = true)]
    db: Option<String>,
    /// --db read from this file, which its owner alone may read (mode 600): the URL of
    /// PostgreSQL with its password, on no command line.
    #[arg(
        long,
        env = "NOUGHTS_DB_URL_FILE",
        value_name = "PATH",
        global = true,
        conflicts_with = "db"
    )]
    db_url_file: Option<PathBuf>,
    /// Most connections held at once.
    #[arg(long, env = "NOUGHTS_MAX_CONNECTIONS", default_value_t = 10_000)]
    max_connections: usize,
    /// Most connections at once from one IPv4 address or IPv6 /64.
    #[arg(long, env = "NOUGHTS_MAX_CONNECTIONS_PER_IP", default_value_t = 64)]
    max_connections_per_ip: usize,
    /// Most rooms open at once from one IPv4 address or IPv6 /64.
    #[arg(long, env = "NOUGHTS_MAX_ROOMS_PER_IP", default_value_t = 16)]
    max_rooms_per_ip: usize,
    /// Most quick-match seeks waiting at once from one IPv4 address or IPv6 /64.
    #[arg(long, env = "NOUGHTS_MAX_SEEKS_PER_IP", default_value_t = 16)]
    max_seeks_per_ip: usize,
    /// Most games live at once.
    #[arg(long, env = "NOUGHTS_MAX_GAMES", default_value_t = 5_000)]
    max_games: usize,
    /// Seconds a disconnected player keeps their seats.
    #[arg(long, env = "NOUGHTS_GRACE_SECS", value_parser = clap::value_parser!(u64).range(0..=86_400), default_value_t = 30)]
    grace_secs: u64,
    /// Seconds a player must have been away before the opponent may claim the game.
    #[arg(long, env = "NOUGHTS_CLAIM_SECS", value_parser = clap::value_parser!(u64).range(0..=86_400), default_value_t = 10)]
    claim_secs: u64,
    /// Another origin whose pages may open a WebSocket here, as scheme://host[:port] (repeat it,
    /// or separate them with commas in the environment); the server's own origin always may.
    #[arg(
        long = "allow-origin",
        env = "NOUGHTS_ALLOW_ORIGIN",
        value_name = "ORIGIN",
        value_delimiter = ','
    )]
    allow_origin: Vec<String>,
    /// Seconds a session token may lie unused before it stops working (default 30 days).
    #[arg(long, env = "NOUGHTS_TOKEN_IDLE_SECS", value_parser = clap::value_parser!(u64).range(1..=315_360_000), default_value_t = 2_592_000)]
    token_idle_secs: u64,
    /// Least milliseconds an AI seat takes per move against a person.
    #[arg(long, env = "NOUGHTS_AI_THINK_MS", value_parser = clap::value_parser!(u64).range(0..=86_400_000), default_value_t = 400)]
    ai_think_ms: u64,
    /// AI searches running at once (default: one per core).
    #[arg(long, env = "NOUGHTS_AI_THREADS")]
    ai_threads: Option<usize>,
    /// Search budget in milliseconds per AI move against a person.
    #[arg(long, env = "NOUGHTS_AI_BUDGET_MS", value_parser = clap::value_parser!(u64).range(0..=86_400_000), default_value_t = 1_000)]
    ai_budget_ms: u64,
    /// Do not run AI-vs-AI war games.
    #[arg(long, env = "NOUGHTS_NO_WAR_GAMES")]
    no_war_games: bool,
    /// Do not open the server's own arenas (the hourly classic blitz and the daily qubic).
    #[arg(long, env = "NOUGHTS_NO_ARENA_SCHEDULE")]
    no_arena_schedule: bool,
    /// The shortest arena an account may create, in seconds.
    #[arg(long, env = "NOUGHTS_ARENA_MIN_SECS", default_value_t = 300)]
    arena_min_secs: u32,
    /// Variants with a war game always running (comma-separated).
    #[arg(
        long,
        env = "NOUGHTS_WAR_VARIANTS",
        value_delimiter = ',',
        default_value = "classic,four,cube,qubic"
    )]
    war_variants: Vec<Variant>,
    /// Level of X in every war game, pinning one pairing instead of the league's (with --war-o).
    #[arg(long, env = "NOUGHTS_WAR_X", requires = "war_o")]
    war_x: Option<Level>,
    /// Level of O in every war game, pinning one pairing instead of the league's (with --war-x).
    #[arg(long, env = "NOUGHTS_WAR_O", requires = "war_x")]
    war_o: Option<Level>,
    /// The engines' league's entrants on each war variant (at least two): the war games.
    #[arg(long, env = "NOUGHTS_LEAGUE_LEVELS", value_delimiter = ',', default_values_t = Level::ALL)]
    league_levels: Vec<Level>,
    /// Search budget in milliseconds per war-game move.
    #[arg(long, env = "NOUGHTS_WAR_BUDGET_MS", value_parser = clap::value_parser!(u64).range(0..=86_400_000), default_value_t = 250)]
    war_budget_ms: u64,
    /// Milliseconds between two war-game moves.
    #[arg(long, env = "NOUGHTS_WAR_MOVE_MS", value_parser = clap::value_parser!(u64).range(0..=86_400_000), default_value_t = 1_000)]
    war_move_ms: u64,
    /// Milliseconds between a war game's end and the next.
    #[arg(long, env = "NOUGHTS_WAR_RESTART_MS", value_parser = clap::value_parser!(u64).range(0..=86_400_000), default_value_t = 3_000)]
    war_restart_ms: u64,
    /// Seconds between pings to a player in a live game (twice that for other connections).
    #[arg(long, env = "NOUGHTS_PING_SECS", value_parser = clap::value_parser!(u64).range(1..=86_400), default_value_t = 15)]
    ping_secs: u64,
    /// Seconds of silence before a connection is dropped.
    #[arg(long, env = "NOUGHTS_IDLE_SECS", value_parser = clap::value_parser!(u64).range(1..=86_400), default_value_t = 45)]
    idle_secs: u64,
    /// Seconds a new connection has to say hello.
    #[arg(long, env = "NOUGHTS_HELLO_SECS", value_parser = clap::value_parser!(u64).range(1..=86_400), default_value_t = 10)]
    hello_secs: u64,
    /// Requests per second per connection.
    #[arg(long, env = "NOUGHTS_RATE", default_value_t = 20)]
    rate: u32,
    /// Chat lines per minute per connection.
    #[arg(long, env = "NOUGHTS_CHAT_PER_MINUTE", default_value_t = 30)]
    chat_per_minute: u32,
    /// Burst of chat lines above that rate.
    #[arg(long, env = "NOUGHTS_CHAT_BURST", default_value_t = 5)]
    chat_burst: u32,
    /// Largest frame accepted from a client, in bytes (larger ones close with 1009).
    #[arg(long, env = "NOUGHTS_MAX_MESSAGE_BYTES", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(256..=1_048_576))]
    max_message_bytes: u64,
    /// Frames queued for one connection before it is dropped as too slow.
    #[arg(long, env = "NOUGHTS_OUTBOUND_QUEUE", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    outbound_queue: u64,
    /// Seconds a finished game stays open for a rematch.
    #[arg(long, env = "NOUGHTS_FINISHED_LINGER_SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    finished_linger_secs: u64,
    /// Burst of requests above the rate.
    #[arg(long, env = "NOUGHTS_BURST", default_value_t = 40)]
    burst: u32,
    /// Join a cluster through this Redis (redis://USER:PASSWORD@HOST:PORT; rediss:// over TLS;
    /// a Redis Cluster as redis+cluster://USER:PASSWORD@HOST:PORT,HOST:PORT,… naming some of
    /// its nodes): every node given the same Redis and PostgreSQL --db serves one lobby. A
    /// password here shows in `ps`: give it by --redis-url-file.
    #[arg(long, env = "NOUGHTS_REDIS", value_name = "URL")]
    redis: Option<String>,
    /// --redis read from this file, which its owner alone may read (mode 600): the URL of Redis
    /// with its password, on no command line.
    #[arg(
        long,
        env = "NOUGHTS_REDIS_URL_FILE",
        value_name = "PATH",
        conflicts_with = "redis"
    )]
    redis_url_file: Option<PathBuf>,
    /// Join a Redis that lets in anyone without a password (a node refuses to otherwise): then
    /// whatever reaches Redis can stop the site and read all the nodes send. For tests.
    #[arg(long, env = "NOUGHTS_INSECURE_REDIS")]
    insecure_redis: bool,
    /// Check a rediss:// Redis's certificate against the authorities in this PEM file rather
    /// than the system's.
    #[arg(long, env = "NOUGHTS_REDIS_CA_FILE", value_name = "PATH")]
    redis_ca_file: Option<PathBuf>,
    /// This node's name in the cluster (default: generated, unique).
    #[arg(long, env = "NOUGHTS_NODE_ID", value_name = "NAME")]
    node_id: Option<String>,
    /// Milliseconds a node's hold on its games outlives its last word: how soon another node
    /// takes over the games of one that died.
    #[arg(long, env = "NOUGHTS_LEASE_MS", value_parser = clap::value_parser!(u64).range(100..=600_000), default_value_t = 5_000)]
    lease_ms: u64,
    /// The cluster's secret: a file readable by its owner alone (mode 600) holding a secret of
    /// at least 32 bytes, the same on every node, with which nodes sign what they send each
    /// other; a second line holds another secret accepted while the secret changes.
    #[arg(long, env = "NOUGHTS_CLUSTER_SECRET_FILE", value_name = "PATH")]
    cluster_secret_file: Option<PathBuf>,
    /// Run a node of a cluster without --cluster-secret-file: nodes then take whatever comes
    /// through Redis as another node's word, so anything that reaches Redis can move, chat and
    /// resign for any player. For tests and benchmarks.
    #[arg(
        long,
        env = "NOUGHTS_INSECURE_CLUSTER",
        conflicts_with = "cluster_secret_file"
    )]
    insecure_cluster: bool,
    /// Seconds each side of a timed game has for its first move (no clock runs before both
    /// have moved once); a game whose first moves do not come in time is aborted, unrated.
    #[arg(long, env = "NOUGHTS_FIRST_MOVE_SECS", value_parser = clap::value_parser!(u64).range(1..=86_400), default_value_t = 30)]
    first_move_secs: u64,
    /// With --db :memory:, how many finished games keep their records (the newest); older
    /// ones leave history and game records (players, ratings and results stay).
    #[arg(long, env = "NOUGHTS_MEMORY_GAMES", default_value_t = 5_000)]
    memory_games: usize,
    #[command(flatten)]
    durability: noughts_server::DurabilityArgs,
    /// The most lobby frames sent a second, counting one per follower: with more followers than
    /// this allows at the lobby's usual pace, its frames come further apart instead of costing
    /// more. Each arena's standings keep to the same budget.
    #[arg(long, env = "NOUGHTS_LOBBY_SENDS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = noughts_server::DEFAULT_LOBBY_SENDS)]
    lobby_sends: u32,
    /// Seconds a replaced session token keeps working, so that clients sharing it can each
    /// come back with it.
    #[arg(long, env = "NOUGHTS_TOKEN_OVERLAP_SECS", value_parser = clap::value_parser!(u64).range(0..=86_400), default_value_t = 60)]
    token_overlap_secs: u64,
    /// A proxy (an address, or a network as ADDRESS/BITS) whose word on a client's address is
    /// taken: repeat it, or separate them with commas in the environment. None by default: every
    /// client is its TCP peer's address.
    #[arg(
        long = "trusted-proxy",
        env = "NOUGHTS_TRUSTED_PROXY",
        value_name = "CIDR",
        value_delimiter = ','
    )]
    trusted_proxy: Vec<Cidr>,
    /// Where the trusted proxies give the client's address: x-forwarded-for (the right-most
    /// address in it that is not a trusted proxy), forwarded (the same, from RFC 7239's
    /// Forwarded), or proxy-protocol (a PROXY protocol v2 header, which a connection from a
    /// trusted proxy must then start with).
    #[arg(
        long,
        env = "NOUGHTS_CLIENT_ADDRESS",
        value_name = "FROM",
        default_value = "x-forwarded-for"
    )]
    client_address: ClientAddress,
    /// Milliseconds a node told to stop (SIGTERM) goes on serving while /readyz answers 503,
    /// so that its load balancer sends new players elsewhere first; then its games are handed
    /// over (in a cluster) and its players told to come back.
    #[arg(long, env = "NOUGHTS_DRAIN_MS", value_parser = clap::value_parser!(u64).range(0..=600_000), default_value_t = 0)]
    drain_ms: u64,
    /// Milliseconds the store or Redis may fail without a break before /readyz answers 503;
    /// meanwhile the node goes on serving what it can, and /readyz says what is failing.
    #[arg(long, env = "NOUGHTS_READINESS_GRACE_MS", value_parser = clap::value_parser!(u64).range(0..=3_600_000), default_value_t = 15_000)]
    readiness_grace_ms: u64,
    /// Also listen on this Unix socket for the proxy in front (HAProxy: `server NAME unix@PATH
    /// send-proxy-v2`): made readable and writable by this server's user alone, every connection
    /// there must start with a PROXY protocol v2 header, whose client address is believed. The
    /// TCP port then believes no PROXY header (unless --trusted-proxy names its peer).
    #[arg(long, env = "NOUGHTS_PROXY_SOCKET", value_name = "PATH")]
    proxy_socket: Option<PathBuf>,
    /// Let this group too connect to --proxy-socket (mode 0660): the proxy's, when it runs as
    /// another user.
    #[arg(
        long,
        env = "NOUGHTS_PROXY_SOCKET_GROUP",
        value_name = "GROUP",
        requires = "proxy_socket"
    )]
    proxy_socket_group: Option<String>,
    /// A proxy that terminates TLS stands in front of this server: plain connections may carry
    /// passwords. Without it (and without --tls-cert) only connections from loopback may.
    #[arg(long, env = "NOUGHTS_TLS_PROXY")]
    tls_proxy: bool,
    /// How many passwords may be hashed or checked at once (each takes a core and 19 MiB for a
    /// moment); more wait their turn.
    #[arg(long, env = "NOUGHTS_PASSWORD_HASHES", value_parser = clap::value_parser!(u64).range(1..=64), default_value_t = 2)]
    password_hashes: u64,
    /// Days a closed account's username stays reserved before anyone may register it.
    #[arg(long, env = "NOUGHTS_CLOSED_NAME_DAYS", value_parser = clap::value_parser!(u64).range(0..=3650), default_value_t = 30)]
    closed_name_days: u64,
    /// `register` requests one address may make in an hour (a taken name counts too).
    #[arg(long, env = "NOUGHTS_REGISTRATIONS_PER_HOUR", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 5)]
    registrations_per_hour: u32,
    /// Accounts one address may make in a day.
    #[arg(long, env = "NOUGHTS_ACCOUNTS_PER_DAY", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 20)]
    accounts_per_day: u32,
    /// Sessions (signed-in devices) one account may hold; a sign-in past them ends the least
    /// recently used.
    #[arg(long, env = "NOUGHTS_SESSIONS_PER_ACCOUNT", value_parser = clap::value_parser!(u32).range(1..=1000), default_value_t = 20)]
    sessions_per_account: u32,
    /// Reports one player may send in an hour.
    #[arg(long, env = "NOUGHTS_REPORTS_PER_HOUR", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 10)]
    reports_per_hour: u32,
    /// Reports the players of one address may send in an hour, between them.
    #[arg(long, env = "NOUGHTS_ADDRESS_REPORTS_PER_HOUR", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 20)]
    address_reports_per_hour: u32,
    /// How log lines are written to standard error: text, or json (one object a line, with the
    /// spans' fields: a connection's id, peer and client address, a game's id).
    #[arg(long, env = "NOUGHTS_LOG_FORMAT", value_parser = ["text", "json"], default_value = "text")]
    log_format: String,
    /// The operator's socket, where `backup` and `admin` reach the running server, which lets
    /// in its own user and root alone (default: beside a SQLite --db, as FILE.admin).
    #[arg(long, env = "NOUGHTS_ADMIN_SOCKET", value_name = "PATH", global = true)]
    admin_socket: Option<PathBuf>,
    /// What to do instead of serving.
    #[command(subcommand)]
    command: Option<OperatorCommand>,
}

impl Args {
    /// --redis and --db from the files that hold them, where given so.
    fn read_url_files(&mut self) -> anyhow::Result<()> {
        if let Some(path) = &self.redis_url_file {
            self.redis = Some(noughts_server::read_url_file(path).context("--redis-url-file")?);
        }
        if let Some(path) = &self.db_url_file {
            self.db = Some(noughts_server::read_url_file(path).context("--db-url-file")?);
        }
        Ok(())
    }

    /// The secret of --cluster-secret-file; `None` only with --insecure-cluster.
    fn cluster_secret(&self) -> anyhow::Result<Option<ClusterSecret>> {
        match &self.cluster_secret_file {
            Some(path) => ClusterSecret::from_file(path)
                .map(Some)
                .with_context(|| format!("the cluster secret file {}", path.display())),
            None if self.insecure_cluster => {
                tracing::warn!(
                    "--insecure-cluster: nodes sign nothing they send each other, and anything \
                     that reaches Redis may speak as a node"
                );
                Ok(None)
            }
            None => anyhow::bail!(
                "a node of a cluster (--redis) needs the cluster's secret, the same on every \
                 node: give --cluster-secret-file PATH (a file of mode 600 holding at least 32 \
                 random bytes, e.g. made by `openssl rand -hex 32`), or --insecure-cluster"
            ),
        }
    }

    /// The certificate and key of --tls-cert and --tls-key, if given (clap sees to it that both
    /// or neither are).
    fn tls(&self) -> anyhow::Result<Option<Tls>> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Tls::from_pem_files(cert, key)
                .map(Some)
                .context("cannot serve TLS"),
            _ => Ok(None),
        }
    }

    /// The database of --db, or the default file.
    fn store(&self) -> StoreConfig {
        self.db
            .as_deref()
            .map_or_else(|| StoreConfig::File(default_db()), StoreConfig::from_arg)
    }

    fn config(&self) -> Config {
        let defaults = Config::default();
        Config {
            max_connections: self.max_connections,
            max_connections_per_ip: self.max_connections_per_ip,
            max_rooms_per_ip: self.max_rooms_per_ip,
            max_seeks_per_ip: self.max_seeks_per_ip,
            max_games: self.max_games,
            tls: None,
            tls_handshake_timeout: Duration::from_secs(self.tls_handshake_secs),
            grace: Duration::from_secs(self.grace_secs),
            claim_after: Duration::from_secs(self.claim_secs),
            token_idle: Duration::from_secs(self.token_idle_secs),
            token_overlap: Duration::from_secs(self.token_overlap_secs),
            allowed_origins: self
                .allow_origin
                .iter()
                .map(|origin| origin.trim().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
            ai_think_delay: Duration::from_millis(self.ai_think_ms),
            ai_budget: Budget::millis(self.ai_budget_ms),
            ai_threads: self.ai_threads.unwrap_or(defaults.ai_threads),
            war_games: !self.no_war_games,
            arena_schedule: !self.no_arena_schedule,
            arena_min_secs: self.arena_min_secs,
            war_variants: self.war_variants.clone(),
            war_levels: self.war_x.zip(self.war_o),
            league_levels: self.league_levels.clone(),
            war_budget: Budget::millis(self.war_budget_ms),
            war_move_delay: Duration::from_millis(self.war_move_ms),
            war_restart_delay: Duration::from_millis(self.war_restart_ms),
            ping_interval: Duration::from_secs(self.ping_secs),
            idle_timeout: Duration::from_secs(self.idle_secs),
            hello_timeout: Duration::from_secs(self.hello_secs),
            messages_per_second: self.rate,
            message_burst: self.burst,
            chat_per_minute: self.chat_per_minute,
            chat_burst: self.chat_burst,
            max_message_bytes: usize::try_from(self.max_message_bytes).unwrap_or(4096),
            outbound_queue: usize::try_from(self.outbound_queue).unwrap_or(256),
            finished_linger: Duration::from_secs(self.finished_linger_secs),
            cluster: self.redis.as_ref().map(|redis| ClusterConfig {
                redis: redis.clone(),
                node: self
                    .node_id
                    .clone()
                    .unwrap_or_else(ClusterConfig::generated_node),
                lease: Duration::from_millis(self.lease_ms),
                secret: None,
                insecure_redis: self.insecure_redis,
                redis_ca: self.redis_ca_file.clone(),
            }),
            admin_socket: AdminSocket::of(&self.store(), self.admin_socket.clone()),
            store: self.store(),
            durability: self.durability.durability(),
            first_move_timeout: Duration::from_secs(self.first_move_secs),
            memory_finished_games: self.memory_games,
            lobby_sends_per_sec: self.lobby_sends,
            proxies: Proxies {
                trusted: self.trusted_proxy.clone(),
                client_address: self.client_address,
            },
            drain_delay: Duration::from_millis(self.drain_ms),
            readiness_grace: Duration::from_millis(self.readiness_grace_ms),
            proxy_socket: self.proxy_socket.clone().map(|path| ProxySocket {
                path,
                group: self.proxy_socket_group.clone(),
            }),
            accounts: AccountConfig {
                tls_proxy: self.tls_proxy,
                concurrent_hashes: usize::try_from(self.password_hashes).unwrap_or(2),
                closed_name_hold: Duration::from_secs(self.closed_name_days * 24 * 3600),
                registrations_per_hour: self.registrations_per_hour,
                accounts_per_day: self.accounts_per_day,
                sessions_per_account: usize::try_from(self.sessions_per_account).unwrap_or(20),
                reports_per_hour: self.reports_per_hour,
                address_reports_per_hour: self.address_reports_per_hour,
                ..AccountConfig::default()
            },
        }
    }
}

/// `RUST_LOG`, or `info`; but never the WebSocket library's trace level, which logs whole frames
/// and so the session tokens in `hello` and `welcome`.
fn log_filter() -> EnvFilter {
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    if filter.max_level_hint() == Some(tracing_subscriber::filter::LevelFilter::TRACE) {
        for quieter in ["tungstenite=debug", "tokio_tungstenite=debug"] {
            if let Ok(directive) = quieter.parse() {
                filter = filter.add_directive(directive);
            }
        }
    }
    filter
}

/// `noughts.db` in the user's data directory (or the working directory if there is none).
fn default_db() -> PathBuf {
    directories::ProjectDirs::from("", "", "noughts").map_or_else(
        || PathBuf::from("noughts.db"),
        |dirs| dirs.data_dir().join("noughts.db"),
    )
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = Args::parse();
    args.read_url_files()?;
    if let Some(command) = &args.command {
        let store = args.store();
        let socket = AdminSocket::of(&store, args.admin_socket.clone());
        return command
            .run(&store, socket.as_ref().map(|s| s.path.as_path()))
            .await;
    }
    let logs = tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .with_writer(std::io::stderr);
    if args.log_format == "json" {
        logs.json()
            .with_current_span(false)
            .with_span_list(true)
            .init();
    } else {
        logs.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init();
    }
    let tls = args.tls()?;
    let mut config = Config {
        tls,
        ..args.config()
    };
    if let Some(cluster) = &mut config.cluster {
        cluster.secret = args.cluster_secret()?;
    }
    if let Some(refusal) = config.unbuilt().or_else(|| config.unshared_store()) {
        anyhow::bail!(refusal);
    }
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    let scheme = if config.tls.is_some() { "wss" } else { "ws" };
    if config.store.is_persistent() {
        tracing::info!(db = %config.store, "keeping games");
    }
    println!("noughts server listening on {scheme}://{addr}");
    let served = match args.metrics_listen {
        Some(metrics_addr) => {
            let metrics = TcpListener::bind(metrics_addr)
                .await
                .with_context(|| format!("cannot serve metrics on {metrics_addr}"))?;
            println!("metrics at http://{}/metrics", metrics.local_addr()?);
            noughts_server::run_with_metrics(listener, metrics, config, shutdown_signal()).await
        }
        None => noughts_server::run(listener, config, shutdown_signal()).await,
    };
    served.context("the server failed")?;
    Ok(())
}

/// Completes on ctrl-c or, on Unix, SIGTERM. The handlers are installed at once, not when the
/// future is first polled: a signal that comes while the server opens its store must not kill it.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |signal: Option<tokio::signal::unix::Signal>| async move {
                match signal {
                    Some(mut signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Args::command().debug_assert();
    }

    #[test]
    fn no_flags_means_the_library_defaults_on_a_file() {
        let args = Args::parse_from(["noughts-server"]);
        assert_eq!(args.listen.to_string(), "127.0.0.1:7878");
        assert_eq!(args.metrics_listen, None);
        let store = StoreConfig::File(default_db());
        let expected = Config {
            admin_socket: AdminSocket::of(&store, None),
            store,
            ..Config::default()
        };
        assert_eq!(args.config(), expected);
    }

    #[test]
    fn tls_takes_a_certificate_and_a_key_or_neither() {
        let both = Args::try_parse_from([
            "noughts-server",
            "--tls-cert",
            "cert.pem",
            "--tls-key",
            "key.pem",
        ])
        .unwrap();
        assert_eq!(both.tls_cert, Some(PathBuf::from("cert.pem")));
        for alone in ["--tls-cert", "--tls-key"] {
            let err = Args::try_parse_from(["noughts-server", alone, "file.pem"]).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        }
        let missing = both.tls().unwrap_err();
        assert!(
            format!("{missing:#}").contains("cannot read cert.pem: "),
            "{missing:#}"
        );
    }

    #[test]
    fn per_address_caps_have_flags() {
        let args = Args::parse_from([
            "noughts-server",
            "--max-connections-per-ip",
            "5",
            "--max-rooms-per-ip",
            "6",
            "--max-seeks-per-ip",
            "7",
        ]);
        let config = args.config();
        assert_eq!(
            (
                config.max_connections_per_ip,
                config.max_rooms_per_ip,
                config.max_seeks_per_ip
            ),
            (5, 6, 7)
        );
    }

    #[test]
    fn first_moves_memory_games_and_the_token_overlap_have_flags() {
        let args = Args::parse_from([
            "noughts-server",
            "--first-move-secs",
            "5",
            "--memory-games",
            "100",
            "--token-overlap-secs",
            "2",
        ]);
        let config = args.config();
        assert_eq!(config.first_move_timeout, Duration::from_secs(5));
        assert_eq!(config.memory_finished_games, 100);
        assert_eq!(config.token_overlap, Duration::from_secs(2));
    }

    #[test]
    fn trusted_proxies_are_named_one_by_one() {
        let args = Args::parse_from([
            "noughts-server",
            "--trusted-proxy",
            "127.0.0.1",
            "--trusted-proxy",
            "10.0.0.0/8",
            "--client-address",
            "proxy-protocol",
        ]);
        let proxies = args.config().proxies;
        assert_eq!(proxies.trusted.len(), 2);
        assert_eq!(proxies.trusted[1].to_string(), "10.0.0.0/8");
        assert_eq!(proxies.client_address, ClientAddress::ProxyProtocol);
        let bad = Args::try_parse_from(["noughts-server", "--trusted-proxy", "10.0.0.0/40"]);
        assert!(bad.is_err());
    }

    #[test]
    fn db_takes_a_path_or_memory() {
        let args = Args::parse_from(["noughts-server", "--db", "/tmp/games.db"]);
        assert_eq!(
            args.config().store,
            StoreConfig::File(PathBuf::from("/tmp/games.db"))
        );
        let args = Args::parse_from(["noughts-server", "--db", ":memory:"]);
        assert_eq!(args.config().store, StoreConfig::Memory);
    }

    #[test]
    fn db_takes_a_postgres_url_and_never_shows_its_password() {
        for url in [
            "postgres://noughts:s3cret@db.internal:5433/noughts",
            "postgresql://noughts:s3cret@db.internal/noughts?password=s3cret",
        ] {
            let store = Args::parse_from(["noughts-server", "--db", url])
                .config()
                .store;
            assert_eq!(store, StoreConfig::Postgres(url.to_owned()));
            for shown in [store.to_string(), format!("{store:?}")] {
                assert!(!shown.contains("s3cret"), "{shown}");
                assert!(shown.contains("noughts:***@db.internal"), "{shown}");
            }
        }
        let plain = StoreConfig::from_arg("postgres://ada@127.0.0.1:5432/games");
        assert_eq!(plain.to_string(), "postgres://ada@127.0.0.1:5432/games");
    }
}
