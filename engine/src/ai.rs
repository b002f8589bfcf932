//! Choosing moves and analysing positions: [`choose_move`] dispatches to the levels' players,
//! [`analyse`] values a position and each of its moves.
//!
//! [`choose_move`] is what an AI seat calls; [`analyse`] is what the analysis tools call. Both are
//! safe to call from many threads at once: [`analyse`] owns its search table (at most 8 MB, on
//! qubic; 4 MB on four, 1 MB on the cube); [`choose_move`] plays through its thread's
//! [`Engine`], whose memory (qubic `perfect` only: about 14 MB) lives as long as the thread. The
//! only state shared between threads is read-only (line tables, symmetries, the solved classic
//! game, the book).

use std::cell::RefCell;

use crate::board::{Board, Mark};
use crate::book;
use crate::budget::Budget;
use crate::engine::Engine;
use crate::level::Level;
use crate::players::{self, is_exact};
use crate::search::{EXACT, Searcher, terminal_score};
use crate::variant::Variant;
use crate::verdict::{Choice, Value, judge};

thread_local! {
    /// The engine [`choose_move`] plays through on this thread: its memory serves every game the
    /// thread plays, one move after another.
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::new());
}

/// The move `level` plays in `board`, or `None` if the game is over. Ties are broken with `rng`,
/// so the same seed gives the same game (on qubic, `perfect` also depends on how far the search
/// gets within the time budget, and on what it remembers).
///
/// `budget` bounds `perfect` on qubic only: on the other variants `perfect` is exact and fast, and
/// the weaker levels always do a fixed amount of work. On qubic a proven win's `plies` is the
/// length of the forcing line found, which need not be the shortest.
///
/// This plays through an [`Engine`] kept per thread, so a thread that plays a game's moves one
/// after another reuses its work from move to move; to keep one per game instead, hold an
/// [`Engine`] and call [`Engine::choose_move`].
pub fn choose_move(
    board: &Board,
    level: Level,
    rng: &mut fastrand::Rng,
    budget: Budget,
) -> Option<Choice> {
    ENGINE.with_borrow_mut(|engine| engine.choose_move(board, level, rng, budget))
}

/// The move `hard` would play if it searched `depth` plies instead of its own depth for the
/// variant (3 on qubic), or `None` if the game is over: a stronger or weaker yardstick for
/// measuring the other levels. Deterministic for a given `rng`.
pub fn choose_hard_move(board: &Board, depth: u32, rng: &mut fastrand::Rng) -> Option<Choice> {
    (!board.is_over()).then(|| players::hard(board, rng, depth.clamp(1, 64) as i32))
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
    let mut analysis = Analysis {
        value,
        plies,
        moves: moves.into_iter().map(|(_, m)| m).collect(),
        nodes: searcher.nodes,
    };
    if variant == Variant::Qubic {
        by_the_book(board, &mut analysis);
    }
    analysis
}

/// On qubic, what the book proves about `board`: with X to move in the book's strategy, a win
/// by the book's move; with O to move after a book move, a loss whatever O plays. The book is
/// checked in full by the verifier (`noughts-engine book-verify`), not here, so the plies are
/// only a bound: the empty cells, the most the game can last.
fn by_the_book(board: &Board, analysis: &mut Analysis) {
    let book = book::shipped();
    let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
    let bound = board.empty().count_ones();
    if board.to_move() == Mark::X {
        let Some(cell) = book.lookup(x, o) else {
            return;
        };
        analysis.value = Value::Win;
        analysis.plies = Some(bound);
        if let Some(at) = analysis.moves.iter().position(|m| m.cell == cell) {
            let mut chosen = analysis.moves.remove(at);
            chosen.value = Value::Win;
            chosen.plies = Some(bound);
            analysis.moves.insert(0, chosen);
        }
    } else if let Some(replies) = book_replies(book, x, o) {
        analysis.value = Value::Loss;
        analysis.plies = Some(bound);
        for m in &mut analysis.moves {
            if replies & 1 << m.cell != 0 {
                m.value = Value::Loss;
                m.plies = Some(bound);
            }
        }
    }
}

/// With O to move in (x, o): the O moves after which X has the book's answer (or wins on the
/// spot); `None` unless that is every O move, so that the position is a proven loss for O.
fn book_replies(book: &book::Book, x: u64, o: u64) -> Option<u64> {
    let lines = Variant::Qubic.lines();
    let empty = Variant::Qubic.full_mask() & !(x | o);
    let wins_now = |x: u64, o: u64| {
        lines
            .iter()
            .any(|&l| l & o == 0 && (l & x).count_ones() == 3 && l & !(x | o) != 0)
    };
    if lines.iter().any(|&l| l & !o == 0) || wins_now(o, x) || empty == 0 {
        return None;
    }
    let mut covered = 0u64;
    for cell in (0..64).filter(|&c| empty & 1 << c != 0) {
        let o2 = o | 1 << cell;
        if wins_now(x, o2) || book.lookup(x, o2).is_some() {
            covered |= 1 << cell;
        }
    }
    (covered == empty).then_some(covered)
}
