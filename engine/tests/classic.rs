//! Classic checked exhaustively: every reachable position against a plain brute-force solver, the
//! position counts, perft, and the behaviour each level promises.

use std::collections::{HashMap, HashSet};

use noughts_engine::Variant::Classic;
use noughts_engine::search::{EXACT, Searcher, win_at};
use noughts_engine::solve::{perft, solve};
use noughts_engine::{Board, Budget, Level, Mark, Outcome, Rng, Value, analyse, choose_move};

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// The best result for the side to move, by plain minimax over an array: `(+1 win / 0 draw / -1
/// loss, plies to the end)`, winning as fast and losing as slowly as possible.
fn brute(cells: [u8; 9], memo: &mut HashMap<[u8; 9], (i32, u32)>) -> (i32, u32) {
    if let Some(&known) = memo.get(&cells) {
        return known;
    }
    let marks = cells.iter().filter(|&&c| c != 0).count();
    let (me, last) = if marks % 2 == 0 { (1, 2) } else { (2, 1) };
    let result = if LINES.iter().any(|l| l.iter().all(|&c| cells[c] == last)) {
        (-1, 0)
    } else if marks == 9 {
        (0, 0)
    } else {
        let mut best: Option<(i32, u32)> = None;
        for cell in 0..9 {
            if cells[cell] != 0 {
                continue;
            }
            let mut next = cells;
            next[cell] = me;
            let (value, plies) = brute(next, memo);
            let mine = (-value, plies + 1);
            let better = match best {
                None => true,
                Some((v, p)) => {
                    mine.0 > v || (mine.0 == v && (if v > 0 { mine.1 < p } else { mine.1 > p }))
                }
            };
            if better {
                best = Some(mine);
            }
        }
        best.expect("a move exists")
    };
    memo.insert(cells, result);
    result
}

fn cells_of_board(board: &Board) -> [u8; 9] {
    let mut cells = [0; 9];
    for (cell, slot) in cells.iter_mut().enumerate() {
        *slot = match board.get(cell) {
            Some(Mark::X) => 1,
            Some(Mark::O) => 2,
            None => 0,
        };
    }
    cells
}

fn value_of(v: i32) -> Value {
    match v {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

/// Every reachable position, finished ones included.
fn reachable() -> Vec<Board> {
    let mut seen = HashSet::new();
    let mut stack = vec![Board::new(Classic)];
    while let Some(board) = stack.pop() {
        if !seen.insert(board) {
            continue;
        }
        stack.extend(board.legal_moves().map(|cell| board.play(cell).unwrap()));
    }
    let mut all: Vec<Board> = seen.into_iter().collect();
    all.sort_by_key(|b| (b.ply(), b.mask(Mark::X), b.mask(Mark::O)));
    all
}

#[test]
fn perfect_is_optimal_in_every_reachable_position() {
    let mut memo = HashMap::new();
    let positions = reachable();
    assert_eq!(positions.len(), 5478);
    let open: Vec<&Board> = positions.iter().filter(|b| !b.is_over()).collect();
    assert_eq!(open.len(), 4520);
    let mut rng = Rng::with_seed(7);
    for board in open {
        let (value, plies) = brute(cells_of_board(board), &mut memo);
        let choice = choose_move(board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
        assert_eq!(
            (choice.value, choice.plies),
            (value_of(value), Some(plies)),
            "{board}: perfect reports the wrong value"
        );
        let after = board.play(choice.cell).unwrap();
        let (reply, rest) = brute(cells_of_board(&after), &mut memo);
        assert_eq!(
            (-reply, rest + 1),
            (value, plies),
            "{board}: perfect played {}, which is not optimal",
            choice.cell
        );
        // The analysis gets every move right, not just the best.
        let analysis = analyse(board, Budget::DEFAULT);
        assert_eq!(
            (analysis.value, analysis.plies),
            (value_of(value), Some(plies))
        );
        for mv in &analysis.moves {
            let (reply, rest) = brute(cells_of_board(&board.play(mv.cell).unwrap()), &mut memo);
            assert_eq!(
                (mv.value, mv.plies),
                (value_of(-reply), Some(rest + 1)),
                "{board}: move {} misjudged",
                mv.cell
            );
        }
    }
}

#[test]
fn the_cold_search_scores_every_root_move_from_every_position() {
    // The search without the solved table (as `classic/search_cold_empty` benches it): the best
    // moves exact, every other move bounded above by a score below the best.
    let solution = noughts_engine::solve::classic();
    let exact = |board: &Board, cell: usize| {
        let child = board.play(cell).unwrap();
        match child.outcome() {
            Some(Outcome::Draw) => 0,
            Some(Outcome::Win { .. }) => win_at(child.ply()),
            None => -solution.score(&child).unwrap(),
        }
    };
    let empty = Board::new(Classic);
    let moves: Vec<usize> = empty.legal_moves().collect();
    let mut searcher = Searcher::new(Classic, Budget::UNLIMITED);
    let scored = searcher.root(&empty, &moves, EXACT);
    assert_eq!(scored.len(), 9);
    assert!(scored.iter().all(|&(_, score)| score == 0), "{scored:?}");
    for board in reachable().iter().filter(|b| !b.is_over()) {
        let moves: Vec<usize> = board.legal_moves().collect();
        let mut searcher = Searcher::new(Classic, Budget::UNLIMITED);
        let scored = searcher.root(board, &moves, EXACT);
        assert_eq!(scored.len(), moves.len(), "{board}");
        let best = scored[0].1;
        for &(cell, score) in &scored {
            let value = exact(board, cell);
            if score == best {
                assert_eq!(score, value, "{board}: move {cell}");
            } else {
                assert!(value <= score && score < best, "{board}: move {cell}");
            }
        }
    }
}

#[test]
fn reachable_positions_are_counted_and_classified() {
    let solution = solve(Classic);
    assert_eq!(solution.positions, 5478);
    assert_eq!(solution.x_wins, 2936);
    assert_eq!(solution.draws, 1068);
    assert_eq!(solution.o_wins, 1474);
    // The same counts from the brute-force solver.
    let mut memo = HashMap::new();
    let mut tally = [0u32; 3];
    for board in reachable() {
        let (value, _) = brute(cells_of_board(&board), &mut memo);
        let for_x = if board.to_move() == Mark::X {
            value
        } else {
            -value
        };
        tally[(1 - for_x) as usize] += 1;
    }
    assert_eq!(tally, [2936, 1068, 1474]);
}

#[test]
fn perft_per_ply() {
    let expected = [9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872];
    let empty = Board::new(Classic);
    for (depth, &count) in expected.iter().enumerate() {
        assert_eq!(
            perft(&empty, depth as u32 + 1),
            count,
            "depth {}",
            depth + 1
        );
    }
    assert_eq!(perft(&empty, 10), 0);
}

#[test]
fn easy_falls_for_the_opposite_corners_trap() {
    for seed in 0..200 {
        let mut rng = Rng::with_seed(seed);
        let mut board = Board::new(Classic).play(0).unwrap();
        let o1 = choose_move(&board, Level::Easy, &mut rng, Budget::DEFAULT)
            .unwrap()
            .cell;
        assert_eq!(o1, 4, "easy takes the centre");
        board = board.play(o1).unwrap().play(8).unwrap();
        let o2 = choose_move(&board, Level::Easy, &mut rng, Budget::DEFAULT)
            .unwrap()
            .cell;
        assert!(
            [2, 6].contains(&o2),
            "easy takes a corner, not an edge (seed {seed})"
        );
        board = board.play(o2).unwrap();
        // X takes the last corner: it blocks O's diagonal and makes two threats.
        let corner = if o2 == 2 { 6 } else { 2 };
        board = board.play(corner).unwrap();
        let o3 = choose_move(&board, Level::Easy, &mut rng, Budget::DEFAULT)
            .unwrap()
            .cell;
        board = board.play(o3).unwrap();
        let win = board
            .legal_moves()
            .find(|&c| matches!(board.play(c).unwrap().outcome(), Some(Outcome::Win { .. })))
            .expect("X still has a winning move");
        assert!(matches!(
            board.play(win).unwrap().outcome(),
            Some(Outcome::Win { mark: Mark::X, .. })
        ));
    }
}

/// The cells where the side to move would complete a line, and where its opponent would.
fn immediate(board: &Board) -> (Vec<usize>, Vec<usize>) {
    let cells = cells_of_board(board);
    let me = if board.to_move() == Mark::X { 1 } else { 2 };
    let completes = |side: u8| -> Vec<usize> {
        (0..9)
            .filter(|&c| cells[c] == 0)
            .filter(|&c| {
                LINES
                    .iter()
                    .any(|l| l.contains(&c) && l.iter().all(|&o| o == c || cells[o] == side))
            })
            .collect()
    };
    (completes(me), completes(3 - me))
}

#[test]
fn medium_never_misses_a_win_or_a_block() {
    let mut checked = 0;
    for board in reachable().iter().filter(|b| !b.is_over()) {
        let (wins, blocks) = immediate(board);
        if wins.is_empty() && blocks.is_empty() {
            continue;
        }
        for seed in 0..8 {
            let mut rng = Rng::with_seed(seed);
            let cell = choose_move(board, Level::Medium, &mut rng, Budget::DEFAULT)
                .unwrap()
                .cell;
            if wins.is_empty() {
                assert!(
                    blocks.contains(&cell),
                    "{board}: medium did not block ({cell})"
                );
            } else {
                assert!(
                    wins.contains(&cell),
                    "{board}: medium missed the win ({cell})"
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked > 2000,
        "only {checked} positions had a win or block"
    );
}

#[test]
fn medium_slips_sometimes_and_perfect_never_loses_to_it() {
    let mut slips = 0;
    for seed in 0..200 {
        let mut rng = Rng::with_seed(seed);
        let mut board = Board::new(Classic);
        let mut levels = [Level::Medium, Level::Perfect];
        if seed % 2 == 1 {
            levels.reverse();
        }
        while !board.is_over() {
            let level = levels[board.ply() as usize % 2];
            let choice = choose_move(&board, level, &mut rng, Budget::DEFAULT).unwrap();
            if level == Level::Medium {
                let best = analyse(&board, Budget::DEFAULT).moves[0];
                if (choice.value, choice.plies) != (best.value, best.plies) {
                    slips += 1;
                }
            }
            board = board.play(choice.cell).unwrap();
        }
        let perfect = if seed % 2 == 0 { Mark::O } else { Mark::X };
        assert!(
            !matches!(board.outcome(), Some(Outcome::Win { mark, .. }) if mark != perfect),
            "perfect lost to medium (seed {seed})"
        );
    }
    assert!(slips > 10, "medium made only {slips} slips in 200 games");
}

#[test]
fn perfect_against_itself_draws() {
    for seed in 0..50 {
        let mut rng = Rng::with_seed(seed);
        let mut board = Board::new(Classic);
        while let Some(choice) = choose_move(&board, Level::Perfect, &mut rng, Budget::DEFAULT) {
            board = board.play(choice.cell).unwrap();
        }
        assert_eq!(board.outcome(), Some(Outcome::Draw));
    }
}

#[test]
fn hard_sees_forks_but_easy_does_not() {
    // X: 0 and 8, O: 4. O to move; an O corner lets X fork, an O edge holds.
    let board = Board::parse(Classic, "X../.O./..X").unwrap();
    for seed in 0..50 {
        let mut rng = Rng::with_seed(seed);
        let hard = choose_move(&board, Level::Hard, &mut rng, Budget::DEFAULT).unwrap();
        assert!(
            [1, 3, 5, 7].contains(&hard.cell),
            "hard played {}",
            hard.cell
        );
    }
}
