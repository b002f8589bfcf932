//! The qubic book: the independent verifier on a sample of the shipped book (random lines from
//! the empty board, and a spread of entries), and `perfect` playing it as X.

use noughts_engine::book::shipped;
use noughts_engine::book_check::verify;
use noughts_engine::{
    Board, Budget, Level, Mark, Outcome, Rng, Value, Variant, analyse, choose_move,
};

/// 64 entries spread over the shipped book (the full check is `noughts-engine book-verify`).
fn sample() -> Vec<(u64, u64)> {
    let entries = shipped().entries();
    let step = (entries.len() / 64).max(1);
    entries.iter().step_by(step).map(|e| e.0).collect()
}

#[test]
fn the_verifier_follows_random_lines_of_the_book_from_the_empty_board() {
    // One random O reply per position: a whole line of the strategy, from the first move to
    // X's win, for each of 32 seeds.
    for seed in 0..32 {
        let checked = verify(shipped(), 0, 0, Some((1, seed)))
            .unwrap_or_else(|n| panic!("seed {seed}: not shown won at {n:?}"));
        assert!(checked.book_moves >= 2 && checked.plies >= 7);
    }
}

#[test]
fn perfect_x_wins_from_the_empty_board_against_random_easy_and_perfect_o() {
    let empty = Board::new(Variant::Qubic);
    assert_eq!(analyse(&empty, Budget::millis(10)).value, Value::Win);
    for seed in 0..4 {
        for o_level in [Level::Random, Level::Easy, Level::Perfect] {
            let mut rng = Rng::with_seed(seed);
            let mut board = empty;
            while let Some(choice) = choose_move(
                &board,
                [Level::Perfect, o_level][board.ply() as usize % 2],
                &mut rng,
                Budget::millis(10),
            ) {
                board = board.play(choice.cell).unwrap();
            }
            assert!(
                matches!(board.outcome(), Some(Outcome::Win { mark: Mark::X, .. })),
                "against {o_level}, seed {seed}: {board}"
            );
        }
    }
}

#[test]
fn the_verifier_shows_random_lines_from_a_spread_of_entries_won() {
    let entries = sample();
    assert!(!entries.is_empty(), "the shipped book has entries");
    for (i, (x, o)) in entries.into_iter().enumerate() {
        let checked = verify(shipped(), x, o, Some((1, i as u64)))
            .unwrap_or_else(|n| panic!("not shown won: x {x:#x} o {o:#x} at {n:?}"));
        assert!(checked.book_moves >= 1 && checked.plies >= 3);
    }
}

#[test]
fn the_verifier_refuses_a_book_move_that_does_not_win() {
    // The first entry with its move changed to another empty cell that is not an immediate win
    // and not in the book: the verifier must not take it on trust.
    let &((x, o), cell) = &shipped().entries()[0];
    let wrong = (0..64u8)
        .find(|&c| c != cell && (x | o) & 1 << c == 0)
        .unwrap();
    let book = noughts_engine::book::Book::from_entries(vec![((x, o), wrong)]);
    assert!(verify(&book, x, o, None).is_err());
}

#[test]
fn perfect_x_wins_from_book_positions_against_random_and_perfect_o() {
    for (i, (x, o)) in sample().into_iter().take(12).enumerate() {
        let start = Board::from_masks(Variant::Qubic, x, o).unwrap();
        assert_eq!(analyse(&start, Budget::millis(10)).value, Value::Win);
        for o_level in [Level::Random, Level::Perfect] {
            let mut rng = Rng::with_seed(i as u64);
            let mut board = start;
            while let Some(choice) = choose_move(
                &board,
                [Level::Perfect, o_level][board.ply() as usize % 2],
                &mut rng,
                Budget::millis(10),
            ) {
                board = board.play(choice.cell).unwrap();
            }
            assert!(
                matches!(board.outcome(), Some(Outcome::Win { mark: Mark::X, .. })),
                "from {start} against {o_level}: {board}"
            );
        }
    }
}
