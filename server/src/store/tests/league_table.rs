//! The league's running table, on every store: kept game by game as each end is stored, it is
//! the table built from the counted games in order (points, and the ratings of every rating
//! period to the last bit), after a reopening, when the league's round changes, and when a
//! database from before the table was kept is opened.

use noughts_protocol::{EndReason, GameId, GameKind, Level, Mark, PlayerId, Variant};

use super::super::league::{KeptTable, LeagueLine};
use super::super::league_table::{DEFAULT_ROUND, lines_of};
use super::super::postgres::{MIGRATIONS as POSTGRES_MIGRATIONS, Postgres};
use super::super::sqlite::MIGRATIONS as SQLITE_MIGRATIONS;
use super::super::{GameStart, Store, StoreConfig};
use super::Fresh;
use super::suite::{ending, start, with_players};
use crate::rules::league_table::{Finish, Pairing, Table};
use crate::rules::sitter::Sitter;

on_both!(the_kept_table_is_the_table_built_from_every_game);

/// A counted game: X's and O's entrants as the league names them, and who won.
type Played = (String, String, Option<Mark>);

/// The table built as the league built it from the games, before the store kept it: every
/// counted game in order, a rating period closing every `round` games.
fn built(games: &[Played], round: u32) -> (u32, Vec<LeagueLine>) {
    let mut entrants: Vec<String> = Vec::new();
    let mut table = Table::new(0);
    let mut counted = 0;
    for (x, o, winner) in games {
        counted += 1;
        let mut place = |entrant: &String| {
            if let Some(at) = entrants.iter().position(|e| e == entrant) {
                return at;
            }
            entrants.push(entrant.clone());
            table.add_entrant();
            entrants.len() - 1
        };
        if x != o {
            let pairing = Pairing {
                x: place(x),
                o: place(o),
            };
            let finish = match winner {
                Some(Mark::X) => Finish::XWon,
                Some(Mark::O) => Finish::OWon,
                None => Finish::Drawn,
            };
            table.record(pairing, finish);
        }
        if counted % round == 0 {
            table.close_round();
        }
    }
    (counted, lines_of(entrants, &table))
}

async fn kept(store: &Store) -> KeptTable {
    let news = store.league_news(Variant::Cube, 0).await.unwrap();
    news.table.expect("cube's table")
}

/// The kept table is the one built from `games` with `round`.
fn assert_built(table: &KeptTable, games: &[Played], round: u32, when: &str) {
    let (counted, lines) = built(games, round);
    assert_eq!(table.state.round_games, round, "{when}");
    assert_eq!(table.state.counted, counted, "{when}");
    assert_eq!(
        table.lines, lines,
        "{when}: the lines (ratings to the last bit)"
    );
    let last = games.last().map(|(x, o, _)| (x.clone(), o.clone()));
    assert_eq!(table.state.last_pair, last, "{when}");
}

async fn the_kept_table_is_the_table_built_from_every_game(db: Fresh) {
    let store = with_players(&db).await;
    // A small round, so that many rating periods close.
    let round = 6;
    assert!(store.settle_league(Variant::Cube, round).await.unwrap());
    assert!(!store.settle_league(Variant::Cube, round).await.unwrap());
    let entrants: Vec<Sitter> = Level::ALL
        .into_iter()
        .map(Sitter::Ai)
        .chain([Sitter::Human(PlayerId(1))])
        .collect();
    let mut games: Vec<Played> = Vec::new();
    // A fixed sequence of results that looks random enough (a linear congruential generator).
    let mut seed: u64 = 7;
    for id in 1..=61u64 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let pick = (seed >> 33) as usize;
        let x = entrants[pick % entrants.len()];
        let o = match id {
            // One level against itself, as a pinned pairing plays: counted, in no line.
            13 => x,
            _ => entrants[(pick / 7 + 1 + pick % entrants.len()) % entrants.len()],
        };
        let winner = [Some(Mark::X), Some(Mark::O), None][(pick / 97) % 3];
        let reason = match id {
            // Aborted: not counted.
            29 => EndReason::Aborted,
            _ if winner.is_none() => EndReason::Draw,
            _ => EndReason::Line,
        };
        let seats = [x, o];
        store
            .start_game(GameStart {
                kind: GameKind::War,
                variant: Variant::Cube,
                ..start(id, seats, false)
            })
            .await
            .unwrap();
        store
            .end_game(GameId(id), ending(winner, reason))
            .await
            .unwrap();
        if reason != EndReason::Aborted {
            let key = super::super::backend::league_key;
            games.push((key(x), key(o), winner));
        }
        // A second end counts nothing.
        if id == 40 {
            let again = ending(Some(Mark::X), EndReason::Line);
            store.end_game(GameId(id), again).await.unwrap();
        }
    }
    assert_eq!(games.len(), 60);
    let table = kept(&store).await;
    assert_built(&table, &games, round, "kept game by game");
    assert!(table.state.rated_through > 0);
    drop(store);
    let (store, _) = db.open().await;
    assert_eq!(kept(&store).await, table, "read back after a reopening");
    // The league's round changes (other levels chosen): the table is built anew with it.
    assert!(store.settle_league(Variant::Cube, 12).await.unwrap());
    assert_built(
        &kept(&store).await,
        &games,
        12,
        "built anew for a round of 12",
    );
    // As a database from before the table was kept: the migration that adds it not applied,
    // the games there. Opening migrates it and builds the table with the round of every
    // level's league.
    // What later migrations added is undone too, so that they apply again.
    drop(store);
    let before = "DROP TABLE league_lines; DROP TABLE league_tables; \
                  ALTER TABLE arenas DROP COLUMN director_epoch;";
    let adds_table = |scripts: &[&str]| {
        let at = scripts
            .iter()
            .position(|s| s.contains("CREATE TABLE league_tables"));
        at.expect("the migration that adds the table")
    };
    match db.config.clone() {
        StoreConfig::Memory => return,
        StoreConfig::File(path) => {
            let raw = rusqlite::Connection::open(path).unwrap();
            let version = adds_table(SQLITE_MIGRATIONS);
            raw.execute_batch(&format!("{before} PRAGMA user_version = {version};"))
                .unwrap();
        }
        StoreConfig::Postgres(url) => {
            let version = adds_table(POSTGRES_MIGRATIONS) + 1;
            let sql = format!("{before} DELETE FROM schema_version WHERE version >= {version};");
            tokio::task::spawn_blocking(move || Postgres::connect(&url).unwrap().execute(&sql))
                .await
                .unwrap()
                .unwrap();
        }
    }
    let (store, _) = db.open().await;
    assert_built(
        &kept(&store).await,
        &games,
        DEFAULT_ROUND,
        "built when migrated",
    );
}

/// Ends counted on two nodes at once (two stores on one PostgreSQL database), from each variant's
/// very first game on: every game is counted, in its entrants' lines too, none lost to another
/// end that read the table before it was written.
#[tokio::test]
async fn ends_counted_on_two_nodes_at_once_are_each_in_the_table() {
    let Some(db) = Fresh::postgres("league_two_nodes") else {
        return;
    };
    let first = with_players(&db).await;
    let (second, _) = db.open().await;
    let [easy, hard] = [Sitter::Ai(Level::ALL[0]), Sitter::Ai(Level::ALL[1])];
    let variants = [
        Variant::Classic,
        Variant::Four,
        Variant::Cube,
        Variant::Qubic,
    ];
    const PAIRS: u64 = 8;
    let mut id = 0;
    for _ in 0..PAIRS {
        for variant in variants {
            let games = [id + 1, id + 2];
            id += 2;
            for (game, seats) in games.into_iter().zip([[easy, hard], [hard, easy]]) {
                let start = GameStart {
                    kind: GameKind::War,
                    variant,
                    ..start(game, seats, false)
                };
                first.start_game(start).await.unwrap();
            }
            let won = || ending(Some(Mark::X), EndReason::Line);
            let (a, b) = tokio::join!(
                first.end_game(GameId(games[0]), won()),
                second.end_game(GameId(games[1]), won())
            );
            a.unwrap();
            b.unwrap();
        }
    }
    for variant in variants {
        let table = first.league_news(variant, 0).await.unwrap().table;
        let table = table.expect("the variant's table");
        assert_eq!(u64::from(table.state.counted), 2 * PAIRS, "{variant}");
        assert_eq!(table.lines.len(), 2, "{variant}: {:?}", table.lines);
        for line in &table.lines {
            let row = &line.row;
            assert_eq!(
                (row.played, row.wins, row.losses),
                (2 * PAIRS as u32, PAIRS as u32, PAIRS as u32),
                "{variant}: {line:?}"
            );
        }
    }
}
