//! The engines' league followed from a node that does not play its variant: two real
//! `noughts-server` nodes over one Redis and one PostgreSQL, one holding classic's war slot (it
//! plays the league's games); a client of the other follows classic's table, watches the war
//! game being played, and is pushed the table with that game counted once it ends: the other
//! node looks for games counted elsewhere every few seconds while someone follows.

use std::time::Duration;

use noughts_protocol::{ClientMessage, League, LeagueTable, ServerMessage, Variant, Watch};
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch};

use super::failover::launch;
use super::war::slot_holder;

/// Generous: a league game of quick levels lasts a few seconds, and the follower's node looks
/// every two; a loaded machine may take many times that.
const WITHIN: Duration = Duration::from_secs(90);

/// A node whose only war games are classic's league, between two quick levels a fifth of a
/// second a move.
fn league_node(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    let args = [
        "--war-variants",
        "classic",
        "--league-levels",
        "random,easy",
        "--war-budget-ms",
        "5",
        "--war-move-ms",
        "200",
        "--war-restart-ms",
        "300",
    ];
    launch(
        dir,
        db,
        redis,
        name,
        &args,
        ServerProcess::start_with_war_games,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_on_a_node_not_playing_the_variant_sees_each_league_game_counted() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("league_follow");
    let dir = Scratch::new("league-follow");
    let names = ["l0", "l1"];
    let nodes: Vec<ServerProcess> = names
        .iter()
        .map(|name| league_node(&dir, &db, &redis, name))
        .collect();
    let started = tokio::time::Instant::now();
    let holder = loop {
        if let Some(holder) = slot_holder(&redis.url, Variant::Classic) {
            break holder;
        }
        assert!(
            started.elapsed() < WITHIN,
            "no node took classic's war slot"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let away = names.iter().position(|name| *name != holder).unwrap();
    eprintln!(
        "{holder} holds classic's war slot after {:?}; following from {}",
        started.elapsed(),
        names[away]
    );
    let mut follower = Client::join(&nodes[away].url, "fan").await;
    let ask = ClientMessage::League(League {
        variant: Variant::Classic,
        follow: true,
    });
    let ServerMessage::LeagueTable(first) = follower.request(1, ask).await else {
        panic!("classic's league table");
    };
    // The war game watched, and the games its table had counted when it was being played.
    let mut watched = None;
    let mut ended = None;
    let pushed = tokio::time::timeout(WITHIN, async {
        let mut table = first.clone();
        loop {
            // Watches the war game being played as soon as a table names it.
            if watched.is_none()
                && let Some(game) = table.playing.as_ref().and_then(|p| p.game)
            {
                follower
                    .send(ClientMessage::Watch(Watch { game, code: None }))
                    .await;
                watched = Some((game, table.games));
            }
            // Looked at again every few seconds, so that a follower told nothing fails below
            // with what it saw, not at the harness's wait for a frame.
            let frame = tokio::select! {
                frame = follower.next() => frame,
                () = tokio::time::sleep(Duration::from_secs(5)) => continue,
            };
            match frame.message {
                ServerMessage::GameOver { game, result, .. }
                    if watched.is_some_and(|(w, _)| w == game) =>
                {
                    ended = Some((game, result, tokio::time::Instant::now()));
                }
                ServerMessage::LeagueTable(next) => {
                    // Games count in order, one war game of a variant at a time: a table with
                    // more than the watched game's had counts it.
                    let counted =
                        ended.is_some() && watched.is_some_and(|(_, games)| next.games > games);
                    table = next;
                    if counted {
                        return (table, tokio::time::Instant::now());
                    }
                }
                _ => {}
            }
        }
    })
    .await;
    let (table, told) = pushed.unwrap_or_else(|_| {
        panic!(
            "within {WITHIN:?}, no table counting a game that ended; the first had {} games, \
             watched {watched:?}, ended {ended:?}",
            first.games
        )
    });
    let (game, result, over) = ended.expect("the watched game ended");
    eprintln!(
        "game {game} ended ({result:?}); the follower was told its table {:?} later, {:?} \
         after the start",
        told - over,
        started.elapsed()
    );
    // The node told is still not the one playing classic's league games: the table came by
    // its looking, not by a game ending there.
    assert_eq!(
        slot_holder(&redis.url, Variant::Classic).as_deref(),
        Some(holder.as_str()),
        "classic's war slot stayed where it was"
    );
    assert_counted(&first, &table);
}

/// `table` counts more games than `first`, each once, in two lines.
fn assert_counted(first: &LeagueTable, table: &LeagueTable) {
    assert!(table.games > first.games, "{first:?} then {table:?}");
    let lines: u32 = table.standings.iter().map(|s| s.games).sum();
    assert_eq!(lines, 2 * table.games, "every game in two lines: {table:?}");
    for standing in &table.standings {
        assert_eq!(
            standing.wins + standing.draws + standing.losses,
            standing.games,
            "{standing:?}"
        );
    }
}
