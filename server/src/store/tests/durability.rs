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
