//! The capacity ramp: the site (players who follow the lobby and quick-match or use public rooms
//! into listed games played at a pace, lobby followers, watchers of featured games, as the shipped
//! clients behave) grown step by step, each step against a fresh server on its core, until the
//! move p99 passes the line or errors appear. What it prints is the most concurrent games the
//! server held within the line: what one core serves.

use std::fmt;

use anyhow::Context;

use crate::judge::{errors, ms};
use crate::lobby_cost::{Server, cpu_per_move};
use crate::report::Report;
use crate::site::SiteOptions;

/// How the ramp grows.
#[derive(Debug, Clone, clap::Args)]
pub struct CapacityOptions {
    /// Games at the first step.
    #[arg(long, default_value_t = 500)]
    pub start: usize,
    /// Games added at each step.
    #[arg(long, default_value_t = 500)]
    pub step: usize,
    /// The most games tried.
    #[arg(long, default_value_t = 8000)]
    pub max: usize,
    /// Lobby followers beside each game's two players (the site has two).
    #[arg(long, default_value_t = 2.0)]
    pub followers_per_game: f64,
    /// Watchers of featured games per game (the site has one for two games).
    #[arg(long, default_value_t = 0.5)]
    pub watchers_per_game: f64,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// The line: a step whose move p99 passes it (milliseconds) is not held.
    #[arg(long, default_value_t = 50.0)]
    pub p99_ms: f64,
    /// Seconds of warm-up at each step.
    #[arg(long, default_value_t = 10.0)]
    pub warmup: f64,
    /// The measured window of each step, in seconds.
    #[arg(long, default_value_t = 15.0)]
    pub secs: f64,
}

impl CapacityOptions {
    /// The site of one step.
    fn site(&self, games: usize) -> SiteOptions {
        SiteOptions {
            games,
            followers: (games as f64 * self.followers_per_game).round() as usize,
            watchers: (games as f64 * self.watchers_per_game).round() as usize,
            rate: self.rate,
            host_share: 0.05,
            warmup: self.warmup,
            secs: self.secs,
        }
    }

    /// Whether a step's report is within the line.
    fn held(&self, report: &Report) -> bool {
        let p99_ok = (report.latency).is_some_and(|l| l.p99_us as f64 <= self.p99_ms * 1000.0);
        p99_ok && report.error_count() == 0
    }
}

/// One step of the ramp.
#[derive(Debug, Clone)]
pub struct Step {
    pub games: usize,
    pub report: Report,
    pub held: bool,
}

/// The whole ramp.
#[derive(Debug, Clone)]
pub struct Ramp {
    pub line_ms: f64,
    pub steps: Vec<Step>,
}

impl Ramp {
    /// The most games held within the line, if any step was.
    pub fn most_held(&self) -> Option<usize> {
        self.steps
            .iter()
            .take_while(|step| step.held)
            .map(|step| step.games)
            .last()
    }
}

/// Runs the ramp: one fresh server a step, until a step is not held or `max` is passed.
pub async fn run(
    server: Server<'_>,
    options: &CapacityOptions,
    say: &dyn Fn(&Step),
) -> anyhow::Result<Ramp> {
    let mut ramp = Ramp {
        line_ms: options.p99_ms,
        steps: Vec::new(),
    };
    let mut games = options.start.max(1);
    while games <= options.max {
        let site = options.site(games);
        let connections = site.games * 2 + site.followers + site.watchers;
        let target = server(connections)?;
        let report = crate::site::run(&target.url, target.probe, &site)
            .await
            .with_context(|| format!("capacity, {games} games"))?;
        drop(target);
        let step = Step {
            games,
            held: options.held(&report),
            report,
        };
        say(&step);
        let held = step.held;
        ramp.steps.push(step);
        if !held {
            break;
        }
        games += options.step.max(1);
    }
    Ok(ramp)
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        let p99 = r.latency.map_or("no moves".to_owned(), |l| ms(l.p99_us));
        let cpu = r.server.map_or("?".to_owned(), |s| {
            format!("{:.0}% of a core", s.cpu_secs * 100.0 / r.secs)
        });
        let per_move = cpu_per_move(r).map_or("?".to_owned(), |us| format!("{us:.0} µs"));
        // A generator near a whole core measures itself, not the server.
        let generator = r.generator.map_or("?".to_owned(), |g| {
            format!("{:.0}% of a core", g.cpu_secs * 100.0 / r.secs)
        });
        write!(
            f,
            "{:>6} games, {:>6} connections: {:.0} moves/s, p99 {p99}, server {cpu} ({per_move} a move), generator {generator}, {}{}",
            self.games,
            r.connections,
            r.ops_per_sec,
            errors(r),
            if self.held { "" } else { " — not held" }
        )
    }
}

impl fmt::Display for Ramp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            writeln!(f, "  {step}")?;
        }
        match self.most_held() {
            Some(games) => writeln!(
                f,
                "most concurrent games held (move p99 within {} ms, no errors): {games}",
                self.line_ms
            ),
            None => writeln!(f, "no step held within {} ms", self.line_ms),
        }
    }
}
