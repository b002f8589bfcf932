//! Judging a game's moves: a qubic move that gives away X's proven win is a blunder with the best
//! move and the values before and after, and no move is ever called best unless proven.

use noughts_engine::solve::classic;
use noughts_engine::{
    Analysis, Board, Budget, Mark, MoveVerdict, Rng, Value, Variant, analyse, judge, review_judged,
};

/// The empty cell that completes a line of `mark`'s three, if any.
fn threat(board: &Board, mark: Mark) -> Option<usize> {
    let (own, other) = (board.mask(mark), board.mask(mark.opponent()));
    board.variant().lines().iter().find_map(|&line| {
        let open = line & !own;
        (line & other == 0 && open.count_ones() == 1).then(|| open.trailing_zeros() as usize)
    })
}

#[test]
fn giving_away_a_proven_qubic_win_is_a_blunder_with_the_best_move_and_values() {
    let budget = Budget::millis(150);
    let (board, block, analysis) = (0..64)
        .find_map(|seed| o_threatens(seed, budget))
        .expect("no O threat reached");
    // X plays anywhere but the block: O completes the line next.
    let away = board.legal_moves().find(|&c| c != block).unwrap();
    let judged = judge(&board, away, budget).unwrap();
    assert_eq!(judged.verdict, Some(MoveVerdict::Blunder));
    assert_eq!(judged.best, Some(analysis.moves[0].cell));
    assert_eq!(judged.before.0, Value::Win);
    assert_eq!(judged.after, (Value::Loss, Some(2)));
    // The block itself keeps the win.
    assert_eq!(judge(&board, block, budget).unwrap().after.0, Value::Win);
}

/// X follows the book; O blocks X's three, else makes a three of its own when it can, else plays
/// at random (from `seed`): the first position, X to move, where O threatens a line and X cannot
/// win at once, with the cell that blocks it and X's analysis.
fn o_threatens(seed: u64, budget: Budget) -> Option<(Board, usize, Analysis)> {
    let mut rng = Rng::with_seed(seed);
    let mut board = Board::new(Variant::Qubic);
    while !board.is_over() {
        if board.to_move() == Mark::X {
            let analysis = analyse(&board, budget);
            assert_eq!(analysis.value, Value::Win, "X is in the book's strategy");
            if threat(&board, Mark::X).is_none()
                && let Some(block) = threat(&board, Mark::O)
            {
                return Some((board, block, analysis));
            }
            board = board.play(analysis.moves[0].cell).unwrap();
        } else {
            let moves: Vec<usize> = board.legal_moves().collect();
            let three = moves.iter().copied().find(|&cell| {
                let next = board.play(cell).unwrap();
                !next.is_over() && threat(&next, Mark::O).is_some()
            });
            let cell = threat(&board, Mark::X)
                .or(three)
                .unwrap_or_else(|| moves[rng.usize(..moves.len())]);
            board = board.play(cell).unwrap();
        }
    }
    None
}

/// Random games on `variant`, `count` of them, from seed `seed`.
fn random_games(variant: Variant, count: u64, seed: u64) -> Vec<Vec<usize>> {
    (0..count)
        .map(|game| {
            let mut rng = Rng::with_seed(seed + game);
            let mut board = Board::new(variant);
            let mut cells = Vec::new();
            while !board.is_over() {
                let moves: Vec<usize> = board.legal_moves().collect();
                let cell = moves[rng.usize(..moves.len())];
                cells.push(cell);
                board = board.play(cell).unwrap();
            }
            cells
        })
        .collect()
}

#[test]
fn no_move_is_best_unless_proven() {
    // Classic against the solved game: best exactly when the move keeps the position's value.
    let solved = classic();
    let sign = |board: &Board| solved.score(board).unwrap().signum();
    for cells in random_games(Variant::Classic, 40, 1) {
        let mut board = Board::new(Variant::Classic);
        for judged in review_judged(Variant::Classic, &cells, Budget::DEFAULT) {
            let next = board.play(judged.cell).unwrap();
            let keeps = sign(&board) == -sign(&next);
            if judged.verdict == Some(MoveVerdict::Best) {
                assert!(keeps, "{cells:?}: {judged:?}");
            }
            assert_ne!(judged.before.0, Value::Unknown);
            board = next;
        }
    }
    // Four and qubic on a tiny budget: a move called best has a proven value as good as the
    // position's proven value.
    let tiny = Budget {
        time: None,
        nodes: Some(2_000),
    };
    for (variant, count) in [(Variant::Four, 2), (Variant::Qubic, 2)] {
        for cells in random_games(variant, count, 11) {
            for judged in review_judged(variant, &cells[..cells.len().min(24)], tiny) {
                if judged.verdict == Some(MoveVerdict::Best) {
                    assert_ne!(judged.before.0, Value::Unknown, "{judged:?}");
                    assert_eq!(judged.after.0, judged.before.0, "{judged:?}");
                }
            }
        }
    }
}
