//! The server's five performance targets in one run, each scenario against a fresh server, and
//! the results table of `BENCHMARKS.md` rewritten from what was measured.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use noughts_protocol::{Level, Variant};
use serde::Serialize;

use crate::ai::AiOptions;
use crate::echo::EchoOptions;
use crate::games::GamesOptions;
use crate::idle::IdleOptions;
use crate::report::Report;
use crate::target::Target;
use crate::watchers::WatchersOptions;

/// Where the suite's servers come from: started fresh for each scenario, or already running.
pub trait Launcher {
    /// A noughts server with room for `connections`.
    fn server(&self, connections: usize) -> anyhow::Result<Target>;
    /// An echo server.
    fn echo(&self) -> anyhow::Result<Target>;
}

/// The sizes of every scenario of the suite.
#[derive(Debug, Clone)]
pub struct Sizes {
    pub echo: EchoOptions,
    /// The saturation run: as many connections as the echo run, playing unpaced.
    pub saturation: GamesOptions,
    pub games: GamesOptions,
    pub ai: AiOptions,
    pub watchers: WatchersOptions,
    /// A watched game again, with paced games beside it (not a target: whether its fan-out holds
    /// up other games).
    pub beside: WatchersOptions,
    pub idle: IdleOptions,
}

impl Sizes {
    /// The sizes the targets name.
    pub fn full() -> Sizes {
        Sizes {
            echo: EchoOptions {
                connections: 100,
                size: 20,
                secs: 10.0,
            },
            saturation: GamesOptions {
                games: 50,
                rate: None,
                secs: 10.0,
            },
            games: GamesOptions {
                games: 1000,
                rate: Some(1.0),
                secs: 30.0,
            },
            ai: AiOptions {
                ai_games: 200,
                variant: Variant::Cube,
                level: Level::Perfect,
                ai_rate: 1.0,
                games: 1000,
                rate: 1.0,
                secs: 30.0,
            },
            watchers: WatchersOptions {
                watchers: 5000,
                stalled: 2,
                rate: 8.0,
                moves: 64,
                join_at_once: 64,
                beside_games: 0,
            },
            beside: WatchersOptions {
                watchers: 5000,
                stalled: 0,
                rate: 8.0,
                moves: 64,
                join_at_once: 64,
                beside_games: 1000,
            },
            idle: IdleOptions {
                connections: 10_000,
                procs: 2,
                settle_secs: 3.0,
            },
        }
    }

    /// A few seconds in all, to see that everything still works.
    pub fn quick() -> Sizes {
        Sizes {
            echo: EchoOptions {
                connections: 10,
                size: 20,
                secs: 1.0,
            },
            saturation: GamesOptions {
                games: 5,
                rate: None,
                secs: 1.0,
            },
            games: GamesOptions {
                games: 10,
                rate: Some(5.0),
                secs: 2.0,
            },
            ai: AiOptions {
                ai_games: 4,
                variant: Variant::Cube,
                level: Level::Perfect,
                ai_rate: 5.0,
                games: 10,
                rate: 5.0,
                secs: 2.0,
            },
            watchers: WatchersOptions {
                watchers: 20,
                stalled: 1,
                rate: 20.0,
                moves: 16,
                join_at_once: 8,
                beside_games: 0,
            },
            beside: WatchersOptions {
                watchers: 20,
                stalled: 0,
                rate: 20.0,
                moves: 16,
                join_at_once: 8,
                beside_games: 10,
            },
            idle: IdleOptions {
                connections: 50,
                procs: 2,
                settle_secs: 0.2,
            },
        }
    }
}

/// One target: what was asked, what was measured, and whether it holds.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub target: String,
    pub measured: String,
    pub pass: bool,
    pub command: String,
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
}

fn games_command(o: &GamesOptions) -> String {
    match o.rate {
        Some(rate) => format!(
            "noughts-loadgen games --games {} --rate {rate} --secs {}",
            o.games, o.secs
        ),
        None => format!(
            "noughts-loadgen games --games {} --saturate --secs {}",
            o.games, o.secs
        ),
    }
}

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

fn errors(report: &Report) -> String {
    if report.errors.is_empty() {
        "no errors".to_owned()
    } else {
        let list: Vec<String> = report
            .errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        format!("errors: {}", list.join(", "))
    }
}

fn p99(report: &Report) -> u64 {
    report.latency.map_or(u64::MAX, |l| l.p99_us)
}

fn latencies(report: &Report) -> String {
    report.latency.map_or("no samples".to_owned(), |l| {
        format!(
            "p50 {}, p99 {}, p99.9 {}",
            ms(l.p50_us),
            ms(l.p99_us),
            ms(l.p999_us)
        )
    })
}

/// Runs every scenario, each against its own fresh server, and judges the targets.
pub async fn run(
    launcher: &dyn Launcher,
    sizes: &Sizes,
    pinned: bool,
    progress: bool,
) -> anyhow::Result<SuiteResult> {
    let load_average = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let say = |report: &Report| {
        if progress {
            eprintln!("{report}");
        }
    };
    // 2. The echo baseline and the saturated games, back to back.
    let echo = {
        let target = launcher.echo()?;
        crate::echo::run(&target.url, target.probe, &sizes.echo)
            .await
            .context("echo")?
    };
    say(&echo);
    let saturation = {
        let target = launcher.server(sizes.saturation.games * 2)?;
        crate::games::run(&target.url, target.probe, &sizes.saturation)
            .await
            .context("saturation")?
    };
    say(&saturation);
    // 1. Paced games.
    let games = {
        let target = launcher.server(sizes.games.games * 2)?;
        crate::games::run(&target.url, target.probe, &sizes.games)
            .await
            .context("games")?
    };
    say(&games);
    // 5. AI games beside the paced games.
    let ai = {
        let target = launcher.server(sizes.ai.games * 2 + sizes.ai.ai_games)?;
        crate::ai::run(&target.url, target.probe, &sizes.ai)
            .await
            .context("ai")?
    };
    say(&ai);
    // 4. Watchers.
    let watchers = {
        let target = launcher.server(sizes.watchers.connections())?;
        crate::watchers::run(&target.url, target.probe, &sizes.watchers)
            .await
            .context("watchers")?
    };
    say(&watchers);
    // The same game beside paced games: does its fan-out hold them up?
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

    let verdicts = judge(sizes, [&echo, &saturation, &games, &ai, &watchers, &idle]);
    Ok(SuiteResult {
        date: today(),
        cores: crate::target::cores(),
        pinned,
        store: String::new(),
        load_average,
        reports: vec![echo, saturation, games, ai, watchers, beside, idle],
        verdicts,
    })
}

/// The targets' verdicts on the reports of the echo baseline, saturation, paced games, AI games,
/// watchers and idle connections, in that order.
fn judge(sizes: &Sizes, reports: [&Report; 6]) -> Vec<Verdict> {
    let [echo, saturation, games, ai, watchers, idle] = reports;
    let mut verdicts = Vec::new();
    let g = &sizes.games;
    verdicts.push(Verdict {
        target: format!(
            "1. {} human-vs-human classic games ({} connections), {} move/s each: p99 < 5 ms, no errors",
            g.games,
            g.games * 2,
            g.rate.unwrap_or(0.0)
        ),
        measured: format!("{}; {:.0} moves/s; {} of {} connections; {}", latencies(games), games.ops_per_sec, games.connections, g.games * 2, errors(games)),
        pass: p99(games) < 5_000 && games.error_count() == 0 && games.connections == g.games * 2,
        command: games_command(g),
    });
    let ratio = saturation.ops_per_sec / echo.ops_per_sec.max(1e-9);
    verdicts.push(Verdict {
        target: format!(
            "2. Saturation, {} connections: game moves/s ≥ 0.7 × echo messages/s",
            sizes.echo.connections
        ),
        measured: format!(
            "{:.0} moves/s ÷ {:.0} echo messages/s = **{ratio:.2}**; {}",
            saturation.ops_per_sec,
            echo.ops_per_sec,
            errors(saturation)
        ),
        pass: ratio >= 0.7 && saturation.error_count() == 0,
        command: format!(
            "noughts-loadgen echo --connections {} --size {} --secs {}; {}",
            sizes.echo.connections,
            sizes.echo.size,
            sizes.echo.secs,
            games_command(&sizes.saturation)
        ),
    });
    let per_conn = idle
        .figures
        .get("rss_per_conn_kib")
        .copied()
        .unwrap_or(f64::INFINITY);
    verdicts.push(Verdict {
        target: format!(
            "3. {} idle connections held: server RSS growth ≤ 16 KiB per connection",
            sizes.idle.connections
        ),
        measured: format!(
            "{} held; **{per_conn:.1} KiB** per connection; {}",
            idle.connections,
            errors(idle)
        ),
        pass: per_conn <= 16.0
            && idle.connections == sizes.idle.connections
            && idle.error_count() == 0,
        command: format!(
            "noughts-loadgen idle --connections {} --procs {}",
            sizes.idle.connections, sizes.idle.procs
        ),
    });
    let w = &sizes.watchers;
    let figure = |name: &str| watchers.figures.get(name).copied().unwrap_or(0.0);
    let dropped = figure("stalled_dropped") as usize;
    let joined = figure("watchers_joined") as usize;
    verdicts.push(Verdict {
        target: format!(
            "4. One game, {} watchers: p99 from move to the last watcher < 50 ms; a watcher that stops reading is dropped",
            w.watchers
        ),
        measured: format!(
            "received (kernel timestamp): {} over {} moves; read by the generator: p50 {:.2} ms, p99 {:.2} ms; {joined} of {} joined in {:.1} s; {dropped} of {} stalled watchers dropped; {}",
            latencies(watchers),
            watchers.ops,
            figure("read_p50_ms"),
            figure("read_p99_ms"),
            w.watchers,
            figure("join_secs"),
            w.stalled,
            errors(watchers)
        ),
        pass: p99(watchers) < 50_000
            && dropped == w.stalled
            && joined == w.watchers
            && watchers.error_count() == 0,
        command: format!(
            "noughts-loadgen watchers --watchers {} --stalled {} --rate {} --moves {}",
            w.watchers, w.stalled, w.rate, w.moves
        ),
    });
    let a = &sizes.ai;
    verdicts.push(Verdict {
        target: format!(
            "5. {} games against the {} AI on {} beside scenario 1: human p99 within 2× of scenario 1",
            a.ai_games, a.level, a.variant
        ),
        measured: format!(
            "human games {} (scenario 1: p99 {}); AI answers p99 {:.2} ms; {}",
            latencies(ai),
            ms(p99(games)),
            ai.figures.get("ai_answer_p99_ms").copied().unwrap_or(f64::NAN),
            errors(ai)
        ),
        pass: p99(ai) <= 2 * p99(games) && ai.error_count() == 0,
        command: format!(
            "noughts-loadgen ai --ai-games {} --variant {} --level {} --ai-rate {} --games {} --rate {} --secs {}",
            a.ai_games, a.variant, a.level, a.ai_rate, a.games, a.rate, a.secs
        ),
    });
    verdicts
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
            if v.pass { "pass" } else { "**miss**" },
            v.command
        );
    }
    md.push_str("\n| Scenario | Connections | Rate | p50 | p99 | p99.9 | Errors | Server CPU | Server RSS | Generator CPU |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in &result.reports {
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
                command: "noughts-loadgen games".to_owned(),
            }],
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
