//! An arena whose directing node is killed with SIGKILL and started again under its name at once,
//! quicker than the other nodes could find it gone, and before its slot lapses (so it directs the
//! arena again). Its players are on the other nodes, connected all along: only the node's new
//! incarnation tells their nodes that the new process has none of them standing in, and they
//! follow the arena there again. It pairs them again within seconds, every game counts once, and
//! the arena ends on time with every node's standings the same.

use std::time::Duration;

use noughts_protocol::GameId;
use noughts_tests::Scratch;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;

use super::arena::{counted_once, ended_on_time, now_ms, start};
use super::arena_paused::directed_by_the_first;
use super::league::redis_cli;

const PLAYERS: usize = 8;
const LENGTH_SECS: u32 = 30;
/// When the directing node is started again, after the arena's start.
const RESTART_AFTER: Duration = Duration::from_secs(8);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_started_again_at_once_under_its_name_pairs_its_players_again() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("arena_restart");
    let dir = Scratch::new("arena-restart");
    let names = ["node1", "node2", "node3"];
    let mut nodes: Vec<ServerProcess> = names
        .iter()
        .map(|name| start(&dir, &db, &redis, name))
        .collect();
    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
    // The first node directs the arena (its creator is there); the players are on the others.
    let (arena, start_ms, end_ms, tasks) =
        directed_by_the_first(&urls, "Restarted arena", "again", PLAYERS, LENGTH_SECS).await;
    let start_in = Duration::from_millis(start_ms.saturating_sub(now_ms()));
    tokio::time::sleep(start_in + RESTART_AFTER).await;

    let slot = format!("{{slot:arena:{}}}", arena.0);
    assert_eq!(
        redis_cli(&redis.url, &["GET", &slot]),
        "node1",
        "the first node directs the arena"
    );
    assert_eq!(redis_cli(&redis.url, &["PEXPIRE", &slot, "30000"]), "1");
    let restarted_ms = now_ms();
    nodes.remove(0).kill();
    nodes.insert(0, start(&dir, &db, &redis, names[0]));
    let logs = ended_on_time(tasks, end_ms).await;
    // Paired again within seconds of the restart.
    let after: Vec<(u64, GameId)> = logs
        .iter()
        .flat_map(|log| log.first_seen.iter().map(|(game, at)| (*at, *game)))
        .filter(|(at, _)| *at > restarted_ms)
        .collect();
    let resumed = after.iter().map(|(at, _)| *at).min();
    let resumed = resumed.expect("games were started after the restart");
    assert!(
        resumed - restarted_ms < 10_000,
        "the arena paired again {} ms after its node was started again",
        resumed - restarted_ms
    );
    let games = counted_once(&urls_now(&nodes), arena, &logs).await;
    eprintln!(
        "{games} games, {} of them started after the restart",
        after.len()
    );
    drop(nodes);
}

/// The nodes' addresses as they are now.
fn urls_now(nodes: &[ServerProcess]) -> Vec<String> {
    nodes.iter().map(|n| n.url.clone()).collect()
}
