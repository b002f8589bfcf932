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
/// history and the horizon's threat search), the threat search of its attacks and defences and,
/// as O, the proof-number tree of its checks. What the tables and the tree hold is a fact about a
/// position, so it stays true for every later move; the history only orders moves.
#[derive(Debug)]
pub struct Memory {
    /// The alpha-beta search and its table (8 MiB).
    searcher: Searcher,
    /// The threat search for wins, defences and the hold check, with its refutations.
    threats: ThreatSearch,
    /// As O, the proof-number search for X's wins, one tree for every move checked (emptied
    /// when it passes [`PROVER_NODES`] positions).
    prover: Builder,
}

/// Positions the proof-number tree of [`Memory`] may hold before it is emptied (some 200 bytes
/// each with its children and its index entry: 20 to 30 MB at most). A move at 100 ms adds a
/// few thousand, at a second some tens of thousands.
const PROVER_NODES: usize = 100_000;

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        Memory {
            searcher: Searcher::new(Variant::Qubic, Budget::UNLIMITED).with_horizon_threats(),
            threats: ThreatSearch::new(Variant::Qubic, 0),
            prover: Builder::for_play(),
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
    let Memory {
        searcher,
        threats,
        prover,
    } = memory;
    if prover.len() > PROVER_NODES {
        *prover = Builder::for_play();
    }
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

    // Then the moves in that order, until one is shown to hold.
    let checked = check_in_order(board, &ordered, threats, prover, start, budget);
    let (cell, score) = checked.pick(&ordered);
    let (mut value, mut plies) = judge(variant, ply, score, false);
    if checked.all_lost() {
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

/// What the checks of the moves in the search's order found.
#[derive(Debug, Default)]
struct Checked {
    /// The first move shown to hold (as O, and not proven lost by the proof-number search).
    choice: Option<(usize, i32)>,
    /// The first move whose check was cut short (by the time or a node limit).
    reserve: Option<(usize, i32)>,
    /// As O, the first move that holds against the threats but is proven lost by the
    /// proof-number search (the search's best of those).
    lost: Option<(usize, i32)>,
}

impl Checked {
    /// The move to play: the first that holds, else the first not checked to the end, else the
    /// first proven lost by the proof-number search; when every move falls to the threats, the
    /// search's best.
    fn pick(&self, ordered: &[(i32, u32, usize)]) -> (usize, i32) {
        self.choice
            .or(self.reserve)
            .or(self.lost)
            .unwrap_or((ordered[0].2, ordered[0].0))
    }

    /// Whether every move checked is proven lost, the one picked by the proof-number search.
    fn all_lost(&self) -> bool {
        self.choice.is_none() && self.reserve.is_none() && self.lost.is_some()
    }
}

/// The moves in the search's order, each checked until one holds: against every quiet reply
/// that sets up threats (a threat search one move deeper than the one that made the safe moves),
/// then, as O, by the proof-number search in `prover` for X's win after it (at most
/// [`PROOF_EXPANSIONS`], within the budget). A move that falls is proven lost; one whose check
/// was cut short is not, and is kept in reserve.
fn check_in_order(
    board: &Board,
    ordered: &[(i32, u32, usize)],
    threats: &mut ThreatSearch,
    prover: &mut Builder,
    start: Instant,
    budget: Budget,
) -> Checked {
    let variant = board.variant();
    let (me, opp) = sides(board);
    let cutoff = budget.time.map(|t| t * 19 / 20);
    let x_to_move = board.to_move() == Mark::X;
    let mut checked = Checked::default();
    for &(score, _, cell) in ordered {
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
                // As O, a proof-number search for X's win after the move: a move proven lost
                // is given up for the next (and kept, should all be lost).
                let deadline = cutoff.map(|c| start + c);
                if !prover.prove(opp, me | 1 << cell, PROOF_EXPANSIONS, deadline) {
                    checked.choice = Some((cell, score));
                    break;
                }
                checked.lost = checked.lost.or(Some((cell, score)));
            }
            Hold::Holds => {
                checked.choice = Some((cell, score));
                break;
            }
            Hold::Unknown if checked.reserve.is_none() => checked.reserve = Some((cell, score)),
            _ => {}
        }
    }
    checked
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
const PROOF_EXPANSIONS: u64 = 2_000;

/// Whether X, to move in (x, o), is proven to win by a proof-number search (the book builder's,
/// threat searches at its leaves) in at most `expansions` expansions (a multiple of 4). `false`
/// proves nothing.
pub(crate) fn proven_won_for_x(x: u64, o: u64, expansions: u64) -> bool {
    Builder::from_position(x, o).prove(x, o, expansions, None)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A game perfect O lost to medium X at 100 ms a move, before O's fourth move (49, after
    /// which X wins; a few proof-number expansions show it).
    fn lost_game() -> Board {
        [57, 48, 25, 41, 22, 28, 37]
            .iter()
            .fold(Board::new(Variant::Qubic), |b, &c| b.play_unchecked(c))
    }

    #[test]
    fn o_gives_up_moves_proven_lost_and_remembers_the_proofs() {
        let board = lost_game();
        let budget = Budget {
            time: None,
            nodes: Some(1_000_000),
        };
        let mut threats = ThreatSearch::new(Variant::Qubic, 0);
        let mut prover = Builder::for_play();
        let start = Instant::now();
        // 49 first: it holds against the threats one move deep, but the prover shows it lost in
        // a few expansions. So is 38 (the move a second's search picks), in some hundreds: the
        // position is lost, and the first of the two, the search's best, is played as a loss.
        let ordered = [(0, 0, 49), (0, 0, 38)];
        let checked = check_in_order(&board, &ordered, &mut threats, &mut prover, start, budget);
        assert_eq!(checked.lost, Some((49, 0)));
        assert!(checked.all_lost());
        assert_eq!(checked.pick(&ordered), (49, 0));
        // Proven once, it stays proven: checked again, neither move costs an expansion.
        let expansions = prover.expansions();
        assert!(expansions > 100);
        let again = check_in_order(&board, &ordered, &mut threats, &mut prover, start, budget);
        assert!(again.all_lost());
        assert_eq!(prover.expansions(), expansions);
    }
}
