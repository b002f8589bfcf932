//! The suite's lobby targets: the site (listed games played through the lobby, lobby followers,
//! watchers of featured games) against the private-room games of the same run, the server's
//! CPU a move as the lobby's followers grow beside the same listed games, and an arena against
//! the site.

use anyhow::Context;

use crate::arena::ArenaOptions;
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

/// One site run against its own fresh server.
pub async fn one(server: Server<'_>, options: &SiteOptions) -> anyhow::Result<Report> {
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

/// Runs the arena against its own fresh server.
pub async fn arena(server: Server<'_>, sizes: &Sizes) -> anyhow::Result<Report> {
    let options = &sizes.arena;
    let target = server(options.players + options.watchers)?;
    crate::arena::run(&target.url, target.probe, options)
        .await
        .context("arena")
}

/// The command line of an `arena` run.
pub fn arena_command(o: &ArenaOptions) -> String {
    format!(
        "noughts-loadgen arena --players {} --watchers {} --rate {} --withdraw-share {} --secs {}",
        o.players, o.watchers, o.rate, o.withdraw_share, o.secs
    )
}

/// The arena's target, judged against the site of the same run: its move p99 and its server CPU
/// a move within 1.25× of the site's, its standings frames bounded by their push rate.
pub fn arena_verdict(sizes: &Sizes, arena: &Report, site: &Report) -> Verdict {
    let o = &sizes.arena;
    let figure = |name: &str| arena.figures.get(name).copied();
    let (p99, site_p99) = (
        arena.latency.map(|l| l.p99_us),
        site.latency.map(|l| l.p99_us),
    );
    let p99_ratio = p99.zip(site_p99).map(|(a, s)| a as f64 / s.max(1) as f64);
    let (cpu, site_cpu) = (cpu_per_move(arena), cpu_per_move(site));
    let cpu_ratio = cpu.zip(site_cpu).map(|(a, s)| a / s);
    let frames = figure("standings_frames_per_watcher_per_sec");
    let most = figure("standings_frames_most_per_sec");
    // The push rate, and one frame more at the window's edge for the busiest watcher.
    let bound = ARENA_PUSHES_PER_SEC;
    let most_bound = bound + 1.0 / o.secs.max(1e-3);
    let ratio = |r: Option<f64>| r.map_or("–".to_owned(), |r| format!("{r:.2}×"));
    let number =
        |v: Option<f64>, digits: usize| v.map_or("–".to_owned(), |v| format!("{v:.digits$}"));
    let p = |us: Option<u64>| us.map_or("–".to_owned(), ms);
    Verdict {
        target: format!(
            "6c. An arena: {} players (paired by the server, back to the arena between games, some withdrawing and joining again) at {} move/s, {} watchers of its standings: move p99 and server CPU a move ≤ 1.25× the site's (6a), ≤ {bound} standings frames a second per watcher, no errors",
            o.players, o.rate, o.watchers
        ),
        measured: format!(
            "p99 {} against the site's {} ({}); CPU a move {} µs against {} µs ({}); standings a second: {} frames ({} bytes) per watcher (the most {}), {} frames ({} bytes) per player; {} games paired, {} withdrawals, {} joins again; accounts registered and arena joined in {} s; {}",
            p(p99),
            p(site_p99),
            ratio(p99_ratio),
            number(cpu, 0),
            number(site_cpu, 0),
            ratio(cpu_ratio),
            number(frames, 2),
            number(figure("standings_bytes_per_watcher_per_sec"), 0),
            number(most, 2),
            number(figure("standings_frames_per_player_per_sec"), 2),
            number(figure("standings_bytes_per_player_per_sec"), 0),
            figure("games_paired").unwrap_or(0.0),
            figure("withdrawals").unwrap_or(0.0),
            figure("rejoins").unwrap_or(0.0),
            number(figure("setup_secs"), 0),
            errors(arena)
        ),
        pass: p99_ratio.is_some_and(|r| r <= 1.25)
            && cpu_ratio.is_some_and(|r| r <= 1.25)
            && frames.is_some_and(|f| f <= bound)
            && most.is_some_and(|m| m <= most_bound)
            && arena.error_count() == 0,
        judged: true,
        info: false,
        command: arena_command(o),
    }
}

/// How often an arena pushes its standings at most (PROTOCOL.md, "Arenas").
const ARENA_PUSHES_PER_SEC: f64 = 2.0;
