//! A position and each of its images under the board's symmetries have the same value.

use noughts_engine::symmetry::images;
use noughts_engine::{Board, Budget, Level, Rng, Variant, choose_move};
use proptest::prelude::*;

/// A position reached by `picks` (each an index into the legal moves, modulo their number),
/// stopping early if the game ends.
fn position(variant: Variant, picks: &[usize]) -> Board {
    let mut board = Board::new(variant);
    for &pick in picks {
        let moves: Vec<usize> = board.legal_moves().collect();
        if moves.is_empty() {
            break;
        }
        let next = board.play(moves[pick % moves.len()]).unwrap();
        if next.is_over() {
            break;
        }
        board = next;
    }
    board
}

fn value(board: &Board) -> (noughts_engine::Value, Option<u32>) {
    let mut rng = Rng::with_seed(0);
    let choice = choose_move(board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
    (choice.value, choice.plies)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn images_share_the_value(
        variant in prop_oneof![Just(Variant::Classic), Just(Variant::Four), Just(Variant::Cube)],
        picks in proptest::collection::vec(0usize..64, 0..12),
    ) {
        let mut picks = picks;
        if variant == Variant::Four {
            // Keep four's searches short: start from at least six marks.
            picks.resize(picks.len().max(6), 0);
        }
        let board = position(variant, &picks);
        let expected = value(&board);
        let images = images(&board);
        prop_assert_eq!(images.len(), if variant == Variant::Cube { 48 } else { 8 });
        for image in images {
            prop_assert_eq!(image.ply(), board.ply());
            prop_assert_eq!(value(&image), expected, "{} vs {}", image, board);
        }
    }
}
