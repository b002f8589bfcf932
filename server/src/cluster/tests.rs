//! The cluster against a real `redis-server` (the test kit's, `kit/src/redis.rs`):
//! leases, the lobby across nodes, ids, and what survives Redis losing everything.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use noughts_protocol::{GameId, RoomInfo, Totals, Variant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::lease::Lease;
use super::lobby::Heard;
use super::{Cluster, ClusterError};
use crate::lobby::Change;

// The test kit's Redis server, shared with `noughts-tests`.
pub(super) use noughts_kit::redis as redis_server;
use redis_server::TestRedis as Redis;

#[tokio::test]
async fn leases_renewed_together_each_say_whether_they_were_kept() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_secs(30);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let mut held = Vec::new();
    for game in 1..=3 {
        let lease = Lease {
            game: GameId(game),
            epoch: 0,
            token: game,
        };
        assert!(a.acquire(lease.game, lease.token).await.unwrap(), "free");
        held.push(lease);
    }
    // The second one is given back and taken by another node: lost to a.
    assert!(a.release(held[1]).await.unwrap());
    assert!(b.acquire(GameId(2), 9).await.unwrap(), "given back");
    assert_eq!(a.renew_all(&held).await.unwrap(), [true, false, true]);
    assert_eq!(a.renew_all(&[]).await.unwrap(), Vec::<bool>::new());
    assert_eq!(b.owner(GameId(2)).await.unwrap(), Some("b".to_owned()));
}

#[tokio::test]
async fn one_node_at_a_time_holds_a_game_and_a_lost_lease_stays_lost() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    // Long enough that a renewal every 300 ms is in time however busy the machine.
    let lease = Duration::from_secs(1);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let game = GameId(7);
    let first = Lease {
        game,
        epoch: 0,
        token: 1,
    };
    assert!(
        a.acquire(game, first.token).await.unwrap(),
        "nobody held it"
    );
    assert!(!b.acquire(game, 2).await.unwrap(), "a holds it");
    assert_eq!(a.owner(game).await.unwrap(), Some("a".to_owned()));
    // Renewed, it outlives its first term.
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(a.renew_all(&[first]).await.unwrap(), [true]);
    }
    assert!(!b.acquire(game, 2).await.unwrap());
    // Left to expire (a node that stopped), it goes to the next node.
    until_some(|| async { Ok(b.acquire(game, 2).await?.then_some(())) }).await;
    let second = Lease { token: 2, ..first };
    // The old holder can neither renew nor give back what is no longer its, even under the
    // same token as the new holder's: the node's name is part of the lease.
    assert_eq!(a.renew_all(&[first]).await.unwrap(), [false]);
    assert!(!a.release(first).await.unwrap());
    assert!(!a.release(second).await.unwrap());
    assert_eq!(b.owner(game).await.unwrap(), Some("b".to_owned()));
    // Given back, it is free at once.
    assert!(b.release(second).await.unwrap());
    assert!(a.acquire(game, 3).await.unwrap(), "free");
}

#[tokio::test]
async fn an_unreachable_redis_is_a_clear_error_without_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let url = format!("redis://:hunter2@127.0.0.1:{port}");
    let err = Cluster::join(&url, "a", Duration::from_secs(5))
        .await
        .expect_err("nothing listens there");
    let shown = err.to_string();
    assert!(matches!(err, ClusterError::Unreachable { .. }), "{shown}");
    assert!(shown.contains(&format!("127.0.0.1:{port}")), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(matches!(
        Cluster::join("not a url", "a", Duration::from_secs(5)).await,
        Err(ClusterError::BadUrl(_))
    ));
}

fn room(code: &str) -> Change {
    Change::Room {
        room: RoomInfo {
            code: code.to_owned(),
            variant: Variant::Classic,
            clock: None,
            host: "ada".to_owned(),
            player: None,
            rated: false,
            guest: false,
            bot: false,
        },
    }
}

/// Publishes what is sent on the returned sender as `node`'s lobby changes, republishing on
/// `republish`.
fn relay(
    node: &Cluster,
    republish: Arc<tokio::sync::Notify>,
    stop: &CancellationToken,
) -> mpsc::UnboundedSender<Change> {
    let (relay, changes) = mpsc::unbounded_channel();
    tokio::spawn(super::lobby::relay(
        node.clone(),
        changes,
        republish,
        stop.clone(),
        Totals::default,
    ));
    relay
}

/// Follows the other nodes' lobby changes as `node`, collecting them.
fn follow(node: &Cluster, stop: &CancellationToken) -> Arc<Mutex<Vec<Change>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = seen.clone();
    tokio::spawn(super::lobby::follow(
        node.clone(),
        move |heard| {
            if let Heard::Change(change) = heard {
                into.lock().unwrap().push(change.clone());
            }
        },
        Arc::default(),
        stop.clone(),
    ));
    seen
}

/// Waits (bounded) until `ask` answers `Some`, and returns that.
async fn until_some<T, F>(ask: impl Fn() -> F) -> T
where
    F: std::future::Future<Output = Result<Option<T>, ClusterError>>,
{
    for _ in 0..1_000 {
        if let Some(found) = ask().await.unwrap() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never came");
}

/// Waits until `seen` holds exactly `expected` (in any order of arrival, the last word counting).
async fn until_seen(seen: &Mutex<Vec<Change>>, expected: &[Change]) {
    for _ in 0..1_000 {
        if seen.lock().unwrap().as_slice() == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "saw {:?}, expected {expected:?}",
        seen.lock().unwrap().as_slice()
    );
}

#[tokio::test]
async fn nodes_share_one_lobby_and_a_gone_node_s_listings_are_removed() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_millis(300);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let stop = CancellationToken::new();
    a.heartbeat().await.unwrap();
    b.heartbeat().await.unwrap();
    // Node a lists a room before b follows: b gets it in its snapshot.
    let relay = relay(&a, Arc::default(), &stop);
    relay.send(room("AAAA-AAAA-AA")).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = follow(&b, &stop);
    until_seen(&seen, &[room("AAAA-AAAA-AA")]).await;
    // Then every change, in order.
    relay.send(room("BBBB-BBBB-BB")).unwrap();
    relay
        .send(Change::RoomRemoved {
            code: "AAAA-AAAA-AA".to_owned(),
        })
        .unwrap();
    let removed_a = Change::RoomRemoved {
        code: "AAAA-AAAA-AA".to_owned(),
    };
    until_seen(
        &seen,
        &[
            room("AAAA-AAAA-AA"),
            room("BBBB-BBBB-BB"),
            removed_a.clone(),
        ],
    )
    .await;
    // A node never hears its own changes back.
    let b_relay = self::relay(&b, Arc::default(), &stop);
    b_relay.send(room("CCCC-CCCC-CC")).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(seen.lock().unwrap().len(), 3, "b's own room is not echoed");
    // Node a stops without a word: once its heartbeat has expired, b's sweep removes its room.
    tokio::spawn(super::nodes::sweep_gone(b.clone(), stop.clone()));
    let keep_b = b.clone();
    let stop_b = stop.clone();
    tokio::spawn(async move { keep_b.keep_alive(stop_b).await });
    until_seen(
        &seen,
        &[
            room("AAAA-AAAA-AA"),
            room("BBBB-BBBB-BB"),
            removed_a,
            Change::RoomRemoved {
                code: "BBBB-BBBB-BB".to_owned(),
            },
        ],
    )
    .await;
    // The sweep removes a's listings before it forgets a: wait for that too.
    let mut gone = b.gone_nodes().await.unwrap();
    for _ in 0..200 {
        if gone.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        gone = b.gone_nodes().await.unwrap();
    }
    assert_eq!(gone, Vec::<String>::new());
    stop.cancel();
}

#[tokio::test]
async fn a_node_publishes_a_bounded_number_of_lobby_messages_whatever_the_moves() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_secs(5);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let stop = CancellationToken::new();
    let (mut sink, mut messages) = a.subscribe().await.unwrap();
    sink.subscribe(super::lobby::CHANNEL).await.unwrap();
    let seen = follow(&b, &stop);
    let totals = Arc::new(Mutex::new(None));
    let heard = totals.clone();
    tokio::spawn(super::lobby::follow(
        b.clone(),
        move |said| {
            if let Heard::Totals(node, totals) = said {
                *heard.lock().unwrap() = Some((node.to_owned(), totals));
            }
        },
        Arc::default(),
        stop.clone(),
    ));
    let (relay, changes) = mpsc::unbounded_channel();
    let local = || Totals {
        online: 7,
        games: 2,
    };
    tokio::spawn(super::lobby::relay(
        a.clone(),
        changes,
        Arc::default(),
        stop.clone(),
        local,
    ));
    // Two listed games, 2,000 moves between them over about a second, and a room among them.
    let started = tokio::time::Instant::now();
    for moves in 0..1000u32 {
        for id in [1, 2] {
            relay.send(listed(id, moves)).unwrap();
        }
        if moves == 500 {
            relay.send(room("AAAA-AAAA-AA")).unwrap();
        }
        if moves % 50 == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    // Each game's last word, and the room, arrive; the totals with them.
    until_seen_last(&seen, &[listed(1, 999), listed(2, 999)]).await;
    assert!(seen.lock().unwrap().contains(&room("AAAA-AAAA-AA")));
    let elapsed = started.elapsed();
    let mut published = 0;
    while let Ok(Some(_)) = tokio::time::timeout(Duration::from_millis(10), messages.next()).await {
        published += 1;
    }
    // At most one batch of games and totals a second, and one of seeks and rooms every 50 ms.
    let bound = (elapsed.as_secs_f64() + 1.0) * 1.0 + 3.0;
    assert!(
        f64::from(published) <= bound,
        "{published} messages in {elapsed:?} for 2,000 moves"
    );
    for _ in 0..100 {
        if totals.lock().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        *totals.lock().unwrap(),
        Some((
            "a".to_owned(),
            Totals {
                online: 7,
                games: 2
            }
        ))
    );
    stop.cancel();
}

fn listed(id: u64, moves: u32) -> Change {
    let seat = |name: &str| noughts_protocol::SeatInfo {
        name: name.to_owned(),
        player: None,
        level: Some(noughts_protocol::Level::Perfect),
        connected: true,
        rating: None,
        guest: false,
        bot: false,
    };
    Change::Game {
        game: noughts_protocol::GameInfo {
            game: GameId(id),
            variant: Variant::Classic,
            kind: noughts_protocol::GameKind::War,
            x: seat("x"),
            o: seat("o"),
            moves,
            board: String::new(),
            watchers: 0,
            clock: None,
            rated: false,
        },
    }
}

/// Waits until the last changes `seen` holds about each of `expected`'s games are `expected`.
async fn until_seen_last(seen: &Mutex<Vec<Change>>, expected: &[Change]) {
    for _ in 0..200 {
        {
            let seen = seen.lock().unwrap();
            let last = |want: &Change| {
                let Change::Game { game } = want else {
                    return false;
                };
                let of_game =
                    |c: &&Change| matches!(c, Change::Game { game: g } if g.game == game.game);
                seen.iter().rev().find(of_game) == Some(want)
            };
            if expected.iter().all(last) {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("saw {:?}, expected last {expected:?}", seen.lock().unwrap());
}

#[tokio::test]
async fn nodes_take_ids_in_blocks_that_never_overlap_and_start_above_the_stored_ones() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_secs(5);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let first = a.reserve_ids("game", 10, 40).await.unwrap();
    assert_eq!(first, 41..51, "above the 40 games already stored");
    let second = b.reserve_ids("game", 10, 0).await.unwrap();
    assert_eq!(second, 51..61);
    let third = b.reserve_ids("game", 10, 100).await.unwrap();
    assert_eq!(
        third,
        101..111,
        "a node whose store knows more raises the count"
    );
    assert_eq!(a.reserve_ids("player", 5, 0).await.unwrap(), 1..6);
}

#[tokio::test]
async fn a_node_lists_its_rooms_again_after_redis_lost_everything() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_millis(300);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let stop = CancellationToken::new();
    let republish = Arc::new(tokio::sync::Notify::new());
    let relay = relay(&a, republish.clone(), &stop);
    tokio::spawn(super::lobby::follow(
        a.clone(),
        |_: Heard<'_>| {},
        republish,
        stop.clone(),
    ));
    let seen = follow(&b, &stop);
    tokio::time::sleep(Duration::from_millis(100)).await;
    relay.send(room("AAAA-AAAA-AA")).unwrap();
    until_seen(&seen, &[room("AAAA-AAAA-AA")]).await;
    // Redis forgets everything and drops its subscribers, as a restart without persistence does.
    let mut admin = a.redis.clone();
    let _: () = redis::cmd("FLUSHALL")
        .query_async(&mut admin)
        .await
        .unwrap();
    let _: u64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("pubsub")
        .query_async(&mut admin)
        .await
        .unwrap();
    // b follows again from an empty snapshot, and a publishes its room again.
    for _ in 0..100 {
        if seen.lock().unwrap().len() > 1
            && seen.lock().unwrap().last() == Some(&room("AAAA-AAAA-AA"))
        {
            stop.cancel();
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the room was not listed again: {:?}", seen.lock().unwrap());
}

#[tokio::test]
async fn per_address_caps_count_every_node_and_a_gone_nodes_places_are_swept() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_millis(300);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    let home = crate::net::network::Network::of("192.0.2.7".parse().unwrap());
    let away = crate::net::network::Network::of("198.51.100.7".parse().unwrap());
    let on_a = a.take_place("room", home, 2).await.unwrap().expect("one");
    let on_b = b.take_place("room", home, 2).await.unwrap().expect("two");
    for node in [&a, &b] {
        assert!(
            node.take_place("room", home, 2).await.unwrap().is_none(),
            "a third is over the cap, on either node"
        );
    }
    assert!(
        a.take_place("seek", home, 2).await.unwrap().is_some(),
        "seeks have a count of their own"
    );
    assert!(
        a.take_place("room", away, 2).await.unwrap().is_some(),
        "so does another network"
    );
    // A place dropped is given back (on a task of its own).
    drop(on_a);
    let mut again = None;
    for _ in 0..50 {
        again = a.take_place("room", home, 2).await.unwrap();
        if again.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(again.is_some(), "the place came back");
    // b is gone: its places go with it.
    std::mem::forget(on_b);
    a.sweep_places("b").await.unwrap();
    assert!(a.take_place("room", home, 2).await.unwrap().is_some());
}

#[tokio::test]
async fn a_node_listens_while_it_reads_its_mail_and_not_after() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let lease = Duration::from_millis(300);
    let a = Cluster::join(&redis.url, "a", lease).await.unwrap();
    let b = Cluster::join(&redis.url, "b", lease).await.unwrap();
    assert!(!a.is_listening("b").await, "b reads no mail yet");
    let stop = CancellationToken::new();
    let (subscribed, read) = tokio::sync::oneshot::channel();
    let reading = tokio::spawn(b.clone().read_mail(|_| {}, stop.clone(), subscribed));
    read.await.expect("b says when it reads its mail");
    assert!(
        a.is_listening("b").await,
        "b reads its mail once it says so"
    );
    stop.cancel();
    reading.await.unwrap();
    let mut stopped = false;
    for _ in 0..100 {
        stopped = !a.is_listening("b").await;
        if stopped {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(stopped, "b stopped reading");
}

#[tokio::test]
async fn a_lobby_listing_or_batch_not_sealed_by_a_node_is_never_shown() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let secret = super::seal::ClusterSecret::from_file(&redis.secret_file).unwrap();
    let lease = Duration::from_secs(30);
    let join = |node| {
        let (url, secret) = (redis.url.clone(), secret.clone());
        async move {
            Cluster::join(&url, node, lease)
                .await
                .unwrap()
                .with_secret(&secret)
                .unwrap()
        }
    };
    let (a, b) = (join("a").await, join("b").await);
    let stop = CancellationToken::new();
    let mut intruder = ::redis::Client::open(redis.url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    // A listing in the nodes' own format, kept without a MAC, and a real one.
    let unsealed = |code| serde_json::json!({ "node": "a", "change": room(code) }).to_string();
    ::redis::cmd("HSET")
        .arg("{lobby}:rooms")
        .arg("FAKE-FAKE-FA")
        .arg(unsealed("FAKE-FAKE-FA"))
        .exec_async(&mut intruder)
        .await
        .unwrap();
    let relay = relay(&a, Arc::default(), &stop);
    relay.send(room("AAAA-AAAA-AA")).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = follow(&b, &stop);
    until_seen(&seen, &[room("AAAA-AAAA-AA")]).await;
    // A batch published as a's, without a MAC, is not applied; a's next real one is.
    let batch = serde_json::json!({ "node": "a", "changes": [room("FAKE-FAKE-FB")] });
    ::redis::cmd("PUBLISH")
        .arg(super::lobby::CHANNEL)
        .arg(batch.to_string())
        .exec_async(&mut intruder)
        .await
        .unwrap();
    relay.send(room("BBBB-BBBB-BB")).unwrap();
    until_seen(&seen, &[room("AAAA-AAAA-AA"), room("BBBB-BBBB-BB")]).await;
    assert_eq!(b.forged(), 2, "the listing and the batch are counted");
    stop.cancel();
}
