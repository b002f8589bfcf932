//! The server's performance targets in one run, each scenario against a fresh server, and the
//! results table of `BENCHMARKS.md` rewritten from what was measured.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::capacity::{self, Noughts, Ramp, Step};
use crate::judge::{self, Measured, Verdict, ms};
use crate::peer::{self, Peer, Sides};
use crate::report::Report;
use crate::sizes::Sizes;
use crate::target::Target;

/// Where the suite's servers come from: started fresh for each scenario, or already running.
pub trait Launcher {
    /// A noughts server with room for `connections`, on the store the run was asked for.
    fn server(&self, connections: usize) -> anyhow::Result<Target>;
    /// A noughts server with room for `connections`, its games in memory.
    fn memory_server(&self, connections: usize) -> anyhow::Result<Target>;
    /// A noughts server with room for `connections`, its games in a database file whose writes
    /// are answered once written and synced within 10 ms (`--durability interval`).
    fn interval_server(&self, connections: usize) -> anyhow::Result<Target>;
    /// An echo server (which also relays).
    fn echo(&self) -> anyhow::Result<Target>;
}

/// Everything the suite measured.
#[derive(Debug, Serialize)]
pub struct SuiteResult {
    pub date: String,
    pub cores: usize,
    pub pinned: bool,
    /// Where the servers kept their games, in words.
    pub store: String,
    /// The machine's load average (1, 5, 15 minutes) when the run started: other work competes
    /// for the same cores.
    pub load_average: String,
    pub reports: Vec<Report>,
    pub verdicts: Vec<Verdict>,
    /// The peer's saturated games, paced games and idle connections, when it was run.
    pub peer: Vec<Report>,
    /// The capacity ramp on the memory store.
    pub capacity: Ramp,
    /// With the peer: its capacity ramp, and noughts' paced games on the memory store and on a
    /// database in `interval` mode (the paced games of the run are on its store).
    pub peer_capacity: Option<Ramp>,
    pub memory_games: Option<Report>,
    pub interval_games: Option<Report>,
}

/// Runs every scenario, each against its own fresh server, and judges the targets.
pub async fn run(
    launcher: &dyn Launcher,
    sizes: &Sizes,
    pinned: bool,
    progress: bool,
    peer: Option<&Peer>,
) -> anyhow::Result<SuiteResult> {
    let load_average = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let say = |report: &Report| {
        if progress {
            eprintln!("{report}");
        }
    };
    // 2. The baselines and the saturated games, back to back.
    let echo = {
        let target = launcher.echo()?;
        crate::echo::run(&target.url, target.probe, &sizes.echo)
            .await
            .context("echo")?
    };
    say(&echo);
    let saturated = saturation_rounds(launcher, sizes, &say).await?;
    // 1. Paced games.
    let games = {
        let target = launcher.server(sizes.games.games * 2)?;
        crate::games::run(&target.url, target.probe, &sizes.games)
            .await
            .context("games")?
    };
    say(&games);
    // 6. The site, and the lobby's cost as its followers grow.
    let server = |connections| launcher.server(connections);
    let lobby = crate::lobby_cost::run(&server, sizes, &say).await?;
    // 6c. An arena, judged against the site.
    let arena = crate::lobby_cost::arena(&server, sizes).await?;
    say(&arena);
    // 5. AI games beside the paced games.
    let ai = {
        let target = launcher.server(sizes.ai.games * 2 + sizes.ai.ai_games)?;
        crate::ai::run(&target.url, target.probe, &sizes.ai)
            .await
            .context("ai")?
    };
    say(&ai);
    // 4. Watchers, alone and beside paced games.
    let watchers = {
        let target = launcher.server(sizes.watchers.connections())?;
        crate::watchers::run(&target.url, target.probe, &sizes.watchers)
            .await
            .context("watchers")?
    };
    say(&watchers);
    let beside = {
        let target = launcher.server(sizes.beside.connections())?;
        crate::watchers::run(&target.url, target.probe, &sizes.beside)
            .await
            .context("watchers beside games")?
    };
    say(&beside);
    // 3. Idle connections.
    let idle = {
        let target = launcher.server(sizes.idle.connections)?;
        crate::idle::run(&target.url, target.probe, &sizes.idle)
            .await
            .context("idle")?
    };
    say(&idle);
    // 7. The capacity ramp, on the memory store (the peer keeps no store).
    let memory = |connections| launcher.memory_server(connections);
    let ramp = capacity::run(&Noughts(&memory), &sizes.capacity, &|step| {
        say_step(step, progress)
    })
    .await?;
    // The peer, its servers pinned as ours were.
    let (peer_reports, peer_capacity, beside_peer) = match peer {
        Some(peer) => {
            let (reports, ramp, beside) = against_peer(launcher, peer, sizes, progress).await?;
            say(&beside.memory);
            say(&beside.interval);
            (reports, Some(ramp), Some(beside))
        }
        None => (Vec::new(), None, None),
    };
    let mut verdicts = judge::judge(
        sizes,
        Measured {
            echo: &echo,
            relay: &saturated.relay,
            durable_relay: &saturated.durable_relay,
            durable: &saturated.durable,
            memory: &saturated.memory,
            games: &games,
            ai: &ai,
            watchers: &watchers,
            beside: &beside,
            idle: &idle,
        },
    );
    verdicts.extend(crate::lobby_cost::verdicts(sizes, &lobby, &games));
    verdicts.push(crate::lobby_cost::arena_verdict(sizes, &arena, &lobby.site));
    if let (Some(theirs), Some(beside)) = (&peer_capacity, &beside_peer) {
        verdicts.extend(crate::peer_judge::verdicts(
            sizes,
            crate::peer_judge::Against {
                ours: &ramp,
                theirs,
                idle: &idle,
                games: &games,
                memory_games: &beside.memory,
                interval_games: &beside.interval,
                peer: &peer_reports,
            },
        ));
    }
    Ok(SuiteResult {
        date: today(),
        cores: crate::target::cores(),
        pinned,
        store: String::new(),
        load_average,
        reports: vec![
            echo,
            saturated.relay,
            saturated.memory,
            saturated.durable,
            games,
            ai,
            watchers,
            beside,
            idle,
        ]
        .into_iter()
        .chain([lobby.site])
        .chain(lobby.flat)
        .chain([arena])
        .collect(),
        verdicts,
        peer: peer_reports,
        capacity: ramp,
        peer_capacity,
        memory_games: beside_peer.as_ref().map(|b| b.memory.clone()),
        interval_games: beside_peer.map(|b| b.interval),
    })
}

/// The site and the arena alone, each against its own fresh server, the arena judged against
/// the site (`suite --arena-only`): their reports and the arena's verdict.
pub async fn arena_only(
    launcher: &dyn Launcher,
    sizes: &Sizes,
    progress: bool,
) -> anyhow::Result<(Vec<Report>, Verdict)> {
    let say = |report: &Report| {
        if progress {
            eprintln!("{report}");
        }
    };
    let server = |connections| launcher.server(connections);
    let site = crate::lobby_cost::one(&server, &sizes.site)
        .await
        .context("site")?;
    say(&site);
    let arena = crate::lobby_cost::arena(&server, sizes).await?;
    say(&arena);
    let verdict = crate::lobby_cost::arena_verdict(sizes, &arena, &site);
    Ok((vec![site, arena], verdict))
}

/// A step of a capacity ramp, printed as it ends.
fn say_step(step: &Step, progress: bool) {
    if progress {
        eprintln!("capacity: {step}");
    }
}

/// noughts' paced games on other stores than the run's, set beside the peer's.
struct BesidePeer {
    /// On the memory store.
    memory: Report,
    /// On a database file in `interval` mode.
    interval: Report,
}

/// The peer's workloads and capacity ramp, and the paced games on noughts' memory store and on
/// a database in `interval` mode to set beside its paced games (the run's paced games are on the
/// run's store).
async fn against_peer(
    launcher: &dyn Launcher,
    peer: &Peer,
    sizes: &Sizes,
    progress: bool,
) -> anyhow::Result<(Vec<Report>, Ramp, BesidePeer)> {
    let reports = peer.run(sizes, progress).await.context("the peer")?;
    let ramp = capacity::run(peer, &sizes.capacity, &|step| say_step(step, progress))
        .await
        .context("the peer's capacity")?;
    let target = launcher.memory_server(sizes.games.games * 2)?;
    let mut memory = crate::games::run(&target.url, target.probe, &sizes.games)
        .await
        .context("games, memory store")?;
    memory.scenario.push_str(", memory store");
    drop(target);
    let target = launcher.interval_server(sizes.games.games * 2)?;
    let mut interval = crate::games::run(&target.url, target.probe, &sizes.games)
        .await
        .context("games, interval durability")?;
    interval
        .scenario
        .push_str(", SQLite with `--durability interval`");
    Ok((reports, ramp, BesidePeer { memory, interval }))
}

/// The saturation runs judged against the relay: for each store, the reports of its median round.
struct Saturated {
    /// The relay of the memory store's median round.
    relay: Report,
    /// The relay of the durable store's median round.
    durable_relay: Report,
    memory: Report,
    durable: Report,
}

/// The relay, the memory store and the durable store, round after round: the machine's speed
/// wanders by some 10% from minute to minute, so each store is judged by the median of its
/// rounds' ratios, each against the relay of its own round (see [`median_round`]).
async fn saturation_rounds(
    launcher: &dyn Launcher,
    sizes: &Sizes,
    say: &dyn Fn(&Report),
) -> anyhow::Result<Saturated> {
    let mut rounds = Vec::new();
    for _ in 0..sizes.saturation_rounds.max(1) {
        let relay = {
            let target = launcher.echo()?;
            crate::relay::run(&target.url, target.probe, &sizes.relay)
                .await
                .context("relay")?
        };
        say(&relay);
        let memory = saturate(
            launcher.memory_server(sizes.saturation.games * 2)?,
            sizes,
            "memory store",
        )
        .await?;
        say(&memory);
        let durable = saturate(
            launcher.server(sizes.saturation.games * 2)?,
            sizes,
            "the run's store",
        )
        .await?;
        say(&durable);
        rounds.push([relay, memory, durable]);
    }
    for report in rounds.iter_mut().flatten() {
        if let Some(us) = judge::cpu_us_per_op(report) {
            report.figures.insert("server_cpu_us_per_op".to_owned(), us);
        }
    }
    let memory_round = median_round(&mut rounds, 1);
    let durable_round = median_round(&mut rounds, 2);
    // The judged round's report, with the errors of every round: an error in any round counts.
    let pick = |round: usize, kind: usize| {
        let mut errors = BTreeMap::<String, u64>::new();
        for (error, n) in rounds.iter().flat_map(|r| &r[kind].errors) {
            *errors.entry(error.clone()).or_default() += n;
        }
        Report {
            errors,
            ..rounds[round][kind].clone()
        }
    };
    Ok(Saturated {
        relay: pick(memory_round, 0),
        durable_relay: pick(durable_round, 0),
        memory: pick(memory_round, 1),
        durable: pick(durable_round, 2),
    })
}

/// Unpaced games against `target`, the scenario named after its `store`.
async fn saturate(target: Target, sizes: &Sizes, store: &str) -> anyhow::Result<Report> {
    let mut report = crate::games::run(&target.url, target.probe, &sizes.saturation)
        .await
        .with_context(|| format!("saturation, {store}"))?;
    report.scenario.push_str(&format!(", {store}"));
    Ok(report)
}

/// The round whose ratio of `rounds[i][store]`'s rate to the relay's (`rounds[i][0]`) is the
/// median (the lower of the middle two of an even count); the store's report gains the ratios'
/// range and count (`relay_ratio_low`, `relay_ratio_high`, `rounds`).
fn median_round(rounds: &mut [[Report; 3]], store: usize) -> usize {
    let ratio = |round: &[Report; 3]| round[store].ops_per_sec / round[0].ops_per_sec.max(1e-9);
    let mut order: Vec<usize> = (0..rounds.len()).collect();
    order.sort_by(|&a, &b| ratio(&rounds[a]).total_cmp(&ratio(&rounds[b])));
    let median = order[(order.len() - 1) / 2];
    let (low, high) = (
        ratio(&rounds[order[0]]),
        ratio(&rounds[order[order.len() - 1]]),
    );
    let figures = &mut rounds[median][store].figures;
    figures.insert("relay_ratio_low".to_owned(), low);
    figures.insert("relay_ratio_high".to_owned(), high);
    figures.insert("rounds".to_owned(), order.len() as f64);
    median
}

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Where the generated table starts and ends in `BENCHMARKS.md`.
const BEGIN: &str =
    "<!-- server-results: written by `noughts-loadgen suite`; edit the notes below instead -->";
const END: &str = "<!-- /server-results -->";

/// The generated part of the Server section.
pub fn markdown(result: &SuiteResult) -> String {
    let mut md = String::new();
    let pinning = if result.pinned {
        "the server pinned to core 0 and the generator to core 1 (taskset)"
    } else {
        "not pinned"
    };
    let _ = writeln!(
        md,
        "Measured {} on a {}-core machine shared with other work (load average {} at the\nstart), release build, {pinning}.\nEach scenario runs against a fresh `noughts-server` started by the generator, its games kept\nin {}.\nCommand: `bench/run` (`noughts-loadgen suite`).\n",
        result.date, result.cores, result.load_average, result.store
    );
    md.push_str("| Target | Measured | | Command |\n|---|---|---|---|\n");
    for v in &result.verdicts {
        let _ = writeln!(
            md,
            "| {} | {} | {} | `{}` |",
            v.target,
            v.measured,
            match v.label() {
                "miss" => "**miss**",
                label => label,
            },
            v.command
        );
    }
    if let (false, [_, _, memory, durable, games, _, _, _, idle]) = (
        result.peer.is_empty(),
        &result.reports[..result.reports.len().min(9)],
    ) {
        md.push_str(
            "\nThe peer, Colyseus (`bench/peer/colyseus`: the same classic rules, a room per game, state patched to both players at each move, no store), in the same run, its server started and pinned as noughts' is:\n\n",
        );
        md.push_str(&peer::comparison(Sides {
            durable,
            memory,
            games,
            idle,
            peer: &result.peer,
        }));
    }
    let _ = write!(
        md,
        "\nThe capacity ramp (7.: the site, two lobby followers and half a watcher a game, grown step by step on the memory store, a fresh server a step, until the move p99 passes {} ms or errors appear; a ramp whose first step is not held steps down, halving){}:\n\n",
        result.capacity.line_ms,
        if result.peer_capacity.is_some() {
            ", noughts and Colyseus (its site on its LobbyRoom) in the same run"
        } else {
            ""
        }
    );
    let mut ramps = vec![("noughts", &result.capacity)];
    ramps.extend(result.peer_capacity.iter().map(|ramp| ("Colyseus", ramp)));
    md.push_str(&capacity::table(&ramps));
    for (name, ramp) in &ramps {
        let _ = writeln!(
            md,
            "\n{name}: most concurrent games held, {}.",
            ramp.most_held()
                .map_or("none".to_owned(), |games| format!("**{games}**"))
        );
    }
    md.push_str("\n| Scenario | Connections | Rate | p50 | p99 | p99.9 | Errors | Server CPU | Server RSS | Generator CPU |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in (result.reports.iter())
        .chain(&result.memory_games)
        .chain(&result.peer)
    {
        let (p50, p99, p999) = r.latency.map_or(
            ("–".to_owned(), "–".to_owned(), "–".to_owned()),
            |l| (ms(l.p50_us), ms(l.p99_us), ms(l.p999_us)),
        );
        let server = r.server.map_or(("–".to_owned(), "–".to_owned()), |s| {
            (
                format!("{:.0}% of a core", s.cores * 100.0),
                format!("{:.1} MiB", s.rss_kib as f64 / 1024.0),
            )
        });
        let generator = r
            .generator
            .map_or("–".to_owned(), |g| format!("{:.0}%", g.cores * 100.0));
        let _ = writeln!(
            md,
            "| {} | {} | {:.0} {}/s | {p50} | {p99} | {p999} | {} | {} | {} | {generator} |",
            r.scenario,
            r.connections,
            r.ops_per_sec,
            r.unit,
            r.error_count(),
            server.0,
            server.1
        );
    }
    md
}

/// Rewrites the generated table in the Server section of `path`, adding the section (after
/// everything else) if it is not there yet.
pub fn write_benchmarks(path: &Path, result: &SuiteResult) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|_| "# Benchmarks\n".to_owned());
    let table = markdown(result);
    let updated = match (text.find(BEGIN), text.find(END)) {
        (Some(begin), Some(end)) if begin < end => {
            format!("{}{BEGIN}\n{table}{}", &text[..begin], &text[end..])
        }
        _ => format!(
            "{}\n\n## Server\n\n{BEGIN}\n{table}{END}\n",
            text.trim_end()
        ),
    };
    std::fs::write(path, updated).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_store_is_judged_by_the_round_of_its_median_ratio() {
        let report = |rate: f64| Report {
            ops_per_sec: rate,
            ..Report::default()
        };
        // Ratios: memory 0.5, 0.7, 0.6; durable 0.4, 0.2, 0.3 (relay 100, 100, 200).
        let mut rounds = vec![
            [report(100.0), report(50.0), report(40.0)],
            [report(100.0), report(70.0), report(20.0)],
            [report(200.0), report(120.0), report(60.0)],
        ];
        assert_eq!(median_round(&mut rounds, 1), 2);
        assert_eq!(median_round(&mut rounds, 2), 2);
        let memory = &rounds[2][1].figures;
        assert_eq!(
            (
                memory["relay_ratio_low"],
                memory["relay_ratio_high"],
                memory["rounds"]
            ),
            (0.5, 0.7, 3.0)
        );
        let durable = &rounds[2][2].figures;
        assert_eq!(
            (durable["relay_ratio_low"], durable["relay_ratio_high"]),
            (0.2, 0.4)
        );
        // Of two, the lower.
        let mut two = vec![
            [report(100.0), report(80.0), report(10.0)],
            [report(100.0), report(60.0), report(10.0)],
        ];
        assert_eq!(median_round(&mut two, 1), 1);
    }

    fn result(measured: &str) -> SuiteResult {
        SuiteResult {
            date: "2026-11-22".to_owned(),
            cores: 2,
            pinned: true,
            store: "memory".to_owned(),
            load_average: "0.10 0.20 0.30".to_owned(),
            reports: vec![Report {
                scenario: "games".to_owned(),
                ..Report::default()
            }],
            verdicts: vec![Verdict {
                target: "1. a target".to_owned(),
                measured: measured.to_owned(),
                pass: true,
                judged: true,
                info: false,
                command: "noughts-loadgen games".to_owned(),
            }],
            peer: Vec::new(),
            capacity: Ramp {
                line_ms: 50.0,
                steps: Vec::new(),
            },
            peer_capacity: None,
            memory_games: None,
            interval_games: None,
        }
    }

    #[test]
    fn the_table_is_replaced_in_place_and_the_rest_kept() {
        let path = std::env::temp_dir().join(format!("noughts-suite-{}.md", std::process::id()));
        std::fs::write(&path, "# Benchmarks\n\n## Engine\n\nkept\n").unwrap();
        write_benchmarks(&path, &result("first")).unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        assert!(first.starts_with("# Benchmarks\n\n## Engine\n\nkept\n\n## Server\n"));
        // Notes written after the table survive the next run.
        std::fs::write(&path, format!("{first}\nNotes.\n")).unwrap();
        write_benchmarks(&path, &result("second")).unwrap();
        let second = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(second.matches("## Server").count(), 1);
        assert!(!second.contains("| first |") && second.contains("| second |"));
        assert!(second.ends_with("<!-- /server-results -->\n\nNotes.\n"));
        assert!(second.contains("Measured 2026-11-22 on a 2-core machine"));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(today().len(), 10);
        assert!(today().as_str() >= "2026-01-01");
    }
}
