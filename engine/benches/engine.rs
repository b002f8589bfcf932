//! Engine benchmarks: best moves from the empty boards, the full classic solve, qubic's node
//! rate and threat search, and a plain minimax in the style of the original write-ups for comparison.

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use noughts_engine::search::{EXACT, Searcher};
use noughts_engine::solve::solve;
use noughts_engine::threats::{Hold, ThreatSearch, winning_cells};
use noughts_engine::{Board, Budget, Level, Mark, Rng, Variant, choose_move};

/// The full minimax of the write-ups: an array board, a line scan at every node, every move of
/// every position searched, no pruning and no table.
fn plain_minimax(board: &mut [i8; 9], player: i8) -> i32 {
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
    for line in LINES {
        let sum: i8 = line.iter().map(|&c| board[c]).sum();
        if sum == 3 || sum == -3 {
            // The previous player (-player) completed a line.
            return -1;
        }
    }
    let mut best = None;
    for cell in 0..9 {
        if board[cell] == 0 {
            board[cell] = player;
            let score = -plain_minimax(board, -player);
            board[cell] = 0;
            best = Some(best.map_or(score, |b: i32| b.max(score)));
        }
    }
    best.unwrap_or(0)
}

/// The plain minimax's choice on an empty board: every move scored, the best kept.
fn plain_best_move(start: [i8; 9]) -> usize {
    let mut board = start;
    let mut best = (i32::MIN, 0);
    for cell in 0..9 {
        if board[cell] != 0 {
            continue;
        }
        board[cell] = 1;
        let score = -plain_minimax(&mut board, -1);
        board[cell] = 0;
        if score > best.0 {
            best = (score, cell);
        }
    }
    best.1
}

fn every_open_classic_position() -> Vec<Board> {
    let mut seen = HashSet::new();
    let mut stack = vec![Board::new(Variant::Classic)];
    while let Some(board) = stack.pop() {
        if board.is_over() || !seen.insert(board) {
            continue;
        }
        stack.extend(board.legal_moves().map(|c| board.play_unchecked(c)));
    }
    let mut all: Vec<Board> = seen.into_iter().collect();
    all.sort_by_key(|b| b.to_compact());
    all
}

fn classic(c: &mut Criterion) {
    let mut group = c.benchmark_group("classic");
    let empty = Board::new(Variant::Classic);
    let mut rng = Rng::with_seed(1);
    group.bench_function("plain_minimax_empty", |b| {
        b.iter(|| plain_best_move(black_box([0; 9])))
    });
    group.bench_function("search_cold_empty", |b| {
        b.iter(|| {
            let mut searcher = Searcher::new(Variant::Classic, Budget::UNLIMITED);
            let moves: Vec<usize> = empty.legal_moves().collect();
            black_box(searcher.root(&empty, &moves, EXACT))
        })
    });
    group.bench_function("best_move_empty_warm", |b| {
        b.iter(|| choose_move(black_box(&empty), Level::Perfect, &mut rng, Budget::DEFAULT))
    });
    let positions = every_open_classic_position();
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("best_move_every_position_warm", |b| {
        b.iter(|| {
            for board in &positions {
                black_box(choose_move(
                    board,
                    Level::Perfect,
                    &mut rng,
                    Budget::DEFAULT,
                ));
            }
        })
    });
    group.throughput(Throughput::Elements(5478));
    group.bench_function("full_solve", |b| {
        b.iter(|| black_box(solve(Variant::Classic)))
    });
    group.finish();
}

fn four_and_cube(c: &mut Criterion) {
    let mut group = c.benchmark_group("solved");
    let mut rng = Rng::with_seed(1);
    for variant in [Variant::Four, Variant::Cube] {
        let empty = Board::new(variant);
        group.bench_function(format!("{variant}_best_move_empty"), |b| {
            b.iter(|| choose_move(black_box(&empty), Level::Perfect, &mut rng, Budget::DEFAULT))
        });
    }
    // The slowest cube position of a sample, found once and then measured
    // (after a first search, so that one-time table set-up is not counted).
    choose_move(
        &Board::new(Variant::Cube),
        Level::Perfect,
        &mut rng,
        Budget::DEFAULT,
    );
    // Every position with up to two marks, and random positions a few moves deeper.
    let mut sample = vec![Board::new(Variant::Cube)];
    for first in 0..27 {
        let one = Board::new(Variant::Cube).play_unchecked(first);
        sample.push(one);
        sample.extend(one.legal_moves().map(|second| one.play_unchecked(second)));
    }
    let mut sample_rng = Rng::with_seed(7);
    for _ in 0..400 {
        let mut board = Board::new(Variant::Cube);
        for _ in 0..sample_rng.usize(3..10) {
            let moves: Vec<usize> = board.legal_moves().collect();
            if moves.is_empty() {
                break;
            }
            board = board.play_unchecked(moves[sample_rng.usize(..moves.len())]);
        }
        sample.push(board);
    }
    let mut slowest = (Duration::ZERO, Board::new(Variant::Cube));
    for board in sample.iter().filter(|b| !b.is_over()) {
        // The best of three runs, so that a busy machine does not pick the position.
        let took = (0..3)
            .map(|_| {
                let start = Instant::now();
                choose_move(board, Level::Perfect, &mut rng, Budget::DEFAULT);
                start.elapsed()
            })
            .min()
            .unwrap();
        if took > slowest.0 {
            slowest = (took, *board);
        }
    }
    eprintln!(
        "slowest of {} sampled cube positions: {} ({:?})",
        sample.len(),
        slowest.1,
        slowest.0
    );
    group.bench_function("cube_best_move_slowest_sampled", |b| {
        b.iter(|| {
            choose_move(
                black_box(&slowest.1),
                Level::Perfect,
                &mut rng,
                Budget::DEFAULT,
            )
        })
    });
    group.finish();
}

fn qubic(c: &mut Criterion) {
    let mut group = c.benchmark_group("qubic");
    // An opening position with no forced wins about: plain alpha-beta work.
    let board = Board::parse(
        Variant::Qubic,
        &format!("X{}O{}", ".".repeat(20), ".".repeat(42)),
    )
    .expect("a legal position");
    let nodes = 300_000;
    group.throughput(Throughput::Elements(nodes));
    group.sample_size(10);
    group.bench_function("search_nodes", |b| {
        b.iter(|| {
            let budget = Budget {
                time: None,
                nodes: Some(nodes),
            };
            let mut searcher = Searcher::new(Variant::Qubic, budget);
            let moves: Vec<usize> = board.legal_moves().collect();
            for depth in 1..20 {
                black_box(searcher.root(&board, &moves, depth));
                if searcher.stopped {
                    break;
                }
            }
        })
    });
    threat_search(&mut group);
    group.finish();
    // The real thing: `perfect` with its one-second budget, from the same position with one
    // more X, so that O is to move (X would answer from the book).
    let board = board.play(63).expect("an empty cell");
    let mut rng = Rng::with_seed(3);
    let start = Instant::now();
    let choice = choose_move(&board, Level::Perfect, &mut rng, Budget::DEFAULT).unwrap();
    let took = start.elapsed();
    eprintln!(
        "qubic perfect at the 1 s budget: {} nodes in {:?} = {:.0} nodes/s",
        choice.nodes,
        took,
        choice.nodes as f64 / took.as_secs_f64()
    );
}

/// Positions from games of `hard` against itself (after two random moves each), 8 to 40 marks
/// in, with nobody able to win on the spot: the side to move and the other side's marks.
fn qubic_middle_games(count: usize) -> Vec<(u64, u64)> {
    let mut rng = Rng::with_seed(18);
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut board = Board::new(Variant::Qubic);
        while !board.is_over() && positions.len() < count {
            let cell = if board.ply() < 4 {
                let moves: Vec<usize> = board.legal_moves().collect();
                moves[rng.usize(..moves.len())]
            } else {
                choose_move(&board, Level::Hard, &mut rng, Budget::DEFAULT)
                    .unwrap()
                    .cell
            };
            board = board.play_unchecked(cell);
            let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
            let (me, opp) = if board.to_move() == Mark::X {
                (x, o)
            } else {
                (o, x)
            };
            let lines = Variant::Qubic.lines();
            let quiet = winning_cells(lines, me, opp) & board.empty() == 0;
            if !board.is_over() && quiet && (8..=40).contains(&board.ply()) {
                positions.push((me, opp));
            }
        }
    }
    positions
}

/// The threat search over 200 middle-game positions, each with a fresh search: a win by threats
/// for the side to move, then for the other side (at most 20,000 nodes each), then whether the
/// side to move can hold against the other's threats (as `perfect` checks its moves on qubic;
/// at most 5,000 nodes a search).
fn threat_search(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let positions = qubic_middle_games(200);
    let run = || {
        let (mut nodes, mut wins, mut holds) = (0, 0, 0);
        for &(me, opp) in &positions {
            for (own, other) in [(me, opp), (opp, me)] {
                let mut search = ThreatSearch::new(Variant::Qubic, 20_000);
                wins += usize::from(search.find_win(own, other, 32).is_some());
                nodes += search.nodes;
            }
            let mut search = ThreatSearch::new(Variant::Qubic, 0);
            holds += usize::from(search.can_hold(me, opp, 5_000) == Hold::Holds);
            nodes += search.nodes;
        }
        (nodes, wins, holds)
    };
    let (nodes, wins, holds) = run();
    eprintln!(
        "qubic threat search: {wins} wins in 400 searches, {holds} of 200 hold, {nodes} nodes"
    );
    group.throughput(Throughput::Elements(nodes));
    group.bench_function("threat_search_positions", |b| b.iter(|| black_box(run())));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = classic, four_and_cube, qubic
}
criterion_main!(benches);
