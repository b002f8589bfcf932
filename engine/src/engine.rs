//! [`Engine`]: an AI player's memory across the moves of a game, so that each move starts from
//! what the last one found.

use crate::board::Board;
use crate::budget::Budget;
use crate::level::Level;
use crate::players::{self, is_exact};
use crate::qubic_play;
use crate::verdict::Choice;

/// The levels' players with a memory kept from move to move. On qubic, `perfect` keeps its
/// search table (8 MiB, deep entries kept over shallow ones, entries of earlier moves giving way
/// to new ones), the refutations of its threat searches (up to 3 MiB each) and, as O, the tree
/// of its proof-number checks (up to some 30 MB), made on its first qubic move; the other levels and variants need no memory (they are exact and fast, or do a
/// fixed amount of work).
///
/// Keep one per game (or per AI seat) and play every move of the game through it. Everything it
/// remembers is a fact about a position, not about a game, so one engine may also serve several
/// games one after the other. [`crate::choose_move`] uses one engine per thread.
#[derive(Debug, Default)]
pub struct Engine {
    /// `perfect`'s memory on qubic, once it has played there.
    qubic: Option<Box<qubic_play::Memory>>,
}

impl Engine {
    /// An engine that remembers nothing yet (and holds no memory until it plays qubic).
    pub fn new() -> Engine {
        Engine::default()
    }

    /// The move `level` plays in `board`, or `None` if the game is over: as
    /// [`crate::choose_move`], using and adding to what this engine remembers.
    pub fn choose_move(
        &mut self,
        board: &Board,
        level: Level,
        rng: &mut fastrand::Rng,
        budget: Budget,
    ) -> Option<Choice> {
        if board.is_over() {
            return None;
        }
        Some(match level {
            Level::Random => players::random(board, rng),
            Level::Easy => players::easy(board, rng),
            Level::Medium => players::medium(board, rng, budget),
            Level::Hard => players::hard(board, rng, players::hard_depth(board.variant())),
            Level::Perfect if is_exact(board.variant()) => players::exact(board, rng),
            Level::Perfect => {
                let memory = self.qubic.get_or_insert_with(Default::default);
                qubic_play::deep(board, rng, budget, memory)
            }
        })
    }
}
