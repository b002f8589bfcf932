//! The suite's targets: each one's words, what was measured for it, and whether it holds.

use serde::Serialize;

use crate::games::GamesOptions;
use crate::report::Report;
use crate::sizes::Sizes;

/// One target: what was asked, what was measured, and whether it holds.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub target: String,
    pub measured: String,
    pub pass: bool,
    /// False when the run could not tell (a baseline that did not have its core); `pass` is then
    /// false too.
    pub judged: bool,
    /// True for a figure kept for information, no longer a target: neither a pass nor a miss.
    pub info: bool,
    pub command: String,
}

impl Verdict {
    /// How the verdict reads: pass, miss, not judged or information.
    pub fn label(&self) -> &'static str {
        match (self.info, self.judged, self.pass) {
            (true, _, _) => "info",
            (false, false, _) => "not judged",
            (false, true, true) => "pass",
            (false, true, false) => "miss",
        }
    }
}

/// The share of its core a baseline's server must have used for a saturation verdict: below it,
/// other work on the machine, not the server, set the rate.
pub const SATURATED: f64 = 0.8;

/// The reports the targets are judged on, one per scenario of the suite.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a> {
    pub echo: &'a Report,
    /// The relay of the memory store's median round.
    pub relay: &'a Report,
    /// The relay of the durable store's median round.
    pub durable_relay: &'a Report,
    /// Unpaced games on the durable store.
    pub durable: &'a Report,
    /// Unpaced games on the memory store.
    pub memory: &'a Report,
    pub games: &'a Report,
    pub ai: &'a Report,
    pub watchers: &'a Report,
    /// The watched game beside paced games.
    pub beside: &'a Report,
    pub idle: &'a Report,
}

/// Every target's verdict.
pub fn judge(sizes: &Sizes, m: Measured<'_>) -> Vec<Verdict> {
    vec![
        paced_games(sizes, m.games),
        saturation(sizes, m, true),
        saturation(sizes, m, false),
        idle(sizes, m.idle),
        watchers(sizes, m.watchers),
        beside(sizes, m.beside),
        ai(sizes, m.ai, m.games),
    ]
}

/// The command line of a `games` run.
pub fn games_command(o: &GamesOptions) -> String {
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

/// Microseconds as milliseconds, in words.
pub fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

/// A report's errors, in words.
pub fn errors(report: &Report) -> String {
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

/// The server's CPU microseconds per operation of a report, if its CPU was read.
pub fn cpu_us_per_op(report: &Report) -> Option<f64> {
    let server = report.server?;
    (report.ops > 0).then(|| server.cpu_secs * 1e6 / report.ops as f64)
}

fn paced_games(sizes: &Sizes, games: &Report) -> Verdict {
    let g = &sizes.games;
    Verdict {
        target: format!(
            "1. {} human-vs-human classic games ({} connections), {} move/s each: p99 < 5 ms, no errors",
            g.games,
            g.games * 2,
            g.rate.unwrap_or(0.0)
        ),
        measured: format!(
            "{}; {:.0} moves/s; {} of {} connections; {}",
            latencies(games),
            games.ops_per_sec,
            games.connections,
            g.games * 2,
            errors(games)
        ),
        pass: p99(games) < 5_000 && games.error_count() == 0 && games.connections == g.games * 2,
        judged: true,
        info: false,
        command: games_command(g),
    }
}

/// Saturation against the relay: the memory store against 0.7 of it, the durable store against
/// 0.5; the echo ratio beside it. Kept for information: the ratios were retired as targets once
/// their ceilings were shown (BENCHMARKS.md), and what an operator asks is how many people a core
/// serves (the capacity ramp).
fn saturation(sizes: &Sizes, m: Measured<'_>, memory: bool) -> Verdict {
    let (games, relay_run, floor, label, flag) = if memory {
        (m.memory, m.relay, 0.7, "2a", " --memory-store")
    } else {
        (m.durable, m.durable_relay, 0.5, "2b", "")
    };
    let store = if memory {
        "the memory store"
    } else {
        "the durable store (every move on disk before anyone hears of it)"
    };
    let relay = games.ops_per_sec / relay_run.ops_per_sec.max(1e-9);
    let echo = games.ops_per_sec / m.echo.ops_per_sec.max(1e-9);
    let cpu = |r: &Report| cpu_us_per_op(r).map_or("–".to_owned(), |us| format!("{us:.1} µs"));
    let figure = |name: &str, otherwise: f64| games.figures.get(name).copied().unwrap_or(otherwise);
    let relay_core = relay_run.server.map_or(1.0, |u| u.cores);
    let judged = relay_core >= SATURATED;
    let unjudged = if judged {
        String::new()
    } else {
        format!(
            "; not judged: the relay's server had {:.0}% of its core (other work on the machine set the rates)",
            relay_core * 100.0
        )
    };
    Verdict {
        target: format!(
            "{label}. Saturation, {} games, {store}: game moves/s against relay pairs' relays/s (for information; the target was ≥ {floor})",
            sizes.saturation.games
        ),
        measured: format!(
            "{:.0} moves/s ÷ {:.0} relays/s = **{relay:.2}** (÷ {:.0} echo messages/s = {echo:.2}), the median of {:.0} rounds each against its own relay ({:.2} to {:.2}); server CPU a move {}, a relay {}, an echo {}; {}{unjudged}",
            games.ops_per_sec,
            relay_run.ops_per_sec,
            m.echo.ops_per_sec,
            figure("rounds", 1.0),
            figure("relay_ratio_low", relay),
            figure("relay_ratio_high", relay),
            cpu(games),
            cpu(relay_run),
            cpu(m.echo),
            errors(games)
        ),
        pass: judged && relay >= floor && games.error_count() == 0 && relay_run.error_count() == 0,
        judged,
        info: true,
        command: format!(
            "noughts-loadgen relay --pairs {} --secs {}; noughts-loadgen{flag} games --games {} --saturate --secs {}",
            sizes.relay.pairs, sizes.relay.secs, sizes.saturation.games, sizes.saturation.secs
        ),
    }
}

fn idle(sizes: &Sizes, idle: &Report) -> Verdict {
    let per_conn = idle
        .figures
        .get("rss_per_conn_kib")
        .copied()
        .unwrap_or(f64::INFINITY);
    Verdict {
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
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen idle --connections {} --procs {}",
            sizes.idle.connections, sizes.idle.procs
        ),
    }
}

fn watchers(sizes: &Sizes, watchers: &Report) -> Verdict {
    let w = &sizes.watchers;
    let figure = |name: &str| watchers.figures.get(name).copied().unwrap_or(0.0);
    let dropped = figure("stalled_dropped") as usize;
    let joined = figure("watchers_joined") as usize;
    Verdict {
        target: format!(
            "4a. One game, {} watchers: p99 from move to the last watcher < 100 ms; a watcher that stops reading is dropped",
            w.watchers
        ),
        measured: format!(
            "received (kernel timestamp): {} over {} moves, each sent p99 {:.2} ms after its time; read by the generator: p50 {:.2} ms, p99 {:.2} ms; {joined} of {} joined in {:.1} s; {dropped} of {} stalled watchers dropped; {}",
            latencies(watchers),
            watchers.ops,
            figure("late_p99_ms"),
            figure("read_p50_ms"),
            figure("read_p99_ms"),
            w.watchers,
            figure("join_secs"),
            w.stalled,
            errors(watchers)
        ),
        pass: p99(watchers) < 100_000
            && dropped == w.stalled
            && joined == w.watchers
            && watchers.error_count() == 0,
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen watchers --watchers {} --stalled {} --rate {} --moves {}",
            w.watchers, w.stalled, w.rate, w.moves
        ),
    }
}

/// The watched game beside paced games: the watchers' p99 under 100 ms still, the games' under
/// 5 ms. Both are timed by the kernel's receipt at the reading socket: the generator reads the
/// games on the core that reads the 5,000 watchers for some 40 ms after each watched move, and
/// a frame waiting in its socket meanwhile waits on the generator, not on the server. The games
/// as read are printed beside.
fn beside(sizes: &Sizes, beside: &Report) -> Verdict {
    let w = &sizes.beside;
    let figure = |name: &str| beside.figures.get(name).copied().unwrap_or(f64::INFINITY);
    let watchers_p99 = figure("received_p99_ms");
    let joined = beside
        .figures
        .get("watchers_joined")
        .copied()
        .unwrap_or(0.0) as usize;
    Verdict {
        target: format!(
            "4b. The same game beside {} classic games at 1 move/s: watchers' p99 < 100 ms, the games' p99 < 5 ms",
            w.beside_games
        ),
        measured: format!(
            "watchers received p50 {:.2} ms, p99 **{watchers_p99:.2} ms** (each move sent p99 {:.2} ms after its time); games beside, sent to received by the kernel: p50 {:.2} ms, p99 **{:.2} ms** (as read by the generator: {}); {joined} of {} watchers joined; {}",
            figure("received_p50_ms"),
            figure("late_p99_ms"),
            figure("games_received_p50_ms"),
            figure("games_received_p99_ms"),
            latencies(beside),
            w.watchers,
            errors(beside)
        ),
        pass: watchers_p99 < 100.0
            && figure("games_received_p99_ms") < 5.0
            && joined == w.watchers
            && beside.error_count() == 0,
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen watchers --watchers {} --stalled {} --rate {} --moves {} --beside-games {}",
            w.watchers, w.stalled, w.rate, w.moves, w.beside_games
        ),
    }
}

fn ai(sizes: &Sizes, ai: &Report, games: &Report) -> Verdict {
    let a = &sizes.ai;
    Verdict {
        target: format!(
            "5. {} games against the {} AI on {} beside scenario 1: human p99 within 2× of scenario 1",
            a.ai_games, a.level, a.variant
        ),
        measured: format!(
            "human games {} (scenario 1: p99 {}); AI answers p99 {:.2} ms; {}",
            latencies(ai),
            ms(p99(games)),
            ai.figures
                .get("ai_answer_p99_ms")
                .copied()
                .unwrap_or(f64::NAN),
            errors(ai)
        ),
        pass: p99(ai) <= 2 * p99(games) && ai.error_count() == 0,
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen ai --ai-games {} --variant {} --level {} --ai-rate {} --games {} --rate {} --secs {}",
            a.ai_games, a.variant, a.level, a.ai_rate, a.games, a.rate, a.secs
        ),
    }
}
