//! The engines' league on the wire: the `league` request, its table (the standings, the game
//! being played and the pairings to come), and who an entrant is.

use serde::{Deserialize, Serialize};

use crate::ids::{GameId, PlayerId};
use noughts_engine::{Level, Variant};

/// Who plays in the league: an AI level or a bot account, each named by a field of its own
/// (exactly one is present).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entrant {
    /// The AI level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The bot account's player id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<PlayerId>,
}

/// The `league` request: a variant's league table, and, with `follow`, the table again each
/// time one of its games ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct League {
    pub variant: Variant,
    /// Follow the table: a `league_table` each time a league game ends, until `unfollow_league`
    /// (a connection follows one variant's league at a time; following another stops the first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub follow: bool,
}

/// One entrant's line of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeagueStanding {
    pub entrant: Entrant,
    /// The entrant as a seat shows it: `AI (medium)`.
    pub name: String,
    /// League games played, and how they went.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// 1 a win, ½ a draw.
    pub points: f64,
    /// Glicko-2 rating from the league's results, on the players' scale (a newcomer is 1500),
    /// as of the last round that closed.
    pub rating: u32,
    /// The rating's deviation (350 before any round closed).
    pub deviation: u32,
}

/// A league game: X's and O's entrants, and the game's id once it is being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaguePairing {
    pub x: Entrant,
    pub o: Entrant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameId>,
}

/// The answer to `league`, and what a follower gets when a league game ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeagueTable {
    pub variant: Variant,
    /// League games counted on this variant, ever.
    pub games: u32,
    /// How many games a round has: every entrant meets every other once with each colour; the
    /// ratings move when a round closes.
    pub round_games: u32,
    /// Best first: by points, then rating.
    pub standings: Vec<LeagueStanding>,
    /// The league game being played, if one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playing: Option<LeaguePairing>,
    /// The next pairings, in the order they will be played (a few).
    pub next: Vec<LeaguePairing>,
}
