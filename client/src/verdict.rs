//! What the local engine thinks of a move, for stepping through a finished game and for hints:
//! the engine's [`MoveVerdict`] (best, inaccuracy or blunder) within this client's budget.

use noughts_engine::{Board, Budget};

pub use noughts_engine::MoveVerdict;

/// How much searching a verdict may take: the engine is exact and quick on classic, four and
/// cube; on qubic this is what it has before saying nothing.
pub const BUDGET: Budget = Budget::millis(300);

/// The verdict on playing `cell` on `before`; `None` where the engine cannot tell (a qubic
/// position it has not proven).
pub fn judge(before: &Board, cell: usize) -> Option<MoveVerdict> {
    noughts_engine::judge_move(before, cell, BUDGET)
}

/// The best move the engine finds on `board`, for a hint.
pub fn hint(board: &Board) -> Option<usize> {
    noughts_engine::hint(board, BUDGET)
}

#[cfg(test)]
mod tests {
    use super::*;
    use noughts_engine::Variant;

    #[test]
    fn a_block_is_best_and_a_miss_is_a_blunder() {
        // X threatens the diagonal; O must take the bottom right.
        let before = Board::parse(Variant::Classic, "X.O/.X./...").unwrap();
        assert_eq!(judge(&before, 8), Some(MoveVerdict::Best));
        assert_eq!(judge(&before, 1), Some(MoveVerdict::Blunder));
        assert_eq!(hint(&before), Some(8));
    }
}
