//! The bigger boards: four is a draw, cube is a first-player win on ply 7 that perfect never
//! lets go, qubic's move counts, and qubic's threat play.

use noughts_engine::solve::perft;
use noughts_engine::threats::ThreatSearch;
use noughts_engine::{
    Board, Budget, Level, Mark, Outcome, Rng, Value, Variant, analyse, choose_move,
};

fn play(mut board: Board, x: Level, o: Level, rng: &mut Rng, budget: Budget) -> Board {
    while let Some(choice) = choose_move(&board, [x, o][board.ply() as usize % 2], rng, budget) {
        board = board.play(choice.cell).unwrap();
    }
    board
}

fn random_move(board: &Board, rng: &mut Rng) -> usize {
    let moves: Vec<usize> = board.legal_moves().collect();
    moves[rng.usize(..moves.len())]
}

#[test]
fn four_is_a_draw() {
    let analysis = analyse(&Board::new(Variant::Four), Budget::UNLIMITED);
    assert_eq!(analysis.value, Value::Draw);
    assert_eq!(analysis.plies, Some(16));
    assert!(analysis.moves.iter().all(|m| m.value == Value::Draw));
}

#[test]
fn four_perfect_draws_itself_and_beats_easy() {
    for seed in 0..4 {
        let mut rng = Rng::with_seed(seed);
        let board = play(
            Board::new(Variant::Four),
            Level::Perfect,
            Level::Perfect,
            &mut rng,
            Budget::DEFAULT,
        );
        assert_eq!(board.outcome(), Some(Outcome::Draw));
    }
}

#[test]
fn cube_perfect_x_wins_on_ply_7_against_perfect_o() {
    for seed in 0..20 {
        let mut rng = Rng::with_seed(seed);
        let mut board = Board::new(Variant::Cube);
        let first = choose_move(&board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
        assert_eq!((first.value, first.plies), (Value::Win, Some(7)));
        board = board.play(first.cell).unwrap();
        let board = play(
            board,
            Level::Perfect,
            Level::Perfect,
            &mut rng,
            Budget::DEFAULT,
        );
        assert!(matches!(
            board.outcome(),
            Some(Outcome::Win { mark: Mark::X, .. })
        ));
        assert_eq!(board.ply(), 7, "seed {seed}: {board}");
    }
}

#[test]
fn cube_perfect_x_never_loses_to_random_or_hard_o() {
    for seed in 0..2_000u64 {
        let mut rng = Rng::with_seed(seed);
        let hard = seed % 2 == 0;
        let mut board = Board::new(Variant::Cube);
        let mut promised = None;
        while !board.is_over() {
            let cell = if board.to_move() == Mark::X {
                let choice =
                    choose_move(&board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
                assert_eq!(choice.value, Value::Win, "seed {seed}: {board}");
                let ends = board.ply() + choice.plies.unwrap();
                // Whatever O does, the win never comes later than first promised.
                assert!(ends <= promised.unwrap_or(ends), "seed {seed}: {board}");
                promised = Some(ends);
                choice.cell
            } else if hard {
                choose_move(&board, Level::Hard, &mut rng, Budget::DEFAULT)
                    .unwrap()
                    .cell
            } else {
                random_move(&board, &mut rng)
            };
            board = board.play(cell).unwrap();
        }
        assert!(
            matches!(board.outcome(), Some(Outcome::Win { mark: Mark::X, .. })),
            "seed {seed}: {board}"
        );
        assert!(board.ply() <= 7);
    }
}

/// Every way to fill the cube (14 X, 13 O) holds a line. Checked over all C(27, 13) fillings.
#[test]
fn no_full_cube_is_drawn() {
    let lines = Variant::Cube.lines();
    let full = Variant::Cube.full_mask();
    let mut o: u64 = (1 << 13) - 1;
    let mut count = 0u64;
    while o <= full {
        let x = full & !o;
        assert!(
            lines.iter().any(|&l| l & !x == 0 || l & !o == 0),
            "a drawn cube: o = {o:#x}"
        );
        count += 1;
        // Next mask with the same number of bits (Gosper's hack).
        let low = o & o.wrapping_neg();
        let ripple = o + low;
        o = (((ripple ^ o) >> 2) / low) | ripple;
    }
    assert_eq!(count, 20_058_300);
}

#[test]
fn qubic_perft() {
    let empty = Board::new(Variant::Qubic);
    assert_eq!(perft(&empty, 1), 64);
    assert_eq!(perft(&empty, 2), 4_032);
    assert_eq!(perft(&empty, 3), 249_984);
}

/// A qubic position with X to move: X holds 0, 1 (row 0 of layer 0) and 19, 35 (the vertical
/// line through cell 3), so X at 3 makes two threats at once (2 and 51). `extra` X marks are
/// added (giving O the move).
fn qubic_fork(extra: &[usize]) -> Board {
    let mask = |cells: &[usize]| cells.iter().fold(0u64, |m, &c| m | 1 << c);
    let x = mask(&[0, 1, 19, 35]) | mask(extra);
    let o = mask(&[12, 21, 42, 58]);
    Board::from_masks(Variant::Qubic, x, o).unwrap()
}

#[test]
fn qubic_perfect_takes_a_forced_win() {
    let board = qubic_fork(&[]);
    assert_eq!(board.to_move(), Mark::X);
    for seed in 0..5 {
        let mut rng = Rng::with_seed(seed);
        let choice = choose_move(&board, Level::Perfect, &mut rng, Budget::millis(200)).unwrap();
        assert_eq!(choice.value, Value::Win);
        let promised = board.ply() + choice.plies.unwrap();
        let mut after = board.play(choice.cell).unwrap();
        while !after.is_over() {
            let level = if after.to_move() == Mark::X {
                Level::Perfect
            } else {
                Level::Hard
            };
            let next = choose_move(&after, level, &mut rng, Budget::millis(200)).unwrap();
            after = after.play(next.cell).unwrap();
        }
        assert!(matches!(
            after.outcome(),
            Some(Outcome::Win { mark: Mark::X, .. })
        ));
        assert!(after.ply() <= promised, "seed {seed}: {after}");
    }
}

#[test]
fn qubic_forced_wins_are_found_in_every_symmetric_image() {
    let board = qubic_fork(&[]);
    let images = noughts_engine::symmetry::images(&board);
    assert_eq!(images.len(), 192);
    let mut rng = Rng::with_seed(1);
    for image in images {
        let choice = choose_move(&image, Level::Perfect, &mut rng, Budget::millis(50)).unwrap();
        assert_eq!(
            (choice.value, choice.plies),
            (Value::Win, Some(3)),
            "{image}"
        );
    }
}

#[test]
fn qubic_perfect_defends_against_a_threat_win() {
    // X has just played a quiet move far away; O must stop the fork at 3.
    let board = qubic_fork(&[60]);
    assert_eq!(board.to_move(), Mark::O);
    let x_wins = |board: &Board| {
        ThreatSearch::new(Variant::Qubic, 1_000_000).find_win(
            board.mask(Mark::X),
            board.mask(Mark::O),
            16,
        )
    };
    assert!(x_wins(&board).is_some(), "X threatens a forced win");
    for seed in 0..5 {
        let mut rng = Rng::with_seed(seed);
        let choice = choose_move(&board, Level::Perfect, &mut rng, Budget::millis(200)).unwrap();
        let after = board.play(choice.cell).unwrap();
        assert_eq!(
            x_wins(&after),
            None,
            "O played {} and left X a forced win",
            choice.cell
        );
    }
}

#[test]
fn same_seed_same_game() {
    for variant in [
        Variant::Classic,
        Variant::Four,
        Variant::Cube,
        Variant::Qubic,
    ] {
        for (x, o) in [
            (Level::Easy, Level::Medium),
            (Level::Medium, Level::Hard),
            (Level::Hard, Level::Easy),
        ] {
            let game = |seed| {
                let mut rng = Rng::with_seed(seed);
                let mut board = Board::new(variant);
                let mut moves = Vec::new();
                while let Some(c) = choose_move(
                    &board,
                    [x, o][board.ply() as usize % 2],
                    &mut rng,
                    Budget::DEFAULT,
                ) {
                    moves.push(c.cell);
                    board = board.play(c.cell).unwrap();
                }
                moves
            };
            assert_eq!(game(11), game(11), "{variant} {x} v {o}");
            if variant != Variant::Classic {
                assert_ne!(
                    game(11),
                    game(12),
                    "{variant} {x} v {o}: seeds make no difference"
                );
            }
        }
    }
}

/// Plain minimax over masks: `(+1 / 0 / -1, plies to the end)` for the side to move, winning
/// fast and losing slowly. No pruning and no table: only for positions with few empty cells.
fn brute(lines: &[u64], full: u64, me: u64, opp: u64) -> (i32, u32) {
    if lines.iter().any(|&l| l & !opp == 0) {
        return (-1, 0);
    }
    let empty = full & !(me | opp);
    if empty == 0 {
        return (0, 0);
    }
    let mut best = (-2, 0);
    for cell in noughts_engine::cells_of(empty) {
        let (value, plies) = brute(lines, full, opp, me | 1 << cell);
        let mine = (-value, plies + 1);
        let better = mine.0 > best.0
            || (mine.0 == best.0
                && if mine.0 > 0 {
                    mine.1 < best.1
                } else {
                    mine.1 > best.1
                });
        if better {
            best = mine;
        }
    }
    best
}

#[test]
fn four_and_cube_endgames_match_plain_minimax() {
    for variant in [Variant::Four, Variant::Cube] {
        let mut rng = Rng::with_seed(99);
        let mut checked = 0;
        while checked < 40 {
            let mut board = Board::new(variant);
            while board.empty().count_ones() > 9 && !board.is_over() {
                board = board.play(random_move(&board, &mut rng)).unwrap();
            }
            if board.is_over() {
                continue;
            }
            let (me, opp) = match board.to_move() {
                Mark::X => (board.mask(Mark::X), board.mask(Mark::O)),
                Mark::O => (board.mask(Mark::O), board.mask(Mark::X)),
            };
            let (value, plies) = brute(variant.lines(), variant.full_mask(), me, opp);
            let expected = match value {
                1 => Value::Win,
                0 => Value::Draw,
                _ => Value::Loss,
            };
            let analysis = analyse(&board, Budget::DEFAULT);
            assert_eq!(
                (analysis.value, analysis.plies),
                (expected, Some(plies)),
                "{board}"
            );
            for mv in &analysis.moves {
                let (reply, rest) =
                    brute(variant.lines(), variant.full_mask(), opp, me | 1 << mv.cell);
                let value = match -reply {
                    1 => Value::Win,
                    0 => Value::Draw,
                    _ => Value::Loss,
                };
                assert_eq!(
                    (mv.value, mv.plies),
                    (value, Some(rest + 1)),
                    "{board}: {}",
                    mv.cell
                );
            }
            checked += 1;
        }
    }
}

#[test]
fn four_solves_completely() {
    let solution = noughts_engine::solve::solve(Variant::Four);
    assert_eq!(solution.positions, 9_722_011);
    assert_eq!(solution.value, 0);
}

#[test]
fn random_plays_every_legal_move_and_nothing_else() {
    let board = Board::parse(Variant::Classic, "X.O/.X./...").unwrap();
    let legal: Vec<usize> = board.legal_moves().collect();
    let mut rng = Rng::with_seed(5);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let choice = choose_move(&board, Level::Random, &mut rng, Budget::DEFAULT).unwrap();
        assert!(legal.contains(&choice.cell));
        seen.insert(choice.cell);
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), legal);
    assert_eq!("random".parse::<Level>().unwrap(), Level::Random);
}
