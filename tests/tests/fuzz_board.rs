//! The `board` fuzz target's invariants on the stable toolchain, so they cannot rot: every input in
//! the committed corpus (`fuzz/corpus/board`), then random move sequences on every variant.

use noughts_engine::Variant;
use proptest::prelude::*;

#[path = "../../fuzz/invariants/board.rs"]
mod invariant;

#[test]
fn the_committed_corpus_holds() {
    for data in noughts_tests::fuzz_corpus("board") {
        invariant::check_bytes(&data);
    }
}

#[test]
fn a_won_game_takes_no_more_moves() {
    // X takes the top row while O answers below it; then every other cell is refused.
    let board = invariant::check_moves(Variant::Classic, &[0, 3, 1, 4, 2, 5, 6, 7, 8, 9]);
    assert!(board.is_over());
    assert_eq!(board.ply(), 5);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_hold(data in prop::collection::vec(any::<u8>(), 0..128)) {
        invariant::check_bytes(&data);
    }

    #[test]
    fn random_cells_hold(
        variant in prop::sample::select(Variant::ALL.to_vec()),
        cells in prop::collection::vec(0usize..70, 0..80),
    ) {
        invariant::check_moves(variant, &cells);
    }
}
