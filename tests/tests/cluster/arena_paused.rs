//! An arena whose directing node is paused (SIGSTOP) past its lease while another node takes the
//! arena over, then wakes (SIGCONT) still thinking it directs: whatever it writes then is fenced
//! by the store (each director's writes carry the epoch it took the arena under), so it pairs no
//! one, and steps down. No player is ever in two of the arena's games at once, every game counts
//! once, and every node's standings agree when the arena ends on time.

use std::collections::HashMap;
use std::time::Duration;

use noughts_protocol::{
    ArenaId, ClientMessage, ClockSpec, CreateArena, GameId, ServerMessage, Variant,
};
use noughts_tests::accounts::make_account;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch};
use tokio::task::JoinHandle;

use super::arena::{Log, counted_once, ended_on_time, now_ms, play, start};
use super::handover::signal;

const PLAYERS: usize = 16;
const LENGTH_SECS: u32 = 30;
/// When the directing node is paused, after the arena's start, and for how long (its lease is a
/// second).
const PAUSE_AFTER: Duration = Duration::from_secs(8);
const PAUSE: Duration = Duration::from_secs(4);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_paused_past_its_lease_pairs_no_one_twice() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("arena_paused");
    let dir = Scratch::new("arena-paused");
    let nodes: Vec<ServerProcess> = ["node1", "node2", "node3"]
        .iter()
        .map(|name| start(&dir, &db, &redis, name))
        .collect();
    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
    // The first node directs the arena (its creator is there); the players are on the others,
    // so that the pause stops the director and the games it started, not the players.
    let (arena, start_ms, end_ms, tasks) =
        directed_by_the_first(&urls, "Paused arena", "paused", PLAYERS, LENGTH_SECS).await;
    let start_in = Duration::from_millis(start_ms.saturating_sub(now_ms()));
    tokio::time::sleep(start_in + PAUSE_AFTER).await;
    signal(nodes[0].pid(), "STOP");
    tokio::time::sleep(PAUSE).await;
    signal(nodes[0].pid(), "CONT");
    let logs = ended_on_time(tasks, end_ms).await;
    for log in &logs {
        one_game_at_a_time(log);
    }
    let games = counted_once(&urls, arena, &logs).await;
    eprintln!("{games} games");
    drop(nodes);
}

/// An arena created (and so directed) on the first of `urls`, named `name`, starting in 3 s and
/// lasting `length_secs`, with `players` accounts named `prefix` and a number, on the other two
/// nodes in turn, each joined and playing it ([`play`]): the arena, its start and end (ms since
/// the epoch), and the players' tasks.
pub(super) async fn directed_by_the_first(
    urls: &[String],
    name: &str,
    prefix: &str,
    players: usize,
    length_secs: u32,
) -> (ArenaId, u64, u64, Vec<JoinHandle<Log>>) {
    let mut host = Client::join(&urls[0], "host").await;
    make_account(&mut host).await;
    let start_ms = now_ms() + 3_000;
    let request = CreateArena {
        name: Some(name.to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: Some(start_ms),
        length_secs,
        private: false,
        bots_only: false,
    };
    let (arena, end_ms) = match host.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => (info.arena, info.end_ms),
        other => panic!("expected arena_created, got {other:?}"),
    };
    let mut tasks = Vec::new();
    for i in 0..players {
        let mut client = Client::join(&urls[1 + i % 2], &format!("{prefix}{i}")).await;
        make_account(&mut client).await;
        match client
            .request(2, ClientMessage::JoinArena { arena, code: None })
            .await
        {
            ServerMessage::Arena(view) => assert!(view.me.is_some()),
            other => panic!("{}: expected the arena, got {other:?}", client.name),
        }
        tasks.push(tokio::spawn(play(client, arena, urls[1..].to_vec())));
    }
    (arena, start_ms, end_ms, tasks)
}

/// Checks that a player's games never overlapped: each ended (as they saw it) before the next
/// began.
fn one_game_at_a_time(log: &Log) {
    let mut games: Vec<(u64, GameId)> = log.first_seen.iter().map(|(g, at)| (*at, *g)).collect();
    games.sort_unstable();
    let over: &HashMap<GameId, u64> = &log.over_seen;
    for pair in games.windows(2) {
        let [(_, before), (began, after)] = [pair[0], pair[1]];
        let ended = over.get(&before).copied();
        assert!(
            ended.is_some_and(|ended| ended <= began),
            "{}: game {after:?} began at {began} before game {before:?} ended ({ended:?})",
            log.client.name
        );
    }
}
