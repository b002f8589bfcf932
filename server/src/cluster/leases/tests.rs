//! A node's leases against a real `redis-server` and a store that judges their epochs (the
//! memory store, shared by the two nodes here as PostgreSQL is by a cluster's).

use std::time::Duration;

use noughts_protocol::{GameId, GameKind, Level, Variant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{Claim, Judge, Leases};
use crate::cluster::Cluster;
use crate::rules::sitter::Sitter;
use crate::store::{GameStart, Store, StoreConfig};

use crate::cluster::tests::redis_server::TestRedis as Redis;

/// The store as the judge, as a node has it.
struct StoreJudge(Store);

impl Judge for StoreJudge {
    fn claim(&self, game: GameId, held: Option<u64>) -> Claim {
        let store = self.0.clone();
        Box::pin(async move { store.claim(game, held).await.map_err(|e| e.to_string()) })
    }

    fn fence(&self, game: GameId, epoch: Option<u64>) {
        self.0.fence(game, epoch);
    }
}

/// A live game between two AI seats, stored.
async fn stored_game(store: &Store, game: u64) -> GameId {
    let start = GameStart {
        game: GameId(game),
        variant: Variant::Classic,
        kind: GameKind::Ai,
        seats: [Sitter::Ai(Level::Easy), Sitter::Ai(Level::Easy)],
        clock: None,
        rated: false,
        listed: false,
        rematch_of: None,
        owner: None,
        started_ms: 1_000,
    };
    store.start_game(start).await.unwrap();
    GameId(game)
}

/// Waits (bounded) until `holds` is true.
async fn until(holds: impl Fn() -> bool) {
    for _ in 0..500 {
        if holds() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never came");
}

/// The next game told to step down, within a few seconds.
async fn lapsed(lapses: &mut mpsc::UnboundedReceiver<GameId>) -> GameId {
    tokio::time::timeout(Duration::from_secs(5), lapses.recv())
        .await
        .expect("a game steps down")
        .expect("the leases live")
}

#[tokio::test]
async fn a_node_keeps_its_games_leases_gives_them_back_and_notices_one_lost() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (store, _) = Store::open(&StoreConfig::Memory).await.unwrap();
    let lease = Duration::from_millis(300);
    let tasks = TaskTracker::new();
    let node = async |name| {
        let cluster = Cluster::join(&redis.url, name, lease).await.unwrap();
        Leases::new(cluster, tasks.clone(), Box::new(StoreJudge(store.clone())))
    };
    let (a, mut a_lapses) = node("a").await;
    let (b, _b_lapses) = node("b").await;
    let stop = CancellationToken::new();
    tokio::spawn(a.clone().keep(stop.clone()));
    let mut games = Vec::new();
    for game in 1..=6 {
        games.push(stored_game(&store, game).await);
    }
    let [kept, given, lost, handed, stalled, brief] = games[..] else {
        unreachable!()
    };
    for game in [kept, given, lost] {
        assert!(a.take(game).await);
        assert!(!b.take(game).await, "a holds it");
    }
    // Renewed, a keeps its games past their first lease time.
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(!b.take(kept).await);
    assert!(a.holds(kept));
    // Given back, a game is free at once.
    a.give_back(given);
    tasks.close();
    tasks.wait().await;
    assert!(b.take(given).await);
    // Given back while its renewal is on the way (a node stopping hands its games over while it
    // still renews): a does not take it again, and the node taking it over gets it.
    assert!(a.take(handed).await);
    let renewing = a.held_now();
    a.give_back(handed);
    tasks.wait().await;
    a.renew(renewing).await;
    assert!(!a.holds(handed));
    assert!(
        b.take(handed).await,
        "the game handed over is free for another node"
    );
    // Taken from under a (its lease deleted, as if it had expired): b raises the game's epoch in
    // the store, and a notices, lets go and steps the game down.
    let _: () = redis::cmd("DEL")
        .arg(super::super::lease::owner_key(lost))
        .query_async(&mut b.cluster().redis.clone())
        .await
        .unwrap();
    assert!(b.take(lost).await);
    assert_eq!(lapsed(&mut a_lapses).await, lost);
    assert!(!a.holds(lost) && a.is_paused(lost));
    assert_eq!(store.claim(lost, Some(0)).await.unwrap(), None, "b's now");
    // b holds it: a's players reach it there, and a does not take it again.
    a.unpause(lost);
    assert!(a.holds(kept));
    // Redis loses everything (a restart without persistence): a takes its game again, under the
    // same epoch, which the store still says is a's; b cannot take it.
    let _: () = redis::cmd("FLUSHALL")
        .query_async(&mut b.cluster().redis.clone())
        .await
        .unwrap();
    until(|| a.holds(kept)).await;
    let owner = async || a.cluster().owner(kept).await.unwrap();
    for _ in 0..50 {
        if owner().await.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(owner().await, Some("a".to_owned()));
    assert!(!b.take(kept).await, "a holds it again");
    assert_eq!(store.claim(kept, Some(1)).await.unwrap(), Some(1));
    // Redis stalls for longer than a lease: a stops trusting its lease before it can have
    // expired, and steps the game down; once Redis answers, the game is taken again.
    assert!(a.take(stalled).await);
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(1_000)
        .arg("ALL")
        .query_async(&mut b.cluster().redis.clone())
        .await
        .unwrap();
    let mut stepped = vec![lapsed(&mut a_lapses).await, lapsed(&mut a_lapses).await];
    stepped.sort();
    assert_eq!(stepped, [kept, stalled], "every game of a steps down");
    let mut paused = a.paused().await;
    paused.sort();
    assert_eq!(paused, [kept, stalled]);
    assert!(a.take(stalled).await, "taken again once Redis answers");
    assert!(!a.is_paused(stalled));
    // A game that closes before its new lease is even taken still gives it back.
    let (c, _c_lapses) = node("c").await;
    c.take_new(brief);
    c.give_back(brief);
    until(|| !c.holds(brief)).await;
    for _ in 0..100 {
        if b.take(brief).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(b.holds(brief));
    stop.cancel();
}
