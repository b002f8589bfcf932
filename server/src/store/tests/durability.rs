//! `--durability interval` on every store: writes answered once written are flushed within the
//! interval, counted in the flush series, and there after the store is opened again. The memory
//! store has no disk to reach: nothing is flushed, and its interval reads 0.

use std::time::Duration;

use noughts_protocol::PlayerId;

use super::super::{Durability, Store, StoreConfig, TokenHash};
use super::Fresh;

on_both!(writes_answered_once_written_are_flushed_within_the_interval);

async fn writes_answered_once_written_are_flushed_within_the_interval(db: Fresh) {
    let every = Duration::from_millis(20);
    let (store, _) = Store::open_keeping(&db.config, usize::MAX, Durability::Interval(every))
        .await
        .unwrap();
    for n in 1..=20 {
        let token = TokenHash::of(&format!("token {n}"));
        store
            .add_player(PlayerId(n), &format!("p{n}"), token)
            .await
            .unwrap();
    }
    let on_disk = !matches!(db.config, StoreConfig::Memory);
    let flush = store.flush.clone();
    if on_disk {
        assert_eq!(flush.interval.get(), every.as_secs_f64());
        tokio::time::timeout(Duration::from_secs(20), async {
            while flush.flushes.get() == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("a flush within the interval, give or take a busy machine");
    } else {
        assert_eq!(flush.interval.get(), 0.0);
    }
    drop(store);
    if !on_disk {
        return;
    }
    // Opened again, as a server started after a crash would: every answered write is there.
    let (_store, startup) = db.open().await;
    assert_eq!(startup.last_player, 20);
}

/// A SQLite file answering once written: its log is checkpointed as it grows (by the store
/// thread, SQLite's own checkpoints being off), a backup taken meanwhile holds every answered
/// write, and so does the file opened again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_answered_once_written_is_checkpointed_as_it_grows_and_backed_up_whole() {
    let db = Fresh::sqlite();
    let StoreConfig::File(path) = &db.config else {
        unreachable!("a SQLite store");
    };
    let every = Duration::from_millis(5);
    let (store, _) = Store::open_keeping(&db.config, usize::MAX, Durability::Interval(every))
        .await
        .unwrap();
    // Each new player is a few pages of log: some 45 MiB in all, without a checkpoint.
    let players = 3_000;
    for n in 1..=players {
        let token = TokenHash::of(&format!("token {n}"));
        let name = format!("player-{n:04}-{}", "x".repeat(20));
        store.add_player(PlayerId(n), &name, token).await.unwrap();
    }
    // Checkpointed as it grows, the log starts again from its beginning (its file kept up to
    // 16 MiB) rather than growing with every commit.
    let flushes = store.flush.flushes.clone();
    let synced = flushes.get();
    tokio::time::timeout(Duration::from_secs(20), async {
        while flushes.get() == synced {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("a flush");
    store.flush().await.unwrap();
    let log = std::fs::metadata(format!("{}-wal", path.display()))
        .unwrap()
        .len();
    assert!(log < 20 << 20, "the log is {log} bytes: never checkpointed");
    let copy = path.with_file_name("copy.db");
    store.backup_into(copy.clone()).await.unwrap();
    let (_copy, startup) = Store::open(&StoreConfig::File(copy)).await.unwrap();
    assert_eq!(startup.last_player, players);
    drop(store);
    let (_store, startup) = db.open().await;
    assert_eq!(startup.last_player, players);
}
