//! The `game` fuzz target's invariants on the stable toolchain, so they cannot rot: every input in
//! the committed corpus (`fuzz/corpus/game`), a few hand-made games, then random byte strings.

use std::time::Duration;

use noughts_engine::{Level, Mark, Variant};
use noughts_protocol::{ClockSpec, EndReason, ErrorCode, GameId, GameKind, PlayerId};
use noughts_server::rules::{Sitter, Table};
use proptest::prelude::*;

#[path = "../../fuzz/invariants/game.rs"]
mod invariant;

use invariant::{Input, Setup};

const X: PlayerId = PlayerId(1);
const O: PlayerId = PlayerId(2);

fn setup(seats: [Sitter; 2], clock: Option<ClockSpec>) -> Setup {
    Setup {
        table: Table {
            id: GameId(1),
            variant: Variant::Classic,
            kind: GameKind::Human,
            seats,
            clock,
            rated: false,
            rematch_of: None,
            grace: Duration::from_secs(1),
            claim_after: Duration::from_millis(500),
            linger: Duration::from_secs(2),
            first_move: Duration::from_secs(30),
        },
        connected: [true, true],
        watchers: 0,
        restored: None,
    }
}

fn mv(player: PlayerId, cell: usize) -> Input {
    Input::Move {
        player,
        cell,
        stored: true,
    }
}

#[test]
fn the_committed_corpus_holds() {
    for data in noughts_tests::fuzz_corpus("game") {
        invariant::check_bytes(&data);
    }
}

#[test]
fn a_won_game_takes_no_more_moves_and_a_rematch_follows() {
    let humans = [Sitter::Human(X), Sitter::Human(O)];
    let inputs = [
        mv(X, 0),
        mv(O, 3),
        mv(X, 1),
        mv(O, 4),
        mv(X, 2),
        // Over: refused (and checked to be refused with game_over).
        mv(O, 5),
        Input::Rematch {
            player: X,
            starts: true,
        },
        Input::Rematch {
            player: X,
            starts: true,
        },
        Input::Rematch {
            player: O,
            starts: true,
        },
        Input::Rematch {
            player: O,
            starts: true,
        },
    ];
    let rules = invariant::check_inputs(setup(humans, None), &inputs).expect("a new game");
    assert_eq!(rules.result().and_then(|r| r.winner), Some(Mark::X));
    assert_eq!(rules.moves(), [0, 3, 1, 4, 2]);
    assert_eq!(rules.rematch(), Some(GameId(2)));
    // Five moves, the end and the offer.
    assert_eq!(rules.seq(), 7);
}

#[test]
fn a_move_the_store_refuses_is_not_played() {
    let humans = [Sitter::Human(X), Sitter::Human(O)];
    let refused = Input::Move {
        player: X,
        cell: 4,
        stored: false,
    };
    let rules = invariant::check_inputs(setup(humans, None), &[refused]).expect("a new game");
    assert!(rules.moves().is_empty());
    assert_eq!(rules.seq(), 0);
}

#[test]
fn a_burst_of_watchers_is_one_update() {
    let humans = [Sitter::Human(X), Sitter::Human(O)];
    let mut inputs: Vec<Input> = (1..=5_000).map(Input::Watchers).collect();
    inputs.push(Input::Settle);
    // Too soon for another, whatever changed.
    inputs.push(Input::Watchers(3));
    inputs.push(Input::Settle);
    let rules = invariant::check_inputs(setup(humans, None), &inputs).expect("a new game");
    assert_eq!(rules.seq(), 1);
    assert_eq!(rules.watchers(), 3);
    // The timer sends the pending count once its time has come.
    inputs.push(Input::Timer);
    let rules = invariant::check_inputs(setup(humans, None), &inputs).expect("a new game");
    assert_eq!(rules.seq(), 2);
}

#[test]
fn a_timed_game_without_its_first_moves_is_aborted() {
    let seats = [Sitter::Human(X), Sitter::Ai(Level::Easy)];
    let clock = ClockSpec {
        initial_ms: 1_000,
        increment_ms: 0,
    };
    let rules =
        invariant::check_inputs(setup(seats, Some(clock)), &[Input::Timer]).expect("a new game");
    let result = rules.result().expect("the first move did not come");
    assert_eq!((result.winner, result.reason), (None, EndReason::Aborted));
}

#[test]
fn a_flag_falls_on_the_side_to_move() {
    let seats = [Sitter::Human(X), Sitter::Human(O)];
    let clock = ClockSpec {
        initial_ms: 1_000,
        increment_ms: 0,
    };
    // No clock runs before both sides have moved once; then X's flag falls.
    let inputs = [mv(X, 0), mv(O, 4), Input::Timer];
    let rules = invariant::check_inputs(setup(seats, Some(clock)), &inputs).expect("a new game");
    let result = rules.result().expect("the flag fell");
    assert_eq!(result.winner, Some(Mark::O));
    // Over: a move is refused.
    let refused = rules
        .try_move(X, 4, std::time::Instant::now())
        .expect_err("the game is over");
    assert_eq!(refused.code, ErrorCode::GameOver);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes_hold(data in prop::collection::vec(any::<u8>(), 0..512)) {
        invariant::check_bytes(&data);
    }
}
