//! Ratings, leaderboards, history, game records, the engine's verdicts on a game's moves and
//! profiles on the wire.

use serde::{Deserialize, Serialize};

use crate::game::{ClockSpec, GameKind, GameResult};
use crate::ids::{GameId, PlayerId};
use noughts_engine::{Judgement, Level, Mark, MoveVerdict, Value, Variant};

/// A player's Glicko-2 rating in one variant, rounded to whole points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rating {
    pub variant: Variant,
    /// The rating; everyone starts at 1500.
    pub rating: u32,
    /// The rating deviation: how uncertain the rating is (350 for a newcomer, shrinking with play).
    pub deviation: u32,
    /// Rated games played in this variant.
    pub games: u32,
}

/// One line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// 1 for the best-rated player.
    pub rank: u32,
    pub player: PlayerId,
    pub name: String,
    pub rating: u32,
    pub deviation: u32,
    /// Rated games in this variant, and how they went.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// True for a bot account.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// A seat in a stored game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordSeat {
    /// The player's name, or `AI (level)`.
    pub name: String,
    /// The player's id; absent for an AI seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// The AI level; absent for a human seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// In a finished rated game, the player's rating going into it (what its result was counted
    /// against).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// In a finished rated game, how much the game changed that rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<i32>,
    /// True for a person who has no account (now): a guest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True for a bot account.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// A game as a player's history lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: RecordSeat,
    pub o: RecordSeat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When the game started and ended, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    pub ended_ms: u64,
    /// Moves played.
    pub moves: u32,
    pub result: GameResult,
}

/// Everything kept about one game: enough to replay it move by move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: RecordSeat,
    pub o: RecordSeat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// When the game started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// When it ended; absent while it is being played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
    /// The final (or current) board.
    pub board: String,
    /// How it ended; absent while it is being played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    /// The game this one is a rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<GameId>,
}

/// One move of a stored game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub mark: Mark,
    pub cell: usize,
    /// When it was played, in milliseconds since the game started.
    pub at_ms: u64,
    /// In a timed game, the mover's time left after the move (increment included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

/// The engine's verdict on one move of a finished game (`analyse_game`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// As good as the best move the position allowed.
    Best,
    /// The same outcome as the best move, but a slower win or a quicker loss.
    Inaccuracy,
    /// It gave away a win or a draw.
    Blunder,
    /// The engine could not tell within its budget (qubic positions it has not proven).
    Unknown,
}

impl From<Option<MoveVerdict>> for Verdict {
    fn from(verdict: Option<MoveVerdict>) -> Verdict {
        match verdict {
            Some(MoveVerdict::Best) => Verdict::Best,
            Some(MoveVerdict::Inaccuracy) => Verdict::Inaccuracy,
            Some(MoveVerdict::Blunder) => Verdict::Blunder,
            None => Verdict::Unknown,
        }
    }
}

/// What a position was worth for the side that moved: `win`, `draw`, `loss` or `unknown` (not
/// proven), and, when proven, in how many plies the game ends with best play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worth {
    pub value: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
}

impl Worth {
    /// Not proven (yet).
    pub const UNKNOWN: Worth = Worth {
        value: Value::Unknown,
        plies: None,
    };
}

/// Why a move has no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotJudged {
    /// The engine could not prove the position within the budget the server gives each game.
    NotProven,
    /// The server is still working on it: a later `game_analysis` fills it in.
    Pending,
}

/// One move of a game judged in full (see `game_analysis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The cell played.
    pub cell: usize,
    /// The verdict, as in `verdicts`.
    pub verdict: Verdict,
    /// The best move the position allowed, only when proven to be best.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<usize>,
    /// What the position was worth before the move, for the side that moved.
    pub before: Worth,
    /// What it was worth after the move, for the same side (plies counted from there).
    pub after: Worth,
    /// Why there is no verdict (only with `verdict` `unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<NotJudged>,
}

impl MoveAnalysis {
    /// A move still being worked on.
    pub fn pending(cell: usize) -> MoveAnalysis {
        MoveAnalysis {
            cell,
            verdict: Verdict::Unknown,
            best: None,
            before: Worth::UNKNOWN,
            after: Worth::UNKNOWN,
            not_judged: Some(NotJudged::Pending),
        }
    }

    /// Whether the move is settled: judged, or given up on.
    pub fn is_settled(&self) -> bool {
        self.not_judged != Some(NotJudged::Pending)
    }
}

impl From<Judgement> for MoveAnalysis {
    fn from(judged: Judgement) -> MoveAnalysis {
        let verdict = Verdict::from(judged.verdict);
        let worth = |(value, plies): (Value, Option<u32>)| Worth { value, plies };
        MoveAnalysis {
            cell: judged.cell,
            verdict,
            best: judged.best,
            before: worth(judged.before),
            // The engine counts from the position before the move; the wire, from after it.
            after: worth((judged.after.0, judged.after.1.map(|p| p.saturating_sub(1)))),
            not_judged: (verdict == Verdict::Unknown).then_some(NotJudged::NotProven),
        }
    }
}

/// A player's public profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub player: PlayerId,
    pub name: String,
    /// True for a player without an account: a guest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True for a bot account.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// When the player first said hello and was last seen, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    pub last_seen_ms: u64,
    /// One entry per variant, in the order classic, four, cube, qubic.
    pub variants: Vec<VariantStats>,
    /// The player's places on arenas' podiums, the latest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub podiums: Vec<crate::arena::Podium>,
}

/// A player's rating and results in one variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantStats {
    pub variant: Variant,
    pub rating: u32,
    pub deviation: u32,
    /// Rated games played.
    pub rated_games: u32,
    /// Finished games of every kind (rated, casual, against the AI), and how they went.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The `leaderboard` request: the best-rated players of a variant, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub variant: Variant,
    /// How many places to skip (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// How many players to list (default 20, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// The `history` request: a player's finished games, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct History {
    /// Whose games (default: your own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// Only games with a smaller id: the `game` of the last one on the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<GameId>,
    /// How many games (default 20, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}
