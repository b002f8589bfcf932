//! What the rules take and give back: how a game is set up ([`Table`]), who sits in a seat
//! ([`Sitter`]), the updates to send, the records to store before a move or an end is applied, and
//! the answers to a rematch offer, a return and the clock.

use std::time::Duration;

use crate::rules::clock::Clock;

use noughts_engine::Board;
use noughts_protocol::{
    ClockSpec, EndReason, ErrorCode, GameId, GameKind, Mark, ServerMessage, Variant,
};

use crate::error::Refusal;
pub use crate::rules::sitter::Sitter;

/// Chat lines a snapshot carries.
pub const CHAT_HISTORY: usize = 20;

/// The least time between two `watchers` updates of one game.
pub const WATCHERS_EVERY: Duration = Duration::from_millis(250);

/// A refused input: the error the requester gets. Nothing changed.
pub(super) fn refused<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}

/// An update to send to both players and every watcher.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// The message, with a fresh `seq`.
    pub message: ServerMessage,
    /// Whether it answers the request that caused it (the requester's copy echoes its id).
    pub reply: bool,
    /// A seat that does not get it (it gets a snapshot instead).
    pub skip: Option<Mark>,
    /// Whether only the watchers get it (the spectators' chat), not the seats.
    pub watchers_only: bool,
}

impl Update {
    pub(super) fn to_all(message: ServerMessage, reply: bool) -> Update {
        Update {
            message,
            reply,
            skip: None,
            watchers_only: false,
        }
    }
}

/// The end of a game, as the store keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndRecord {
    /// The `seq` of the `game_over` update.
    pub seq: u64,
    pub winner: Option<Mark>,
    pub reason: EndReason,
    /// The winning line, as a cell mask.
    pub cells: u64,
}

/// A move, as the store keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRecord {
    pub mark: Mark,
    pub cell: usize,
    /// The ply before the move.
    pub ply: u32,
    /// The `seq` of the `moved` update.
    pub seq: u64,
    /// The mover's time left after the move, in a timed game.
    pub clock_ms: Option<u64>,
    /// The end, if the move ends the game.
    pub ending: Option<EndRecord>,
}

/// A checked move waiting for the store.
#[derive(Debug, Clone)]
pub struct PendingMove {
    /// What to write.
    pub record: MoveRecord,
    /// The board after the move.
    pub(super) board: Board,
    /// The clocks after the move is charged.
    pub(super) clock: Option<Clock>,
}

/// What an accepted move leads to.
#[derive(Debug, Clone)]
pub enum Decision {
    /// The move is played once the store keeps it.
    Play(PendingMove),
    /// The mover's time had run out: the game ends instead, once the store keeps the end.
    End(EndRecord),
}

/// What a rematch request leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum Rematch {
    /// The offer is made (the requester's side now awaits an answer): tell everyone.
    Offer(Update),
    /// The requester had already offered: the reply repeats the offer (with the current `seq`).
    Repeat(ServerMessage),
    /// The offer is accepted (or the opponent is an AI): start the rematch, then call
    /// [`Rules::rematch_started`](super::state::Rules::rematch_started). Nothing changed yet.
    Start,
}

/// Who says a chat line, as the line shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Speaker {
    /// The name shown.
    pub name: String,
    /// Whether they play as a guest (no account).
    pub guest: bool,
    /// Whether they are a bot account.
    pub bot: bool,
}

/// What a player's return leads to.
#[derive(Debug, Clone, PartialEq)]
pub struct Returned {
    /// `presence` for everyone else, if the player had been away.
    pub update: Option<Update>,
    /// Whether the player's new connection gets a snapshot.
    pub snapshot: bool,
}

/// Something that happens by itself once its time comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// The game ends (a flag fell, a grace ran out): store the end, then [`Rules::conclude`](super::state::Rules::conclude).
    End(EndRecord),
    /// A finished game's linger is over: it closes.
    Close,
}

/// How a game is set up.
#[derive(Debug, Clone)]
pub struct Table {
    pub id: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    /// X, then O.
    pub seats: [Sitter; 2],
    pub clock: Option<ClockSpec>,
    pub rated: bool,
    pub rematch_of: Option<GameId>,
    /// Each absence's allowance, for the whole game.
    pub grace: Duration,
    /// How long a player must have been away before the opponent may claim the game.
    pub claim_after: Duration,
    /// How long a finished game stays open (for rematches) before it closes.
    pub linger: Duration,
    /// In a timed game, how long each side has for its first move (no clock runs before both
    /// sides have moved once); a first move not made in time aborts the game.
    pub first_move: Duration,
}

/// What a draw offer or takeback request comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Offered {
    /// The offer stands: everyone is told.
    Offer(Update),
    /// The other side had offered a draw: the game ends, once stored.
    Draw(EndRecord),
    /// The other side had asked for a takeback: moves come off, once stored.
    Takeback(PendingTakeback),
}

/// Moves to take back, decided and not yet stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingTakeback {
    /// How many moves stay.
    pub keep: usize,
    /// The `seq` of the `taken_back` update.
    pub seq: u64,
}
