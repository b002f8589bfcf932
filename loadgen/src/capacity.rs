//! The capacity ramp: the site (players who follow the lobby and quick-match or use public rooms
//! into listed games played at a pace, lobby followers, watchers of featured games, as the shipped
//! clients behave) grown step by step, each step against a fresh server on its core, until the
//! move p99 passes the line or errors appear. What it prints is the most concurrent games the
//! server held within the line: what one core serves. A ramp whose first step is not held steps
//! down instead, halving, until a step is held. What runs a step is pluggable ([`Stepper`]): the
//! noughts server here, the Colyseus peer in `peer`; the stepping and the judging are the same.

use std::fmt::{self, Write as _};

use anyhow::Context;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;

use crate::judge::{errors, ms};
use crate::lobby_cost::{Server, cpu_per_move};
use crate::report::Report;
use crate::site::SiteOptions;
pub use crate::sizes::CapacityOptions;

/// The fewest games a ramp stepping down tries.
const FLOOR: usize = 8;

impl CapacityOptions {
    /// The site of one step. Its warm-up grows by a second for each 1,000 connections: a big
    /// step's start (every client connecting, saying hello and finding its first game at once)
    /// takes longer than a small one's, and measured it would be counted as the steady state.
    pub fn site(&self, games: usize) -> SiteOptions {
        let followers = (games as f64 * self.followers_per_game).round() as usize;
        let watchers = (games as f64 * self.watchers_per_game).round() as usize;
        let connections = games * 2 + followers + watchers;
        SiteOptions {
            games,
            followers,
            watchers,
            rate: self.rate,
            host_share: 0.05,
            warmup: self.warmup + connections as f64 / 1000.0,
            secs: self.secs,
        }
    }

    /// Whether a step's report is within the line.
    fn held(&self, report: &Report) -> bool {
        let p99_ok = (report.latency).is_some_and(|l| l.p99_us as f64 <= self.p99_ms * 1000.0);
        p99_ok && report.error_count() == 0
    }
}

/// What runs one step: the site at a size against a fresh server, measured.
pub trait Stepper {
    fn step<'a>(&'a self, site: &'a SiteOptions) -> LocalBoxFuture<'a, anyhow::Result<Report>>;
}

/// The noughts server: the site against a fresh one a step.
pub struct Noughts<'a>(pub Server<'a>);

impl fmt::Debug for Noughts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Noughts")
    }
}

impl Stepper for Noughts<'_> {
    fn step<'a>(&'a self, site: &'a SiteOptions) -> LocalBoxFuture<'a, anyhow::Result<Report>> {
        Box::pin(async move {
            let connections = site.games * 2 + site.followers + site.watchers;
            let target = (self.0)(connections)?;
            crate::site::run(&target.url, target.probe, site).await
        })
    }
}

/// One step of the ramp.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub games: usize,
    pub report: Report,
    pub held: bool,
}

/// The whole ramp.
#[derive(Debug, Clone, Serialize)]
pub struct Ramp {
    pub line_ms: f64,
    pub steps: Vec<Step>,
}

impl Ramp {
    /// The most games held within the line, if any step was: the last step held going up, or
    /// the first held stepping down.
    pub fn most_held(&self) -> Option<usize> {
        self.steps
            .iter()
            .filter(|step| step.held)
            .map(|step| step.games)
            .max()
    }
}

/// Runs the ramp: one fresh server a step, until a step is not held or `max` is passed; if the
/// first step is not held, down from it, halving, until one is or the floor is passed.
pub async fn run(
    stepper: &dyn Stepper,
    options: &CapacityOptions,
    say: &dyn Fn(&Step),
) -> anyhow::Result<Ramp> {
    let mut ramp = Ramp {
        line_ms: options.p99_ms,
        steps: Vec::new(),
    };
    let mut games = options.start.max(1);
    let mut down = false;
    while games <= options.max && games >= FLOOR.min(options.start.max(1)) {
        let site = options.site(games);
        let report = stepper
            .step(&site)
            .await
            .with_context(|| format!("capacity, {games} games"))?;
        let step = Step {
            games,
            held: options.held(&report),
            report,
        };
        say(&step);
        let held = step.held;
        let first = ramp.steps.is_empty();
        ramp.steps.push(step);
        match (held, first || down) {
            (true, _) if down => break,
            (true, _) => games += options.step.max(1),
            (false, true) => {
                down = true;
                games /= 2;
            }
            (false, false) => break,
        }
    }
    Ok(ramp)
}

/// The steps of ramps side by side, each under its name, as a Markdown table.
pub fn table(ramps: &[(&str, &Ramp)]) -> String {
    let mut md = String::from(
        "| Server | Games | Connections | Moves/s | Move p99 | Server CPU | CPU a move | Errors | Held |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for (name, ramp) in ramps {
        for step in &ramp.steps {
            let r = &step.report;
            let cpu = r.server.map_or("–".to_owned(), |s| {
                format!("{:.0}%", s.cpu_secs * 100.0 / r.secs.max(1e-9))
            });
            let per_move = cpu_per_move(r).map_or("–".to_owned(), |us| format!("{us:.0} µs"));
            let _ = writeln!(
                md,
                "| {name} | {} | {} | {:.0} | {} | {cpu} | {per_move} | {} | {} |",
                step.games,
                r.connections,
                r.ops_per_sec,
                r.latency.map_or("–".to_owned(), |l| ms(l.p99_us)),
                r.error_count(),
                if step.held { "yes" } else { "**no**" }
            );
        }
    }
    md
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Latency;

    /// A server that holds up to `limit` games: within the line below it, far over above it.
    struct Holds {
        limit: usize,
        tried: std::cell::RefCell<Vec<usize>>,
    }

    impl Stepper for Holds {
        fn step<'a>(&'a self, site: &'a SiteOptions) -> LocalBoxFuture<'a, anyhow::Result<Report>> {
            self.tried.borrow_mut().push(site.games);
            let p99_us = if site.games <= self.limit {
                1_000
            } else {
                90_000
            };
            Box::pin(async move {
                Ok(Report {
                    latency: Some(Latency {
                        p99_us,
                        ..Latency::default()
                    }),
                    ..Report::default()
                })
            })
        }
    }

    fn ramp(limit: usize) -> (Vec<usize>, Option<usize>) {
        let options = CapacityOptions {
            start: 500,
            step: 500,
            max: 3000,
            followers_per_game: 2.0,
            watchers_per_game: 0.5,
            rate: 1.0,
            p99_ms: 50.0,
            warmup: 0.0,
            secs: 0.0,
        };
        let holds = Holds {
            limit,
            tried: Default::default(),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let ramp = runtime
            .block_on(run(&holds, &options, &|_| {}))
            .expect("ramp");
        (holds.tried.into_inner(), ramp.most_held())
    }

    #[test]
    fn the_ramp_climbs_to_the_first_step_not_held_and_steps_down_from_a_first_miss() {
        assert_eq!(ramp(1700), (vec![500, 1000, 1500, 2000], Some(1500)));
        assert_eq!(
            ramp(10_000),
            (vec![500, 1000, 1500, 2000, 2500, 3000], Some(3000))
        );
        assert_eq!(ramp(200), (vec![500, 250, 125], Some(125)));
        // Down to the floor of eight games, and no further.
        assert_eq!(ramp(0), (vec![500, 250, 125, 62, 31, 15], None));
    }
}
