//! What only SQLite does: a file's schema migrated from the first version, one server per file,
//! and files only the server's user can read.

use noughts_protocol::{ClockSpec, GameId, Level, Mark, PlayerId};
use rusqlite::Connection;

use super::super::sqlite::MIGRATIONS;
use super::super::{Store, StoreConfig, StoreError, TokenHash, TokenRules};
use super::Fresh;
use super::suite::start;
use crate::rules::sitter::Sitter;

/// Tokens that never lie unused too long, for records written in 1970.
const FOREVER: TokenRules = TokenRules {
    idle_ms: u64::MAX,
    overlap_ms: 100,
};

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
            crate::rules::rating::points(profile.ratings[0].0.rating),
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
async fn usernames_stored_before_skeletons_are_given_theirs_and_look_alikes_keep_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    let before = MIGRATIONS
        .iter()
        .position(|script| script.contains("username_skeleton"))
        .expect("the migration that adds skeletons");
    {
        let db = Connection::open(&path).unwrap();
        for script in &MIGRATIONS[..before] {
            db.execute_batch(script).unwrap();
        }
        db.pragma_update(None, "user_version", i64::try_from(before).unwrap())
            .unwrap();
        for (player, username, key, closed) in [
            (1, "Reuse-X", Some("reuse-x"), None),
            (2, "reuse_x", Some("reuse_x"), None),
            (3, "BobI", Some("bobi"), Some(10)),
            (4, "gone", None, Some(10)),
            (5, "m0m", Some("m0m"), None),
        ] {
            db.execute(
                "INSERT INTO players (id, name, created_ms, last_seen_ms) VALUES (?1, ?2, 0, 0)",
                rusqlite::params![player, username],
            )
            .unwrap();
            db.execute(
                "INSERT INTO accounts (player, username, username_key, phc, created_ms, closed_ms) \
                 VALUES (?1, ?2, ?3, 'phc', 0, ?4)",
                rusqlite::params![player, username, key, closed],
            )
            .unwrap();
        }
    }
    let (store, _) = Store::open(&StoreConfig::File(path.clone())).await.unwrap();
    for key in ["reuse-x", "reuse_x", "bobi", "m0m"] {
        let found = store.account_by_key(key.to_owned()).await.unwrap();
        assert!(found.is_some(), "{key} still signs in");
    }
    // Held however long ago a closed account closed.
    for look_alike in ["REUSE_X", "reuse-X", "bob1", "bobl", "rnorn"] {
        let skeleton = noughts_protocol::username_skeleton(look_alike);
        let key = look_alike.to_ascii_lowercase();
        assert!(
            store.name_taken(key, skeleton, u64::MAX).await.unwrap(),
            "{look_alike} is taken"
        );
    }
    drop(store);
    let db = Connection::open(&path).unwrap();
    let skeletons: Vec<(i64, Option<String>)> = db
        .prepare("SELECT player, username_skeleton FROM accounts ORDER BY player")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected = |name: &str| Some(noughts_protocol::username_skeleton(name));
    assert_eq!(
        skeletons,
        [
            (1, expected("Reuse-X")),
            (2, None),
            (3, expected("BobI")),
            (4, None),
            (5, expected("m0m")),
        ],
        "the oldest of look-alikes holds the skeleton, as the Rust function makes it"
    );
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
    let (store, startup) = Fresh::existing(config.clone()).open().await;
    assert_eq!(startup.last_player, 1);
    assert!(store.profile(PlayerId(1)).await.unwrap().is_some());
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
    let (store, _) = Fresh::existing(config.clone()).open().await;
    drop(store);
    assert_eq!(mode(""), 0o600);
}

/// A write queued just as the runtime stops still reaches the database: the jobs of a batch are
/// handed to the store thread by a task that the runtime may drop before it runs, and dropping it
/// hands them over too; later jobs of the same store are not held up behind them.
#[test]
fn a_write_queued_as_the_runtime_stops_still_commits() {
    let fresh = Fresh::sqlite();
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let first = runtime();
    let store = first.block_on(async {
        let (store, _) = fresh.open().await;
        let token = TokenHash::of("ada's token");
        store.add_player(PlayerId(1), "ada", token).await.unwrap();
        // Every token goes. `block_on` returns before the task that hands this over has run.
        let rules = TokenRules {
            idle_ms: 0,
            overlap_ms: 0,
        };
        store.prune_tokens(rules);
        store
    });
    drop(first);
    runtime().block_on(async {
        let trade = store.rotate_token(TokenHash::of("ada's token"), TokenHash::of("new"), FOREVER);
        let traded = tokio::time::timeout(std::time::Duration::from_secs(20), trade)
            .await
            .expect("the store answers")
            .unwrap();
        assert!(traded.is_none(), "the token was pruned");
    });
}
