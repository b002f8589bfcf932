//! The noughts game server: a WebSocket lobby where people find each other by quick match or invite
//! code, play AI seats, and watch anyone's game, including the AI-vs-AI war games the server keeps
//! running.
//!
//! [`run`] serves on a listener until a shutdown future completes; [`Config`] holds every knob.
//! The wire protocol is the `noughts-protocol` crate and its `PROTOCOL.md`.
//!
//! Code map (ARCHITECTURE.md has a line per file):
//! - `server`: the accept loop, the connection cap, shutdown in order (games, then connections).
//! - `connection`: one task per WebSocket; reads, writes what waits, pings.
//! - `handler`: what each request does, a file per concern; `handler::client` is a connection's
//!   view of its player, `handler::dispatch` sends each request to its concern.
//! - `game`: one actor task per game (`game::actor`, `game::audience`) around the game's rules
//!   (`game::rules`, a pure state machine); `game_handle`: the only way to reach an actor.
//! - `shared`: what every task shares; `registry`: every shared index and the per-address counts,
//!   in dashmap; `session`, `expiry`: a player's identity, and its end after a grace.
//! - `lobby`: listed games and rooms, and their subscribers; `war`: the AI-vs-AI games.
//! - `store`: players, games, moves and ratings in SQLite, on a thread of its own.
//! - `outbound`, `shared_socket`: sending to a connection; `tls`: the TLS handshake and stream.
//! - `rating`, `metrics`, `config`, `error`, `network`, `token_bucket`, `invite_code`: Glicko-2,
//!   Prometheus, the knobs, refusals, per-address counting, rate limits, invite codes.
//! - `admin`: backups of a live SQLite database, taken through the operator's socket.
//! - `health`: `/healthz` and `/readyz`, and the draining flag.
//! - `moderation`, `enforce`, `operator`: mutes, blocks, reports, bans and reserved names folded
//!   from the store's moderation log; each node reading it forward and enforcing it; the
//!   operator's `admin` commands that write it, and the operator's socket (mode 0600, callers
//!   known by `SO_PEERCRED`) through which they and backups reach a running server.
//! - `proxy`: the client's address behind a trusted proxy (PROXY protocol v2, forwarding headers).
//! - `secret_file`: Redis's and PostgreSQL's URLs, with their passwords, read from private files.

mod account;
mod analysis;
pub mod cluster;
mod config;
mod error;
mod game;
mod handler;
mod lobby;
mod metrics;
mod moderation;
mod net;
mod ops;
mod registry;
#[doc(hidden)]
pub mod rules;
mod server;
mod session;
mod shared;
mod store;

pub use account::AccountConfig;
pub use cluster::seal::{ClusterSecret, SecretError};
pub use config::{ClusterConfig, Config};
pub use handler::{MAX_CLOCK_MS, MAX_INCREMENT_MS, MAX_OPEN_ROOMS, MAX_STARTED_GAMES};
pub use lobby::DEFAULT_SENDS_PER_SEC as DEFAULT_LOBBY_SENDS;
pub use net::proxy::{BadCidr, Cidr, ClientAddress, DoorError, Proxies, ProxySocket};
pub use net::tls::{Tls, TlsError};
pub use ops::operator::{
    AdminAction, AdminSocket, BanTarget, OperatorCommand, fetch_backup, run_admin,
};
pub use ops::secret_file::{UrlFileError, read_url_file};
pub use server::{run, run_with_metrics};
pub use store::{StoreConfig, StoreError};
