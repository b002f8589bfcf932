//! The builder of O's opening book on qubic: O's reply in the early positions that strong X
//! players reach, each checked far deeper than a move's budget allows.
//!
//! Qubic is won for X, so every position O meets is lost against perfect play; what O can do is
//! stay out of the losses an opponent can find. Many of O's early moves are proven lost only a few
//! thousand proof-number expansions later, where a move's search within its budget sees
//! nothing, and the opponent then wins by a sequence of threats. The builder walks the tree from
//! the empty board. Where X is to move: every move for X's first few moves, then the moves `hard`
//! rates best at each of the given depths (every tie, so that the games of `hard` and most of
//! `medium`'s stay in the book). Where O is to move: O's move, found as
//! [`crate::qubic_play::deep`] finds it but with node limits instead of a clock, and a
//! proof-number check of a few thousand expansions instead of a few dozen:
//!
//! 1. wins, forced blocks and threat wins; moves that let X win by threats are left out;
//! 2. the rest ordered by an alpha-beta search to a fixed depth (ties by cell);
//! 3. in that order, the first move that holds against X's quiet threat set-ups, that the
//!    proof-number search does not prove lost, and after which no strong move of X's (a move
//!    `hard` rates best) leads to a position of the book where every move of O's is shown lost,
//!    is O's book move: the strongest move not shown lost.
//!
//! Every refusal is a proof: X wins after the move, whatever O does. Where every move is proven
//! lost the position gets no entry: the move's own search then plays the slowest loss it finds.
//! Nothing depends on a clock or a random choice, and a position's reply depends on the position
//! alone, so the same plan gives the same book.

use std::collections::HashMap;

use crate::board::Board;
use crate::book::Book;
use crate::budget::Budget;
use crate::players::hard_scores;
use crate::qubic_play::{holds_after, proven_won_for_x, safe_moves};
use crate::search::{PROVEN, Searcher};
use crate::symmetry::Symmetries;
use crate::threats::{Hold, ThreatSearch};
use crate::variant::Variant;
use crate::verdict::Value;

/// What to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// O's moves the walk looks at: O's replies at plies 1, 3, … up to `2 * o_moves - 1`.
    pub o_moves: u32,
    /// O's first moves the book keeps; the deeper replies serve only to check them. A reply
    /// fixed in advance is not always better than the move's own search: it makes O play the
    /// same line every game, and `hard`'s moves are not all in the walk (its choice among equal
    /// moves can depend on the board's orientation), so a book of O's first two moves out of
    /// four looked at plays best (BENCHMARKS.md); against `medium`, books of three and of four
    /// moves did no better.
    pub kept_moves: u32,
    /// X's first moves on which X tries every move (one per symmetry class): `medium` slips to
    /// any move a quarter of the time.
    pub x_every_move: u32,
    /// The `hard` depths whose best moves X tries at each later X-to-move position.
    pub x_depths: Vec<i32>,
    /// The depth of the alpha-beta search that orders O's moves.
    pub order_depth: i32,
    /// Expansions of the proof-number check of each of O's moves.
    pub expansions: u64,
}

impl Plan {
    /// The plan of the shipped book (`engine/book/qubic-o.book`).
    pub fn shipped() -> Plan {
        Plan {
            o_moves: 4,
            kept_moves: 2,
            x_every_move: 2,
            x_depths: vec![3, 4],
            order_depth: 4,
            expansions: 3_000,
        }
    }
}

/// Counts of a build so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    /// O-to-move positions met (one per symmetry class).
    pub positions: u64,
    /// Of those, positions with a book move.
    pub entries: u64,
    /// Positions where every move of O's is proven lost (no entry).
    pub lost: u64,
    /// Moves of O's given up as proven lost: by the proof-number search, or because X's strong
    /// reply leads to a position of the walk where every move of O's is.
    pub refuted: u64,
}

/// O's move in a position of the book's, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// The move, in the position's coordinates.
    Move(usize),
    /// Every move is shown lost.
    Lost,
}

/// Builds O's book by `plan`, calling `progress` after each O-to-move position.
pub fn build(plan: &Plan, progress: impl FnMut(&Report)) -> Book {
    let mut walk = Walk::new(plan, progress);
    walk.x_node(0, 0);
    (walk.progress)(&walk.report);
    Book::from_entries(
        walk.replies
            .into_iter()
            .filter_map(|(key, reply)| match reply {
                Reply::Move(cell) if (key.0 | key.1).count_ones() < 2 * plan.kept_moves => {
                    Some((key, cell as u8))
                }
                _ => None,
            })
            .collect(),
    )
}

/// The walk of the tree, and what it knows of each position met (in canonical form).
struct Walk<'p, F> {
    plan: &'p Plan,
    symmetries: &'static Symmetries,
    /// O-to-move positions and O's reply in each.
    replies: HashMap<(u64, u64), Reply>,
    /// X-to-move positions, and whether one of X's strong moves there leaves O lost.
    x_wins: HashMap<(u64, u64), bool>,
    report: Report,
    progress: F,
}

impl<'p, F: FnMut(&Report)> Walk<'p, F> {
    /// A walk that knows nothing yet.
    fn new(plan: &'p Plan, progress: F) -> Self {
        Walk {
            plan,
            symmetries: Symmetries::of(Variant::Qubic),
            replies: HashMap::new(),
            x_wins: HashMap::new(),
            report: Report::default(),
            progress,
        }
    }

    /// Whether, X to move in (x, o), one of X's strong moves reaches a position where every move
    /// of O's is shown lost. Also walks X's other moves, where the plan says to try them all,
    /// so that O's book covers them.
    fn x_node(&mut self, x: u64, o: u64) -> bool {
        let (x, o, _) = self.symmetries.canonical(x, o);
        if let Some(&won) = self.x_wins.get(&(x, o)) {
            return won;
        }
        let board = Board::from_masks(Variant::Qubic, x, o).expect("a legal position");
        let mut won = false;
        if !board.is_over() && board.ply() < 2 * self.plan.o_moves - 1 {
            let strong = self.children(x, o, strong_moves(&board, &self.plan.x_depths));
            won = strong
                .iter()
                .any(|&(cx, co)| self.o_node(cx, co) == Reply::Lost);
            if !won && board.ply() < 2 * self.plan.x_every_move {
                for (cx, co) in self.children(x, o, board.legal_moves().collect()) {
                    self.o_node(cx, co);
                }
            }
        }
        self.x_wins.insert((x, o), won);
        won
    }

    /// The canonical positions after X's `moves` in (x, o), in a fixed order.
    fn children(&self, x: u64, o: u64, moves: Vec<usize>) -> Vec<(u64, u64)> {
        let mut next: Vec<(u64, u64)> = moves
            .into_iter()
            .map(|cell| {
                let (cx, co, _) = self.symmetries.canonical(x | 1 << cell, o);
                (cx, co)
            })
            .collect();
        next.sort_unstable();
        next.dedup();
        next
    }

    /// O's reply in the canonical position (x, o), O to move, by the steps in the module's
    /// documentation; a move is also given up when X's strong replies to it leave O lost
    /// further down the book.
    fn o_node(&mut self, x: u64, o: u64) -> Reply {
        if let Some(&reply) = self.replies.get(&(x, o)) {
            return reply;
        }
        let board = Board::from_masks(Variant::Qubic, x, o).expect("a legal position");
        let budget = Budget {
            time: None,
            nodes: Some(u64::MAX / 4),
        };
        let mut threats = ThreatSearch::new(Variant::Qubic, 0);
        let reply = match ordered_moves(&board, self.plan, budget, &mut threats) {
            Err(reply) => reply,
            Ok(scored) => {
                let deeper = board.ply() + 2 < 2 * self.plan.o_moves;
                let start = std::time::Instant::now();
                let mut reply = Reply::Lost;
                for (cell, score) in scored {
                    if score >= PROVEN {
                        reply = Reply::Move(cell);
                        break;
                    }
                    if score <= -PROVEN {
                        // Best first: every move from here on is proven lost too.
                        break;
                    }
                    let hold = holds_after(Variant::Qubic, o, x, cell, &mut threats, start, budget);
                    if hold == Hold::Falls {
                        continue;
                    }
                    if proven_won_for_x(x, o | 1 << cell, self.plan.expansions)
                        || deeper && self.x_node(x, o | 1 << cell)
                    {
                        self.report.refuted += 1;
                        continue;
                    }
                    reply = Reply::Move(cell);
                    break;
                }
                reply
            }
        };
        self.replies.insert((x, o), reply);
        self.report.positions += 1;
        match reply {
            Reply::Move(_) => self.report.entries += 1,
            Reply::Lost => self.report.lost += 1,
        }
        (self.progress)(&self.report);
        reply
    }
}

/// X's strong moves: every move `hard` rates best at each depth.
fn strong_moves(board: &Board, depths: &[i32]) -> Vec<usize> {
    let mut moves = Vec::new();
    for &depth in depths {
        let (scored, _) = hard_scores(board, depth);
        let best = scored[0].1;
        moves.extend(scored.iter().filter(|m| m.1 == best).map(|m| m.0));
    }
    moves.sort_unstable();
    moves.dedup();
    moves
}

/// O's moves in `board` that the threats leave, best first by a search to the plan's depth
/// (ties by cell); or the reply when the threats decide it (a win, or a position lost).
fn ordered_moves(
    board: &Board,
    plan: &Plan,
    budget: Budget,
    threats: &mut ThreatSearch,
) -> Result<Vec<(usize, i32)>, Reply> {
    // Wins and blocks pick among equals at random; the generator is fixed so the book is too.
    let mut rng = fastrand::Rng::with_seed(0);
    let safe = match safe_moves(board, &mut rng, budget, threats) {
        Ok(safe) => safe,
        Err(choice) if choice.value == Value::Win => return Err(Reply::Move(choice.cell)),
        Err(_) => return Err(Reply::Lost),
    };
    let mut searcher = Searcher::new(Variant::Qubic, Budget::UNLIMITED).with_horizon_threats();
    let mut scored = Vec::new();
    for depth in 1..=plan.order_depth {
        scored = searcher.root(board, &safe, depth);
        if scored[0].1.abs() >= PROVEN {
            break;
        }
    }
    scored.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(scored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Mark;
    use crate::book;

    #[test]
    fn the_shipped_books_replies_are_not_shown_lost_by_its_check() {
        // The whole book is made again by `noughts-engine defence-build` (minutes); here, a few
        // of its replies pass the proof-number check that made them (a second each), and the
        // book keeps O's first two moves only.
        let plan = Plan::shipped();
        let shipped = book::defence();
        assert!(shipped.entries().iter().all(|e| {
            let marks = (e.0.0 | e.0.1).count_ones();
            marks % 2 == 1 && marks < 2 * plan.kept_moves && (e.0.0 | e.0.1) & 1 << e.1 == 0
        }));
        for &((x, o), cell) in shipped.entries().iter().step_by(shipped.len() / 2) {
            assert!(!proven_won_for_x(x, o | 1 << cell, plan.expansions));
        }
    }

    #[test]
    fn perfect_o_plays_its_books_replies_in_every_image() {
        let symmetries = Symmetries::of(Variant::Qubic);
        let shipped = book::defence();
        assert!(shipped.len() > 10, "O's book covers two of O's moves");
        let mut rng = fastrand::Rng::with_seed(1);
        for &((x, o), cell) in shipped.entries().iter().step_by(shipped.len() / 8) {
            let t = rng.usize(..symmetries.len());
            let (x, o) = (symmetries.map_mask(t, x), symmetries.map_mask(t, o));
            let board = Board::from_masks(Variant::Qubic, x, o).unwrap();
            assert_eq!(board.to_move(), Mark::O);
            let choice =
                crate::choose_move(&board, crate::Level::Perfect, &mut rng, Budget::millis(10))
                    .unwrap();
            // The book's move, or one of its images under the position's own symmetries.
            let played = symmetries.canonical(x, o | 1 << choice.cell);
            let book = symmetries.canonical(x, o | 1 << symmetries.map_cell(t, cell as usize));
            assert_eq!(played, book);
        }
    }
}
