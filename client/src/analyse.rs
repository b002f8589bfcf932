//! `noughts analyse`: the engine's verdict on a position and on each move, as text or JSON.

use anyhow::Context as _;
use noughts_engine::{Analysis, Board, Budget, Value, Variant, analyse};
use serde_json::json;

/// Analyses `text` as a `variant` position and returns the report.
pub fn report(variant: Variant, text: &str, json: bool, budget: Budget) -> anyhow::Result<String> {
    let board = Board::parse(variant, text)
        .with_context(|| format!("{text:?} is not a {variant} position"))?;
    let analysis = analyse(&board, budget);
    Ok(if json {
        json_report(&board, &analysis)
    } else {
        text_report(&board, &analysis)
    })
}

fn value_name(value: Value) -> &'static str {
    match value {
        Value::Win => "win",
        Value::Draw => "draw",
        Value::Loss => "loss",
        Value::Unknown => "unknown",
    }
}

fn verdict(value: Value, plies: Option<u32>) -> String {
    let name = value_name(value);
    match (value, plies) {
        (Value::Unknown, _) => "not proven within the budget".to_owned(),
        (_, Some(plies)) => format!("{name} in {plies} plies"),
        (_, None) => name.to_owned(),
    }
}

fn cell_name(variant: Variant, cell: usize) -> String {
    let coords = variant.coords(cell);
    match coords.as_slice() {
        [r, c] => format!("row {} col {}", r + 1, c + 1),
        [z, r, c] => format!("layer {} row {} col {}", z + 1, r + 1, c + 1),
        _ => String::new(),
    }
}

fn text_report(board: &Board, analysis: &Analysis) -> String {
    let variant = board.variant();
    let mut out = String::new();
    for line in crate::plain::board_lines(board) {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(outcome) = board.outcome() {
        let what = match outcome {
            noughts_engine::Outcome::Win { mark, .. } => format!("{} has won", mark.symbol()),
            noughts_engine::Outcome::Draw => "a draw".to_owned(),
        };
        out.push_str(&format!("The game is over: {what}.\n"));
        return out;
    }
    let mover = board.to_move().symbol();
    out.push_str(&format!(
        "{variant}, {mover} to move: {}\n",
        verdict(analysis.value, analysis.plies)
    ));
    out.push_str(&format!("Moves for {mover}, best first:\n"));
    for m in &analysis.moves {
        out.push_str(&format!(
            "  {:>4}  {:<22} {}\n",
            crate::notation::cell_name(variant, m.cell),
            cell_name(variant, m.cell),
            verdict(m.value, m.plies)
        ));
    }
    out.push_str(&format!("({} nodes)\n", analysis.nodes));
    out
}

fn json_report(board: &Board, analysis: &Analysis) -> String {
    let moves: Vec<_> = analysis
        .moves
        .iter()
        .map(|m| {
            json!({
                "cell": m.cell,
                "name": crate::notation::cell_name(board.variant(), m.cell),
                "value": value_name(m.value),
                "plies": m.plies,
            })
        })
        .collect();
    let value = json!({
        "variant": board.variant().name(),
        "board": board.to_compact(),
        "to_move": (!board.is_over()).then(|| board.to_move().symbol().to_string()),
        "value": value_name(analysis.value),
        "plies": analysis.plies,
        "moves": moves,
        "nodes": analysis.nodes,
    });
    serde_json::to_string_pretty(&value).expect("JSON values always serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_bad_board() {
        let err = report(Variant::Classic, "XXX", false, Budget::DEFAULT).unwrap_err();
        assert!(err.to_string().contains("not a classic position"));
    }

    #[test]
    fn reports_every_move_as_json() {
        let text = report(Variant::Classic, "X.O/.X./...", true, Budget::DEFAULT).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["to_move"], "O");
        assert_eq!(value["moves"].as_array().unwrap().len(), 6);
    }
}
