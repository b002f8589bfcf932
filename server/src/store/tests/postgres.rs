//! What only PostgreSQL does: its schema version table, a clear error when the server cannot be
//! reached (its password never shown), and one database that several stores share without
//! waiting on each other.

use noughts_protocol::PlayerId;

use super::super::postgres::{MIGRATIONS, Postgres};
use super::super::{Store, StoreConfig, StoreError, TokenHash};
use super::Fresh;

#[tokio::test]
async fn the_schema_is_migrated_once_and_a_newer_one_is_refused() {
    let Some(db) = Fresh::postgres("migrations") else {
        return;
    };
    let (store, _) = db.open().await;
    drop(store);
    // Opened again: nothing to migrate, nothing lost.
    let versions = execute(
        &db,
        "INSERT INTO schema_version (version, applied_ms) VALUES (99, 0)",
    )
    .await;
    assert!(versions.is_ok(), "{versions:?}");
    let known = u32::try_from(MIGRATIONS.len()).unwrap();
    let opened = Store::open(&db.config).await;
    assert!(
        matches!(opened, Err(StoreError::TooNew { found: 99, known: k }) if k == known),
        "{opened:?}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error_that_hides_the_password() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://noughts:s3cret@127.0.0.1:{port}/noughts");
    let opened = Store::open(&StoreConfig::Postgres(url)).await;
    let Err(err) = opened else {
        panic!("nothing listens on {port}")
    };
    assert!(matches!(err, StoreError::Unreachable { .. }), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(
        err.to_string().starts_with(&format!(
            "cannot connect to PostgreSQL at postgres://noughts:***@127.0.0.1:{port}/noughts: "
        )),
        "{err}"
    );
    let bad = Store::open(&StoreConfig::Postgres("postgres://[nowhere".into())).await;
    assert!(
        matches!(bad, Err(StoreError::Unreachable { .. })),
        "{bad:?}"
    );
}

#[tokio::test]
async fn two_stores_on_one_database_see_each_others_records() {
    let Some(db) = Fresh::postgres("shared") else {
        return;
    };
    let (first, _) = db.open().await;
    let (second, _) = db.open().await;
    first
        .add_player(PlayerId(1), "ada", TokenHash::of("a"))
        .await
        .unwrap();
    let profile = second.profile(PlayerId(1)).await.unwrap().unwrap();
    assert_eq!(profile.name, "ada");
    let ada = second
        .rotate_token(
            TokenHash::of("a"),
            TokenHash::of("b"),
            crate::store::TokenRules {
                idle_ms: 60_000,
                overlap_ms: 0,
            },
        )
        .await
        .unwrap()
        .expect("a token made on one works on the other");
    assert_eq!(ada.player, PlayerId(1));
}

#[tokio::test]
async fn a_lost_connection_is_made_again_for_the_next_writes() {
    let Some(db) = Fresh::postgres("reconnect") else {
        return;
    };
    let (first, _) = db.open().await;
    first
        .add_player(PlayerId(1), "ada", TokenHash::of("a"))
        .await
        .unwrap();
    // The first store's connection is cut, as when PostgreSQL restarts or the network fails.
    execute(
        &db,
        "DO $$ BEGIN \
                 PERFORM pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid(); \
                 LOOP \
                   PERFORM pg_stat_clear_snapshot(); \
                   EXIT WHEN (SELECT count(*) FROM pg_stat_activity \
                              WHERE datname = current_database()) <= 1; \
                   PERFORM pg_sleep(0.01); \
                 END LOOP; END $$",
    )
    .await
    .unwrap();
    first
        .add_player(PlayerId(2), "bob", TokenHash::of("b"))
        .await
        .expect("written on a new connection");
    let bob = first.profile(PlayerId(2)).await.unwrap().unwrap();
    assert_eq!(bob.name, "bob");
}

/// Runs SQL as it is on a connection of its own (the blocking client, off the runtime).
async fn execute(db: &Fresh, sql: &'static str) -> Result<(), StoreError> {
    let StoreConfig::Postgres(url) = db.config.clone() else {
        panic!("not a PostgreSQL database: {:?}", db.config)
    };
    tokio::task::spawn_blocking(move || Postgres::connect(&url)?.execute(sql))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_token_noted_used_does_not_wait_for_another_node_trading_it() {
    let Some(db) = Fresh::postgres("touch_skips") else {
        return;
    };
    let (store, _) = db.open().await;
    let token = TokenHash::of("a");
    store.add_player(PlayerId(1), "ada", token).await.unwrap();
    // Another node's batch holds the token's row (it is trading it) until told to let go.
    let StoreConfig::Postgres(url) = db.config.clone() else {
        unreachable!()
    };
    let hex: String = token.0.iter().map(|b| format!("{b:02x}")).collect();
    let (held, holding) = tokio::sync::oneshot::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let other = tokio::task::spawn_blocking(move || {
        let mut other = Postgres::connect(&url)?;
        other.execute("BEGIN")?;
        other.execute(&format!(
            "UPDATE tokens SET expires_ms = 1 WHERE hash = '\\x{hex}'::bytea"
        ))?;
        let _ = held.send(());
        let _ = released.recv();
        other.execute("ROLLBACK")
    });
    holding.await.unwrap();
    // The node whose connection closed notes the token used: that write, and the batch it is
    // in, go through while the row is held (waiting for it is how two nodes' batches deadlock).
    store.touch_token(token);
    let flushed = tokio::time::timeout(std::time::Duration::from_secs(30), store.flush()).await;
    release.send(()).unwrap();
    other.await.unwrap().unwrap();
    assert!(
        matches!(flushed, Ok(Ok(()))),
        "the batch waited for a row another transaction holds: {flushed:?}"
    );
}

#[tokio::test]
async fn nodes_reserving_ids_together_never_deadlock() {
    let Some(db) = Fresh::postgres("no_deadlock") else {
        return;
    };
    let (first, _) = db.open().await;
    let (second, _) = db.open().await;
    let kinds = ["player", "game", "seek"];
    for round in 0..20u64 {
        // Each node queues all three kinds in one go, in opposite orders, as nodes starting
        // together do: in one batch's transaction they would each hold one row and wait for
        // the other's.
        let mut asked = Vec::new();
        for (store, order) in [(&first, [0, 1, 2]), (&second, [2, 1, 0])] {
            for i in order {
                let store = store.clone();
                let kind = kinds[i];
                asked.push(tokio::spawn(async move {
                    store.reserve_ids(kind, 10, 0).await.map(|_| ())
                }));
            }
        }
        for answer in asked {
            let answer = tokio::time::timeout(std::time::Duration::from_secs(30), answer).await;
            assert!(
                matches!(answer, Ok(Ok(Ok(())))),
                "round {round}: {answer:?}"
            );
        }
    }
}
