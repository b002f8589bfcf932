//! The engines' league on a real server with a SQLite file: its war games pair the levels in
//! turn, each game counted once in the table pushed to a follower as it ends, the ratings moving
//! once a round closes; after a restart the table is read back from the file and the league goes
//! on from it.

use std::time::Duration;

use noughts_engine::Budget;
use noughts_protocol::{
    ClientMessage, ErrorCode, League, LeagueTable, Level, ServerMessage, Variant,
};
use noughts_tests::{Client, Scratch, TestServer, file_config};

/// How long a whole round of the league may take (20 quick games on classic).
const ROUND_WITHIN: Duration = Duration::from_secs(60);

/// A server on `db` whose only war variant is classic, its games quick.
async fn league_server(db: std::path::PathBuf) -> TestServer {
    TestServer::start(noughts_server::Config {
        war_games: true,
        war_variants: vec![Variant::Classic],
        war_budget: Budget::millis(5),
        war_move_delay: Duration::from_millis(5),
        war_restart_delay: Duration::from_millis(10),
        ..file_config(db)
    })
    .await
}

fn table(message: ServerMessage) -> LeagueTable {
    match message {
        ServerMessage::LeagueTable(table) => *table,
        other => panic!("a league_table, got {other:?}"),
    }
}

/// Every counted game is in two entrants' lines, once each.
fn counted_once(table: &LeagueTable) {
    let lines: u32 = table.standings.iter().map(|s| s.games).sum();
    assert_eq!(lines, 2 * table.games, "{table:?}");
    for line in &table.standings {
        assert_eq!(line.games, line.wins + line.draws + line.losses, "{line:?}");
    }
}

/// Reads pushed tables until one counts at least `games`; each push counts one game more than
/// the last.
async fn pushed_until(client: &mut Client, mut seen: u32, games: u32) -> LeagueTable {
    tokio::time::timeout(ROUND_WITHIN, async {
        loop {
            let frame = client.next().await;
            let ServerMessage::LeagueTable(pushed) = frame.message else {
                continue;
            };
            assert_eq!(frame.id, None);
            assert_eq!(pushed.games, seen + 1, "one push per game ended");
            counted_once(&pushed);
            seen = pushed.games;
            if seen >= games {
                return *pushed;
            }
        }
    })
    .await
    .expect("the league plays on")
}

#[tokio::test]
async fn the_league_pairs_the_levels_counts_each_game_once_and_survives_a_restart() {
    let scratch = Scratch::new("league");
    let mut server = league_server(scratch.db()).await;
    let mut ada = Client::join(&server.url(), "ada").await;
    let none = ClientMessage::League(League {
        variant: Variant::Qubic,
        follow: false,
    });
    ada.expect_error(1, none, ErrorCode::NoLeague).await;
    let follow = ClientMessage::League(League {
        variant: Variant::Classic,
        follow: true,
    });
    let first = table(ada.request(2, follow.clone()).await);
    assert_eq!(first.round_games, 20, "five levels, each pair twice");
    assert_eq!(first.standings.len(), 5);
    assert_eq!(first.next.len(), 4);
    // A whole round: every level meets every other with both colours, and the ratings part.
    let round = pushed_until(&mut ada, first.games, 20).await;
    for line in &round.standings {
        assert_eq!(line.games, 8, "{line:?}");
        assert!(
            line.deviation < 350,
            "rated once the round closed: {line:?}"
        );
    }
    let rating = |table: &LeagueTable, level: Level| {
        let line = table
            .standings
            .iter()
            .find(|s| s.entrant.level == Some(level));
        line.expect("every level has a line").rating
    };
    assert!(
        rating(&round, Level::Perfect) > rating(&round, Level::Random),
        "{round:?}"
    );
    let perfect = round.standings.iter().find(|s| s.name == "AI (perfect)");
    assert_eq!(perfect.map(|s| s.losses), Some(0), "never loses: {round:?}");
    drop(ada);
    server.shut_down().await.expect("a clean shutdown");

    // Read back from the file: nothing lost, nothing counted twice, and the league goes on.
    let server = league_server(scratch.db()).await;
    let mut bo = Client::join(&server.url(), "bo").await;
    let again = table(bo.request(3, follow).await);
    assert!(again.games >= round.games, "{again:?}");
    counted_once(&again);
    for line in &round.standings {
        let now = again
            .standings
            .iter()
            .find(|s| s.entrant == line.entrant)
            .unwrap();
        assert!(now.games >= line.games, "{now:?} after {line:?}");
    }
    let on = pushed_until(&mut bo, again.games, again.games + 2).await;
    assert_eq!(on.round_games, 20);
    assert_eq!(
        bo.request(4, ClientMessage::UnfollowLeague).await,
        ServerMessage::Ok
    );
}
