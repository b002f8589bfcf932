//! The four playing strengths, each a policy on top of the rules, the search and the threats.
//!
//! - `easy`: the two-ply line-sum player of the original R write-up, generalised to every board.
//! - `medium`: wins and blocks on sight; otherwise mostly the perfect move, sometimes a slip.
//! - `hard`: a search to a fixed depth per variant with a static evaluation at the horizon.
//! - `perfect`: exact on classic (a solved table), four and cube (a full search); on qubic a threat
//!   search for forced wins and needed defences, then iterative deepening within the budget.
//!
//! Every level breaks ties uniformly at random with the caller's generator.

use std::time::Instant;

use crate::board::{Board, cells_of};
use crate::budget::Budget;
use crate::search::{EXACT, INF, PROVEN, Searcher, end_of, sides};
use crate::solve;
use crate::threats::{ThreatSearch, defence_cells, winning_cells};
use crate::value::{Choice, Value};
use crate::variant::Variant;

/// Whether `perfect` plays `variant` exactly, whatever the budget.
pub fn is_exact(variant: Variant) -> bool {
    variant != Variant::Qubic
}

/// The search depth of `hard` on each variant: enough to see forks, short of seeing everything.
/// Every node also knows immediate wins, forced blocks and double threats, so two plies already
/// see any fork the opponent could make next. On qubic three plies: strong, but a player who
/// plans threat sequences beats it (at four plies `perfect` no longer beats it reliably).
pub fn hard_depth(variant: Variant) -> i32 {
    match variant {
        Variant::Classic => 2,
        Variant::Four => 4,
        Variant::Cube => 3,
        Variant::Qubic => 3,
    }
}

/// How often `medium` plays a perfect move when it has no win or block to make, out of 100.
const MEDIUM_PERFECT_PERCENT: u32 = 75;

/// What a score says about the game: its value and, when proven, plies from `ply` to the end.
pub fn judge(variant: Variant, ply: u32, score: i32, exact: bool) -> (Value, Option<u32>) {
    match end_of(score) {
        Some(end) if score > 0 => (Value::Win, Some(end - ply)),
        Some(end) => (Value::Loss, Some(end - ply)),
        None if exact => (Value::Draw, Some(variant.cells() as u32 - ply)),
        None => (Value::Unknown, None),
    }
}

fn pick<T: Copy>(rng: &mut fastrand::Rng, items: &[T]) -> T {
    items[rng.usize(..items.len())]
}

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

/// A random choice among the moves that share the best score.
fn best_of(
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

/// `perfect` on classic, four and cube: the exact value and distance, always.
fn exact(board: &Board, rng: &mut fastrand::Rng) -> Choice {
    let mut searcher = Searcher::new(board.variant(), Budget::UNLIMITED);
    let scored = scored_moves(board, EXACT, &mut searcher);
    best_of(board, &scored, true, searcher.nodes, rng)
}

/// `perfect` on qubic: immediate wins and blocks, forced wins by threats, refusal of moves that
/// allow the opponent one, then iterative deepening over the rest until the budget runs out.
fn deep(board: &Board, rng: &mut fastrand::Rng, budget: Budget) -> Choice {
    let budget = if budget.time.is_none() && budget.nodes.is_none() {
        Budget::DEFAULT
    } else {
        budget
    };
    let start = Instant::now();
    let variant = board.variant();
    let lines = variant.lines();
    let (me, opp) = sides(board);
    let empty = board.empty();
    let ply = board.ply();

    let wins = winning_cells(lines, me, opp) & empty;
    if wins != 0 {
        let cells: Vec<usize> = cells_of(wins).collect();
        return Choice {
            cell: pick(rng, &cells),
            value: Value::Win,
            plies: Some(1),
            nodes: 1,
        };
    }
    let threats = winning_cells(lines, opp, me) & empty;
    if threats.count_ones() >= 2 {
        let cells: Vec<usize> = cells_of(threats).collect();
        return Choice {
            cell: pick(rng, &cells),
            value: Value::Loss,
            plies: Some(2),
            nodes: 1,
        };
    }

    // Threat-search budgets scale with the time budget (about a tenth of it each for attack and
    // defence at the node rates measured in BENCHMARKS.md).
    let millis = budget.time.map_or(1000, |t| t.as_millis() as u64).max(1);
    let threat_nodes = (millis * 400).clamp(2_000, 4_000_000);
    let mut attack = ThreatSearch::new(variant, threat_nodes);
    if let Some((cell, plies)) = attack.find_win(me, opp, 32) {
        return Choice {
            cell,
            value: Value::Win,
            plies: Some(plies),
            nodes: attack.nodes,
        };
    }
    let mut nodes = attack.nodes;

    let candidates: Vec<usize> = if threats != 0 {
        cells_of(threats).collect()
    } else {
        cells_of(empty).collect()
    };
    let mut defence = ThreatSearch::new(variant, threat_nodes);
    let safe = match safe_moves(variant, me, opp, candidates, &mut defence, threat_nodes) {
        Ok(safe) => safe,
        Err(mut lost) => {
            lost.nodes += nodes;
            return lost;
        }
    };
    nodes += defence.nodes;
    if safe.len() == 1 {
        return Choice {
            cell: safe[0],
            value: Value::Unknown,
            plies: None,
            nodes,
        };
    }

    // Search the safe moves, deepening for three quarters of the budget; `remaining(p)` is what
    // is left of p% of it.
    let remaining = |percent: u32| Budget {
        time: budget
            .time
            .map(|t| (t * percent / 100).saturating_sub(start.elapsed())),
        nodes: budget
            .nodes
            .map(|n| (n * percent as u64 / 100).saturating_sub(nodes)),
    };
    let mut searcher = Searcher::new(variant, remaining(75)).with_horizon_threats();
    let mut result: Option<(Vec<(usize, i32)>, i32)> = None;
    for depth in 1..=(variant.cells() as i32 - ply as i32) {
        let scored = searcher.root(board, &safe, depth);
        if searcher.stopped {
            break;
        }
        let proven = scored[0].1.abs() >= PROVEN;
        result = Some((scored, depth));
        if proven {
            break;
        }
    }

    // Then make sure the chosen move does not allow a quiet reply that sets up threats we cannot
    // stop (a threat search one move deeper); if it does, drop it and search the rest again.
    let mut pool = safe.clone();
    let mut guard = ThreatSearch::new(variant, 0);
    while let Some((scored, depth)) = result.as_ref() {
        let best = scored[0].1;
        let ties: Vec<usize> = scored.iter().filter(|m| m.1 == best).map(|m| m.0).collect();
        let cell = pick(rng, &ties);
        if best.abs() >= PROVEN
            || pool.len() == 1
            || holds_after(variant, me, opp, cell, &mut guard, start, budget)
        {
            nodes += searcher.nodes + searcher.threat_nodes() + guard.nodes;
            let (value, plies) = judge(variant, ply, best, false);
            return Choice {
                cell,
                value,
                plies,
                nodes,
            };
        }
        pool.retain(|&c| c != cell);
        searcher.set_budget(remaining(95));
        let depth = *depth;
        let rescored = searcher.root(board, &pool, depth);
        if searcher.stopped {
            // No time to look again: the best of the rest by the last full search.
            let rest: Vec<(usize, i32)> = scored.iter().copied().filter(|m| m.0 != cell).collect();
            result = Some((rest, depth));
            break;
        }
        result = Some((rescored, depth));
    }
    nodes += searcher.nodes + searcher.threat_nodes() + guard.nodes;
    let scored = result.map_or_else(|| pool.iter().map(|&c| (c, 0)).collect(), |r| r.0);
    best_of(board, &scored, false, nodes, rng)
}

/// Defence: if the opponent, given the move, could win by threats, only moves touching that line
/// (or making a threat, or able to turn one of its forced replies into a threat) can stop it; any
/// other move leaves the same line playable. Each candidate is checked. The moves that hold, or
/// the slowest loss found when none does (its `nodes` the defence's alone).
fn safe_moves(
    variant: Variant,
    me: u64,
    opp: u64,
    candidates: Vec<usize>,
    defence: &mut ThreatSearch,
    threat_nodes: u64,
) -> Result<Vec<usize>, Choice> {
    match defence.find_line(opp, me, 32) {
        None => Ok(candidates),
        Some(line) => {
            let related = defence_cells(variant, &line, me, opp);
            let per_move = (threat_nodes / 8).max(1_000);
            let mut safe = Vec::new();
            let mut slowest_loss = (0, line[0]);
            for &cell in candidates.iter().filter(|&&c| related & 1 << c != 0) {
                defence.extend(per_move);
                match defence.find_win(opp, me | 1 << cell, 32) {
                    None => safe.push(cell),
                    Some((_, plies)) if plies + 1 > slowest_loss.0 => {
                        slowest_loss = (plies + 1, cell)
                    }
                    Some(_) => {}
                }
            }
            if safe.is_empty() {
                return Err(Choice {
                    cell: slowest_loss.1,
                    value: Value::Loss,
                    plies: Some(slowest_loss.0),
                    nodes: defence.nodes,
                });
            }
            Ok(safe)
        }
    }
}

/// Whether, after we (`me`) play `cell`, we can stop the threats that every quiet reply of the
/// opponent could set up. Replies are only looked at on lines still open to the opponent, and
/// the check stops (answering yes) when 95% of the time budget is spent.
fn holds_after(
    variant: Variant,
    me: u64,
    opp: u64,
    cell: usize,
    guard: &mut ThreatSearch,
    start: Instant,
    budget: Budget,
) -> bool {
    const PER_SEARCH: u64 = 3_000;
    let mine = me | 1 << cell;
    let empty = variant.full_mask() & !(mine | opp);
    let open = variant
        .lines()
        .iter()
        .filter(|&&l| l & mine == 0 && l & opp != 0)
        .fold(0u64, |m, &l| m | l);
    let cutoff = budget.time.map(|t| t * 19 / 20);
    cells_of(open & empty).all(|reply| {
        if cutoff.is_some_and(|c| start.elapsed() >= c) {
            return true;
        }
        guard.can_hold(mine, opp | 1 << reply, PER_SEARCH)
    })
}

/// `perfect`: exact where the variant allows, the strongest play within `budget` on qubic.
pub fn perfect(board: &Board, rng: &mut fastrand::Rng, budget: Budget) -> Choice {
    if is_exact(board.variant()) {
        exact(board, rng)
    } else {
        deep(board, rng, budget)
    }
}

/// `hard`: iterative deepening to the variant's fixed depth.
pub fn hard(board: &Board, rng: &mut fastrand::Rng) -> Choice {
    let variant = board.variant();
    let mut searcher = Searcher::with_table_bits(variant, Budget::UNLIMITED, 16);
    let depth = hard_depth(variant);
    let moves: Vec<usize> = board.legal_moves().collect();
    let mut scored = Vec::new();
    for d in 1..=depth {
        scored = searcher.root(board, &moves, d);
        if scored[0].1.abs() >= PROVEN {
            break;
        }
    }
    let exact = depth >= board.empty().count_ones() as i32;
    best_of(board, &scored, exact, searcher.nodes, rng)
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
