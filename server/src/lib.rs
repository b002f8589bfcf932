//! The noughts game server: a WebSocket lobby where people find each other by quick match or invite
//! code, play AI seats, and watch anyone's game, including the AI-vs-AI war games the server keeps
//! running.
//!
//! [`run`] serves on a listener until a shutdown future completes; [`Config`] holds every knob.
//! The wire protocol is the `noughts-protocol` crate and its `PROTOCOL.md`.
//!
//! The folders are layers, each importing only those below it (ARCHITECTURE.md draws them):
//! - `net`: sockets, the address behind a proxy, TLS, the WebSocket handshake, plain pages, and
//!   the sending half of every connection (`net::outbound`).
//! - `rules`: one game's rules as a pure state machine; sitters, clocks, Glicko-2 ratings.
//! - `store`: players, games, moves and ratings, in memory, SQLite or PostgreSQL.
//! - `account`, `moderation`, `session`: passwords and sign-in limits; mutes, blocks, reports
//!   and bans folded from the store's log; a player's identity across connections.
//! - `cluster`: what nodes share through Redis (leases, ids, listings, mail between nodes).
//! - `league`: the engines' league table: round-robin pairings, points and each level's rating.
//! - `lobby`: listed games, seeks and rooms, and their followers.
//! - `registry`: every shared index (dashmap lives here alone), ids, and `GameHandle` (local or on
//!   another node), the only way to reach a game.
//! - `ops`: health, the metrics port, backups, the operator's socket and its commands.
//! - `game`: one actor task per game around its rules, and the tasks that start or end games.
//! - `arena`: one director task per arena: pairing its free players, counting its games once,
//!   its standings and podium; the server's own arenas on a schedule.
//! - `handler`: the connection task, and what each request does, a file per concern.
//! - At the root: `server` (the listener and start order), `shared` (what every task holds),
//!   `config`, `error` (refusals), `metrics` (the Prometheus registry), `analysis` (the engine's
//!   verdicts on finished games, kept).

// Built without the cluster, the hooks the cluster's side calls (a stand-in's channel, id blocks,
// fencing, the lobby's relay) are left unused rather than fenced off one by one.
#![cfg_attr(
    not(feature = "cluster"),
    allow(dead_code, reason = "the cluster's hooks are unused without it")
)]

mod account;
mod analysis;
mod arena;
pub mod cluster;
mod config;
mod error;
mod game;
mod handler;
#[doc(hidden)]
pub mod league;
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
pub use store::{
    DEFAULT_FLUSH_MS, Durability, DurabilityArgs, DurabilityMode, StoreConfig, StoreError,
};
