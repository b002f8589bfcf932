//! The suite's lobby targets: the site (listed games played through the lobby, lobby followers,
//! watchers of featured games) against the private-room games of the same run, and the server's
//! CPU a move as the lobby's followers grow beside the same listed games.

use anyhow::Context;

use crate::judge::{Verdict, errors, ms};
use crate::report::Report;
use crate::site::SiteOptions;
use crate::sizes::Sizes;
use crate::target::Target;

/// What the lobby's scenarios measured.
#[derive(Debug, Clone)]
pub struct LobbyRuns {
    /// The site.
    pub site: Report,
    /// The same listed games beside more and more lobby followers, in the order of the sizes.
    pub flat: Vec<Report>,
}

/// A fresh server with room for so many connections.
pub type Server<'a> = &'a dyn Fn(usize) -> anyhow::Result<Target>;

/// Runs the site and the flat series, each against its own fresh server.
pub async fn run(
    server: Server<'_>,
    sizes: &Sizes,
    say: &dyn Fn(&Report),
) -> anyhow::Result<LobbyRuns> {
    let site = one(server, &sizes.site).await.context("site")?;
    say(&site);
    let mut flat = Vec::new();
    for options in &sizes.flat {
        let report = one(server, options).await.context("site, flat")?;
        say(&report);
        flat.push(report);
    }
    Ok(LobbyRuns { site, flat })
}

async fn one(server: Server<'_>, options: &SiteOptions) -> anyhow::Result<Report> {
    let connections = options.games * 2 + options.followers + options.watchers;
    let target = server(connections)?;
    crate::site::run(&target.url, target.probe, options).await
}

/// The server's CPU microseconds a move, when it is known.
pub fn cpu_per_move(report: &Report) -> Option<f64> {
    let server = report.server?;
    (report.ops > 0).then(|| server.cpu_secs * 1e6 / report.ops as f64)
}

/// The command line of a `site` run.
pub fn command(o: &SiteOptions) -> String {
    format!(
        "noughts-loadgen site --games {} --followers {} --watchers {} --rate {} --secs {}",
        o.games, o.followers, o.watchers, o.rate, o.secs
    )
}

/// The lobby's two targets, the site's judged against the private-room `games` of the same run.
pub fn verdicts(sizes: &Sizes, runs: &LobbyRuns, games: &Report) -> Vec<Verdict> {
    vec![site(sizes, &runs.site, games), flat(sizes, &runs.flat)]
}

fn site(sizes: &Sizes, site: &Report, games: &Report) -> Verdict {
    let o = &sizes.site;
    let figure = |name: &str| site.figures.get(name).copied();
    let frames = figure("lobby_frames_per_follower_per_sec");
    let (cpu, private) = (cpu_per_move(site), cpu_per_move(games));
    let ratio = cpu.zip(private).map(|(cpu, private)| cpu / private);
    let p99 = site.latency.map(|l| l.p99_us);
    let words =
        |v: Option<f64>, unit: &str| v.map_or("–".to_owned(), |v| format!("{v:.0} {unit}"));
    Verdict {
        target: format!(
            "6a. The site: {} listed classic games ({} players) at {} move/s, {} more lobby followers, {} watchers: move p99 < 5 ms, server CPU a move ≤ 1.25× the private-room games' (1.), ≤ 2 lobby frames a second per follower, no errors",
            o.games,
            o.games * 2,
            o.rate,
            o.followers,
            o.watchers
        ),
        measured: format!(
            "p99 {}; CPU a move {} against {} in private rooms ({}); {} lobby frames a second per follower (the most {}); {} games from public rooms, {} by quick match, {} featured games watched; {}",
            p99.map_or("–".to_owned(), ms),
            words(cpu, "µs"),
            words(private, "µs"),
            ratio.map_or("–".to_owned(), |r| format!("{r:.2}×")),
            frames.map_or("–".to_owned(), |f| format!("{f:.2}")),
            figure("lobby_frames_most_per_sec").map_or("–".to_owned(), |f| format!("{f:.2}")),
            figure("games_from_rooms").unwrap_or(0.0),
            figure("games_from_seeks").unwrap_or(0.0),
            figure("games_watched").unwrap_or(0.0),
            errors(site)
        ),
        pass: p99.is_some_and(|p| p < 5_000)
            && ratio.is_some_and(|r| r <= 1.25)
            && frames.is_some_and(|f| f <= 2.0)
            && site.error_count() == 0,
        judged: true,
        info: false,
        command: command(o),
    }
}

/// Followers from which the lobby's cost is its budget: below, the step from none to this many
/// is the budget itself, and the flat line starts here.
const FLAT_FROM: usize = 1000;

fn flat(sizes: &Sizes, flat: &[Report]) -> Verdict {
    let costs: Vec<Option<f64>> = flat.iter().map(cpu_per_move).collect();
    // Judged from FLAT_FROM followers on; the quick sizes, all fewer, from their second on.
    let most = sizes.flat.iter().map(|o| o.followers).max().unwrap_or(0);
    let from = if most >= FLAT_FROM {
        FLAT_FROM
    } else {
        sizes.flat.get(1).map_or(0, |o| o.followers)
    };
    let judged: Vec<bool> = sizes.flat.iter().map(|o| o.followers >= from).collect();
    let known: Vec<f64> = (costs.iter().zip(&judged))
        .filter(|(_, judged)| **judged)
        .filter_map(|(cost, _)| *cost)
        .collect();
    let asked = judged.iter().filter(|j| **j).count();
    let spread = match (
        known.iter().copied().reduce(f64::min),
        known.iter().copied().reduce(f64::max),
    ) {
        (Some(low), Some(high)) if low > 0.0 && known.len() == asked && asked > 1 => {
            Some(high / low)
        }
        _ => None,
    };
    let each: Vec<String> = (sizes.flat.iter().zip(&costs).zip(&judged))
        .map(|((o, cost), judged)| {
            let cost = cost.map_or("–".to_owned(), |c| format!("{c:.0} µs"));
            let info = if *judged { "" } else { " (information)" };
            format!("{} followers: {cost}{info}", o.followers)
        })
        .collect();
    let judged_followers: Vec<String> = (sizes.flat.iter().zip(&judged))
        .filter(|(_, judged)| **judged)
        .map(|(o, _)| o.followers.to_string())
        .collect();
    let games = sizes.flat.first().map_or(0, |o| o.games);
    Verdict {
        target: format!(
            "6b. Lobby (c). Flat: server CPU a move beside {games} listed games with {} lobby followers, within 15% of each other (the step from none is the lobby's budget itself)",
            judged_followers.join(" and ")
        ),
        measured: format!(
            "{}; highest ÷ lowest {}; {}",
            each.join(", "),
            spread.map_or("–".to_owned(), |s| format!("{s:.2}")),
            flat.iter().map(errors).collect::<Vec<_>>().join(", ")
        ),
        pass: spread.is_some_and(|s| s <= 1.15) && flat.iter().all(|r| r.error_count() == 0),
        judged: true,
        info: false,
        command: sizes.flat.first().map_or(String::new(), |o| {
            format!("{} (--followers as listed)", command(o))
        }),
    }
}
