//! Games on the wire: how one is asked for (clock, side), its snapshot, its seats, its clocks,
//! how it ended, and its chat.

use serde::{Deserialize, Serialize};

use crate::ids::{GameId, PlayerId};
use noughts_engine::{Level, Mark, Variant};

/// A game clock: each side starts with `initial_ms` and gains `increment_ms` after each move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockSpec {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// How fast a timed game is, as quick match pairs seeks: by the time a side can expect to use,
/// `initial + 20 × increment` (twenty moves a side is a long game of qubic, the longest variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// Under 3 minutes.
    Bullet,
    /// 3 to under 8 minutes.
    Blitz,
    /// 8 to under 25 minutes.
    Rapid,
    /// 25 minutes or more.
    Classical,
}

impl ClockSpec {
    /// The speed this clock makes a game.
    pub fn speed(&self) -> Speed {
        let estimate_ms = self
            .initial_ms
            .saturating_add(self.increment_ms.saturating_mul(20));
        match estimate_ms {
            ..180_000 => Speed::Bullet,
            180_000..480_000 => Speed::Blitz,
            480_000..1_500_000 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }
}

/// Which side a player wants against the AI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideChoice {
    X,
    O,
    #[default]
    Random,
}

/// The `play_ai` request: a game against an AI seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayAi {
    pub variant: Variant,
    /// How well the AI plays.
    pub level: Level,
    /// The side the player wants; a coin decides when it is `random` or left out.
    #[serde(default)]
    pub side: SideChoice,
    /// The game's clock; none means untimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
}

/// The `start_war` request: an AI-vs-AI game that the requester watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartWar {
    pub variant: Variant,
    /// How well the AI playing X plays.
    pub x_level: Level,
    /// How well the AI playing O plays.
    pub o_level: Level,
}

/// A full game snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: SeatInfo,
    pub o: SeatInfo,
    /// The mark of the player this snapshot is sent to, if they play in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<Mark>,
    /// The latest `seq` of this game: the next update carries a larger one.
    pub seq: u64,
    pub board: String,
    /// Cells in the order they were played.
    pub moves: Vec<usize>,
    /// Whose turn it is; absent once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_move: Option<Mark>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// Present once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    pub watchers: u32,
    /// The most recent chat lines, oldest first.
    #[serde(default)]
    pub chat: Vec<ChatLine>,
    /// The game this one is a rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<GameId>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The offer waiting for an answer, if any (a rematch offer once the game is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<PendingOffer>,
    /// The players of a live game who are away, with how long each has left.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub away: Vec<Away>,
}

/// An offer waiting for an answer, in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingOffer {
    /// Who made it.
    pub by: Mark,
    pub offer: OfferKind,
}

/// A player of a live game whose connection is down, in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    pub mark: Mark,
    /// How long they have left to come back before they lose by abandonment.
    pub grace_ms: u64,
    /// How long before the opponent may `claim` the game (0: now).
    pub claim_ms: u64,
}

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub name: String,
    /// The player's id; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The AI level; absent for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// False while a human player's connection is down.
    pub connected: bool,
    /// A person's rating in the game's variant; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// True for a guest (a person without an account), whom clients mark as one; an account's
    /// name is its username.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True for a bot account (a program playing through the protocol), which clients mark
    /// "BOT" beside its name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// What kind of players a game has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Two people.
    Human,
    /// A person against an AI seat.
    Ai,
    /// Two AI seats: the server's war games and matches players start.
    War,
}

/// The clocks at the moment a message was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub x_ms: u64,
    pub o_ms: u64,
    /// The side whose clock is running, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Mark>,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Absent for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Mark>,
    pub reason: EndReason,
    /// The winning line's cells (every completed line's, if one move made several); empty unless
    /// the reason is `line`.
    #[serde(default)]
    pub cells: Vec<usize>,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A side completed a line.
    Line,
    /// The board filled with no line.
    Draw,
    /// A player resigned.
    Resign,
    /// A player's clock ran out.
    Timeout,
    /// A player stayed disconnected past the grace period, or the opponent claimed the game
    /// while they were away (no winner when a draw was claimed).
    Abandon,
    /// Nobody won and nothing is rated: a player aborted before both sides had moved, or
    /// neither player came back after a restart.
    Aborted,
    /// The players agreed to a draw.
    Agreement,
}

/// What a player may offer the other during a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    /// End the game as a draw.
    Draw,
    /// Take the offering player's last move back (unrated games only).
    Takeback,
    /// A rematch with sides swapped, once the game is over (offered with `rematch`).
    Rematch,
}

/// What a player claims when the opponent has been away long enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimOutcome {
    /// The claimant wins (`abandon`).
    Win,
    /// Nobody wins (`abandon`, no winner).
    Draw,
}

/// A player's rating after a rated game, and how much that game changed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChange {
    pub rating: u32,
    pub change: i32,
}

/// Both players' rating changes from a rated game, X's and O's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChanges {
    pub x: RatingChange,
    pub o: RatingChange,
}

/// One line of a game's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The speaker's display name.
    pub from: String,
    /// The speaker's player id (absent from servers older than moderation), so that a client can
    /// offer to mute or block them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The speaker's mark, if they play in the game; absent for watchers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
    pub text: String,
    /// True when the speaker was a guest when they said it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True when the speaker is a bot account.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// The `watch` request: a live game's snapshot, then every update. A game from a private room
/// needs its invite `code` unless the watcher plays in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watch {
    pub game: GameId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}
