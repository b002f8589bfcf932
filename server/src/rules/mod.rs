//! The rules of one game as a pure state machine: board, moves, `seq`, clocks, result, presence
//! and grace, chat, rematch offers and the watcher count. No tasks, channels, store or sockets;
//! time comes in as a value.
//!
//! Each input is either refused (with the protocol's error code, and nothing changes) or produces
//! [`Update`]s, each with the next `seq`. Moves and ends are two-step, because the store must keep
//! them before anyone is told: [`Rules::try_move`] decides and returns what to write, changing
//! nothing; once the write is durable, [`Rules::commit_move`] (or [`Rules::conclude`]) applies it.
//! A write that fails is dropped, and the game stands as it was.
//!
//! The game actor is the shell around this: it owns the connections, the store and the AI tasks,
//! and sends the updates. The `game` fuzz target drives this module directly.

pub(crate) mod clock;
pub(crate) mod league_table;
pub(crate) mod rating;
mod seat;
pub mod sitter;
mod state;
mod updates;

pub use crate::error::Refusal;
pub use state::Rules;
pub use updates::{
    CHAT_HISTORY, Decision, Due, EndRecord, MoveRecord, Offered, PendingMove, PendingTakeback,
    Rematch, Returned, Sitter, Speaker, Table, Update, WATCHERS_EVERY,
};
