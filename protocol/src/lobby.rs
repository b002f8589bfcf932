//! The lobby on the wire: a listed game and an open room.

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
    /// Whether the game counts for ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
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
}
