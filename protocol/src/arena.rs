//! Arenas on the wire: an arena as listed, a line of its standings, its live snapshot, a podium
//! place, and the requests that list, create, join, withdraw from and follow arenas.

use serde::{Deserialize, Serialize};

use crate::game::ClockSpec;
use crate::ids::{GameId, PlayerId};
use noughts_engine::Variant;

/// An arena's id: unique on a server, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ArenaId(pub u64);

impl std::fmt::Display for ArenaId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where an arena stands in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaStatus {
    /// Its start time has not come: players may join, nobody is paired yet.
    Upcoming,
    /// Players are paired as they come free.
    Running,
    /// Its time is up: no new pairings; the games still being played finish and count.
    Ending,
    /// Every game has counted and the podium is kept.
    Finished,
}

/// An arena as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaInfo {
    pub arena: ArenaId,
    pub name: String,
    pub variant: Variant,
    /// Every game of the arena is played on this clock.
    pub clock: ClockSpec,
    /// When pairing starts and stops, in milliseconds since the Unix epoch.
    pub start_ms: u64,
    pub end_ms: u64,
    pub status: ArenaStatus,
    /// Players who have joined (withdrawn ones included: they keep their score).
    pub players: u32,
    /// The account that created it; absent for the server's own, scheduled arenas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// True for an arena joined by invite code only (never listed to others).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
    /// True for an arena only bot accounts may join (none are opened yet).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots_only: bool,
}

/// One player's line in an arena's standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaLine {
    /// 1 for the leader; players level on score share no rank (ties go to the higher rating,
    /// then to who joined first).
    pub rank: u32,
    pub player: PlayerId,
    pub name: String,
    /// The player's rating in the arena's variant.
    pub rating: u32,
    pub score: u32,
    /// Games counted so far, and how many were won.
    pub games: u32,
    pub wins: u32,
    /// On a streak of two wins or more: the next win or draw scores double.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fire: bool,
    /// Playing an arena game now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub playing: bool,
    /// Withdrawn: not paired until they join again (keeping their score).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// An arena's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaTotals {
    /// Players who have joined, withdrawn ones included.
    pub players: u32,
    /// Games counted so far.
    pub games: u32,
    /// Games being played now.
    pub playing: u32,
}

/// The `arena` frame: an arena's standings as they stand, sent in answer to `arena`, `join_arena`
/// and then pushed, gathered, to its players and watchers while it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaView {
    pub info: ArenaInfo,
    /// The leaders, at most [`crate::ARENA_TOP`].
    pub top: Vec<ArenaLine>,
    /// The receiver's own line, when they have joined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<ArenaLine>,
    pub totals: ArenaTotals,
    /// The game between the best-rated pair playing now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_game: Option<GameId>,
    /// The receiver's game in the arena being played now, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_game: Option<GameId>,
    /// Once finished: the first three, for good.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub podium: Vec<ArenaLine>,
}

/// A place on an arena's podium, as a profile shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Podium {
    pub arena: ArenaId,
    pub name: String,
    pub variant: Variant,
    /// 1, 2 or 3.
    pub place: u32,
    pub score: u32,
    /// When the arena finished, in milliseconds since the Unix epoch.
    pub ended_ms: u64,
}

/// The `create_arena` request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateArena {
    /// Shown in lists; the variant and clock make one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub variant: Variant,
    pub clock: ClockSpec,
    /// When pairing starts (default: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<u64>,
    /// How long pairing lasts, in seconds.
    pub length_secs: u32,
    /// True: joined by invite code only, never listed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
    /// True: an arena for bots, which only bot accounts may join.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots_only: bool,
}

/// The `list_arenas` request: a page of the arenas upcoming or running, by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ListArenas {
    /// Only arenas with a larger id: the `next` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<ArenaId>,
    /// How many arenas (default 50, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}
