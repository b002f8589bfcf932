//! Infrastructure faults while people play: on `deploy/cluster`, twelve pairs of players play
//! game after game through the balancer at about two moves a second per game, while Redis is
//! killed and restarted with its data, killed and restarted empty, flushed, and stopped for 10 s;
//! PostgreSQL is stopped for 5 s; and a node is stopped for longer than its lease, each fault
//! `NOUGHTS_FAULT_ROUNDS` times (3 by default). After every round heals, the site plays again
//! and has one war game per variant. At the end, against PostgreSQL: every move a player saw
//! acknowledged is stored and was seen by its opponent without asking; no game was served by two
//! nodes at once (what each player saw agrees, ply by ply, with the store and with the other
//! player); no game ended by `abandon` or `timeout`; both players of every game were told the
//! result the store holds; no id was given twice. A table of what each fault cost is printed.

mod pair;
mod site;
mod verdict;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use noughts_protocol::Variant;
use noughts_tests::Scratch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout};

use super::deploy::{Deployed, free_ports, programs_present};
use pair::{Log, PATIENCE, PairLog, STUCK, lock, pair};
use site::{LEASE, Site, wire};
use verdict::{Stored, judge, result_text, stored};

/// Pairs of players.
const PAIRS: usize = 12;
/// After a round heals, every pair moves again within this.
const PLAYS_AGAIN_WITHIN: Duration = Duration::from_secs(60);
/// After a round heals (and the site plays again), the war games are one per variant within
/// this: a few lease times.
const WARS_WITHIN: Duration = Duration::from_secs(20);

/// One fault, injected and healed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// Redis `kill -9`, started again 5 s later as `deploy/cluster` runs it, with its data.
    RedisKilled,
    /// Redis `kill -9`, started again 5 s later from an empty data directory, persisting
    /// nothing until the round is over.
    RedisKilledEmpty,
    /// `FLUSHALL` on the running Redis.
    RedisFlushed,
    /// Redis `SIGSTOP` for 10 s, then `SIGCONT`.
    RedisStopped,
    /// PostgreSQL stopped (fast) for 5 s, then started.
    PostgresStopped,
    /// One node `SIGSTOP`ped for 8 s, longer than its lease, then `SIGCONT`.
    NodeStopped,
}

impl Fault {
    const ALL: [Fault; 6] = [
        Fault::RedisKilled,
        Fault::RedisKilledEmpty,
        Fault::RedisFlushed,
        Fault::RedisStopped,
        Fault::PostgresStopped,
        Fault::NodeStopped,
    ];

    pub(super) fn describe(self) -> &'static str {
        match self {
            Fault::RedisKilled => "Redis kill -9, restarted after 5 s with its data",
            Fault::RedisKilledEmpty => "Redis kill -9, restarted after 5 s empty",
            Fault::RedisFlushed => "Redis FLUSHALL",
            Fault::RedisStopped => "Redis SIGSTOP 10 s",
            Fault::PostgresStopped => "PostgreSQL fast stop 5 s",
            Fault::NodeStopped => "a node SIGSTOP 8 s (lease 5 s)",
        }
    }
}

/// One round: a fault injected, held and healed, and how the site came back.
struct Round {
    fault: Fault,
    detail: String,
    injected: Instant,
    healed: Instant,
    /// How long after healing every pair moved again; or which did not.
    plays_again: Result<Duration, String>,
    wars: Wars,
}

/// Waits until every pair still playing has moved on since `since`.
async fn plays_again(logs: &[Log], since: Instant) -> Result<Duration, String> {
    let deadline = Instant::now() + PLAYS_AGAIN_WITHIN;
    loop {
        let behind: Vec<String> = logs
            .iter()
            .filter_map(|log| {
                let log = lock(log);
                let playing = !log.finished && log.failure.is_none();
                (playing && log.progress.is_none_or(|at| at < since)).then(|| {
                    format!(
                        "{}/{}: {}; last sent {:?} / {:?}",
                        log.names[0], log.names[1], log.doing, log.seen[0], log.seen[1]
                    )
                })
            })
            .collect();
        if behind.is_empty() {
            return Ok(since.elapsed());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{} pairs did not move within {PLAYS_AGAIN_WITHIN:?}: {}",
                behind.len(),
                behind.join("; ")
            ));
        }
        sleep(Duration::from_millis(200)).await;
    }
}

/// How the war games settled after a round.
struct Wars {
    /// How long after the site played again they were one per variant, stored and listed; or
    /// what was seen last.
    settled: Result<Duration, String>,
    /// Samples of the store with two live war games of one variant, of all.
    doubled: (usize, usize),
    /// Samples where the balancer (or the node) turned the looker away.
    turned_away: usize,
}

/// Waits until PostgreSQL has at most one live war game per variant and the lobby lists exactly
/// one per variant.
async fn wars_settle(site: &Site) -> Wars {
    let variants: Vec<String> = Variant::ALL
        .iter()
        .map(|v| wire(serde_json::to_value(v)))
        .collect();
    let start = Instant::now();
    let mut wars = Wars {
        settled: Err(String::new()),
        doubled: (0, 0),
        turned_away: 0,
    };
    loop {
        let last = match site.war_games().await {
            Ok((stored, listed)) => {
                wars.doubled.1 += 1;
                if stored.values().any(|&n| n > 1) {
                    wars.doubled.0 += 1;
                }
                let one_each = listed.as_ref().is_ok_and(|listed| {
                    variants.iter().all(|v| listed.get(v) == Some(&1))
                        && listed.len() == variants.len()
                });
                wars.turned_away += usize::from(listed.is_err());
                if stored.values().all(|&n| n <= 1) && one_each {
                    wars.settled = Ok(start.elapsed());
                    return wars;
                }
                format!("live in PostgreSQL {stored:?}, listed {listed:?}")
            }
            Err(err) => err,
        };
        if start.elapsed() > WARS_WITHIN {
            wars.settled = Err(format!(
                "not one war game per variant within {WARS_WITHIN:?}: {last}"
            ));
            return wars;
        }
        sleep(Duration::from_millis(500)).await;
    }
}

/// The time of day (UTC) of `at`, as the nodes' logs write it.
fn clock(at: Instant) -> String {
    let now = (std::time::SystemTime::now() - at.elapsed())
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (secs, millis) = (now.as_secs() % 86_400, now.subsec_millis());
    format!(
        "{:02}:{:02}:{:02}.{millis:03}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Each fault `rounds` times: inject, hold, heal, wait until the site plays again, and check
/// its war games.
async fn inject_faults(
    site: &mut Site,
    logs: &[Log],
    rounds: usize,
    failures: &mut Vec<String>,
) -> Vec<Round> {
    let mut done = Vec::new();
    for round in 0..rounds {
        for fault in Fault::ALL {
            eprintln!(
                "{} round {}: {}",
                clock(Instant::now()),
                round + 1,
                fault.describe()
            );
            let injected = Instant::now();
            let detail = site.inject(fault, round).await;
            let healed = Instant::now();
            let again = plays_again(logs, healed).await;
            // What a fault sets going may show a lease time after it healed (a lease that Redis
            // forgot lapses on its holder's clock): it shows in its own round.
            sleep(LEASE.saturating_sub(healed.elapsed())).await;
            if fault == Fault::RedisKilledEmpty {
                site.redis.persist_again().await;
            }
            let wars = wars_settle(site).await;
            // No fault here stops a node for good.
            for node in 1..=3 {
                site.running_node(node);
            }
            for (what, outcome) in [("play", &again), ("war games", &wars.settled)] {
                if let Err(err) = outcome {
                    failures.push(format!(
                        "round {} of {} ({detail}): {what}: {err}",
                        round + 1,
                        fault.describe()
                    ));
                }
            }
            done.push(Round {
                fault,
                detail,
                injected,
                healed,
                plays_again: again,
                wars,
            });
        }
    }
    done
}

/// Has every pair finish the game it plays, and returns what each did.
async fn finish(stop: &AtomicBool, tasks: Vec<JoinHandle<()>>, logs: Vec<Log>) -> Vec<PairLog> {
    stop.store(true, Ordering::Relaxed);
    let ended = Instant::now();
    for (task, log) in tasks.into_iter().zip(&logs) {
        let left = (ended + PATIENCE + STUCK).saturating_duration_since(Instant::now());
        let outcome = timeout(left, task).await;
        let mut log = lock(log);
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(panicked)) => log.failure = Some(format!("panicked: {panicked}")),
            Err(_) => log.failure = Some(format!("still playing: {}", log.doing)),
        }
    }
    logs.into_iter()
        .map(|log| std::mem::take(&mut *lock(&log)))
        .collect()
}

/// No id given twice: each game the players played has an id of its own, each player too, and
/// no node's log (nor PostgreSQL's) holds a duplicate key.
fn check_ids(logs: &[PairLog], site: &Site, failures: &mut Vec<String>) {
    let mut games_of: HashMap<u64, Vec<&str>> = HashMap::new();
    let mut players = HashSet::new();
    for log in logs {
        for game in &log.games {
            games_of.entry(game.game.0).or_default().push(&log.names[0]);
        }
        for player in log.players.iter().flatten() {
            if !players.insert(player.0) {
                failures.push(format!("player id {} given twice", player.0));
            }
        }
    }
    for (game, pairs) in &games_of {
        if pairs.len() > 1 {
            failures.push(format!("game id {game} given to several games: {pairs:?}"));
        }
    }
    let duplicates = site.log_lines(|line| line.contains("duplicate key"), 20);
    if !duplicates.is_empty() {
        failures.push(format!(
            "a duplicate key (an id or a ply written twice): {duplicates:#?}"
        ));
    }
}

/// The rounds whose time (from their injection to the next's) overlaps `from..to`.
fn rounds_during(rounds: &[Round], from: Instant, to: Instant) -> Vec<usize> {
    (0..rounds.len())
        .filter(|&i| {
            let start = rounds[i].injected;
            let end = rounds.get(i + 1).map(|r| r.injected);
            start <= to && end.is_none_or(|end| from < end)
        })
        .collect()
}

/// What the faults cost, one figure per round (and the last for the time before any fault).
struct Figures {
    lost: Vec<usize>,
    unseen: Vec<usize>,
    diverged: Vec<usize>,
    wrongly: Vec<usize>,
    apart: Vec<usize>,
    /// Refusals of a move other than `game_paused`, by what they said: how many, and a few.
    refused: BTreeMap<String, (usize, Vec<String>)>,
    stalls: Vec<Duration>,
    /// Players who heard nothing for a while and came back on their own: what each waited for
    /// and had last been sent.
    quiet: Vec<Vec<String>>,
    /// Connections the balancer refused the players.
    turned_away: Vec<usize>,
    games: usize,
    acked: usize,
}

/// Judges every game against the store, counting it against the rounds of its time; a game
/// that went wrong is described in `failures` with what each player saw, what PostgreSQL holds
/// and the nodes' log lines of it.
fn judge_all(
    logs: &[PairLog],
    done: &[Round],
    stored: &HashMap<u64, Stored>,
    site: &Site,
    ended: Instant,
    failures: &mut Vec<String>,
) -> Figures {
    let slots = done.len() + 1;
    let mut figures = Figures {
        lost: vec![0; slots],
        unseen: vec![0; slots],
        diverged: vec![0; slots],
        wrongly: vec![0; slots],
        apart: vec![0; slots],
        refused: BTreeMap::new(),
        stalls: vec![Duration::ZERO; slots],
        quiet: vec![Vec::new(); slots],
        turned_away: vec![0; slots],
        games: 0,
        acked: 0,
    };
    for log in logs {
        if let Some(failure) = &log.failure {
            failures.push(format!(
                "pair {}/{} stopped: {failure}",
                log.names[0], log.names[1]
            ));
        }
        let slot_at = |at: Instant| {
            rounds_during(done, at, at)
                .last()
                .copied()
                .unwrap_or(done.len())
        };
        for &(at, waited) in &log.stalls {
            let slot = slot_at(at);
            figures.stalls[slot] = figures.stalls[slot].max(waited);
        }
        for (at, what) in &log.quiet {
            figures.quiet[slot_at(*at)].push(what.clone());
        }
        for &at in &log.turned_away {
            figures.turned_away[slot_at(at)] += 1;
        }
        for game in &log.games {
            figures.games += 1;
            figures.acked += game.acked.len();
            let id = game.game.0;
            let verdict = judge(game, log.players, stored.get(&id));
            let mut during = rounds_during(done, game.started, game.ended.unwrap_or(ended));
            if during.is_empty() {
                during.push(done.len());
            }
            for &slot in &during {
                figures.lost[slot] += verdict.lost;
                figures.unseen[slot] += verdict.unseen;
                figures.diverged[slot] += usize::from(verdict.diverged);
                figures.wrongly[slot] += usize::from(verdict.wrongly_ended);
                figures.apart[slot] += usize::from(verdict.told_apart);
            }
            for (said, detail) in &game.errors {
                let (count, examples) = figures.refused.entry(said.clone()).or_default();
                *count += 1;
                if examples.len() < 3 {
                    examples.push(format!("game {id}: {detail}"));
                }
            }
            // The game a pair gave up in is told of by the pair's failure.
            let unfinished = game.ended.is_none() && log.failure.is_some();
            if !verdict.bad() || unfinished && !verdict.ids {
                continue;
            }
            let faults: Vec<String> = during
                .iter()
                .map(|&slot| {
                    done.get(slot).map_or("no fault".to_owned(), |round| {
                        format!("{} {}", round.fault.describe(), round.detail)
                    })
                })
                .collect();
            let (span, field) = (format!("game{{id={id}}}"), format!("game={id}"));
            let lines = site.log_lines(
                |line| {
                    line.contains(&span)
                        || line.ends_with(&field)
                        || line.contains(&format!("{field} "))
                },
                40,
            );
            let seen = |seat: usize| {
                let told = &game.told[seat];
                format!(
                    "{} (player {}, {:?}) was told plies {:?}, results {:?}, paused {} times",
                    log.names[seat],
                    log.players[seat].map_or(0, |p| p.0),
                    game.marks[seat],
                    told.plies.values().collect::<Vec<_>>(),
                    told.results.iter().map(result_text).collect::<Vec<_>>(),
                    told.paused
                )
            };
            let store = stored.get(&id).map_or("nothing".to_owned(), |s| {
                format!(
                    "moves {:?}, winner {:?}, reason {:?}",
                    s.moves, s.winner, s.reason
                )
            });
            failures.push(format!(
                "game {id} during {faults:?}: {:#?}\n  {}\n  {}\n  refusals: {:?}\n  \
                 PostgreSQL: {store}\n  the nodes' log lines of it: {lines:#?}",
                verdict.problems,
                seen(0),
                seen(1),
                game.errors
            ));
        }
    }
    figures
}

/// `x/y/z`: one figure per round.
fn per_round<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join("/")
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The table of what each fault cost: a row per fault, a figure per round; then a line per
/// round, and what each player left waiting had last been sent.
fn table(done: &[Round], figures: &Figures) -> String {
    let mut table = String::from(
        "| fault | acked moves lost | acked moves the opponent never saw | games that \
         diverged | games wrongly ended | players told different results | war games doubled \
         | players left waiting | longest stall |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for fault in Fault::ALL {
        let slots: Vec<usize> = (0..done.len())
            .filter(|&i| done[i].fault == fault)
            .collect();
        let figure = |of: &[usize]| per_round(slots.iter().map(|&i| of[i]));
        let worst = slots.iter().map(|&i| figures.stalls[i]).max();
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) |",
            fault.describe(),
            figure(&figures.lost),
            figure(&figures.unseen),
            figure(&figures.diverged),
            figure(&figures.wrongly),
            figure(&figures.apart),
            per_round(slots.iter().map(|&i| {
                match (&done[i].wars.settled, done[i].wars.doubled) {
                    (Ok(_), (0, _)) => "no".to_owned(),
                    (_, (n, of)) => format!("yes ({n} of {of} samples)"),
                }
            })),
            per_round(slots.iter().map(|&i| figures.quiet[i].len())),
            secs(worst.unwrap_or_default()),
            per_round(slots.iter().map(|&i| secs(figures.stalls[i]))),
        );
    }
    let before = done.len();
    let _ = writeln!(
        table,
        "| none (before the first fault) | {} | {} | {} | {} | {} | no | {} | {} |",
        figures.lost[before],
        figures.unseen[before],
        figures.diverged[before],
        figures.wrongly[before],
        figures.apart[before],
        figures.quiet[before].len(),
        secs(figures.stalls[before])
    );
    let mut waiting = String::new();
    for (i, round) in done.iter().enumerate() {
        let _ = writeln!(
            table,
            "{} {}: healed after {}; every pair moved again {}; one war game per variant {}; \
             the balancer turned away {} players' connections and {} of {} lookers; {} players \
             heard nothing for a while and came back on their own",
            round.fault.describe(),
            round.detail,
            secs(round.healed - round.injected),
            round
                .plays_again
                .as_ref()
                .map_or("NOT".to_owned(), |d| format!("{} later", secs(*d))),
            round
                .wars
                .settled
                .as_ref()
                .map_or("NOT".to_owned(), |d| format!("{} after that", secs(*d))),
            figures.turned_away[i],
            round.wars.turned_away,
            round.wars.doubled.1,
            figures.quiet[i].len(),
        );
        for what in &figures.quiet[i] {
            let _ = writeln!(waiting, "{}: {what}", round.fault.describe());
        }
    }
    if !waiting.is_empty() {
        let _ = write!(table, "players left waiting:\n{waiting}");
    }
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_postgresql_and_a_node_failing_under_play_lose_no_move_and_give_one_result() {
    if !programs_present() || noughts_tests::postgres::Postgres::shared().is_none() {
        return;
    }
    let rounds: usize = std::env::var("NOUGHTS_FAULT_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let began = Instant::now();
    let deployed = Deployed {
        dir: Scratch::new("faults"),
        port: free_ports(),
    };
    let up = deployed.run("up");
    assert!(
        up.status.success(),
        "deploy/cluster up failed: {}{}",
        String::from_utf8_lossy(&up.stdout),
        String::from_utf8_lossy(&up.stderr)
    );
    let mut site = Site::find(&deployed).await;
    for node in 1..=3 {
        site.running_node(node);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let logs: Vec<Log> = (0..PAIRS).map(|_| Log::default()).collect();
    let tasks: Vec<_> = logs
        .iter()
        .enumerate()
        .map(|(n, log)| tokio::spawn(pair(site.url.clone(), n, stop.clone(), log.clone())))
        .collect();
    if let Err(err) = plays_again(&logs, began).await {
        panic!("the players never got going: {err}");
    }
    if let Err(err) = wars_settle(&site).await.settled {
        panic!("before any fault: {err}");
    }
    let mut failures = Vec::new();
    let done = inject_faults(&mut site, &logs, rounds, &mut failures).await;
    let ended = Instant::now();
    let logs = finish(&stop, tasks, logs).await;
    let ids: Vec<u64> = logs
        .iter()
        .flat_map(|log| &log.games)
        .map(|game| game.game.0)
        .collect();
    let stored = stored(&site, &ids).await;
    check_ids(&logs, &site, &mut failures);
    let figures = judge_all(&logs, &done, &stored, &site, ended, &mut failures);
    eprintln!(
        "{PAIRS} pairs, {} games, {} acknowledged moves, {rounds} rounds of each of {} faults in \
         {}; moves refused with another code than game_paused: {:#?}\n{}",
        figures.games,
        figures.acked,
        Fault::ALL.len(),
        secs(began.elapsed()),
        figures.refused,
        table(&done, &figures)
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
