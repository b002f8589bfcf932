//! A move judged against the best the position allowed ([`MoveVerdict`]): the best move it could
//! have been, an inaccuracy (the same outcome, but a slower win or a quicker loss), or a blunder
//! (it gave away a win or a draw); and a whole game's moves judged in turn ([`review`]).

use crate::ai::{MoveValue, analyse};
use crate::board::Board;
use crate::budget::Budget;
use crate::variant::Variant;
use crate::verdict::Value;

/// What a move was, against the best the position allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
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

/// A move judged in full: its verdict (when the engine can tell), the best move the position
/// allowed, and what the position was worth for the side to move before the move and for the
/// same side after it, each when proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Judgement {
    /// The cell played.
    pub cell: usize,
    /// Best, inaccuracy or blunder; `None` where the engine cannot tell (never `Best` unless
    /// both the best move's value and the played move's value are proven).
    pub verdict: Option<MoveVerdict>,
    /// The best move the engine found, for the side that moved.
    pub best: Option<usize>,
    /// The position's value before the move, for the side that moved, and plies to the end.
    pub before: (Value, Option<u32>),
    /// The value of the move played, for the side that played it, and plies to the end.
    pub after: (Value, Option<u32>),
}

/// Playing `cell` on `before` judged in full within `budget` (see [`Judgement`]); `None` if
/// `cell` is no legal move.
pub fn judge(before: &Board, cell: usize, budget: Budget) -> Option<Judgement> {
    let analysis = analyse(before, budget);
    let best = analysis.moves.first()?;
    let played = analysis.moves.iter().find(|m| m.cell == cell)?;
    Some(Judgement {
        cell,
        verdict: proven(&analysis.moves, best, played),
        best: (best.value != Value::Unknown).then_some(best.cell),
        before: (analysis.value, analysis.plies),
        after: (played.value, played.plies),
    })
}

/// Every move of a game of `variant` judged in full (see [`Judgement`]), up to the first move
/// that is not legal.
pub fn review_judged(variant: Variant, cells: &[usize], budget: Budget) -> Vec<Judgement> {
    let mut board = Board::new(variant);
    let mut judged = Vec::with_capacity(cells.len());
    for &cell in cells {
        let Ok(next) = board.play(cell) else {
            break;
        };
        match judge(&board, cell, budget) {
            Some(judgement) => judged.push(judgement),
            None => break,
        }
        board = next;
    }
    judged
}

/// The verdict on playing `cell` on `before`, searching within `budget`; `None` where the engine
/// cannot tell (a qubic position it has not proven within the budget, or a cell that is no
/// legal move). Exact on classic, four and cube, where the budget is not needed.
pub fn judge_move(before: &Board, cell: usize, budget: Budget) -> Option<MoveVerdict> {
    let analysis = analyse(before, budget);
    let best = analysis.moves.first()?;
    let played = analysis.moves.iter().find(|m| m.cell == cell)?;
    proven(&analysis.moves, best, played)
}

/// The verdict on `played` against `best` among `moves`, only where it is proven: a blunder
/// (a proven better outcome was there), or best or an inaccuracy when nothing could have done
/// better: the best move wins, or every move's value is known. A proven draw beside moves the
/// search did not settle is no proof that the draw was the best the position allowed.
fn proven(moves: &[MoveValue], best: &MoveValue, played: &MoveValue) -> Option<MoveVerdict> {
    let verdict = compare(best, played)?;
    let settled = best.value == Value::Win || moves.iter().all(|m| m.value != Value::Unknown);
    (verdict == MoveVerdict::Blunder || settled).then_some(verdict)
}

/// The best move the engine finds on `board` within `budget`, for a hint.
pub fn hint(board: &Board, budget: Budget) -> Option<usize> {
    analyse(board, budget).moves.first().map(|m| m.cell)
}

/// Every move of a game of `variant` played from the empty board, judged in turn, each within
/// `budget`: one verdict per move, `None` where the engine cannot tell. The moves are judged up
/// to the first that is not legal (there are no more verdicts than legal moves).
pub fn review(variant: Variant, cells: &[usize], budget: Budget) -> Vec<Option<MoveVerdict>> {
    let mut board = Board::new(variant);
    let mut verdicts = Vec::with_capacity(cells.len());
    for &cell in cells {
        let Ok(next) = board.play(cell) else {
            break;
        };
        verdicts.push(judge_move(&board, cell, budget));
        board = next;
    }
    verdicts
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

    const BUDGET: Budget = Budget::millis(300);

    fn board(text: &str) -> Board {
        Board::parse(Variant::Classic, text).unwrap()
    }

    #[test]
    fn a_block_is_best_and_a_miss_is_a_blunder() {
        // X threatens the diagonal; O must take the bottom right.
        let before = board("X.O/.X./...");
        assert_eq!(judge_move(&before, 8, BUDGET), Some(MoveVerdict::Best));
        assert_eq!(judge_move(&before, 1, BUDGET), Some(MoveVerdict::Blunder));
        assert_eq!(judge_move(&before, 0, BUDGET), None, "not a legal move");
        assert_eq!(hint(&before, BUDGET), Some(8));
    }

    #[test]
    fn a_game_is_reviewed_move_by_move() {
        // X centre, O edge (a blunder: X wins by force), X corner, O blocks, X forks, O, X wins.
        let verdicts = review(Variant::Classic, &[4, 1, 0, 8, 6, 2, 3], BUDGET);
        assert_eq!(verdicts.len(), 7);
        assert_eq!(verdicts[0], Some(MoveVerdict::Best));
        assert_eq!(verdicts[1], Some(MoveVerdict::Blunder));
        assert!(verdicts.iter().all(Option::is_some), "{verdicts:?}");
        // Judging stops at an illegal move.
        assert_eq!(review(Variant::Classic, &[4, 4, 0], BUDGET).len(), 1);
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

    #[test]
    fn best_only_when_nothing_unsettled_could_be_better() {
        let mv = |cell, value, plies| MoveValue {
            cell,
            value,
            plies: Some(plies),
        };
        let draw = mv(0, Value::Draw, 9);
        let loss = mv(1, Value::Loss, 4);
        let open = mv(2, Value::Unknown, 0);
        // A draw beside a move the search did not settle: not proven best.
        assert_eq!(proven(&[draw, open], &draw, &draw), None);
        // Every move settled: the draw is best, the loss a blunder.
        assert_eq!(proven(&[draw, loss], &draw, &draw), Some(MoveVerdict::Best));
        // A blunder stands beside unsettled moves: a better outcome was proven there.
        assert_eq!(
            proven(&[draw, open, loss], &draw, &loss),
            Some(MoveVerdict::Blunder)
        );
        // Nothing beats a win: best beside unsettled moves too.
        let win = mv(3, Value::Win, 3);
        assert_eq!(proven(&[win, open], &win, &win), Some(MoveVerdict::Best));
    }
}
