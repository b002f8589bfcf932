//! The lobby on the wire: a listed game, an open room, a waiting seek, the site's totals and the
//! changes a lobby follower is sent.

use serde::{Deserialize, Serialize};

use crate::game::{ClockSpec, GameKind, SeatInfo};
use crate::ids::{GameId, PlayerId, SeekId};
use noughts_engine::Variant;

/// A game as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInfo {
    pub game: GameId,
    pub variant: Variant,
    pub kind: GameKind,
    pub x: SeatInfo,
    pub o: SeatInfo,
    /// Moves played so far.
    pub moves: u32,
    /// The board, one character a cell as in `game_state` (for a miniature of the game).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub board: String,
    pub watchers: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// A public room waiting for an opponent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomInfo {
    pub code: String,
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// The name of the player who opened it.
    pub host: String,
    /// The host's player id (absent from servers older than moderation), so that a client can
    /// offer to mute, block or report them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerId>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// True when the host is a guest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True when the host is a bot account.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// A quick-match seek waiting for an opponent: any other player may accept it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekInfo {
    pub seek: SeekId,
    /// The seeker.
    pub player: PlayerId,
    pub name: String,
    /// The seeker's rating in the seek's variant.
    pub rating: u32,
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// True when the seeker is a guest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// True when the seeker is a bot account: quick match pairs it only with seeks that accept
    /// bots (`bots`) and with other bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// True when the seeker accepts bots as opponents.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots: bool,
}

/// The site's totals, as the lobby shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Connections open to the site (every node of a cluster).
    pub online: u32,
    /// Live games being played, private and war games included.
    pub games: u32,
}

/// What changed in the lobby since the last frame: removals first, then the rest. Every field may
/// be absent: nothing of that kind changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyUpdate {
    /// Seeks that started waiting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeks: Vec<SeekInfo>,
    /// Seeks that stopped waiting (paired, accepted or withdrawn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeks_removed: Vec<SeekId>,
    /// How many seeks wait now, when that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeks_total: Option<u32>,
    /// Public rooms that opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rooms: Vec<RoomInfo>,
    /// Public rooms that were joined or closed, by displayed code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rooms_removed: Vec<String>,
    /// How many public rooms are open now, when that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rooms_total: Option<u32>,
    /// Shown games that appeared or changed, each replacing the entry with its id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<GameInfo>,
    /// Shown games that left the lobby: they ended, or are no longer featured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games_removed: Vec<GameId>,
    /// The site's totals, when they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<Totals>,
    /// The arenas the lobby lists, whole, when they changed (see `lobby`'s `arenas`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arenas: Option<Vec<crate::arena::ArenaInfo>>,
}

impl LobbyUpdate {
    /// Whether it holds no change at all.
    pub fn is_empty(&self) -> bool {
        *self == LobbyUpdate::default()
    }
}

/// The `list_games` request: one page of every listed live game, by game id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ListGames {
    /// Only games of this variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// Only games with a larger id: the `next` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<GameId>,
    /// How many games (default 50, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// The `create_room` request: a room that others join by its invite code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRoom {
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    #[serde(default)]
    pub private: bool,
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// The `seek` request: quick match, to be paired with the next player seeking the same variant
/// and clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seek {
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// Whether the game counts for ratings; only seeks that agree on it are paired.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// Whether a bot account may be the opponent. Without it the seek meets people only; a
    /// bot's own seek meets only seeks that say it, and other bots'.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots: bool,
}
