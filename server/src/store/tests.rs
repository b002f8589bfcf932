//! The store on real SQLite: migrations from the first schema, rating updates, queries.

use noughts_protocol::{ClockSpec, EndReason, GameId, GameKind, Level, Mark, PlayerId, Variant};
use rusqlite::Connection;

use super::sqlite::MIGRATIONS;
use super::{
    Ending, GameStart, Store, StoreConfig, StoreError, StoredMove, TokenHash, TokenRules, sqlite,
};
use crate::sitter::Sitter;

const RULES: TokenRules = TokenRules {
    idle_ms: 10_000,
    overlap_ms: 100,
};

/// Tokens that never lie unused too long, for records written in 1970.
const FOREVER: TokenRules = TokenRules {
    idle_ms: u64::MAX,
    overlap_ms: 100,
};

fn start(game: u64, seats: [Sitter; 2], rated: bool) -> GameStart {
    let human = seats.iter().all(|seat| seat.human().is_some());
    GameStart {
        game: GameId(game),
        variant: Variant::Classic,
        kind: if human { GameKind::Human } else { GameKind::Ai },
        seats,
        clock: None,
        rated,
        listed: true,
        rematch_of: None,
        owner: None,
        started_ms: 1_000,
    }
}

fn ending(winner: Option<Mark>, reason: EndReason) -> Ending {
    Ending {
        seq: 10,
        winner,
        reason,
        cells: Vec::new(),
        ended_ms: 2_000,
    }
}

async fn memory() -> Store {
    let (store, startup) = Store::open(&StoreConfig::Memory).await.unwrap();
    assert_eq!((startup.last_player, startup.last_game), (0, 0));
    for (id, name) in [(1, "ada"), (2, "bob")] {
        store
            .add_player(PlayerId(id), name, TokenHash::of(name))
            .await
            .unwrap();
    }
    store
}

/// Opens `config` once the store that had it open has let go (its thread ends on its own).
async fn reopen(config: &StoreConfig) -> (Store, super::records::Startup) {
    tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            match Store::open(config).await {
                Err(StoreError::InUse) => {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                other => return other.unwrap(),
            }
        }
    })
    .await
    .expect("the earlier store lets go of the file")
}

async fn classic_rating(store: &Store, player: u64) -> (u32, u32) {
    let profile = store.profile(PlayerId(player)).await.unwrap().unwrap();
    // Variants in Variant::ALL's order: classic first.
    assert_eq!(Variant::ALL[0], Variant::Classic);
    let (classic, rated_games) = profile.ratings[0];
    (crate::rating::points(classic.rating), rated_games)
}

#[tokio::test]
async fn a_rated_game_moves_both_ratings_the_right_way() {
    let store = memory().await;
    store
        .start_game(start(
            1,
            [Sitter::Human(PlayerId(1)), Sitter::Human(PlayerId(2))],
            true,
        ))
        .await
        .unwrap();
    let rerated = store
        .end_game(GameId(1), ending(Some(Mark::X), EndReason::Resign))
        .await
        .unwrap()
        .expect("a rated game between two people is rated");
    assert!(rerated.x.rating > 1500.0 && rerated.o.rating < 1500.0);
    let (ada, ada_games) = classic_rating(&store, 1).await;
    let (bob, _) = classic_rating(&store, 2).await;
    assert!(ada > 1500 && bob < 1500 && ada_games == 1);
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    let ranks: Vec<_> = board
        .iter()
        .enumerate()
        .map(|(place, e)| (place + 1, e.player.0, e.results.wins))
        .collect();
    assert_eq!(ranks, [(1, 1, 1), (2, 2, 0)]);
    assert!(
        store
            .leaderboard(Variant::Four, 0, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // Ending twice changes nothing.
    let again = store
        .end_game(GameId(1), ending(Some(Mark::O), EndReason::Timeout))
        .await
        .unwrap();
    assert!(again.is_none());
    assert_eq!(classic_rating(&store, 1).await, (ada, 1));
}

#[tokio::test]
async fn unrated_ai_and_aborted_games_leave_ratings_alone() {
    let store = memory().await;
    let games = [
        start(
            1,
            [Sitter::Human(PlayerId(1)), Sitter::Human(PlayerId(2))],
            false,
        ),
        // Even marked rated, a game against the AI is not.
        start(
            2,
            [Sitter::Human(PlayerId(1)), Sitter::Ai(Level::Easy)],
            true,
        ),
        start(
            3,
            [Sitter::Human(PlayerId(2)), Sitter::Human(PlayerId(1))],
            true,
        ),
    ];
    for game in games {
        store.start_game(game).await.unwrap();
    }
    for (game, reason) in [
        (1, EndReason::Line),
        (2, EndReason::Line),
        (3, EndReason::Aborted),
    ] {
        let winner = (reason != EndReason::Aborted).then_some(Mark::X);
        let rerated = store
            .end_game(GameId(game), ending(winner, reason))
            .await
            .unwrap();
        assert!(rerated.is_none(), "game {game} is not rated");
    }
    assert_eq!(classic_rating(&store, 1).await, (1500, 0));
    assert_eq!(classic_rating(&store, 2).await, (1500, 0));
    let profile = store.profile(PlayerId(1)).await.unwrap().unwrap();
    let classic = &profile.results[0];
    // Games 1 and 2 count (an aborted game does not); Ada was X in both and X won.
    assert_eq!((classic.games, classic.wins, classic.losses), (2, 2, 0));
}

#[tokio::test]
async fn a_failed_write_is_reported_and_the_rest_of_the_batch_commits() {
    let store = memory().await;
    store
        .start_game(start(
            1,
            [Sitter::Human(PlayerId(1)), Sitter::Human(PlayerId(2))],
            false,
        ))
        .await
        .unwrap();
    let played = StoredMove {
        cell: 4,
        at_ms: 10,
        clock_ms: None,
    };
    store
        .record_move(GameId(1), 0, 1, played, None)
        .await
        .unwrap();
    // The same ply twice is refused; a move in a game that does not exist too.
    let twice = store.record_move(GameId(1), 0, 2, played, None).await;
    assert!(matches!(twice, Err(StoreError::Database(_))), "{twice:?}");
    let nowhere = store.record_move(GameId(9), 0, 1, played, None).await;
    assert!(nowhere.is_err());
    let (game, moves) = store.record(GameId(1), PlayerId(1)).await.unwrap().unwrap();
    assert_eq!(moves.iter().map(|m| m.cell).collect::<Vec<_>>(), [4]);
    assert_eq!(game.moves, 1);
    assert!(
        store
            .record(GameId(9), PlayerId(1))
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.profile(PlayerId(9)).await.unwrap().is_none());
    assert!(
        store
            .history(PlayerId(9), None, 5, PlayerId(9))
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_version_1_database_opens_under_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    {
        // A database as the first schema version made it, with a finished and a live game.
        let db = Connection::open(&path).unwrap();
        db.execute_batch(MIGRATIONS[0]).unwrap();
        db.pragma_update(None, "user_version", 1).unwrap();
        db.execute(
            "INSERT INTO players VALUES (7, 'ada', ?1, 1000, 2000)",
            [&TokenHash::of("ada's token").0[..]],
        )
        .unwrap();
        db.execute_batch(
            "INSERT INTO games (id, variant, kind, x_player, o_level, listed, started_ms, seq, \
                 ended_ms, winner, reason, cells) \
             VALUES (3, 'classic', 'ai', 7, 'easy', 1, 1000, 6, 5000, 'x', 'line', '0,1,2');
             INSERT INTO moves VALUES (3, 0, 0, 100, NULL), (3, 1, 3, 200, NULL),
                 (3, 2, 1, 300, NULL), (3, 3, 4, 400, NULL), (3, 4, 2, 500, NULL);
             INSERT INTO games (id, variant, kind, x_player, o_level, clock_initial_ms, \
                 clock_increment_ms, listed, started_ms, seq) \
             VALUES (4, 'four', 'ai', 7, 'hard', 60000, 0, 1, 6000, 1);
             INSERT INTO moves VALUES (4, 0, 5, 100, 59000);",
        )
        .unwrap();
    }
    let (store, startup) = Store::open(&StoreConfig::File(path.clone())).await.unwrap();
    assert_eq!((startup.last_player, startup.last_game), (7, 4));
    let [live] = startup.live.as_slice() else {
        panic!("one live game: {:?}", startup.live)
    };
    assert_eq!(live.start.game, GameId(4));
    assert_eq!(
        live.start.clock,
        Some(ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0
        })
    );
    assert!(!live.start.rated);
    assert_eq!(live.moves[0].clock_ms, Some(59_000));
    let ada = store
        .rotate_token(
            TokenHash::of("ada's token"),
            TokenHash::of("fresh"),
            FOREVER,
        )
        .await
        .unwrap()
        .expect("the player is still there");
    assert_eq!((ada.player, ada.name.as_str()), (PlayerId(7), "ada"));
    let (games, more) = store
        .history(PlayerId(7), None, 10, PlayerId(7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(games.len(), 1);
    assert!(!more);
    assert_eq!(
        games[0].result.as_ref().map(|r| r.winner),
        Some(Some(Mark::X))
    );
    let (_, moves) = store.record(GameId(3), PlayerId(7)).await.unwrap().unwrap();
    assert_eq!(
        moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        [0, 3, 1, 4, 2]
    );
    let profile = store.profile(PlayerId(7)).await.unwrap().unwrap();
    assert_eq!(
        (
            crate::rating::points(profile.ratings[0].0.rating),
            profile.results[0].wins
        ),
        (1500, 1)
    );
    drop(store);
    let db = Connection::open(&path).unwrap();
    let version: i64 = db
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, i64::try_from(MIGRATIONS.len()).unwrap());
}

#[tokio::test]
async fn a_database_from_a_newer_server_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let opened = Store::open(&StoreConfig::File(path)).await;
    assert!(matches!(opened, Err(StoreError::TooNew { found: 99, .. })));
}

#[tokio::test]
async fn a_job_that_panics_does_not_end_the_store() {
    let store = memory().await;
    let read = store
        .read(|_| -> Result<(), StoreError> { panic!("a broken query") })
        .await;
    assert!(read.is_err());
    let write = store
        .write("broken", |_| -> rusqlite::Result<()> {
            panic!("a broken write")
        })
        .await;
    assert!(write.is_err());
    assert_eq!(classic_rating(&store, 1).await, (1500, 0));
}

#[tokio::test]
async fn one_file_serves_one_server_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let config = StoreConfig::File(dir.path().join("one.db"));
    let (first, _) = Store::open(&config).await.unwrap();
    first
        .add_player(PlayerId(1), "ada", TokenHash::of("a"))
        .await
        .unwrap();
    let second = Store::open(&config).await;
    assert!(matches!(second, Err(StoreError::InUse)), "{second:?}");
    drop(first);
    // Once the first has gone, the file opens again, with everything in it.
    let (store, startup) = reopen(&config).await;
    assert_eq!(startup.last_player, 1);
    assert!(store.profile(PlayerId(1)).await.unwrap().is_some());
}

#[tokio::test]
async fn an_unreadable_live_game_is_left_out_rather_than_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let config = StoreConfig::File(dir.path().join("odd.db"));
    let (store, _) = Store::open(&config).await.unwrap();
    store
        .add_player(PlayerId(1), "ada", TokenHash::of("a"))
        .await
        .unwrap();
    for game in [1, 2] {
        store
            .start_game(start(
                game,
                [Sitter::Human(PlayerId(1)), Sitter::Ai(Level::Easy)],
                false,
            ))
            .await
            .unwrap();
    }
    store
        .write("spoil", |db| {
            db.execute("UPDATE games SET variant = 'chess' WHERE id = 1", [])
                .map(drop)
        })
        .await
        .unwrap();
    drop(store);
    let (_, startup) = reopen(&config).await;
    let live: Vec<GameId> = startup.live.iter().map(|g| g.start.game).collect();
    assert_eq!(live, [GameId(2)]);
    assert_eq!(startup.last_game, 2);
}

#[test]
fn a_token_is_traded_for_a_new_one_works_a_little_longer_and_expires_unused_or_revoked() {
    let db = sqlite::open(&StoreConfig::Memory).unwrap();
    let ada = PlayerId(1);
    let t = |n: u32| TokenHash::of(&format!("token {n}"));
    let rotate = |old: u32, new: u32, now: u64| {
        sqlite::rotate_token(&db, t(old), t(new), RULES, now).unwrap()
    };
    sqlite::add_player(&db, ada, "ada", t(0), 1_000).unwrap();
    assert_eq!(rotate(9, 10, 1_000), None, "a token never issued");
    assert_eq!(rotate(0, 1, 2_000), Some(ada));
    // The replaced token works for the overlap (another client sharing it), and no longer.
    assert_eq!(rotate(0, 2, 2_099), Some(ada));
    assert_eq!(rotate(0, 3, 2_100), None);
    assert_eq!(rotate(3, 4, 2_100), None, "a refused trade issues nothing");
    // Each new token works, and is replaced in turn.
    assert_eq!(rotate(1, 5, 3_000), Some(ada));
    assert_eq!(rotate(2, 6, 3_000), Some(ada));
    // A token left unused for the idle time has expired.
    assert_eq!(rotate(5, 7, 3_000 + 9_999), Some(ada));
    assert_eq!(rotate(6, 8, 3_000 + 10_000), None);
    // The tokens that no longer work are deleted; only hashes are kept.
    assert_eq!(sqlite::prune_tokens(&db, RULES, 13_100).unwrap(), 2);
    let left: Vec<Vec<u8>> = db
        .prepare("SELECT hash FROM tokens ORDER BY used_ms")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(left, [t(7).0.to_vec()]);
    assert_eq!(sqlite::revoke_tokens(&db, ada).unwrap(), 1);
    assert_eq!(rotate(7, 11, 13_000), None, "logged out");
}

#[tokio::test]
async fn tokens_are_kept_as_hashes_that_never_show() {
    let (store, _) = Store::open(&StoreConfig::Memory).await.unwrap();
    let token = "5f1c0e8a4b7d2e9f3a6c1b8d0e4f7a2c";
    let key = TokenHash::of(token);
    store.add_player(PlayerId(1), "ada", key).await.unwrap();
    let fresh = TokenHash::of("fresh");
    let found = store
        .rotate_token(key, fresh, RULES)
        .await
        .unwrap()
        .expect("found by its hash");
    assert_eq!(found.player, PlayerId(1));
    assert!(
        store
            .rotate_token(
                TokenHash::of("5f1c0e8a4b7d2e9f3a6c1b8d0e4f7a2d"),
                fresh,
                RULES
            )
            .await
            .unwrap()
            .is_none()
    );
    let shown = format!("{found:?} {key:?}");
    let hex: String = key.0.iter().map(|b| format!("{b:02x}")).collect();
    assert!(!shown.contains(token) && !shown.contains(&hex), "{shown}");
    assert!(!shown.contains(&format!("{:?}", key.0)), "{shown}");
    assert!(shown.contains("ada"), "{shown}");
}

#[cfg(unix)]
#[tokio::test]
async fn the_database_and_its_journal_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("noughts.db");
    let mode = |suffix: &str| {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777
    };
    // A new database, written to, so that its -wal and -shm files exist.
    let config = StoreConfig::File(path.clone());
    let (store, _) = Store::open(&config).await.unwrap();
    store
        .start_game(start(
            1,
            [Sitter::Ai(Level::Easy), Sitter::Ai(Level::Hard)],
            false,
        ))
        .await
        .unwrap();
    // In exclusive locking mode SQLite keeps no -shm file; whatever journal files exist are private.
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        if suffix != "-shm" || std::path::Path::new(&file).exists() {
            assert_eq!(mode(suffix), 0o600, "noughts.db{suffix}");
        }
    }
    drop(store);
    // A database left readable by everyone (as earlier versions created it) is tightened.
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        if std::path::Path::new(&file).exists() {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    let (store, _) = reopen(&config).await;
    drop(store);
    assert_eq!(mode(""), 0o600);
}
