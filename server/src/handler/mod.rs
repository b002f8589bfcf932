//! What a client's requests do, a file per concern as a server's commands are: `session` (`hello`,
//! resuming, a connection's end), `lobby`, `seek`, `room`, `ai_games` (`play_ai`, `start_war`),
//! `watch`, `chat`, `records` (the store's questions), `bot` (`become_bot`) and `arena` (each
//! handed to the arena's director). `client` is the connection's side of it
//! all, and `dispatch` sends each request to its handler (a move, a resignation or an offer
//! straight to its game's `GameHandle`).
//! In a cluster, `remote` finds what another node holds (a game's `GameHandle::Remote`, a room, a
//! seek) so the handler hands its request there, `stand_in` serves what other nodes hand
//! here, and `league_bots` has the bots entered in a league stand in on the node pairing them.
//! Every request with an id gets one reply.

mod account;
mod ai_games;
mod arena;
mod bot;
mod chat;
mod client;
pub(crate) mod connection;
mod dispatch;
pub(crate) mod enforce;
#[cfg(feature = "cluster")]
pub(crate) mod joining;
#[cfg(feature = "cluster")]
mod league_bots;
mod limits;
mod lobby;
mod moderation;
mod record_view;
mod records;
#[cfg(feature = "cluster")]
mod remote;
mod room;
mod seek;
mod session;
#[cfg(feature = "cluster")]
mod stand_in;
mod watch;

pub(crate) use client::Client;
pub use limits::{MAX_CLOCK_MS, MAX_INCREMENT_MS, MAX_OPEN_ROOMS, MAX_STARTED_GAMES};
