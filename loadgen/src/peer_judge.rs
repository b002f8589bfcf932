//! The targets set against the Colyseus peer, judged on figures of the same run: the concurrent
//! games each holds on the same core, the idle memory a connection, and the server's CPU a paced
//! move.

use crate::capacity::Ramp;
use crate::judge::{Verdict, cpu_us_per_op};
use crate::report::Report;
use crate::sizes::Sizes;

/// What the targets are judged on.
#[derive(Debug, Clone, Copy)]
pub struct Against<'a> {
    /// The capacity ramps: noughts' (memory store) and Colyseus's.
    pub ours: &'a Ramp,
    pub theirs: &'a Ramp,
    /// noughts' idle connections, paced games on the run's store, on the memory store and on a
    /// database in `interval` mode.
    pub idle: &'a Report,
    pub games: &'a Report,
    pub memory_games: &'a Report,
    pub interval_games: &'a Report,
    /// Colyseus's unpaced games, paced games and idle connections.
    pub peer: &'a [Report],
}

/// The three targets against the peer.
pub fn verdicts(sizes: &Sizes, a: Against<'_>) -> Vec<Verdict> {
    let mut verdicts = vec![capacity(sizes, a.ours, a.theirs)];
    if let [_, paced, idle] = a.peer {
        verdicts.push(idle_memory(sizes, a.idle, idle));
        verdicts.push(paced_cpu(sizes, a, paced));
    }
    verdicts
}

fn capacity(sizes: &Sizes, ours: &Ramp, theirs: &Ramp) -> Verdict {
    let c = &sizes.capacity;
    let (held, theirs_held) = (ours.most_held(), theirs.most_held());
    let words = |games: Option<usize>| games.map_or("none".to_owned(), |g| g.to_string());
    let errors = |ramp: &Ramp| -> u64 { ramp.steps.iter().map(|s| s.report.error_count()).sum() };
    // Colyseus holding no step at all (down to the floor) is judged against its smallest step.
    let floor = theirs.steps.iter().map(|s| s.games).min();
    let ratio = match (held, theirs_held.or(floor)) {
        (Some(ours), Some(theirs)) if theirs > 0 => Some(ours as f64 / theirs as f64),
        _ => None,
    };
    Verdict {
        target: "C1. Capacity: noughts holds at least 2× the concurrent games Colyseus holds on the same core, in the same run (the site on each, move p99 within the line, no errors)".to_owned(),
        measured: format!(
            "noughts **{}**, Colyseus **{}**{} (steps: noughts {}, Colyseus {}; errors over the steps: noughts {}, Colyseus {}); ratio {}",
            words(held),
            words(theirs_held),
            if theirs_held.is_none() {
                format!(" (not even {} games)", words(floor))
            } else {
                String::new()
            },
            ours.steps.len(),
            theirs.steps.len(),
            errors(ours),
            errors(theirs),
            ratio.map_or("–".to_owned(), |r| format!("{r:.2}×")),
        ),
        pass: held.is_some() && ratio.is_some_and(|r| r >= 2.0),
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen --memory-store capacity --start {} --step {} --warmup {} --secs {} [--peer bench/peer/colyseus]",
            c.start, c.step, c.warmup, c.secs
        ),
    }
}

fn idle_memory(sizes: &Sizes, ours: &Report, theirs: &Report) -> Verdict {
    let per = |r: &Report| r.figures.get("rss_per_conn_kib").copied();
    let (a, b) = (per(ours), per(theirs));
    let words = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.1} KiB"));
    Verdict {
        target: format!(
            "C2. Idle memory: server RSS growth a connection ({} idle connections) ≤ Colyseus's, in the same run",
            sizes.idle.connections
        ),
        measured: format!(
            "noughts **{}**, Colyseus **{}**; errors: noughts {}, Colyseus {}",
            words(a),
            words(b),
            ours.error_count(),
            theirs.error_count()
        ),
        pass: a.zip(b).is_some_and(|(a, b)| a <= b)
            && ours.error_count() == 0
            && theirs.error_count() == 0,
        judged: true,
        info: false,
        command: format!(
            "noughts-loadgen idle --connections {} --procs {}; node load.js idle --connections {}",
            sizes.idle.connections, sizes.idle.procs, sizes.idle.connections
        ),
    }
}

/// C3: the memory store at most 0.8× Colyseus's CPU a paced move, and a database in `interval`
/// mode at most Colyseus's (which stores nothing); the run's own store, where every move is on
/// disk before anyone hears of it, is shown beside for information.
fn paced_cpu(sizes: &Sizes, a: Against<'_>, paced: &Report) -> Verdict {
    let theirs = cpu_us_per_op(paced);
    let memory = cpu_us_per_op(a.memory_games);
    let interval = cpu_us_per_op(a.interval_games);
    let durable = cpu_us_per_op(a.games);
    let ratio = |ours: Option<f64>| ours.zip(theirs).map(|(o, t)| o / t.max(1e-9));
    let (memory_ratio, interval_ratio) = (ratio(memory), ratio(interval));
    let words = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.0} µs"));
    let times = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.2}×"));
    let g = &sizes.games;
    let clean = [a.memory_games, a.interval_games, a.games, paced]
        .iter()
        .all(|r| r.error_count() == 0);
    Verdict {
        target: format!(
            "C3. Server CPU a paced move ({} games at {} move/s): the memory store ≤ 0.8× Colyseus's, SQLite with `--durability interval` ≤ Colyseus's (every move on disk first: for information)",
            g.games,
            g.rate.unwrap_or(1.0)
        ),
        measured: format!(
            "memory store **{}** ({} Colyseus's), `interval` **{}** ({}), every move on disk first {} ({}), Colyseus {}",
            words(memory),
            times(memory_ratio),
            words(interval),
            times(interval_ratio),
            words(durable),
            times(ratio(durable)),
            words(theirs)
        ),
        pass: memory_ratio.is_some_and(|r| r <= 0.8)
            && interval_ratio.is_some_and(|r| r <= 1.0)
            && clean,
        judged: true,
        info: false,
        command: format!(
            "{}; noughts-loadgen --memory-store games …; noughts-loadgen --durability interval games …; node load.js games --games {} --rate {} --secs {}",
            crate::judge::games_command(g),
            g.games,
            g.rate.unwrap_or(1.0),
            g.secs
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::Step;
    use crate::report::Latency;
    use crate::usage::Usage;

    fn ramp(steps: &[(usize, bool)]) -> Ramp {
        Ramp {
            line_ms: 50.0,
            steps: (steps.iter())
                .map(|&(games, held)| Step {
                    games,
                    held,
                    report: Report::default(),
                })
                .collect(),
        }
    }

    fn paced(cpu_secs: f64) -> Report {
        Report {
            ops: 1000,
            latency: Some(Latency::default()),
            server: Some(Usage {
                cpu_secs,
                ..Usage::default()
            }),
            ..Report::default()
        }
    }

    fn idle(kib: f64) -> Report {
        let mut report = Report::default();
        report.figures.insert("rss_per_conn_kib".to_owned(), kib);
        report
    }

    #[test]
    fn the_verdicts_against_the_peer() {
        let sizes = Sizes::quick();
        let ours = ramp(&[(500, true), (1000, true), (1500, false)]);
        let (games, memory_games, interval_games) = (paced(0.12), paced(0.07), paced(0.09));
        let peer = [Report::default(), paced(0.1), idle(8.0)];
        let mine = idle(7.5);
        let against = |theirs| Against {
            ours: &ours,
            theirs,
            idle: &mine,
            games: &games,
            memory_games: &memory_games,
            interval_games: &interval_games,
            peer: &peer,
        };
        // Colyseus stepped down from 500 to 250 and held it: 1000 ÷ 250.
        let theirs = ramp(&[(500, false), (250, true)]);
        let v = verdicts(&sizes, against(&theirs));
        assert_eq!(v.len(), 3);
        assert!(v[0].pass && v[0].measured.contains("4.00×"), "{:?}", v[0]);
        assert!(v[1].pass, "7.5 ≤ 8.0: {:?}", v[1]);
        // 70 µs ≤ 0.8 × 100 µs and, in `interval` mode, 90 µs ≤ 100 µs; every move on disk
        // first (120 µs) is for information.
        assert!(v[2].pass, "{:?}", v[2]);
        assert!(
            v[2].measured
                .contains("every move on disk first 120 µs (1.20×)"),
            "{:?}",
            v[2]
        );
        // Colyseus at 600: 1000 is less than twice it.
        let close = ramp(&[(500, true), (600, true), (700, false)]);
        assert!(!verdicts(&sizes, against(&close))[0].pass);
        // Colyseus holding nothing, down to 8 games: judged against its smallest step.
        let none = ramp(&[(500, false), (250, false), (125, false)]);
        let v = verdicts(&sizes, against(&none));
        assert!(
            v[0].pass && v[0].measured.contains("not even 125"),
            "{:?}",
            v[0]
        );
    }
}
