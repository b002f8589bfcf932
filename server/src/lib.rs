//! The noughts game server: a WebSocket lobby where people find each other by quick match or invite
//! code, play AI seats, and watch anyone's game, including the AI-vs-AI war games the server keeps
//! running.
//!
//! [`run`] serves on a listener until a shutdown future completes; [`Config`] holds every knob.
//! The wire protocol is the `noughts-protocol` crate and its `PROTOCOL.md`.
//!
//! Code map:
//! - `server`: the accept loop, the connection cap, shutdown in order (games, then connections).
//! - `connection`: one task per WebSocket; reads, writes its bounded outbound queue, pings.
//! - `handler`: what each request does; `handler::hello` starts and resumes sessions.
//! - `game`: one actor task per game (`game::actor`) around the game's rules (`game::rules`, a
//!   pure state machine: board, clocks (`game::clock`), presence, chat, rematches, `seq`); the
//!   actor owns the seats' and watchers' connections (`game::seat`), the AI tasks and the store
//!   writes. Every change to a game's state happens in its actor.
//! - `registry`: every shared index (sessions, games, rooms, seek queues), in dashmap.
//! - `session`: a player's identity and subscriptions across connections.
//! - `lobby`: listed games and rooms, and their subscribers.
//! - `war`: keeps an AI-vs-AI game running per variant.
//! - `store`: players, games, moves and ratings in SQLite, on a thread of its own; live games are
//!   restored from it at start (`game::restore`).
//! - `rating`: Glicko-2 per variant.
//! - `metrics`: Prometheus metrics and the HTTP responder that serves them.
//! - `tls`: the certificate and key, the TLS handshake before the WebSocket one, and the stream a
//!   connection reads and writes, plain or encrypted.
//! - `outbound`, `rate`, `code`: sending to a connection, token buckets, invite codes.
//! - `wire`: a plain connection's socket, shared so that senders write frames to it directly.
//! - `per_ip`: counts of connections, rooms and seeks per network, for the per-address caps.

mod code;
mod config;
mod connection;
mod error;
mod game;
mod handler;
mod lobby;
mod metrics;
mod outbound;
mod per_ip;
mod rate;
mod rating;
mod registry;
mod server;
mod session;
mod store;
mod tls;
mod upgrade;
mod war;
mod wire;

pub use config::Config;
/// The rules of a game as a pure state machine; public only for the fuzz target.
#[doc(hidden)]
pub use game::rules;
pub use handler::{MAX_CLOCK_MS, MAX_INCREMENT_MS, MAX_OPEN_ROOMS, MAX_STARTED_GAMES};
pub use server::{run, run_with_metrics};
pub use store::{StoreConfig, StoreError};
pub use tls::{Tls, TlsError};
