//! `noughts-engine`: the analysis command line. Every command prints JSON lines, so bots, tests and
//! benchmarks can read its answers.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use noughts_engine::solve::{perft, solve};
use noughts_engine::{
    Analysis, Board, Budget, Level, Mark, Outcome, Rng, Value, Variant, analyse, choose_move,
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
        /// easy, medium, hard or perfect.
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

fn print(out: &mut impl Write, line: &Json) -> Result<()> {
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(cli.command, &mut out) {
        // The reader went away (`noughts-engine ... | head`): nothing more to say.
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn run(command: Command, out: &mut impl Write) -> Result<()> {
    match command {
        Command::Best {
            variant,
            board,
            level,
            seed,
            budget_ms,
        } => {
            let mut rng = seed.map_or_else(Rng::new, Rng::with_seed);
            match board {
                Some(text) => {
                    let board = parse_board(variant, &text);
                    print(out, &best(&board, level, &mut rng, budget(budget_ms)))?;
                }
                None => {
                    for line in std::io::stdin().lock().lines() {
                        let line = line?;
                        if line.trim().is_empty() {
                            continue;
                        }
                        let answer = match Board::parse(variant, &line) {
                            Ok(board) => best(&board, level, &mut rng, budget(budget_ms)),
                            Err(e) => json!({"error": format!("invalid board: {e}")}),
                        };
                        print(out, &answer)?;
                    }
                }
            }
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
            print(out, &eval_json(&board, &analysis, micros))?;
        }
        Command::Perft {
            variant,
            depth,
            board,
        } => {
            let board = board.map_or(Board::new(variant), |text| parse_board(variant, &text));
            for d in 1..=depth {
                let start = Instant::now();
                let leaves = perft(&board, d);
                let micros = start.elapsed().as_micros() as u64;
                print(
                    out,
                    &json!({"depth": d, "leaves": leaves, "micros": micros}),
                )?;
            }
        }
        Command::Solve { variant } => solve_command(out, variant)?,
        Command::Selfplay {
            variant,
            x,
            o,
            games,
            seed,
            alternate,
            budget_ms,
            each,
        } => {
            if games == 0 {
                bad_argument("--games must be at least 1");
            }
            let match_ = Match {
                variant,
                x,
                o,
                games,
                seed: seed.unwrap_or_else(|| Rng::new().u64(..)),
                alternate,
                budget: budget(budget_ms),
                each,
            };
            selfplay(out, &match_)?;
        }
    }
    Ok(())
}

fn solve_command(out: &mut impl Write, variant: Variant) -> Result<()> {
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

/// A `selfplay` run: two levels, a number of games, and how they are played.
struct Match {
    variant: Variant,
    x: Level,
    o: Level,
    games: u32,
    seed: u64,
    alternate: bool,
    budget: Budget,
    each: bool,
}

fn selfplay(out: &mut impl Write, m: &Match) -> Result<()> {
    let (mut x_wins, mut o_wins, mut draws) = (0u32, 0u32, 0u32);
    // Wins by the level given as --x and by the one given as --o, whichever colour.
    let (mut first_wins, mut second_wins) = (0u32, 0u32);
    let start = Instant::now();
    for game in 0..m.games {
        let swapped = m.alternate && game % 2 == 1;
        let seats = if swapped { [m.o, m.x] } else { [m.x, m.o] };
        let mut rng = Rng::with_seed(m.seed.wrapping_add(game as u64));
        let mut board = Board::new(m.variant);
        let mut moves = Vec::new();
        while let Some(choice) =
            choose_move(&board, seats[board.ply() as usize % 2], &mut rng, m.budget)
        {
            moves.push(choice.cell);
            board = board.play_unchecked(choice.cell);
        }
        let winner = match board.outcome() {
            Some(Outcome::Win { mark, .. }) => Some(mark),
            _ => None,
        };
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
        if m.each {
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
            "variant": m.variant.name(),
            "games": m.games,
            "x_wins": x_wins,
            "o_wins": o_wins,
            "draws": draws,
            "first": {"level": m.x.name(), "wins": first_wins},
            "second": {"level": m.o.name(), "wins": second_wins},
            "seed": m.seed,
            "micros": start.elapsed().as_micros() as u64,
        }),
    )
}
