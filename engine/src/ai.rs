//! Choosing moves: the public face of the search and the levels.
//!
//! PROVISIONAL: the search lands in its own modules; until then every level plays the first legal
//! move. The signatures here are the contract the server and client build against.

use std::time::Duration;

use crate::board::Board;
use crate::level::Level;

/// How long a search may run: wall time, nodes, or both (whichever runs out first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Stop deepening once this much time has passed.
    pub time: Option<Duration>,
    /// Stop deepening once this many nodes have been searched.
    pub nodes: Option<u64>,
}

impl Budget {
    /// One second: the default for the AI seat on qubic. The other variants are solved well within it.
    pub const DEFAULT: Budget = Budget {
        time: Some(Duration::from_secs(1)),
        nodes: None,
    };

    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        time: None,
        nodes: None,
    };

    /// A wall-time limit only.
    pub const fn millis(ms: u64) -> Budget {
        Budget {
            time: Some(Duration::from_millis(ms)),
            nodes: None,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

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

/// The move `level` plays in `board`, or `None` if the game is over. Ties are broken with `rng`,
/// so the same seed gives the same game.
pub fn choose_move(
    board: &Board,
    level: Level,
    rng: &mut fastrand::Rng,
    budget: Budget,
) -> Option<Choice> {
    let _ = (level, rng, budget);
    let cell = board.legal_moves().next()?;
    Some(Choice {
        cell,
        value: Value::Unknown,
        plies: None,
        nodes: 0,
    })
}
