//! `perfect` on qubic: immediate wins and blocks, forced wins by threats, refusal of moves that
//! allow the opponent one, iterative deepening to order the rest, then each in turn checked
//! against deeper threats (and, as O, a proof-number search) within the budget.

use std::time::Instant;

use crate::board::{Board, Mark, cells_of};
use crate::book;
use crate::book_build::Builder;
use crate::budget::Budget;
use crate::search::{PROVEN, Searcher, sides};
use crate::threats::{Hold, ThreatSearch, defence_cells, winning_cells};
use crate::variant::Variant;
use crate::verdict::{Choice, Value, judge, pick};

/// What `perfect` keeps from move to move on qubic: its search (the table, the move-ordering
/// history and the horizon's threat search) and the threat search of its attacks and defences.
/// What the tables hold is a fact about a position, so it stays true for every later move; the
/// history only orders moves.
#[derive(Debug)]
pub struct Memory {
    /// The alpha-beta search and its table (8 MiB).
    searcher: Searcher,
    /// The threat search for wins, defences and the hold check, with its refutations.
    threats: ThreatSearch,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        Memory {
            searcher: Searcher::new(Variant::Qubic, Budget::UNLIMITED).with_horizon_threats(),
            threats: ThreatSearch::new(Variant::Qubic, 0),
        }
    }

    /// Nodes searched so far, by both searches.
    fn nodes(&self) -> u64 {
        self.searcher.nodes + self.searcher.threat_nodes() + self.threats.nodes
    }
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

/// The part of the budget, in percent, that the alpha-beta search may take to order the moves;
/// the rest goes to checking them against threats, best first.
const SEARCH_SHARE: u32 = 50;

/// `perfect` on qubic: immediate wins and blocks, forced wins by threats, refusal of moves that
/// allow the opponent one, then iterative deepening over the rest for half the budget; then, in
/// the order the search gives them, each move is checked against quiet replies that set up
/// threats (a threat search one move deeper) and, as O, against a proof-number search for X's
/// win, until one is not shown lost. When every move is lost, the slowest loss found.
pub fn deep(board: &Board, rng: &mut fastrand::Rng, budget: Budget, memory: &mut Memory) -> Choice {
    let budget = if budget.time.is_none() && budget.nodes.is_none() {
        Budget::DEFAULT
    } else {
        budget
    };
    let start = Instant::now();
    let variant = board.variant();
    let (me, opp) = sides(board);
    let ply = board.ply();
    // X in a position of the book's proven strategy plays the book: a win, whatever O does.
    // O in a position of its own book plays the reply checked there far deeper than a move's
    // budget allows (not a proof: its value stays unknown).
    let from_book = match board.to_move() {
        Mark::X => book::shipped().lookup(me, opp).map(|c| (c, Value::Win)),
        Mark::O => book::defence().lookup(opp, me).map(|c| (c, Value::Unknown)),
    };
    if let Some((cell, value)) = from_book {
        return Choice {
            cell,
            value,
            plies: None,
            nodes: 1,
        };
    }
    let nodes_before = memory.nodes();
    let safe = match safe_moves(board, rng, budget, &mut memory.threats) {
        Ok(found) => found,
        Err(mut choice) => {
            choice.nodes = (memory.nodes() - nodes_before).max(1);
            return choice;
        }
    };
    let Memory { searcher, threats } = memory;
    let cutoff = budget.time.map(|t| t * 19 / 20);
    let spent = |searcher: &Searcher, threats: &ThreatSearch| {
        searcher.nodes + searcher.threat_nodes() + threats.nodes - nodes_before
    };

    // Search the safe moves, deepening for half the budget to order them; `remaining(p)` is what
    // is left of p% of it.
    let remaining = |percent: u32, spent: u64| Budget {
        time: budget
            .time
            .map(|t| (t * percent / 100).saturating_sub(start.elapsed())),
        nodes: budget
            .nodes
            .map(|n| (n * percent as u64 / 100).saturating_sub(spent)),
    };
    // A single safe move is still searched (a little), so a win behind it is known and reported.
    let share = if safe.len() == 1 { 25 } else { SEARCH_SHARE };
    searcher.new_search();
    searcher.set_budget(remaining(share, spent(searcher, threats)));
    let mut scored: Vec<(usize, i32)> = safe.iter().map(|&c| (c, 0)).collect();
    for depth in 1..=(variant.cells() as i32 - ply as i32) {
        let deeper = searcher.root(board, &safe, depth);
        if searcher.stopped {
            break;
        }
        let proven = deeper[0].1.abs() >= PROVEN;
        scored = deeper;
        if proven {
            break;
        }
    }
    // Best first, ties in random order.
    let mut ordered: Vec<(i32, u32, usize)> = scored
        .iter()
        .map(|&(cell, score)| (score, rng.u32(..), cell))
        .collect();
    ordered.sort_unstable_by(|a, b| b.cmp(a));

    // Then the moves in that order, until one is shown to hold against every quiet reply that
    // sets up threats (a threat search one move deeper than the one that made `safe`). A move
    // that falls is proven lost; one whose check was cut short is not, and is kept in reserve.
    let mut choice = None;
    // A move whose check was cut short; a move that holds against the threats but is proven lost.
    let (mut reserve, mut lost) = (None, None);
    let x_to_move = board.to_move() == Mark::X;
    for &(score, _, cell) in &ordered {
        let hold = if score.abs() >= PROVEN || ordered.len() == 1 {
            // A proven win needs no check; a proven loss here means every move is lost (the
            // best comes first), and this is the slowest loss found.
            Hold::Holds
        } else if cutoff.is_some_and(|c| start.elapsed() >= c) {
            Hold::Unknown
        } else {
            holds_after(variant, me, opp, cell, threats, start, budget)
        };
        match hold {
            Hold::Holds if score.abs() < PROVEN && ordered.len() > 1 && !x_to_move => {
                // With time left, as O, a proof-number search for X's win after the move: a
                // move proven lost is given up for the next (and kept, should all be lost).
                let deadline = cutoff.map(|c| start + c);
                if !proven_won_for_x(opp, me | 1 << cell, PROOF_EXPANSIONS, deadline) {
                    choice = Some((cell, score));
                    break;
                }
                lost = lost.or(Some((cell, score)));
            }
            Hold::Holds => {
                choice = Some((cell, score));
                break;
            }
            Hold::Unknown if reserve.is_none() => reserve = Some((cell, score)),
            _ => {}
        }
    }
    // Every move falls: the position is lost to threats; the search's best is played.
    let (cell, score) = choice
        .or(reserve)
        .or(lost)
        .unwrap_or((ordered[0].2, ordered[0].0));
    let (mut value, mut plies) = judge(variant, ply, score, false);
    if choice.is_none() && reserve.is_none() && lost.is_some() {
        // Every move checked is proven lost, this one by the proof-number search.
        (value, plies) = (Value::Loss, None);
    }
    Choice {
        cell,
        value,
        plies,
        nodes: spent(searcher, threats),
    }
}

/// Whether, after we (`me`) play `cell`, we can stop the threats that every quiet reply of the
/// opponent could set up. Replies are only looked at on lines still open to the opponent. The
/// check stops when 95% of the time budget is spent, and a reply whose searches ran out of
/// nodes proves nothing: either way the answer is then [`Hold::Unknown`], unless some reply
/// already [`Hold::Falls`].
pub(crate) fn holds_after(
    variant: Variant,
    me: u64,
    opp: u64,
    cell: usize,
    guard: &mut ThreatSearch,
    start: Instant,
    budget: Budget,
) -> Hold {
    const PER_SEARCH: u64 = 3_000;
    let mine = me | 1 << cell;
    let empty = variant.full_mask() & !(mine | opp);
    let open = variant
        .lines()
        .iter()
        .filter(|&&l| l & mine == 0 && l & opp != 0)
        .fold(0u64, |m, &l| m | l);
    let cutoff = budget.time.map(|t| t * 19 / 20);
    let mut answer = Hold::Holds;
    for reply in cells_of(open & empty) {
        if cutoff.is_some_and(|c| start.elapsed() >= c) {
            return Hold::Unknown;
        }
        match guard.can_hold(mine, opp | 1 << reply, PER_SEARCH) {
            Hold::Holds => {}
            Hold::Falls => return Hold::Falls,
            Hold::Unknown => answer = Hold::Unknown,
        }
    }
    answer
}

/// Expansions the proof-number check may make at most for one move within a move's budget.
const PROOF_EXPANSIONS: u64 = 400;

/// Whether X, to move in (x, o), is proven to win by a proof-number search (the book builder's,
/// threat searches at its leaves) before `deadline`, in at most `expansions` expansions (a
/// multiple of 4). `false` proves nothing.
pub(crate) fn proven_won_for_x(x: u64, o: u64, expansions: u64, deadline: Option<Instant>) -> bool {
    let mut prover = Builder::from_position(x, o);
    let mut expanded = 0;
    while expanded < expansions && deadline.is_none_or(|d| Instant::now() < d) {
        prover.run(4);
        expanded += 4;
        let progress = prover.progress();
        if progress.root_proof == 0 || progress.root_disproof == 0 {
            break;
        }
    }
    prover.solved()
}

/// The moves `perfect` may consider on qubic; or, when the threats decide the move (a win on the
/// spot or by threats, a forced block, a lost position), that move (its nodes left for the
/// caller to count).
pub(crate) fn safe_moves(
    board: &Board,
    rng: &mut fastrand::Rng,
    budget: Budget,
    threat_search: &mut ThreatSearch,
) -> Result<Vec<usize>, Choice> {
    let variant = board.variant();
    let lines = variant.lines();
    let (me, opp) = sides(board);
    let empty = board.empty();
    let wins = winning_cells(lines, me, opp) & empty;
    if wins != 0 {
        let cells: Vec<usize> = cells_of(wins).collect();
        return Err(Choice {
            cell: pick(rng, &cells),
            value: Value::Win,
            plies: Some(1),
            nodes: 1,
        });
    }
    let threats = winning_cells(lines, opp, me) & empty;
    if threats.count_ones() >= 2 {
        let cells: Vec<usize> = cells_of(threats).collect();
        return Err(Choice {
            cell: pick(rng, &cells),
            value: Value::Loss,
            plies: Some(2),
            nodes: 1,
        });
    }

    // Threat-search budgets scale with the time budget (about a tenth of it each for attack and
    // defence at the node rates measured in BENCHMARKS.md).
    let millis = budget.time.map_or(1000, |t| t.as_millis() as u64).max(1);
    let threat_nodes = (millis * 400).clamp(2_000, 4_000_000);
    let attack = threat_search;
    attack.extend(threat_nodes);
    if let Some((cell, plies)) = attack.find_win(me, opp, 32) {
        return Err(Choice {
            cell,
            value: Value::Win,
            plies: Some(plies),
            nodes: 0,
        });
    }

    // Defence: if the opponent, given the move, could win by threats, only moves touching that
    // line (or making a threat, or able to turn one of its forced replies into a threat) can
    // stop it; any other move leaves the same line playable. Each candidate is checked.
    let candidates: Vec<usize> = if threats != 0 {
        cells_of(threats).collect()
    } else {
        cells_of(empty).collect()
    };
    let defence = attack;
    defence.extend(threat_nodes);
    let safe: Vec<usize> = match defence.find_line(opp, me, 32) {
        None => candidates.clone(),
        Some(line) => {
            let related = defence_cells(variant, &line, me, opp);
            let per_move = (threat_nodes / 8).max(1_000);
            let mut safe = Vec::new();
            // Moves whose check ran out of nodes: not proven safe, not proven lost.
            let mut unsure = Vec::new();
            let mut slowest_loss = (0, line[0]);
            for &cell in candidates.iter().filter(|&&c| related & 1 << c != 0) {
                defence.extend(per_move);
                // The opponent's fastest win after this move: we want the move where it is
                // slowest.
                match defence.find_shortest_win(opp, me | 1 << cell, 32) {
                    None if defence.truncated() => unsure.push(cell),
                    None => safe.push(cell),
                    Some((_, plies)) if plies + 1 > slowest_loss.0 => {
                        slowest_loss = (plies + 1, cell)
                    }
                    Some(_) => {}
                }
            }
            if safe.is_empty() && unsure.is_empty() {
                return Err(Choice {
                    cell: slowest_loss.1,
                    value: Value::Loss,
                    plies: Some(slowest_loss.0),
                    nodes: 0,
                });
            }
            // A move whose check was cut short is not proven lost: it stays a candidate.
            safe.extend(unsure);
            safe
        }
    };
    Ok(safe)
}
