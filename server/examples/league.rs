//! The engines' league played offline: the AI levels meet in a double round robin on each variant,
//! every move with the same fixed time, and the league's table (points, and each level's Glicko-2
//! rating with its deviation) is printed as Markdown. What BENCHMARKS.md's league table and the
//! ratings the page shows beside the AI's levels come from:
//!
//!     cargo run --release -p noughts-server --example league -- --games 2000 --move-ms 20

use std::time::Instant;

use clap::Parser;
use noughts_engine::{Board, Budget, Level, Mark, Outcome, Rng, Variant, choose_move};
use noughts_server::league::{Finish, Pairing, Table, round};

/// Plays the league and prints its tables.
#[derive(Debug, Parser)]
struct Args {
    /// Games per variant, at least (whole rounds are played).
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Each move's thinking time, in milliseconds (perfect on qubic uses it all).
    #[arg(long, default_value_t = 20)]
    move_ms: u64,
    /// The variants, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "classic,four,cube,qubic")]
    variants: Vec<Variant>,
    /// The random seed of the levels' tie-breaking.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let args = Args::parse();
    let levels = Level::ALL;
    println!(
        "League: every level against every other with each colour, {} ms a move, {} games or more per variant (`--seed {}`).\n",
        args.move_ms, args.games, args.seed
    );
    // One variant after another, on one thread: a move's time is the same for every level only
    // if nothing else of the league competes for the core.
    let budget = Budget::millis(args.move_ms);
    for &variant in &args.variants {
        let (table, played, took) = league(variant, &levels, args.games, budget, args.seed);
        println!("### {variant} ({played} games, {:.0} s)\n", took);
        println!("| level | games | won | drawn | lost | points | rating | ± (2 deviations) |");
        println!("|---|---|---|---|---|---|---|---|");
        for (level, row) in levels.iter().zip(table.rows()) {
            println!(
                "| {level} | {} | {} | {} | {} | {:.1} | {:.0} | {:.0} |",
                row.played,
                row.wins,
                row.draws,
                row.losses,
                row.points(),
                row.rating,
                2.0 * row.deviation
            );
        }
        println!();
    }
}

/// Plays whole rounds among `levels` on `variant` until `games` have been played: the table,
/// the games played and the seconds it took.
fn league(
    variant: Variant,
    levels: &[Level],
    games: usize,
    budget: Budget,
    seed: u64,
) -> (Table, usize, f64) {
    let started = Instant::now();
    let mut rng = Rng::with_seed(seed);
    let mut table = Table::new(levels.len());
    let mut played = 0;
    while played < games {
        for game in round(levels.len()) {
            table.record(game, play(variant, levels, game, budget, &mut rng));
            played += 1;
        }
        table.close_round();
    }
    (table, played, started.elapsed().as_secs_f64())
}

/// One game of the league, from the empty board to its end.
fn play(
    variant: Variant,
    levels: &[Level],
    game: Pairing,
    budget: Budget,
    rng: &mut Rng,
) -> Finish {
    let mut board = Board::new(variant);
    loop {
        match board.outcome() {
            Some(Outcome::Win { mark: Mark::X, .. }) => return Finish::XWon,
            Some(Outcome::Win { .. }) => return Finish::OWon,
            Some(Outcome::Draw) => return Finish::Drawn,
            None => {}
        }
        let level = levels[if board.to_move() == Mark::X {
            game.x
        } else {
            game.o
        }];
        let choice = choose_move(&board, level, rng, budget).expect("a move while the game is on");
        board = board
            .play(choice.cell)
            .expect("the engine plays legal moves");
    }
}
