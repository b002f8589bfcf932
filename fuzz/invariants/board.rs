//! What must hold for any sequence of moves on any board: shared by the `board` fuzz target and the
//! stable-toolchain test `tests/tests/fuzz_board.rs`.

use noughts_engine::{Board, MoveError, Variant};

/// The cell a byte stands for on a board of `cells` cells: mostly cells on the board, sometimes
/// the first one off it, and `0xff` the largest number there is.
pub fn cell_of(byte: u8, cells: usize) -> usize {
    if byte == u8::MAX {
        usize::MAX
    } else {
        usize::from(byte) % (cells + 1)
    }
}

/// Plays the bytes as a game: the first byte picks the variant, the rest are cells.
pub fn check_bytes(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let variant = Variant::ALL[usize::from(first) % Variant::ALL.len()];
    let cells: Vec<usize> = rest
        .iter()
        .map(|&byte| cell_of(byte, variant.cells()))
        .collect();
    check_moves(variant, &cells);
}

/// Plays `cells` in order from the empty board with [`Board::play`], checking after every attempt
/// that:
///
/// - a move is refused for the first reason that applies
///   (off the board, then taken, then the game is over);
/// - an accepted move puts the mover's mark on that cell, grows the ply by one and passes the turn;
/// - the board is always legal: after every move its text (compact and displayed) reads back as
///   the same board (a refused move returns no board, so the position stands);
/// - once the game is over it stays over, and every empty cell is refused with `GameOver`.
///
/// Returns the final board.
pub fn check_moves(variant: Variant, cells: &[usize]) -> Board {
    let mut board = Board::new(variant);
    check_board(&board);
    for &cell in cells {
        let before = board;
        match before.play(cell) {
            Ok(after) => {
                assert!(
                    cell < variant.cells(),
                    "{variant:?}: played off the board at {cell}"
                );
                assert_eq!(
                    before.get(cell),
                    None,
                    "{variant:?}: played on a taken cell {cell}"
                );
                assert!(
                    !before.is_over(),
                    "{variant:?}: played {cell} after the end"
                );
                assert_eq!(after.get(cell), Some(before.to_move()));
                assert_eq!(
                    after.ply(),
                    before.ply() + 1,
                    "{variant:?}: the ply must grow"
                );
                assert_eq!(after.to_move(), before.to_move().opponent());
                if after.is_over() {
                    check_finished(&after);
                }
                board = after;
            }
            Err(err) => {
                let expected = if cell >= variant.cells() {
                    MoveError::OffBoard {
                        cell,
                        cells: variant.cells(),
                    }
                } else if before.get(cell).is_some() {
                    MoveError::Occupied { cell }
                } else {
                    assert!(
                        before.is_over(),
                        "{variant:?}: {cell} refused on a live board"
                    );
                    MoveError::GameOver
                };
                assert_eq!(err, expected, "{variant:?}: {cell} on {before}");
            }
        }
        assert!(
            board.ply() >= before.ply(),
            "{variant:?}: the ply went back"
        );
        if board != before {
            check_board(&board);
        }
    }
    board
}

/// One position's invariants.
pub fn check_board(board: &Board) {
    let variant = board.variant();
    let compact = board.to_compact();
    assert_eq!(compact.chars().count(), variant.cells());
    assert_eq!(Board::parse(variant, &compact), Ok(*board), "{compact}");
    assert_eq!(
        Board::parse(variant, &board.to_string()),
        Ok(*board),
        "{board}"
    );
    let marks = (0..variant.cells())
        .filter(|&cell| board.get(cell).is_some())
        .count();
    assert_eq!(usize::try_from(board.ply()).ok(), Some(marks));
    if !board.is_over() {
        assert!(
            board.legal_moves().next().is_some(),
            "{board}: live with no move"
        );
    }
}

/// A finished game refuses every cell: the empty ones because the game is over.
pub fn check_finished(board: &Board) {
    assert!(board.outcome().is_some());
    let variant = board.variant();
    for cell in 0..variant.cells() {
        let refused = board.play(cell);
        if board.get(cell).is_none() {
            assert_eq!(refused, Err(MoveError::GameOver), "{board}: {cell}");
        } else {
            assert_eq!(
                refused,
                Err(MoveError::Occupied { cell }),
                "{board}: {cell}"
            );
        }
    }
}
