//! What the engine knows about a position or a move: its game-theoretic value, the move a level
//! chose, and a whole position's analysis.

/// The game-theoretic value of a position or move, for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Value {
    Win,
    Draw,
    Loss,
    /// Not proven within the budget (qubic).
    Unknown,
}

/// A move chosen by a level, with what the search knows about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Choice {
    /// The cell to play.
    pub cell: usize,
    /// The value of the position after this move, for the side that plays it.
    pub value: Value,
    /// Plies to the end of the game under best play from the current position, when proven.
    pub plies: Option<u32>,
    /// Nodes searched.
    pub nodes: u64,
}

/// What the search knows about one legal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MoveValue {
    /// The cell played.
    pub cell: usize,
    /// The value of playing it, for the side that plays it.
    pub value: Value,
    /// Plies from the current position to the end of the game under best play after this move,
    /// when proven.
    pub plies: Option<u32>,
}

/// A position's value and the value of each of its moves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Analysis {
    /// The value of the position for the side to move.
    pub value: Value,
    /// Plies to the end under best play, when proven.
    pub plies: Option<u32>,
    /// Every legal move, best first (empty when the game is over).
    pub moves: Vec<MoveValue>,
    /// Nodes searched.
    pub nodes: u64,
}
