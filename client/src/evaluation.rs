//! The server's judgement of a finished game (`game_analysis`) in plain words, as the page says
//! them: what a move was, the best move and what the position was worth before and after ("best
//! was c3; X wins in 7 → draw"), the position's value over the game as a row of glyphs, and each
//! side's accuracy (the share of its judged moves that were best).

use noughts_engine::Variant;
use noughts_protocol::{Mark, MoveAnalysis, NotJudged, Value, Verdict, Worth};

use crate::notation::cell_name;

/// A position's worth in words for `mover`, the side it is for: "X wins in 7", "draw", "unknown".
pub fn worth_text(worth: Worth, mover: Mark) -> String {
    let within = worth.plies.map_or(String::new(), |p| format!(" in {p}"));
    match worth.value {
        Value::Win => format!("{} wins{within}", mover.symbol()),
        Value::Loss => format!("{} wins{within}", mover.opponent().symbol()),
        Value::Draw => "draw".to_owned(),
        Value::Unknown => "unknown".to_owned(),
    }
}

/// What move `judged`, played by `mover` in a game of `variant`, was in plain words.
pub fn verdict_text(judged: &MoveAnalysis, mover: Mark, variant: Variant) -> String {
    match judged.not_judged {
        Some(NotJudged::Pending) => {
            return "not judged yet: the engine is still working on it".to_owned();
        }
        Some(NotJudged::NotProven) => {
            return "not judged: not proven within the engine's budget".to_owned();
        }
        None => {}
    }
    let (before, after) = (
        worth_text(judged.before, mover),
        worth_text(judged.after, mover),
    );
    let change = format!("{before} → {after}");
    let word = match judged.verdict {
        Verdict::Best => return format!("best move; {after}"),
        Verdict::Inaccuracy => "inaccuracy",
        Verdict::Blunder => "blunder",
        Verdict::Unknown => "unknown",
    };
    let best = judged.best.map_or(String::new(), |b| {
        format!("best was {}; ", cell_name(variant, b))
    });
    format!("{word}: {best}{change}")
}

/// The mark a move list puts after a move, as in chess.
pub fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Inaccuracy => "?",
        Verdict::Blunder => "??",
        Verdict::Best | Verdict::Unknown => "",
    }
}

/// Each side's accuracy: the share of its judged moves that were best, and how many were judged.
pub fn accuracy_text(moves: &[MoveAnalysis]) -> String {
    [Mark::X, Mark::O]
        .iter()
        .enumerate()
        .map(|(side, mark)| {
            let own: Vec<&MoveAnalysis> = moves.iter().skip(side).step_by(2).collect();
            let judged = own.iter().filter(|m| m.verdict != Verdict::Unknown).count();
            let best = own.iter().filter(|m| m.verdict == Verdict::Best).count();
            let name = mark.symbol();
            if judged == 0 {
                return format!("{name}: no move judged (of {})", own.len());
            }
            let share = (100 * best + judged / 2) / judged;
            format!(
                "{name}: accuracy {share}% ({best} of {judged} judged moves best, {} played)",
                own.len()
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The position's value after each ply (ply 0 the empty board) for X: `Some(1)` X wins, `Some(0)`
/// a draw, `Some(-1)` O wins, `None` unknown.
pub fn values(moves: &[MoveAnalysis]) -> Vec<Option<i8>> {
    let score = |worth: Worth, sign: i8| match worth.value {
        Value::Win => Some(sign),
        Value::Draw => Some(0),
        Value::Loss => Some(-sign),
        Value::Unknown => None,
    };
    let Some(first) = moves.first() else {
        return Vec::new();
    };
    std::iter::once(score(first.before, 1))
        .chain(
            moves
                .iter()
                .enumerate()
                .map(|(i, m)| score(m.after, if i % 2 == 0 { 1 } else { -1 })),
        )
        .collect()
}

/// The value graph as one row of glyphs, a glyph per ply: `▀` X wins, `▄` O wins, `─` a draw,
/// `·` unknown.
pub fn graph_row(moves: &[MoveAnalysis]) -> String {
    values(moves)
        .into_iter()
        .map(|value| match value {
            Some(1) => '▀',
            Some(-1) => '▄',
            Some(_) => '─',
            None => '·',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(verdict: Verdict, best: Option<usize>, before: Value, after: Value) -> MoveAnalysis {
        MoveAnalysis {
            cell: 1,
            verdict,
            best,
            before: Worth {
                value: before,
                plies: Some(8),
            },
            after: Worth {
                value: after,
                plies: Some(5),
            },
            not_judged: None,
        }
    }

    #[test]
    fn a_blunder_says_the_best_move_and_what_it_cost() {
        let blunder = judged(Verdict::Blunder, Some(0), Value::Draw, Value::Loss);
        assert_eq!(
            verdict_text(&blunder, Mark::O, Variant::Classic),
            "blunder: best was 1; draw → X wins in 5"
        );
        let best = judged(Verdict::Best, Some(0), Value::Win, Value::Win);
        assert_eq!(
            verdict_text(&best, Mark::X, Variant::Classic),
            "best move; X wins in 5"
        );
        let moves = [best, blunder];
        assert_eq!(graph_row(&moves), "▀▀▀");
        assert_eq!(
            accuracy_text(&moves),
            "X: accuracy 100% (1 of 1 judged moves best, 1 played) · O: accuracy 0% (0 of 1 judged moves best, 1 played)"
        );
    }
}
