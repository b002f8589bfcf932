//! `noughts-engine`: the analysis command line. Every command prints JSON lines, so bots, tests and
//! benchmarks can read its answers.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use noughts_engine::book::{self, Book};
use noughts_engine::book_build::Builder;
use noughts_engine::book_check::{Checked, NotShown, verify, verify_all};
use noughts_engine::defence_build;
use noughts_engine::solve::{perft, solve};
use noughts_engine::{
    Analysis, Board, Budget, Engine, Level, Mark, Outcome, Rng, Value, Variant, analyse,
    choose_hard_move, choose_move,
};
use serde_json::{Value as Json, json};

/// Analyse noughts-and-crosses positions on the classic, four, cube and qubic boards.
///
/// Boards are one character per cell (X, O or .), row by row and layer by layer; `/` and spaces
/// are ignored, so `X.O/.X./..O` is a classic board. X moves first; the side to move follows
/// from the counts.
#[derive(Debug, Parser)]
#[command(name = "noughts-engine", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The move a level plays: one JSON line `{"move", "coords", "value", "plies", "nodes",
    /// "micros"}`. Without --board, reads boards from stdin, one per line, and answers each (an
    /// invalid line gets `{"error": "..."}` and processing goes on).
    Best {
        /// classic, four, cube or qubic.
        #[arg(long)]
        variant: Variant,
        /// The position (default: read positions from stdin).
        #[arg(long)]
        board: Option<String>,
        /// random, easy, medium, hard or perfect.
        #[arg(long, default_value = "perfect")]
        level: Level,
        /// Seed for the tie-breaking random choices (default: random).
        #[arg(long)]
        seed: Option<u64>,
        /// Thinking time for perfect on qubic, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
    },
    /// The value of a position and of every legal move, as one JSON line.
    Eval {
        /// classic, four, cube or qubic.
        #[arg(long)]
        variant: Variant,
        /// The position.
        #[arg(long)]
        board: String,
        /// Search time on qubic, in milliseconds (the other boards are solved exactly).
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
    },
    /// Move-sequence counts (leaves) for each depth from 1 to D; a game stops at a win.
    Perft {
        /// classic, four, cube or qubic.
        #[arg(long)]
        variant: Variant,
        /// The deepest depth to count.
        #[arg(long)]
        depth: u32,
        /// Count from this position instead of the empty board.
        #[arg(long)]
        board: Option<String>,
    },
    /// Solve every reachable position and print the counts and the time taken.
    Solve {
        /// classic or four (the cubes are far too large).
        #[arg(long)]
        variant: Variant,
    },
    /// Build the qubic book by proof-number search: every round prints the progress as a JSON
    /// line (and writes the tree to --checkpoint); the end writes the book of what is proven to
    /// --out.
    BookBuild {
        /// Where to write the book (when the run ends).
        #[arg(long)]
        out: std::path::PathBuf,
        /// Where to write the search's tree after every round, to resume from.
        #[arg(long)]
        checkpoint: Option<std::path::PathBuf>,
        /// Resume from a tree written by --checkpoint.
        #[arg(long)]
        resume: Option<std::path::PathBuf>,
        /// Stop after this many minutes (or when the empty board is proven).
        #[arg(long, default_value_t = 60)]
        minutes: u64,
        /// Leaves expanded between two progress lines (and checkpoints).
        #[arg(long, default_value_t = 20_000)]
        round: u64,
    },
    /// Build O's qubic book (its replies in the early positions strong X players reach, each
    /// checked by a deep proof-number search): a progress line per 50 positions, the book to
    /// --out at the end. Deterministic: the same command makes the same book.
    DefenceBuild {
        /// Where to write the book.
        #[arg(long)]
        out: std::path::PathBuf,
        /// O's moves to look at, instead of the shipped book's 4 (a quicker and weaker book, to
        /// try the builder).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
        o_moves: Option<u32>,
        /// O's first moves whose replies the book keeps, instead of the shipped book's 2 (at
        /// most --o-moves; the deeper replies then only check them).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
        kept_moves: Option<u32>,
    },
    /// Check a qubic book with the independent verifier: from the empty board, and from every
    /// entry. Prints one JSON line; exits with status 1 if a line is not shown won.
    BookVerify {
        /// The book to check (default: the one built into the engine).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
    },
    /// Play games between two levels and print a tally as one JSON line.
    Selfplay {
        /// classic, four, cube or qubic.
        #[arg(long)]
        variant: Variant,
        /// The level playing X (with --alternate: in the first game).
        #[arg(long)]
        x: Level,
        /// The level playing O (with --alternate: in the first game).
        #[arg(long)]
        o: Level,
        /// Number of games.
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Seed for the first game; game i uses seed + i (default: random).
        #[arg(long)]
        seed: Option<u64>,
        /// Swap colours after every game; the tally then also counts wins by level.
        #[arg(long)]
        alternate: bool,
        /// Thinking time for perfect on qubic, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
        /// Plies a `hard` seat searches, instead of its own depth for the variant (3 on qubic).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
        hard_depth: Option<u32>,
        /// Also print one JSON line per game.
        #[arg(long)]
        each: bool,
    },
}

/// Exits with status 2 and clap's formatting for an argument that parsed but makes no sense.
fn bad_argument(message: impl std::fmt::Display) -> ! {
    Cli::command()
        .error(ErrorKind::InvalidValue, message)
        .exit()
}

fn parse_board(variant: Variant, text: &str) -> Board {
    Board::parse(variant, text).unwrap_or_else(|e| bad_argument(format!("invalid board: {e}")))
}

fn value_name(value: Value) -> &'static str {
    match value {
        Value::Win => "win",
        Value::Draw => "draw",
        Value::Loss => "loss",
        Value::Unknown => "unknown",
    }
}

fn budget(ms: u64) -> Budget {
    Budget {
        time: Some(Duration::from_millis(ms)),
        nodes: None,
    }
}

fn best(board: &Board, level: Level, rng: &mut Rng, budget: Budget) -> Json {
    let start = Instant::now();
    match choose_move(board, level, rng, budget) {
        None => json!({"error": "the game is over"}),
        Some(choice) => json!({
            "move": choice.cell,
            "coords": board.variant().coords(choice.cell),
            "value": value_name(choice.value),
            "plies": choice.plies,
            "nodes": choice.nodes,
            "micros": start.elapsed().as_micros() as u64,
        }),
    }
}

fn eval_json(board: &Board, analysis: &Analysis, micros: u64) -> Json {
    let moves: Vec<Json> = analysis
        .moves
        .iter()
        .map(|m| {
            json!({
                "move": m.cell,
                "coords": board.variant().coords(m.cell),
                "value": value_name(m.value),
                "plies": m.plies,
            })
        })
        .collect();
    json!({
        "to_move": board.to_move().to_string(),
        "value": value_name(analysis.value),
        "plies": analysis.plies,
        "moves": moves,
        "nodes": analysis.nodes,
        "micros": micros,
    })
}

/// Writes one JSON line. A reader that has gone away (`… | head`) ends the program quietly, as
/// a closed pipe does for any command-line tool.
fn print(out: &mut impl Write, line: &Json) -> Result<()> {
    let written = writeln!(out, "{line}").and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Best {
            variant,
            board,
            level,
            seed,
            budget_ms,
        } => {
            let mut rng = seed.map_or_else(Rng::new, Rng::with_seed);
            run_best(&mut out, variant, board, level, &mut rng, budget(budget_ms))
        }
        Command::Eval {
            variant,
            board,
            budget_ms,
        } => {
            let board = parse_board(variant, &board);
            let start = Instant::now();
            let analysis = analyse(&board, budget(budget_ms));
            let micros = start.elapsed().as_micros() as u64;
            print(&mut out, &eval_json(&board, &analysis, micros))
        }
        Command::Perft {
            variant,
            depth,
            board,
        } => {
            let board = board.map_or(Board::new(variant), |text| parse_board(variant, &text));
            run_perft(&mut out, &board, depth)
        }
        Command::Solve { variant } => run_solve(&mut out, variant),
        Command::BookBuild {
            out: path,
            checkpoint,
            resume,
            minutes,
            round,
        } => {
            let builder = match resume {
                Some(from) => Builder::resume(&std::fs::read(&from)?).unwrap_or_else(|| {
                    bad_argument(format!("{} is not a checkpoint", from.display()))
                }),
                None => Builder::new(),
            };
            let files = BuildFiles {
                book: path,
                checkpoint,
            };
            run_book_build(&mut out, builder, &files, minutes, round)
        }
        Command::DefenceBuild {
            out: path,
            o_moves,
            kept_moves,
        } => {
            let mut plan = defence_build::Plan::shipped();
            plan.o_moves = o_moves.unwrap_or(plan.o_moves);
            plan.kept_moves = kept_moves.unwrap_or(plan.kept_moves).min(plan.o_moves);
            run_defence_build(&mut out, &plan, &path)
        }
        Command::BookVerify { book } => run_book_verify(&mut out, book.as_deref()),
        Command::Selfplay {
            variant,
            x,
            o,
            games,
            seed,
            alternate,
            budget_ms,
            hard_depth,
            each,
        } => {
            if games == 0 {
                bad_argument("--games must be at least 1");
            }
            let plan = Selfplay {
                variant,
                levels: [x, o],
                games,
                seed: seed.unwrap_or_else(|| Rng::new().u64(..)),
                alternate,
                budget: budget(budget_ms),
                hard_depth,
                each,
            };
            run_selfplay(&mut out, &plan)
        }
    }
}

/// `best`: one board from the command line, or one per line of stdin.
fn run_best(
    out: &mut impl Write,
    variant: Variant,
    board: Option<String>,
    level: Level,
    rng: &mut Rng,
    budget: Budget,
) -> Result<()> {
    if let Some(text) = board {
        let board = parse_board(variant, &text);
        return print(out, &best(&board, level, rng, budget));
    }
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match Board::parse(variant, &line) {
            Ok(board) => best(&board, level, rng, budget),
            Err(e) => json!({"error": format!("invalid board: {e}")}),
        };
        print(out, &answer)?;
    }
    Ok(())
}

/// `perft`: one line per depth.
fn run_perft(out: &mut impl Write, board: &Board, depth: u32) -> Result<()> {
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = perft(board, d);
        let micros = start.elapsed().as_micros() as u64;
        print(
            out,
            &json!({"depth": d, "leaves": leaves, "micros": micros}),
        )?;
    }
    Ok(())
}

/// `solve`: the counts of a full solution of classic or four.
fn run_solve(out: &mut impl Write, variant: Variant) -> Result<()> {
    if !matches!(variant, Variant::Classic | Variant::Four) {
        bad_argument(format!(
            "solve supports classic and four; {variant} has far too many positions"
        ));
    }
    let start = Instant::now();
    let solution = solve(variant);
    let micros = start.elapsed().as_micros() as u64;
    let value = match solution.value.signum() {
        1 => "x_wins",
        0 => "draw",
        _ => "o_wins",
    };
    print(
        out,
        &json!({
            "variant": variant.name(),
            "positions": solution.positions,
            "x_wins": solution.x_wins,
            "draws": solution.draws,
            "o_wins": solution.o_wins,
            "classes": solution.classes,
            "value": value,
            "micros": micros,
        }),
    )
}

/// Where `book-build` writes.
struct BuildFiles {
    book: std::path::PathBuf,
    checkpoint: Option<std::path::PathBuf>,
}

/// Writes `bytes` to `path` through a temporary file, so a reader never sees half of it.
fn write_whole(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let partial = path.with_extension("tmp");
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, path)?;
    Ok(())
}

/// `book-build`: rounds of the proof-number search, a checkpoint after each, the book at the end.
fn run_book_build(
    out: &mut impl Write,
    mut builder: Builder,
    files: &BuildFiles,
    minutes: u64,
    round: u64,
) -> Result<()> {
    let start = Instant::now();
    loop {
        builder.run(round);
        if let Some(path) = &files.checkpoint {
            write_whole(path, &builder.checkpoint())?;
        }
        let p = builder.progress();
        let done = builder.solved() || p.root_disproof == 0;
        print(
            out,
            &json!({
                "seconds": start.elapsed().as_secs(),
                "nodes": p.nodes,
                "expanded": p.expanded,
                "proven": p.proven,
                "disproven": p.disproven,
                "root_proof": p.root_proof,
                "root_disproof": p.root_disproof,
                "solved": builder.solved(),
            }),
        )?;
        if done || start.elapsed().as_secs() >= minutes * 60 {
            break;
        }
    }
    let book = builder.book();
    write_whole(&files.book, &book.to_bytes())?;
    print(
        out,
        &json!({"book_entries": book.len(), "seconds": start.elapsed().as_secs()}),
    )
}

/// `defence-build`: O's book by `plan`, a progress line every 50 positions.
fn run_defence_build(
    out: &mut impl Write,
    plan: &defence_build::Plan,
    path: &std::path::Path,
) -> Result<()> {
    let start = Instant::now();
    let line = |r: &defence_build::Report| {
        json!({"seconds": start.elapsed().as_secs(), "positions": r.positions,
            "entries": r.entries, "lost": r.lost, "refuted": r.refuted})
    };
    let (mut written, mut last) = (Ok(()), defence_build::Report::default());
    let book = defence_build::build(plan, |r| {
        last = *r;
        if r.positions % 50 == 0 && written.is_ok() {
            written = print(out, &line(r));
        }
    });
    written?;
    write_whole(path, &book.to_bytes())?;
    let mut end = line(&last);
    end["book_entries"] = book.len().into();
    print(out, &end)
}

/// `book-verify`: the verifier over a book file or the shipped book.
fn run_book_verify(out: &mut impl Write, path: Option<&std::path::Path>) -> Result<()> {
    let owned;
    let book = match path {
        Some(path) => {
            owned = Book::parse(&std::fs::read(path)?)?;
            &owned
        }
        None => book::shipped(),
    };
    let start = Instant::now();
    let from_empty = verify(book, 0, 0, None);
    let entries = verify_all(book);
    let shown = |r: &Result<Checked, NotShown>| match r {
        Ok(c) => json!({"won": true, "positions": c.positions, "book_moves": c.book_moves,
            "threat_leaves": c.threat_leaves, "plies": c.plies}),
        Err(n) => json!({"won": false, "not_shown": Board::from_masks(Variant::Qubic, n.x, n.o)
            .map(|b| b.to_compact()).unwrap_or_default()}),
    };
    print(
        out,
        &json!({
            "entries": book.len(),
            "empty_board": shown(&from_empty),
            "every_entry": shown(&entries),
            "micros": start.elapsed().as_micros() as u64,
        }),
    )?;
    if entries.is_err() {
        std::process::exit(1);
    }
    Ok(())
}

/// What `selfplay` was asked to play.
struct Selfplay {
    variant: Variant,
    /// The levels given as --x and --o.
    levels: [Level; 2],
    games: u32,
    seed: u64,
    alternate: bool,
    budget: Budget,
    /// Plies a `hard` seat searches, when not its own depth.
    hard_depth: Option<u32>,
    each: bool,
}

/// One game of `selfplay` from the empty board: the moves and the winner.
fn play_game(plan: &Selfplay, seats: [Level; 2], rng: &mut Rng) -> (Vec<usize>, Option<Mark>) {
    let mut board = Board::new(plan.variant);
    let mut moves = Vec::new();
    // One engine per game: what it remembers from move to move, as an AI seat would.
    let mut engine = Engine::new();
    let mut choose =
        |board: &Board, rng: &mut Rng| match (seats[board.ply() as usize % 2], plan.hard_depth) {
            (Level::Hard, Some(depth)) => choose_hard_move(board, depth, rng),
            (level, _) => engine.choose_move(board, level, rng, plan.budget),
        };
    while let Some(choice) = choose(&board, rng) {
        moves.push(choice.cell);
        board = board.play_unchecked(choice.cell);
    }
    let winner = match board.outcome() {
        Some(Outcome::Win { mark, .. }) => Some(mark),
        _ => None,
    };
    (moves, winner)
}

/// `selfplay`: the games, then the tally.
fn run_selfplay(out: &mut impl Write, plan: &Selfplay) -> Result<()> {
    let [x, o] = plan.levels;
    let (mut x_wins, mut o_wins, mut draws) = (0u32, 0u32, 0u32);
    // Wins by the level given as --x and by the one given as --o, whichever colour.
    let (mut first_wins, mut second_wins) = (0u32, 0u32);
    let start = Instant::now();
    for game in 0..plan.games {
        let swapped = plan.alternate && game % 2 == 1;
        let seats = if swapped { [o, x] } else { [x, o] };
        let mut rng = Rng::with_seed(plan.seed.wrapping_add(game as u64));
        let (moves, winner) = play_game(plan, seats, &mut rng);
        match winner {
            Some(Mark::X) => x_wins += 1,
            Some(Mark::O) => o_wins += 1,
            None => draws += 1,
        }
        match (winner, swapped) {
            (Some(Mark::X), false) | (Some(Mark::O), true) => first_wins += 1,
            (Some(_), _) => second_wins += 1,
            (None, _) => {}
        }
        if plan.each {
            print(
                out,
                &json!({
                    "game": game + 1,
                    "x": seats[0].name(),
                    "o": seats[1].name(),
                    "winner": winner.map(|m| m.to_string()),
                    "moves": moves,
                }),
            )?;
        }
    }
    print(
        out,
        &json!({
            "variant": plan.variant.name(),
            "games": plan.games,
            "x_wins": x_wins,
            "o_wins": o_wins,
            "draws": draws,
            "first": {"level": x.name(), "wins": first_wins},
            "second": {"level": o.name(), "wins": second_wins},
            "seed": plan.seed,
            "hard_depth": plan.hard_depth,
            "micros": start.elapsed().as_micros() as u64,
        }),
    )
}
