//! What the local engine thinks of a move, for stepping through a finished game and for hints:
//! the best move it could have been, an inaccuracy (the same outcome, but a slower win or a
//! quicker loss), or a blunder (it gave away a win or a draw).

use noughts_engine::{Board, Budget, MoveValue, Value, analyse};

/// What a move was, against the best the position allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveVerdict {
    Best,
    Inaccuracy,
    Blunder,
}

impl MoveVerdict {
    /// The word shown beside the move.
    pub fn word(self) -> &'static str {
        match self {
            MoveVerdict::Best => "best",
            MoveVerdict::Inaccuracy => "inaccuracy",
            MoveVerdict::Blunder => "blunder",
        }
    }

    /// The annotation a move list puts after the move, as in chess.
    pub fn mark(self) -> &'static str {
        match self {
            MoveVerdict::Best => "",
            MoveVerdict::Inaccuracy => "?",
            MoveVerdict::Blunder => "??",
        }
    }
}

/// How much searching a verdict may take: the engine is exact and quick on classic, four and
/// cube; on qubic this is what it has before saying nothing.
pub const BUDGET: Budget = Budget::millis(300);

/// The verdict on playing `cell` on `before`; `None` where the engine cannot tell (a qubic
/// position it has not proven).
pub fn judge(before: &Board, cell: usize) -> Option<MoveVerdict> {
    let analysis = analyse(before, BUDGET);
    let best = analysis.moves.first()?;
    let played = analysis.moves.iter().find(|m| m.cell == cell)?;
    compare(best, played)
}

/// The best move the engine finds on `board`, for a hint.
pub fn hint(board: &Board) -> Option<usize> {
    analyse(board, BUDGET).moves.first().map(|m| m.cell)
}

fn compare(best: &MoveValue, played: &MoveValue) -> Option<MoveVerdict> {
    let rank = |value: Value| match value {
        Value::Win => Some(2),
        Value::Draw => Some(1),
        Value::Loss => Some(0),
        Value::Unknown => None,
    };
    let (best_rank, played_rank) = (rank(best.value)?, rank(played.value)?);
    if played_rank < best_rank {
        return Some(MoveVerdict::Blunder);
    }
    let as_good = match played.value {
        // Sooner is better when winning, later when losing; a draw is a draw.
        Value::Win => played.plies <= best.plies,
        Value::Loss => played.plies >= best.plies,
        _ => true,
    };
    Some(if as_good {
        MoveVerdict::Best
    } else {
        MoveVerdict::Inaccuracy
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use noughts_engine::Variant;

    fn board(text: &str) -> Board {
        Board::parse(Variant::Classic, text).unwrap()
    }

    #[test]
    fn a_block_is_best_and_a_miss_is_a_blunder() {
        // X threatens the diagonal; O must take the bottom right.
        let before = board("X.O/.X./...");
        assert_eq!(judge(&before, 8), Some(MoveVerdict::Best));
        assert_eq!(judge(&before, 1), Some(MoveVerdict::Blunder));
        assert_eq!(hint(&before), Some(8));
    }

    #[test]
    fn a_slower_win_or_a_quicker_loss_is_an_inaccuracy() {
        let mv = |value, plies| MoveValue {
            cell: 0,
            value,
            plies: Some(plies),
        };
        let verdict = |best, played| compare(&best, &played);
        assert_eq!(
            verdict(mv(Value::Win, 3), mv(Value::Win, 3)),
            Some(MoveVerdict::Best)
        );
        assert_eq!(
            verdict(mv(Value::Win, 3), mv(Value::Win, 5)),
            Some(MoveVerdict::Inaccuracy)
        );
        assert_eq!(
            verdict(mv(Value::Loss, 6), mv(Value::Loss, 4)),
            Some(MoveVerdict::Inaccuracy)
        );
        assert_eq!(
            verdict(mv(Value::Draw, 9), mv(Value::Draw, 7)),
            Some(MoveVerdict::Best)
        );
        assert_eq!(
            verdict(mv(Value::Win, 3), mv(Value::Draw, 9)),
            Some(MoveVerdict::Blunder)
        );
        assert_eq!(
            verdict(mv(Value::Draw, 9), mv(Value::Loss, 4)),
            Some(MoveVerdict::Blunder)
        );
        assert_eq!(verdict(mv(Value::Unknown, 0), mv(Value::Win, 3)), None);
    }
}
