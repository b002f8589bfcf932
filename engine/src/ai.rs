//! Choosing moves and analysing positions: the public face of the search and the levels.
//!
//! [`choose_move`] is what an AI seat calls; [`analyse`] is what the analysis tools call. Both are
//! safe to call from many threads at once: each call owns its search table (at most 8 MB, on
//! qubic; 4 MB on four, 1 MB on the cube) and its threat-search memory (capped), and the only
//! shared state is read-only (line tables, symmetries, the solved classic game).

use crate::board::Board;
use crate::budget::Budget;
use crate::level::Level;
use crate::policy::{self, is_exact, judge};
use crate::search::{EXACT, Searcher, terminal_score};
use crate::value::{Analysis, Choice, MoveValue};

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
        Level::Easy => policy::easy(board, rng),
        Level::Medium => policy::medium(board, rng, budget),
        Level::Hard => policy::hard(board, rng),
        Level::Perfect => policy::perfect(board, rng, budget),
    })
}

/// The value of `board` and of every legal move. Exact on classic, four and cube (the budget is
/// ignored there); on qubic, what a search within `budget` proves (often [`Value::Unknown`](crate::Value::Unknown)).
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
