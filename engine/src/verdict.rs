//! What a level or an analysis says about a move: its [`Value`] for the side that plays it, and
//! the [`Choice`] a level makes; [`judge`] turns a search score into a value.

use crate::board::Board;
use crate::search::end_of;
use crate::variant::Variant;

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

/// What a score says about the game: its value and, when proven, plies from `ply` to the end.
pub fn judge(variant: Variant, ply: u32, score: i32, exact: bool) -> (Value, Option<u32>) {
    match end_of(score) {
        Some(end) if score > 0 => (Value::Win, Some(end - ply)),
        Some(end) => (Value::Loss, Some(end - ply)),
        None if exact => (Value::Draw, Some(variant.cells() as u32 - ply)),
        None => (Value::Unknown, None),
    }
}

/// One of `items`, uniformly at random.
pub fn pick<T: Copy>(rng: &mut fastrand::Rng, items: &[T]) -> T {
    items[rng.usize(..items.len())]
}

/// A random choice among the moves that share the best score.
pub fn best_of(
    board: &Board,
    scored: &[(usize, i32)],
    exact: bool,
    nodes: u64,
    rng: &mut fastrand::Rng,
) -> Choice {
    let best = scored[0].1;
    let ties: Vec<usize> = scored.iter().filter(|m| m.1 == best).map(|m| m.0).collect();
    let (value, plies) = judge(board.variant(), board.ply(), best, exact);
    Choice {
        cell: pick(rng, &ties),
        value,
        plies,
        nodes,
    }
}
