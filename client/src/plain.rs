//! Plain-text output shared by the scriptable modes: boards as lines, results as sentences.

use std::io::Write;

use noughts_engine::{Board, Variant};
use noughts_protocol::{EndReason, GameResult};

/// Writes the board's lines, indented, and flushes so a pipe sees each position at once.
pub fn write_board(board: &Board, out: &mut impl Write) -> std::io::Result<()> {
    for line in board_lines(board) {
        writeln!(out, "  {line}")?;
    }
    out.flush()
}

/// The board as text lines: one row per line, `X`, `O` or `.`; the layers of a cube side by side.
pub fn board_lines(board: &Board) -> Vec<String> {
    let variant = board.variant();
    let n = variant.side();
    let layers = if variant.dims() == 3 { n } else { 1 };
    (0..n)
        .map(|row| {
            (0..layers)
                .map(|layer| {
                    (0..n)
                        .map(|col| {
                            let cell = layer * n * n + row * n + col;
                            board.get(cell).map_or('.', |m| m.symbol())
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect()
}

/// "X wins (three in a row)", "draw", …
pub fn result_text(variant: Variant, result: &GameResult) -> String {
    let how = match result.reason {
        EndReason::Line if variant.side() == 4 => "four in a row",
        EndReason::Line => "three in a row",
        EndReason::Draw => "board full",
        EndReason::Resign => "resignation",
        EndReason::Timeout => "time",
        EndReason::Abandon => "abandonment",
        EndReason::Aborted => "aborted",
        EndReason::Agreement => "agreement",
    };
    match result.winner {
        Some(mark) => format!("{} wins ({how})", mark.symbol()),
        None if result.reason == EndReason::Aborted => format!("no result ({how})"),
        None => format!("draw ({how})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubes_print_their_layers_side_by_side() {
        let board = Board::parse(Variant::Cube, "X........ ....O.... ........X").unwrap();
        assert_eq!(
            board_lines(&board),
            ["X..  ...  ...", "...  .O.  ...", "...  ...  ..X"]
        );
    }
}
