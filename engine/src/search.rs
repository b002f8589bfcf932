//! The search: negamax with alpha-beta, a transposition table, symmetry, threats and a budget.
//!
//! Scores are from the side to move's point of view. A won game scores `MATE - e` and a lost one
//! `-(MATE - e)`, where `e` is the number of marks on the board when the game ends. Because `e` is
//! a property of the final position and not of the path, a quicker win scores higher, a slower loss
//! scores higher, and a score stored in the table means the same wherever the position recurs. A
//! draw is 0; the heuristic scores of a search cut short by depth stay well inside `±PROVEN`.
//!
//! A [`Searcher`] owns its table, bounded by the variant's table size, so searches on many threads
//! never share mutable state; one searcher may be kept for a whole game ([`Searcher::new_search`]
//! before each move) so that each move starts from what the last one found.

use std::time::Instant;

use crate::board::{Board, Mark};
use crate::budget::Budget;
use crate::move_order::{MoveOrder, Moves};
use crate::small_board::{self, SmallBoard};
use crate::symmetry::Symmetries;
use crate::table::{EXACT_BOUND, LOWER, Table, UPPER};
use crate::threats::ThreatSearch;
use crate::variant::Variant;

/// The score of a win on an empty move list; real wins are `MATE - e` with `e` ≤ 64.
pub const MATE: i32 = 1000;
/// Scores at least this large (in absolute value) are proven wins or losses.
pub const PROVEN: i32 = MATE - 100;
/// Beyond every score.
pub const INF: i32 = 10_000;
/// Depth that means "to the end of the game".
pub const EXACT: i32 = 100;

/// The score of a win for the side to move when the game ends with `end` marks on the board.
pub const fn win_at(end: u32) -> i32 {
    MATE - end as i32
}

/// The number of marks on the board when the game ends, for a proven score.
pub fn end_of(score: i32) -> Option<u32> {
    (score.abs() >= PROVEN).then(|| (MATE - score.abs()) as u32)
}

/// A search over one variant with its own table and budget.
#[derive(Debug)]
pub struct Searcher {
    /// The game being searched.
    variant: Variant,
    /// Its winning lines.
    lines: &'static [u64],
    /// Cells in a line.
    k: u32,
    /// Every cell of the board.
    full: u64,
    /// How many cells the board has.
    cells: u32,
    /// Lookup tables that stand in for passes over the lines on a board of up to nine cells.
    small: Option<&'static SmallBoard>,
    /// Its symmetries, for table keys near the root.
    group: &'static Symmetries,
    /// Positions with fewer marks than this are keyed by their canonical image; deeper ones by
    /// themselves, where the cost of canonicalising outweighs the transpositions it finds.
    symmetric_plies: u32,
    /// The transposition table.
    table: Table,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Stop when `nodes` passes this.
    node_limit: u64,
    /// Stop when the clock passes this.
    deadline: Option<Instant>,
    /// Set once the budget has run out; every score computed after that is discarded.
    pub stopped: bool,
    /// Move ordering, with its history of cut-offs.
    ordering: MoveOrder,
    /// A small threat search run at the horizon, so that a forced win by threats just beyond
    /// it is scored as the win it is (qubic); `None` to evaluate the horizon statically only.
    horizon_threats: Option<ThreatSearch>,
}

/// Nodes the horizon threat search may spend at one leaf.
const HORIZON_THREAT_NODES: u64 = 24;
/// What it costs, in evaluation points, to face a forced win by threats at the horizon.
const HORIZON_PRESSURE: i32 = 40;
/// How many of its own moves the horizon threat search may look ahead.
const HORIZON_THREAT_DEPTH: u32 = 6;

/// Table size (log2 of slots) for each variant: enough for the exact solves, bounded per search.
fn table_bits(variant: Variant) -> u32 {
    match variant {
        Variant::Classic => 8,
        Variant::Four => 18,
        Variant::Cube => 16,
        Variant::Qubic => 19,
    }
}

impl Searcher {
    /// A searcher for `variant` with a fresh table, limited by `budget`.
    pub fn new(variant: Variant, budget: Budget) -> Searcher {
        Searcher::with_table_bits(variant, budget, table_bits(variant))
    }

    /// A searcher with a table of `2^bits` slots.
    pub fn with_table_bits(variant: Variant, budget: Budget, bits: u32) -> Searcher {
        let mut searcher = Searcher {
            variant,
            lines: variant.lines(),
            k: variant.side() as u32,
            full: variant.full_mask(),
            cells: variant.cells() as u32,
            small: SmallBoard::of(variant),
            group: Symmetries::of(variant),
            symmetric_plies: match variant {
                Variant::Classic => 9,
                Variant::Four => 9,
                Variant::Cube => 8,
                Variant::Qubic => 4,
            },
            table: Table::new(bits),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stopped: false,
            ordering: MoveOrder::new(variant),
            horizon_threats: None,
        };
        searcher.set_budget(budget);
        searcher
    }

    /// Also looks for wins by continuous threats at the horizon of depth-limited searches.
    pub fn with_horizon_threats(mut self) -> Searcher {
        self.horizon_threats = Some(ThreatSearch::new(self.variant, 0));
        self
    }

    /// Nodes spent by the horizon threat search.
    pub fn threat_nodes(&self) -> u64 {
        self.horizon_threats.as_ref().map_or(0, |t| t.nodes)
    }

    /// Starts a new search with the same table (the next move of a game, say): what the table
    /// holds stays usable, but gives way to what the new search stores; the move-ordering history
    /// is halved.
    pub fn new_search(&mut self) {
        self.table.generation = self.table.generation.wrapping_add(1);
        self.ordering.halve_history();
    }

    /// The variant searched.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Replaces the budget, counted from now.
    pub fn set_budget(&mut self, budget: Budget) {
        self.node_limit = budget
            .nodes
            .map_or(u64::MAX, |n| self.nodes.saturating_add(n));
        self.deadline = budget.time.map(|t| Instant::now() + t);
        self.stopped = false;
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.node_limit {
            self.stopped = true;
        } else if self.nodes & 0x3ff == 0
            && let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            self.stopped = true;
        }
        self.stopped
    }

    #[inline]
    fn key(&self, me: u64, opp: u64, ply: u32) -> (u64, usize) {
        let (key, s, _) = self.key_and_distinct(me, opp, ply);
        (key, s)
    }

    /// The table key of the position, the symmetry that maps it to the image the key is of, and
    /// on a small board one empty cell of each kind (all the empty cells elsewhere).
    #[inline(always)]
    fn key_and_distinct(&self, me: u64, opp: u64, ply: u32) -> (u64, usize, u64) {
        let mut distinct = self.full & !(me | opp);
        let (a, b, s) = if ply >= self.symmetric_plies {
            (me, opp, 0)
        } else if let Some((a, b, s, kinds)) = self.group.canonical_and_distinct(me, opp) {
            distinct = kinds;
            (a, b, s)
        } else {
            self.group.canonical(me, opp)
        };
        let key = if self.variant.cells() <= 32 {
            a | b << 32
        } else {
            let h = (a ^ b.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
            h ^ (h >> 32)
        };
        (key, s, distinct)
    }

    /// The number of cells in `mask`.
    #[inline]
    fn count(&self, mask: u64) -> u32 {
        small_board::count(self.small, mask)
    }

    /// One pass over the lines: the cells where the side to move would complete a line, the cells
    /// where its opponent would, and whether each side still has an open line at all.
    #[inline]
    fn scan(&self, me: u64, opp: u64) -> (u64, u64, bool, bool) {
        if let Some(small) = self.small {
            return small.scan(me, opp);
        }
        let (mut wins, mut threats, mut can_win, mut can_lose) = (0, 0, false, false);
        for &line in self.lines {
            let (mine, theirs) = (line & me, line & opp);
            // A line one mark short of complete has exactly one cell left: `rest & (rest - 1)`
            // is zero (cheaper than counting bits where the CPU has no popcount).
            if theirs == 0 {
                can_win = true;
                let rest = line & !me;
                if rest & rest.wrapping_sub(1) == 0 {
                    wins |= rest;
                }
            }
            if mine == 0 {
                can_lose = true;
                let rest = line & !opp;
                if rest & rest.wrapping_sub(1) == 0 {
                    threats |= rest;
                }
            }
        }
        (wins, threats, can_win, can_lose)
    }

    /// A static estimate of the position for the side to move: open lines weighted by how full
    /// they are. Stays well inside `±PROVEN`.
    pub fn evaluate(&self, me: u64, opp: u64) -> i32 {
        const WEIGHTS: [[i32; 4]; 2] = [[0, 1, 6, 0], [0, 1, 5, 25]];
        let weights = &WEIGHTS[(self.k == 4) as usize];
        let mut score = 0;
        for &line in self.lines {
            let (mine, theirs) = ((line & me).count_ones(), (line & opp).count_ones());
            if theirs == 0 {
                score += weights[mine as usize];
            } else if mine == 0 {
                score -= weights[theirs as usize];
            }
        }
        score.clamp(-PROVEN / 2, PROVEN / 2)
    }

    /// The score of the position (`me` to move against `opp`, game not over) searched `depth`
    /// plies deep (forced moves are free), within the window `(alpha, beta)`.
    pub fn negamax(&mut self, me: u64, opp: u64, depth: i32, alpha: i32, beta: i32) -> i32 {
        let ply = self.count(me | opp);
        self.node(me, opp, ply, depth, alpha, beta)
    }

    /// The score of a quiet position at the horizon (`ply` marks on the board): the static
    /// evaluation, or a win by threats that the horizon threat search finds.
    fn horizon(&mut self, me: u64, opp: u64, ply: u32) -> i32 {
        let mut pressure = 0;
        if let Some(threat_search) = self.horizon_threats.as_mut() {
            threat_search.extend(HORIZON_THREAT_NODES);
            if let Some((_, plies)) = threat_search.find_win(me, opp, HORIZON_THREAT_DEPTH) {
                return win_at(ply + plies);
            }
            // The opponent would have a forced win if it were its move: we must spend our move
            // defending, and a second such threat would be fatal.
            threat_search.extend(HORIZON_THREAT_NODES);
            if threat_search
                .find_win(opp, me, HORIZON_THREAT_DEPTH)
                .is_some()
            {
                pressure = HORIZON_PRESSURE;
            }
        }
        self.evaluate(me, opp) - pressure
    }

    /// [`Searcher::negamax`] on a position with `ply` marks, counted by the caller.
    fn node(
        &mut self,
        me: u64,
        opp: u64,
        ply: u32,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let occupied = me | opp;
        let empty = self.full & !occupied;
        if empty == 0 {
            return 0;
        }
        let empties = self.cells - ply;
        // Deep enough to reach the end: the score will be exact, whatever path led here.
        let depth = if depth >= empties as i32 { 255 } else { depth };
        let (wins, threats, can_win, can_lose) = self.scan(me, opp);
        if wins != 0 {
            return win_at(ply + 1);
        }
        if threats & threats.wrapping_sub(1) != 0 {
            return -win_at(ply + 2);
        }
        if empties == 1 || !can_win && !can_lose {
            // No line left for either side (on the last cell, none for us: checked above).
            return 0;
        }
        // The best we can still do is win two moves from now; the worst, lose on the next move.
        // A side with no open line left cannot win at all.
        alpha = alpha.max(if can_lose { -win_at(ply + 2) } else { 0 });
        beta = beta.min(if can_win { win_at(ply + 3) } else { 0 });
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 && threats == 0 {
            return self.horizon(me, opp, ply);
        }
        if empties == 2 {
            return self.last_two(ply, if threats != 0 { threats } else { empty }, depth, beta);
        }
        // Near the end of the game a position is quicker to search again than to look up.
        let use_table = empties > 5;
        if !use_table && threats & threats.wrapping_sub(1) == 0 && threats != 0 {
            // One forced move and nothing to store: its score is this position's.
            let cell = threats.trailing_zeros() as usize;
            let score = -self.node(opp, me | threats, ply + 1, depth, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if score > alpha && score >= beta {
                self.ordering.record_cut(ply, cell, depth);
            }
            return score;
        }
        // With the key, one empty cell of each kind of move (on a small board: moves that a
        // symmetry of the position maps onto one another score alike, and one is enough).
        let (key, symmetry, distinct) = if use_table {
            self.key_and_distinct(me, opp, ply)
        } else {
            (0, 0, empty)
        };
        let mut first = None;
        if let Some((score, stored_depth, bound, best)) =
            use_table.then(|| self.table.probe(key)).flatten()
        {
            if stored_depth >= depth || score.abs() >= PROVEN && bound == EXACT_BOUND {
                match bound {
                    EXACT_BOUND => return score,
                    LOWER => alpha = alpha.max(score),
                    UPPER => beta = beta.min(score),
                    _ => {}
                }
                if alpha >= beta {
                    return score;
                }
            }
            first = Some(self.group.map_cell(self.group.inverse(symmetry), best));
        }
        let (moves, next_depth) = if threats != 0 {
            (threats, depth)
        } else {
            (distinct, depth - 1)
        };
        let mut ordered = Moves::new();
        if threats != 0 || empties <= 3 {
            ordered.extend(moves);
        } else {
            self.ordering
                .order(me, opp, ply, moves, first, &mut ordered);
        }
        let original_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move = 0;
        for i in 0..ordered.len {
            let cell = ordered.get(i);
            let after = me | 1 << cell;
            // Principal variation search: the first move gets the full window; the others must
            // first show, with a null window, that they beat it.
            let mut score = if i == 0 {
                -self.node(opp, after, ply + 1, next_depth, -beta, -alpha)
            } else {
                -self.node(opp, after, ply + 1, next_depth, -alpha - 1, -alpha)
            };
            if i > 0 && score > alpha && score < beta && !self.stopped {
                score = -self.node(opp, after, ply + 1, next_depth, -beta, -alpha);
            }
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = cell;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        self.ordering.record_cut(ply, cell, depth);
                        break;
                    }
                }
            }
        }
        if use_table {
            let bound = if best_score <= original_alpha {
                UPPER
            } else if best_score >= beta {
                LOWER
            } else {
                EXACT_BOUND
            };
            self.table.store(
                key,
                best_score,
                depth,
                bound,
                self.group.map_cell(symmetry, best_move),
            );
        }
        best_score
    }

    /// The score of a position with two empty cells where the side to move cannot win at once and
    /// faces at most one threat (`moves`: the threat, or both cells): it takes the threat (or
    /// either cell) and the other side's last mark completes nothing. A draw, as a search of the
    /// two moves would find; the cut-off that search would count where a draw reaches `beta`
    /// (above `alpha`, which is then below 0) goes to the first of them.
    #[inline(always)]
    fn last_two(&mut self, ply: u32, moves: u64, depth: i32, beta: i32) -> i32 {
        if beta <= 0 {
            self.ordering
                .record_cut(ply, moves.trailing_zeros() as usize, depth);
        }
        0
    }

    /// The score of `board` for the side to move, searched to `depth`.
    pub fn score(&mut self, board: &Board, depth: i32) -> i32 {
        let (me, opp) = sides(board);
        if let Some(score) = terminal_score(board) {
            return score;
        }
        self.negamax(me, opp, depth, -INF, INF)
    }

    /// Scores of `moves` in `board` searched to `depth`, best first: the best scores are exact; a
    /// move that cannot match the best gets an upper bound below it. Moves that are images of one
    /// another under the position's symmetries share one search.
    pub fn root(&mut self, board: &Board, moves: &[usize], depth: i32) -> Vec<(usize, i32)> {
        let (me, opp) = sides(board);
        let ply = board.ply();
        let stabiliser = self.group.stabiliser(me, opp);
        let representative = |cell: usize| {
            stabiliser
                .iter()
                .map(|&s| self.group.map_cell(s, cell))
                .min()
                .unwrap_or(cell)
        };
        let (key, symmetry) = self.key(me, opp, ply);
        let first = self
            .table
            .probe(key)
            .map(|(_, _, _, best)| self.group.map_cell(self.group.inverse(symmetry), best));
        let allowed: u64 = moves.iter().fold(0, |m, &c| m | 1 << c);
        let mut ordered = Moves::new();
        self.ordering
            .order(me, opp, ply, allowed, first, &mut ordered);
        let mut scored: Vec<(usize, i32)> = Vec::with_capacity(ordered.len);
        // The score of each class of moves, kept under its representative.
        let mut by_class = [None; 64];
        let mut best = -INF;
        for i in 0..ordered.len {
            let cell = ordered.get(i);
            let class = representative(cell);
            if let Some(score) = by_class[class] {
                scored.push((cell, score));
                continue;
            }
            let after = me | 1 << cell;
            let score = if self.completes(cell, after) {
                win_at(ply + 1)
            } else if best == -INF {
                self.first_root_move(opp, after, depth)
            } else {
                // Only whether it ties or beats the best so far matters; exact if it does.
                let mut score = -self.negamax(opp, after, depth - 1, -best - 1, -best + 1);
                if score > best && !self.stopped {
                    score = -self.negamax(opp, after, depth - 1, -INF, -best);
                }
                score
            };
            if self.stopped {
                break;
            }
            by_class[class] = Some(score);
            scored.push((cell, score));
            best = best.max(score);
        }
        scored.sort_by_key(|m| std::cmp::Reverse(m.1));
        scored
    }

    /// Whether `cell` completes a line of `own` (which includes it).
    fn completes(&self, cell: usize, own: u64) -> bool {
        self.variant
            .lines_through(cell)
            .iter()
            .any(|&l| l & !own == 0)
    }

    /// The score of the root move that leads to (`me`, `opp`), with the opponent to move there.
    /// A full search wins and loses with distance; to the end of the game, where every score is
    /// a draw or a proven result, a draw test with a narrow window comes first and settles most.
    fn first_root_move(&mut self, me: u64, opp: u64, depth: i32) -> i32 {
        if depth < EXACT {
            return -self.negamax(me, opp, depth - 1, -INF, INF);
        }
        let test = -self.negamax(me, opp, depth - 1, -1, 1);
        if self.stopped || test == 0 {
            test
        } else if test > 0 {
            -self.negamax(me, opp, depth - 1, -INF, 0)
        } else {
            -self.negamax(me, opp, depth - 1, 0, INF)
        }
    }

    /// The exact score of every move in `board` (each searched with a full window).
    pub fn every_move(&mut self, board: &Board, depth: i32) -> Vec<(usize, i32)> {
        let (me, opp) = sides(board);
        let ply = board.ply();
        let stabiliser = self.group.stabiliser(me, opp);
        let mut by_class: Vec<(usize, i32)> = Vec::new();
        let mut scored = Vec::new();
        for cell in board.legal_moves() {
            let class = stabiliser
                .iter()
                .map(|&s| self.group.map_cell(s, cell))
                .min()
                .unwrap_or(cell);
            if let Some(&(_, score)) = by_class.iter().find(|(c, _)| *c == class) {
                scored.push((cell, score));
                continue;
            }
            let after = me | 1 << cell;
            let score = if self.completes(cell, after) {
                win_at(ply + 1)
            } else {
                self.first_root_move(opp, after, depth)
            };
            if self.stopped {
                break;
            }
            by_class.push((class, score));
            scored.push((cell, score));
        }
        scored
    }
}

/// The marks of the side to move and of the other side.
pub fn sides(board: &Board) -> (u64, u64) {
    let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
    match board.to_move() {
        Mark::X => (x, o),
        Mark::O => (o, x),
    }
}

/// The score of a finished game for the side to move (who, if anyone won, lost).
pub fn terminal_score(board: &Board) -> Option<i32> {
    match board.outcome()? {
        crate::board::Outcome::Draw => Some(0),
        crate::board::Outcome::Win { .. } => Some(-win_at(board.ply())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_empty_board_is_a_draw() {
        let mut searcher = Searcher::new(Variant::Classic, Budget::UNLIMITED);
        assert_eq!(searcher.score(&Board::new(Variant::Classic), EXACT), 0);
    }

    #[test]
    fn quickest_win_scores_highest() {
        // X can win now at 2; every other move is slower.
        let board = Board::parse(Variant::Classic, "XX./OO./...").unwrap();
        let mut searcher = Searcher::new(Variant::Classic, Budget::UNLIMITED);
        let moves: Vec<usize> = board.legal_moves().collect();
        let scored = searcher.root(&board, &moves, EXACT);
        assert_eq!(scored[0], (2, win_at(5)));
    }
}
