//! The players behind the levels, each a policy on top of the rules, the search and the threats.
//!
//! - `random`: any legal move, uniformly.
//! - `easy`: the two-ply line-sum player of the original R write-up, generalised to every board.
//! - `medium`: wins and blocks on sight; otherwise mostly the perfect move, sometimes a slip.
//! - `hard`: a search to a fixed depth per variant with a static evaluation at the horizon.
//! - `perfect` where it is exact: classic (a solved table), four and cube (a full search). On qubic
//!   it is `qubic_play`.
//!
//! Every level breaks ties uniformly at random with the caller's generator.

use crate::board::{Board, cells_of};
use crate::budget::Budget;
use crate::search::{EXACT, INF, PROVEN, Searcher, sides};
use crate::solve;
use crate::threats::winning_cells;
use crate::variant::Variant;
use crate::verdict::{Choice, Value, best_of, judge, pick};

/// Whether `perfect` plays `variant` exactly, whatever the budget.
pub fn is_exact(variant: Variant) -> bool {
    variant != Variant::Qubic
}

/// The search depth of `hard` on each variant: enough to see forks, short of seeing everything.
/// Every node also knows immediate wins, forced blocks and double threats, so two plies already
/// see any fork the opponent could make next. On qubic three plies: strong, but a player who
/// plans threat sequences beats it (at four plies `perfect` no longer beats it reliably).
pub const fn hard_depth(variant: Variant) -> i32 {
    match variant {
        Variant::Classic => 2,
        Variant::Four => 4,
        Variant::Cube => 3,
        Variant::Qubic => 3,
    }
}

/// How often `medium` plays a perfect move when it has no win or block to make, out of 100.
const MEDIUM_PERFECT_PERCENT: u32 = 75;

/// Scores of every legal move, exact where `exact`; best first. On classic a table lookup,
/// elsewhere a search (best moves exact, others bounded above).
fn scored_moves(board: &Board, depth: i32, searcher: &mut Searcher) -> Vec<(usize, i32)> {
    let moves: Vec<usize> = board.legal_moves().collect();
    if board.variant() == Variant::Classic && depth >= EXACT {
        let solution = solve::classic();
        let mut scored: Vec<(usize, i32)> = moves
            .iter()
            .map(|&cell| {
                let child = board.play_unchecked(cell);
                let score = solution.score(&child).map(|s| -s);
                (
                    cell,
                    score.unwrap_or_else(|| searcher.root(board, &[cell], depth)[0].1),
                )
            })
            .collect();
        searcher.nodes += scored.len() as u64;
        scored.sort_by_key(|m| std::cmp::Reverse(m.1));
        return scored;
    }
    searcher.root(board, &moves, depth)
}

/// `perfect` on classic, four and cube: the exact value and distance, always.
pub fn exact(board: &Board, rng: &mut fastrand::Rng) -> Choice {
    let mut searcher = Searcher::new(board.variant(), Budget::UNLIMITED);
    let scored = scored_moves(board, EXACT, &mut searcher);
    best_of(board, &scored, true, searcher.nodes, rng)
}

/// `hard`: iterative deepening to `depth` plies (the variant's [`hard_depth`] for the level).
pub fn hard(board: &Board, rng: &mut fastrand::Rng, depth: i32) -> Choice {
    let (scored, nodes) = hard_scores(board, depth);
    let exact = depth >= board.empty().count_ones() as i32;
    best_of(board, &scored, exact, nodes, rng)
}

/// The scores `hard` gives every legal move at `depth` plies (best first, the best exact), and
/// the nodes searched: `hard` plays one of the best at random.
pub fn hard_scores(board: &Board, depth: i32) -> (Vec<(usize, i32)>, u64) {
    let mut searcher = Searcher::with_table_bits(board.variant(), Budget::UNLIMITED, 16);
    let moves: Vec<usize> = board.legal_moves().collect();
    let mut scored = Vec::new();
    for d in 1..=depth {
        scored = searcher.root(board, &moves, d);
        if scored[0].1.abs() >= PROVEN {
            break;
        }
    }
    (scored, searcher.nodes)
}

/// `medium`: an immediate win or block whenever there is one; otherwise a perfect move most of
/// the time (on qubic, `hard`'s) and a plausible slip the rest: a random other move that does
/// not hand the opponent a win on the spot.
pub fn medium(board: &Board, rng: &mut fastrand::Rng, budget: Budget) -> Choice {
    let variant = board.variant();
    let lines = variant.lines();
    let (me, opp) = sides(board);
    let empty = board.empty();
    let wins = winning_cells(lines, me, opp) & empty;
    let threats = winning_cells(lines, opp, me) & empty;
    let _ = budget;
    let exact = is_exact(variant);
    let depth = if exact { EXACT } else { hard_depth(variant) };
    let mut searcher = if exact {
        Searcher::new(variant, Budget::UNLIMITED)
    } else {
        Searcher::with_table_bits(variant, Budget::UNLIMITED, 16)
    };
    if wins != 0 || threats != 0 {
        let cells: Vec<usize> = cells_of(if wins != 0 { wins } else { threats }).collect();
        let cell = pick(rng, &cells);
        let score = -searcher.score(&board.play_unchecked(cell), depth - 1);
        let (value, plies) = judge(variant, board.ply(), score, exact);
        return Choice {
            cell,
            value,
            plies,
            nodes: searcher.nodes.max(1),
        };
    }
    let scored = if exact {
        scored_moves(board, depth, &mut searcher)
    } else {
        let moves: Vec<usize> = board.legal_moves().collect();
        let mut scored = Vec::new();
        for d in 1..=depth {
            scored = searcher.root(board, &moves, d);
        }
        scored
    };
    let best = scored[0].1;
    let slips: Vec<usize> = scored
        .iter()
        .filter(|&&(cell, score)| {
            score < best && winning_cells(lines, opp, me | 1 << cell) & empty & !(1 << cell) == 0
        })
        .map(|m| m.0)
        .collect();
    if slips.is_empty() || rng.u32(..100) < MEDIUM_PERFECT_PERCENT {
        return best_of(board, &scored, exact, searcher.nodes, rng);
    }
    let cell = pick(rng, &slips);
    let score = -searcher.score(&board.play_unchecked(cell), depth - 1);
    let (value, plies) = judge(variant, board.ply(), score, exact);
    Choice {
        cell,
        value,
        plies,
        nodes: searcher.nodes,
    }
}

/// `easy`: the R write-up's player. Each move scores its best line sum (own marks minus the
/// opponent's, a completed line counting double) less the best line sum the opponent can reach
/// with one reply; a winning move is played at once. Equal scores go to the cell on the most lines
/// (centre 4, corner 3, edge 2 on classic), each weight `w` drawn from `[0.1w, 0.1w + 0.1)`.
/// Looking only one reply ahead, it cannot see a fork coming.
pub fn easy(board: &Board, rng: &mut fastrand::Rng) -> Choice {
    let variant = board.variant();
    let (lines, k) = (variant.lines(), variant.side() as i32);
    let (me, opp) = sides(board);
    let empty = board.empty();
    let line_score = |own: u64, other: u64| -> i32 {
        lines
            .iter()
            .map(|&line| {
                let mine = (line & own).count_ones() as i32;
                if mine == k {
                    2 * k
                } else {
                    mine - (line & other).count_ones() as i32
                }
            })
            .max()
            .unwrap_or(0)
    };
    let mut best: Option<((i32, f64), usize)> = None;
    for cell in cells_of(empty) {
        let after = me | 1 << cell;
        let own = line_score(after, opp);
        let score = if own == 2 * k {
            INF
        } else {
            let reply = cells_of(empty & !(1 << cell))
                .map(|j| line_score(opp | 1 << j, after))
                .max()
                .unwrap_or(0);
            own - reply
        };
        let weight = variant.lines_through(cell).len() as f64 * 0.1;
        let strategic = weight + rng.f64() * 0.1;
        if best.is_none_or(|(b, _)| (score, strategic) > b) {
            best = Some(((score, strategic), cell));
        }
    }
    let ((score, _), cell) = best.expect("the game is not over");
    Choice {
        cell,
        value: if score == INF {
            Value::Win
        } else {
            Value::Unknown
        },
        plies: (score == INF).then_some(1),
        nodes: empty.count_ones() as u64,
    }
}

/// `random`: a legal move chosen uniformly, with no look at the position.
pub fn random(board: &Board, rng: &mut fastrand::Rng) -> Choice {
    let moves: Vec<usize> = board.legal_moves().collect();
    Choice {
        cell: pick(rng, &moves),
        value: Value::Unknown,
        plies: None,
        nodes: 0,
    }
}
