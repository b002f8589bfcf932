//! The engines' league as the server itself plays it, fast: a server started with its war games
//! back to back (no pause between moves or games) on a fresh database, asked for each variant's
//! table until every variant has counted the games wanted; the tables, as Markdown.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use noughts_protocol::{ClientMessage, LeagueTable, ServerMessage, Variant};

use crate::client::{self, Socket};
use crate::target::Target;

/// How often the tables are asked for while the league plays.
const LOOK_EVERY: Duration = Duration::from_secs(10);

/// What to play.
#[derive(Debug, Clone, clap::Args)]
pub struct LeagueOptions {
    /// League games per variant, at least.
    #[arg(long, default_value_t = 2000)]
    pub games: u32,
    /// Each war-game move's search time in milliseconds (`--war-budget-ms`).
    #[arg(long, default_value_t = 20)]
    pub move_ms: u64,
    /// The variants, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "classic,four,cube,qubic")]
    pub variants: Vec<Variant>,
    /// Stop after this many seconds, printing the tables as far as they got.
    #[arg(long, default_value_t = 36_000.0)]
    pub max_secs: f64,
}

/// The flags that start `noughts-server` with only the league to do: the variants' war games,
/// back to back, with `move_ms` a move, on the database `db` with moves synced every few ms.
pub fn server_args(options: &LeagueOptions, db: &Path) -> Vec<String> {
    let variants: Vec<String> = options.variants.iter().map(|v| v.to_string()).collect();
    [
        "--listen",
        "127.0.0.1:0",
        "--no-arena-schedule",
        "--durability",
        "interval",
        "--war-move-ms",
        "0",
        "--war-restart-ms",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--war-budget-ms".to_owned(),
        options.move_ms.to_string(),
        "--war-variants".to_owned(),
        variants.join(","),
        "--db".to_owned(),
        db.display().to_string(),
    ])
    .collect()
}

/// Starts `program` with [`server_args`] on a fresh file in `db_dir` (kept, so that the games
/// can be looked at afterwards), waits for the tables and prints them.
pub async fn command(
    program: &Path,
    db_dir: &Path,
    cpus: Option<&str>,
    options: &LeagueOptions,
) -> anyhow::Result<String> {
    let db = db_dir.join(format!("noughts-league-{}.db", std::process::id()));
    let target = Target::start(program, &server_args(options, &db), cpus)?;
    eprintln!(
        "league: server at {}, games in {}",
        target.url,
        db.display()
    );
    let tables = watch(&target.url, options).await?;
    Ok(markdown(options, &tables))
}

/// Asks the server at `url` for each variant's table every few seconds until each has counted
/// `options.games` (or time runs out); the last tables.
pub async fn watch(url: &str, options: &LeagueOptions) -> anyhow::Result<Vec<(LeagueTable, f64)>> {
    let mut ws = client::connect(url, None).await?;
    client::hello(&mut ws, "league-bench", None).await?;
    let started = Instant::now();
    let mut done: Vec<Option<(LeagueTable, f64)>> = vec![None; options.variants.len()];
    loop {
        let mut last = Vec::new();
        for (i, &variant) in options.variants.iter().enumerate() {
            if done[i].is_some() {
                continue;
            }
            let table = table(&mut ws, variant).await?;
            let took = started.elapsed().as_secs_f64();
            eprintln!("league: {variant} {} games after {took:.0} s", table.games);
            if table.games >= options.games {
                done[i] = Some((table, took));
            } else {
                last.push((i, table, took));
            }
        }
        if done.iter().all(Option::is_some) {
            break;
        }
        if started.elapsed().as_secs_f64() > options.max_secs {
            eprintln!("league: out of time; the tables as far as they got");
            for (i, table, took) in last {
                done[i] = Some((table, took));
            }
            break;
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
    Ok(done.into_iter().flatten().collect())
}

/// One `league` request and its answer.
async fn table(ws: &mut Socket, variant: Variant) -> anyhow::Result<LeagueTable> {
    let message: ClientMessage =
        serde_json::from_value(serde_json::json!({"type": "league", "variant": variant}))?;
    client::send(ws, message).await?;
    let table = client::until(ws, |m| match m {
        ServerMessage::LeagueTable(table) if table.variant == variant => Some(table),
        _ => None,
    })
    .await
    .with_context(|| format!("no {variant} league table"))?;
    if table.standings.is_empty() {
        bail!("the {variant} league has no entrants");
    }
    Ok(*table)
}

/// The tables as BENCHMARKS.md shows them, each entrant's rating with two deviations.
pub fn markdown(options: &LeagueOptions, tables: &[(LeagueTable, f64)]) -> String {
    let mut out = format!(
        "League as the server plays it: its war games back to back, {} ms a move, {} games or \
         more per variant.\n\n",
        options.move_ms, options.games
    );
    for (table, took) in tables {
        let _ = writeln!(
            out,
            "#### {} ({} games, {took:.0} s)\n",
            table.variant, table.games
        );
        out.push_str(
            "| entrant | games | won | drawn | lost | points | rating | ± (2 deviations) |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for row in &table.standings {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.1} | {} | {} |",
                row.name,
                row.games,
                row.wins,
                row.draws,
                row.losses,
                row.points,
                row.rating,
                2 * row.deviation
            );
        }
        out.push('\n');
    }
    out
}
