//! Choosing moves and analysing positions: the public face of the search and the levels.
//!
//! [`choose_move`] is what an AI seat calls; [`analyse`] is what the analysis tools call. Both are
//! safe to call from many threads at once: each call owns its search table (at most 8 MB, on
//! qubic; 4 MB on four, 1 MB on the cube) and its threat-search memory (capped), and the only
//! shared state is read-only (line tables, symmetries, the solved classic game).

use std::time::Duration;

use crate::board::Board;
use crate::level::Level;
use crate::levels::{self, is_exact, judge};
use crate::search::{EXACT, Searcher, terminal_score};

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

/// The move `level` plays in `board`, or `None` if the game is over. Ties are broken with `rng`,
/// so the same seed gives the same game (on qubic, `perfect` also depends on how far the search
/// gets within the time budget).
///
/// `budget` bounds `perfect` on qubic only: on the other variants `perfect` is exact and fast, and
/// the weaker levels always do a fixed amount of work. On qubic a proven win's `plies` is the
/// length of the forcing line found, which need not be the shortest.
pub fn choose_move(
    board: &Board,
    level: Level,
    rng: &mut fastrand::Rng,
    budget: Budget,
) -> Option<Choice> {
    if board.is_over() {
        return None;
    }
    Some(match level {
        Level::Easy => levels::easy(board, rng),
        Level::Medium => levels::medium(board, rng, budget),
        Level::Hard => levels::hard(board, rng),
        Level::Perfect => levels::perfect(board, rng, budget),
    })
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

/// The value of `board` and of every legal move. Exact on classic, four and cube (the budget is
/// ignored there); on qubic, what a search within `budget` proves (often [`Value::Unknown`]).
pub fn analyse(board: &Board, budget: Budget) -> Analysis {
    let variant = board.variant();
    let ply = board.ply();
    if let Some(score) = terminal_score(board) {
        let (value, plies) = judge(variant, ply, score, true);
        return Analysis {
            value,
            plies,
            moves: Vec::new(),
            nodes: 0,
        };
    }
    let exact = is_exact(variant);
    let budget = if exact {
        Budget::UNLIMITED
    } else if budget.time.is_none() && budget.nodes.is_none() {
        Budget::DEFAULT
    } else {
        budget
    };
    let mut searcher = Searcher::new(variant, budget);
    let scored = if exact {
        searcher.every_move(board, EXACT)
    } else {
        // Deepen over all moves until the budget runs out; keep the last complete pass.
        let mut last = board
            .legal_moves()
            .map(|cell| (cell, 0))
            .collect::<Vec<_>>();
        for depth in 1..=(variant.cells() - ply as usize) as i32 {
            let scored = searcher.every_move(board, depth);
            if searcher.stopped {
                break;
            }
            last = scored;
        }
        last
    };
    let mut moves: Vec<(i32, MoveValue)> = scored
        .into_iter()
        .map(|(cell, score)| {
            let (value, plies) = judge(variant, ply, score, exact);
            (score, MoveValue { cell, value, plies })
        })
        .collect();
    moves.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cell.cmp(&b.1.cell)));
    let best = moves[0].0;
    let (value, plies) = judge(variant, ply, best, exact);
    Analysis {
        value,
        plies,
        moves: moves.into_iter().map(|(_, m)| m).collect(),
        nodes: searcher.nodes,
    }
}
