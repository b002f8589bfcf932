//! The store: players, games, moves and ratings, kept in memory (plain maps, gone with the
//! process: the library's default, tests and the embedded server), in a SQLite file, or in
//! PostgreSQL (which several nodes can share).
//!
//! [`Store`] is the whole interface the rest of the server sees: record a player, a game's start,
//! each move, its end and the rating change; load the live games at start; answer the history,
//! record, profile and leaderboard queries. Behind it, one thread owns the database connection and
//! works through a queue, so no database call ever runs on a reactor thread. Writes that are queued
//! together commit in one transaction; a caller that must know its write is durable (a game
//! waiting to broadcast a move) awaits it, everyone else moves on. The thread drives any
//! of them through one seam, [`backend::Backend`], so all share the game's logic and the tests.

mod account_calls;
mod accounts;
mod arena_calls;
mod arenas;
mod backend;
mod durability;
mod holders;
mod inline;
mod job;
mod league;
mod league_calls;
mod league_table;
mod memory;
mod moderation;
#[cfg(feature = "cluster")]
mod postgres;
mod queue;
mod read_calls;
mod records;
mod rows;
mod sqlite;
#[cfg(test)]
mod tests;

pub(crate) use accounts::{BecameBot, NewAccount, StoredAccount, StoredDevice, device_holding};
pub(crate) use arenas::{ArenaGame, ArenaHold, Entrant, Place, StoredArena, on_fire};
#[cfg(test)]
pub(crate) use arenas::{Outcome, count};
pub(crate) use backend::Settled;
pub(crate) use durability::FlushSeries;
pub use durability::{DEFAULT_FLUSH_MS, Durability, DurabilityArgs, DurabilityMode};
pub(crate) use league::{KeptTable, LeagueBot};
pub(crate) use queue::Store;
pub(crate) use records::{
    EndedGame, Ending, GameStart, LiveGame, Rerated, SEQ_RESERVE, StoredGame, StoredMove,
    StoredPlayer, StoredProfile, StoredSeat, StoredStanding, TokenHash, TokenRules, now_ms,
};
pub(crate) use records::{MODERATION_PAGE, ModerationEntry};
pub use records::{StoreConfig, StoreError};
