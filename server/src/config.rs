//! The server's knobs, with the production defaults.

use std::time::Duration;

use noughts_engine::{Budget, Level, Variant};

use crate::account::AccountConfig;
use crate::net::proxy::{Proxies, ProxySocket};
use crate::net::tls::Tls;
use crate::ops::operator::AdminSocket;
use crate::store::{Durability, StoreConfig, TokenRules};

/// Everything an operator (or a test) can tune. `Config::default()` is what `noughts-server`
/// runs with when given no flags.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Connections held at once; one more is refused with `server_full` and close 1013, so a flood
    /// cannot exhaust memory or file descriptors.
    pub max_connections: usize,
    /// Connections held at once from one network (an IPv4 address, or an IPv6 /64); one more is
    /// refused with `too_many_connections` and close 1013. Leave room for a household or a club
    /// behind one NAT, and raise it behind a reverse proxy, where every client has the proxy's
    /// address.
    pub max_connections_per_ip: usize,
    /// Rooms open at once from one network, whoever opened them; one more gets `limit_reached`.
    pub max_rooms_per_ip: usize,
    /// Quick-match seeks waiting at once from one network; one more gets `limit_reached`.
    pub max_seeks_per_ip: usize,
    /// Games being played at once (war games included; finished ones waiting for a rematch do not
    /// count); a request that would start one more gets `server_full`.
    pub max_games: usize,
    /// How long a disconnected player keeps their seats and session. The time is a budget per game:
    /// each absence spends from it, and when it runs out the game ends as abandoned.
    pub grace: Duration,
    /// How long a player must have been away before the opponent may claim the game (win it or
    /// call it a draw) rather than wait for the grace to run out.
    pub claim_after: Duration,
    /// A session token left unused this long stops working; the player must start afresh.
    pub token_idle: Duration,
    /// A token that has been replaced (each `hello` with a token gets a new one) keeps working
    /// this long, so that clients sharing it can each come back with it.
    pub token_overlap: Duration,
    /// The least time an AI seat takes over a move against a person, so it feels like play rather
    /// than a reflex. Tests use zero.
    pub ai_think_delay: Duration,
    /// AI searches running at once; more wait their turn, so AI seats can never take every core
    /// from the connections.
    pub ai_threads: usize,
    /// The search budget of an AI seat against a person (matters on qubic; the other variants are
    /// solved well within it).
    pub ai_budget: Budget,
    /// Whether the server keeps AI-vs-AI games running for people to watch.
    pub war_games: bool,
    /// Whether the server opens its own arenas (an hourly classic blitz, a daily qubic).
    pub arena_schedule: bool,
    /// The shortest arena an account may create, in seconds.
    pub arena_min_secs: u32,
    /// The variants that always have a war game running.
    pub war_variants: Vec<Variant>,
    /// The one pairing (X's level, O's) every war game of the server's own plays, if pinned;
    /// otherwise the war games are the engines' league's, between [`Config::league_levels`].
    pub war_levels: Option<(Level, Level)>,
    /// The league's entrants on every war variant: they meet in a round robin, for ever.
    pub league_levels: Vec<Level>,
    /// The search budget per move in AI-vs-AI games (the server's and those players start): they run
    /// all the time, so they think less than a seat facing a person.
    pub war_budget: Budget,
    /// The pause between a war game's end and the next one, so watchers see the final position.
    pub war_restart_delay: Duration,
    /// The least time between two moves of an AI-vs-AI game, so people can follow it.
    pub war_move_delay: Duration,
    /// How long a finished game stays reachable for a rematch or a last look.
    pub finished_linger: Duration,
    /// How often the server pings a connection whose player sits in a live game (others at every
    /// other interval, where the idle timeout allows).
    pub ping_interval: Duration,
    /// A connection that sends nothing (not even a pong) for this long is closed.
    pub idle_timeout: Duration,
    /// A connection that has not said `hello` this long after it opened is closed.
    pub hello_timeout: Duration,
    /// The largest text frame accepted; larger ones close the connection with 1009.
    pub max_message_bytes: usize,
    /// Sustained requests per second per connection.
    pub messages_per_second: u32,
    /// Requests a connection may send in a burst above the sustained rate.
    pub message_burst: u32,
    /// Sustained chat lines per minute per connection.
    pub chat_per_minute: u32,
    /// Chat lines a connection may send in a burst.
    pub chat_burst: u32,
    /// Frames queued for one connection before it counts as too slow and is dropped; the game and
    /// the lobby never wait for a reader.
    pub outbound_queue: usize,
    /// Where players, games and ratings are kept. In memory by default, so tests and a server
    /// embedded in a client never write to disk; `noughts-server` uses a SQLite file, or
    /// PostgreSQL when given a `postgres://` URL.
    pub store: StoreConfig,
    /// When a database's commits reach the disk: before they are answered (the default), or
    /// within an interval (see [`Durability`]).
    pub durability: Durability,
    /// Origins, besides the server's own, whose pages may open a WebSocket here, as
    /// `scheme://host[:port]` in lowercase; a browser's upgrade from any other gets `403`.
    pub allowed_origins: Vec<String>,
    /// Serve `wss://` with this certificate and key; `None` (the default) serves plain `ws://`.
    pub tls: Option<Tls>,
    /// How long a client has to complete the TLS handshake, so a connection that opens and says
    /// nothing cannot hold a task and a connection slot for long.
    pub tls_handshake_timeout: Duration,
    /// Join a cluster: every node given the same Redis (and PostgreSQL store) serves one lobby.
    /// `None` (the default) is a lone server.
    pub cluster: Option<ClusterConfig>,
    /// In a timed game, how long each side has for its first move (no clock runs until both
    /// sides have moved once, as on lichess); a game whose first moves do not come in time is
    /// aborted, unrated, so that a game nobody starts still ends.
    pub first_move_timeout: Duration,
    /// With the store in memory, how many finished games keep their records (the newest ones);
    /// older ones leave `history` and `game_record`, so that a server that plays for long keeps
    /// to a bounded size. Players, ratings and results stay.
    pub memory_finished_games: usize,
    /// The most lobby sends (one frame to one follower) a second: with many followers, the
    /// lobby's frames come further apart rather than cost more (see docs/INTERNALS.md). Each
    /// arena's standings keep to the same budget.
    pub lobby_sends_per_sec: u32,
    /// The proxies whose word on a client's address is taken, and where they give it; by default
    /// none, and every connection's address is its TCP peer's. The per-address limits count
    /// under the address this gives.
    pub proxies: Proxies,
    /// How long a node that was told to stop (SIGTERM) goes on serving while it answers not
    /// ready on `/readyz`, so that its load balancer sends new players elsewhere before it goes.
    /// Zero (the default) stops at once; behind a balancer, give it a little more than the
    /// balancer takes to mark a node down.
    pub drain_delay: Duration,
    /// How long the store or Redis may fail without a break before the node answers not ready
    /// on `/readyz`. Meanwhile it goes on serving the lobby, watchers and the games it holds,
    /// so that a short blip of a dependency every node shares does not take every node out of
    /// the balancer at once.
    pub readiness_grace: Duration,
    /// Also listen on this Unix socket, for the proxy in front alone: every connection there
    /// starts with a PROXY protocol v2 header naming its client, which is believed. Connections
    /// to the TCP port are then taken for what they are (unless [`Config::proxies`] trusts their
    /// peer), so no other local process can speak for a client. `None` (the default): no socket.
    pub proxy_socket: Option<ProxySocket>,
    /// The operator's socket, where backups are taken and the admin commands run by this
    /// server's own user and root alone (see [`AdminSocket`]); `None` (the default): no socket,
    /// and neither reaches this server. `noughts-server` puts one beside a SQLite file.
    pub admin_socket: Option<AdminSocket>,
    /// Accounts: where passwords may come from, how fast they are hashed, how guesses are
    /// limited, how long a closed account's name is held.
    pub accounts: AccountConfig,
}

/// How a node joins its cluster. Its `Debug` never shows Redis's password.
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterConfig {
    /// The cluster's Redis, `redis://[USER:PASSWORD@]HOST:PORT` (`rediss://` over TLS), or a
    /// Redis Cluster, `redis+cluster://[USER:PASSWORD@]HOST:PORT,HOST:PORT,…`.
    pub redis: String,
    /// This node's name, unique in the cluster.
    pub node: String,
    /// How long a node's hold on its games outlives its last word: the time another node waits
    /// before it takes over the games of one that died.
    pub lease: Duration,
    /// The secret every node of the cluster holds, under which each signs what it sends the
    /// others and checks what they send; `None` sends and takes everything unsigned, so that
    /// anything that reaches Redis may speak as a node (the binary asks `--insecure-cluster`).
    pub secret: Option<crate::cluster::seal::ClusterSecret>,
    /// Join a Redis that lets in anyone who reaches it, with no password: a node refuses to
    /// start on one otherwise, since whatever reaches it could stop the site or read all that
    /// passes. For tests and benchmarks.
    pub insecure_redis: bool,
    /// The authorities (a PEM file) a `rediss://` Redis's certificate is checked against;
    /// `None`: the system's.
    pub redis_ca: Option<std::path::PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_connections: 10_000,
            max_connections_per_ip: 64,
            max_rooms_per_ip: 16,
            max_seeks_per_ip: 16,
            max_games: 5_000,
            grace: Duration::from_secs(30),
            claim_after: Duration::from_secs(10),
            token_idle: Duration::from_secs(30 * 86_400),
            token_overlap: Duration::from_secs(60),
            ai_think_delay: Duration::from_millis(400),
            ai_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            ai_budget: Budget::DEFAULT,
            war_games: true,
            arena_schedule: true,
            arena_min_secs: 300,
            war_variants: Variant::ALL.to_vec(),
            war_levels: None,
            league_levels: Level::ALL.to_vec(),
            war_budget: Budget::millis(250),
            war_restart_delay: Duration::from_secs(3),
            war_move_delay: Duration::from_secs(1),
            finished_linger: Duration::from_secs(120),
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            hello_timeout: Duration::from_secs(10),
            max_message_bytes: noughts_protocol::MAX_MESSAGE_BYTES,
            messages_per_second: 20,
            message_burst: 40,
            chat_per_minute: 30,
            chat_burst: 5,
            outbound_queue: 256,
            store: StoreConfig::Memory,
            durability: Durability::Move,
            allowed_origins: Vec::new(),
            tls: None,
            tls_handshake_timeout: Duration::from_secs(10),
            cluster: None,
            first_move_timeout: Duration::from_secs(30),
            memory_finished_games: 5_000,
            lobby_sends_per_sec: crate::lobby::DEFAULT_SENDS_PER_SEC,
            proxies: Proxies::default(),
            drain_delay: Duration::ZERO,
            readiness_grace: Duration::from_secs(15),
            proxy_socket: None,
            admin_socket: None,
            accounts: AccountConfig::default(),
        }
    }
}

impl Config {
    /// Why this server cannot serve this configuration as built, if it cannot: a cluster
    /// (`cluster`, Redis) and a PostgreSQL store need the crate's `cluster` feature, which the
    /// server's binary has and the terminal client's embedded server does not.
    pub fn unbuilt(&self) -> Option<&'static str> {
        if cfg!(feature = "cluster") {
            return None;
        }
        if self.cluster.is_some() {
            return Some(
                "this server was built without the `cluster` feature, so it cannot join a \
                 cluster (--redis): build noughts-server with it (it is on by default)",
            );
        }
        if matches!(self.store, StoreConfig::Postgres(_)) {
            return Some(
                "this server was built without the `cluster` feature, so it cannot keep games in \
                 PostgreSQL: give --db a SQLite file, or build noughts-server with the feature",
            );
        }
        None
    }

    /// Why a node of a cluster cannot serve with this store, if it cannot: its games must be
    /// kept in the PostgreSQL the other nodes share (a test's nodes may each keep their own).
    pub fn unshared_store(&self) -> Option<&'static str> {
        let shared = matches!(self.store, StoreConfig::Postgres(_));
        (self.cluster.is_some() && !shared).then_some(
            "a node of a cluster (--redis) needs PostgreSQL to keep its games where the other \
             nodes find them: give --db postgres://USER@HOST:PORT/DATABASE",
        )
    }

    /// How long tokens work, as the store applies it.
    pub(crate) fn token_rules(&self) -> TokenRules {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        TokenRules {
            idle_ms: ms(self.token_idle),
            overlap_ms: ms(self.token_overlap),
        }
    }
}

impl ClusterConfig {
    /// A node name unique enough for a cluster: the host's name and 48 random bits.
    pub fn generated_node() -> String {
        let mut bytes = [0u8; 6];
        // Without randomness the name still differs by process; collisions only matter in a cluster.
        if getrandom::fill(&mut bytes).is_err() {
            bytes[..4].copy_from_slice(&std::process::id().to_le_bytes());
        }
        let host = std::fs::read_to_string("/etc/hostname")
            .ok()
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty() && name.len() <= 32)
            .unwrap_or_else(|| "node".to_owned());
        let suffix: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("{host}-{suffix}")
    }
}

impl std::fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("redis", &crate::cluster::redacted(&self.redis))
            .field("node", &self.node)
            .field("lease", &self.lease)
            .field("secret", &self.secret)
            .field("insecure_redis", &self.insecure_redis)
            .field("redis_ca", &self.redis_ca)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_config_shows_no_password() {
        let cluster = ClusterConfig {
            redis: "rediss://noughts:s3cret@redis.internal:6380".to_owned(),
            node: "node1".to_owned(),
            lease: Duration::from_secs(5),
            secret: None,
            insecure_redis: false,
            redis_ca: None,
        };
        let config = Config {
            cluster: Some(cluster),
            ..Config::default()
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("rediss://…@redis.internal:6380"), "{shown}");
    }
}
