//! Playing across nodes, on one real Redis and one real PostgreSQL: a room made on one node is
//! joined from another (offers made, withdrawn and agreed across the two, and the game claimed
//! from one when the other's player leaves), quick match pairs players on two nodes, a player comes back on a third
//! node while the game's node lives on, a player away while its game ended is shown the end on
//! another node, and players on other nodes keep their rated game when the node that played it is
//! killed, and are rated once.

use std::time::Duration;

use noughts_protocol::{
    ClientMessage, CreateRoom, ErrorCode, GameId, Mark, Seek, ServerMessage, Variant, Watch,
};
use noughts_server::{Config, StoreConfig};
use noughts_tests::accounts::make_account;
use noughts_tests::hello::come_back;
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch, TestServer, alternate, test_config};

use super::failover::node;

/// How long a player is away before the opponent may claim the game, on these nodes.
const CLAIM_AFTER: Duration = Duration::from_secs(1);

/// `n` nodes of one cluster on `redis`, keeping everything in the PostgreSQL database `db`.
async fn nodes_on(redis: &TestRedis, db: &str, n: usize) -> Vec<TestServer> {
    let store = StoreConfig::Postgres(db.to_owned());
    super::nodes(redis, n, || Config {
        store: store.clone(),
        claim_after: CLAIM_AFTER,
        ..test_config()
    })
    .await
}

/// The two players of a game that has just started, X first.
async fn sides(mut a: Client, mut b: Client) -> (Client, Client, GameId) {
    let state_a = a.game_state().await;
    let state_b = b.game_state().await;
    assert_eq!(state_a.game, state_b.game, "one game for both");
    if state_a.you == Some(Mark::X) {
        (a, b, state_a.game)
    } else {
        (b, a, state_a.game)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_room_made_on_one_node_is_joined_and_played_from_another() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_room"), 2).await;
    let mut host = nodes[0].join("hana").await;
    let code = host.create_room(1, Variant::Classic, true).await;
    let mut guest = nodes[1].join("gus").await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let (mut x, mut o, game) = sides(host, guest).await;
    // Chat both ways, each line seen by both players.
    o.send(ClientMessage::Chat {
        game,
        text: "good luck".into(),
    })
    .await;
    x.saw(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == "good luck"))
        .await;
    alternate(&mut x, &mut o, game, &[4, 0, 3, 1]).await;
    // A move out of turn, from the other node, is refused there as here.
    o.expect_error(
        7,
        ClientMessage::Move { game, cell: 8 },
        noughts_protocol::ErrorCode::NotYourTurn,
    )
    .await;
    x.send(ClientMessage::Move { game, cell: 5 }).await;
    for player in [&mut x, &mut o] {
        let over = player
            .until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        let ServerMessage::GameOver { result, .. } = over else {
            unreachable!()
        };
        assert_eq!(result.winner, Some(Mark::X));
    }
    // The record is the same from either node.
    let record = o.record(8, game).await;
    assert_eq!(
        record.moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        [4, 0, 3, 1, 5]
    );
    // A rematch asked for on one node and agreed on the other starts, sides swapped; a draw
    // offered across the two is accepted.
    o.send(ClientMessage::Rematch { game }).await;
    x.saw(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    x.send(ClientMessage::Rematch { game }).await;
    let (mut x2, mut o2, rematch) = sides(o, x).await;
    assert_ne!(rematch, game);
    alternate(&mut x2, &mut o2, rematch, &[0, 4]).await;
    // An offer withdrawn from one node is withdrawn on the other.
    o2.send(ClientMessage::OfferDraw { game: rematch }).await;
    x2.saw(|m| matches!(m, ServerMessage::Offered { .. })).await;
    o2.send(ClientMessage::CancelOffer { game: rematch }).await;
    x2.saw(|m| matches!(m, ServerMessage::Withdrawn { .. }))
        .await;
    o2.send(ClientMessage::OfferDraw { game: rematch }).await;
    x2.saw(|m| matches!(m, ServerMessage::Offered { .. })).await;
    x2.send(ClientMessage::OfferDraw { game: rematch }).await;
    for player in [&mut x2, &mut o2] {
        let over = player
            .until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        assert!(matches!(over, ServerMessage::GameOver { result, .. } if result.winner.is_none()));
    }
    // Another rematch; the host leaves it, and the guest, on the other node, claims the win.
    o2.send(ClientMessage::Rematch { game: rematch }).await;
    x2.saw(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    x2.send(ClientMessage::Rematch { game: rematch }).await;
    let (x3, o3, third) = sides(o2, x2).await;
    let (mut guest, host, mark) = if x3.name == "gus" {
        (x3, o3, Mark::X)
    } else {
        (o3, x3, Mark::O)
    };
    drop(host);
    guest
        .saw(|m| {
            matches!(
                m,
                ServerMessage::Presence {
                    connected: false,
                    ..
                }
            )
        })
        .await;
    tokio::time::sleep(CLAIM_AFTER + Duration::from_millis(200)).await;
    let claim = ClientMessage::Claim {
        game: third,
        outcome: noughts_protocol::ClaimOutcome::Win,
    };
    let over = guest.request(9, claim).await;
    assert!(
        matches!(&over, ServerMessage::GameOver { result, .. } if result.winner == Some(mark)),
        "{over:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_pairs_players_on_two_nodes_and_a_player_comes_back_on_a_third() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_seek"), 3).await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Four,
        clock: None,
        rated: true,
        bots: false,
    });
    let mut a = nodes[0].join("ari").await;
    make_account(&mut a).await;
    assert!(matches!(
        a.request(1, seek.clone()).await,
        ServerMessage::Seeking { .. }
    ));
    // The second seek is made once the first is listed everywhere, or the second node would not
    // know of it; either way, the two meet.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut b = nodes[1].join("bo").await;
    make_account(&mut b).await;
    assert!(matches!(
        b.request(1, seek).await,
        ServerMessage::Seeking { .. }
    ));
    let (mut x, mut o, game) = sides(a, b).await;
    alternate(&mut x, &mut o, game, &[5, 0]).await;
    // X leaves, and comes back on the third node: the same game, as it stands.
    let token = x.token.clone();
    drop(x);
    o.saw(|m| {
        matches!(
            m,
            ServerMessage::Presence {
                connected: false,
                ..
            }
        )
    })
    .await;
    let mut x = Client::resume(&nodes[2].url(), "x", &token).await;
    let state = x.game_state().await;
    assert_eq!((state.game, state.you), (game, Some(Mark::X)));
    assert_eq!(state.moves, [5, 0]);
    alternate(&mut x, &mut o, game, &[6, 1]).await;
    x.send(ClientMessage::Resign { game }).await;
    let over = o
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    assert!(
        matches!(over, ServerMessage::GameOver { result, .. } if result.winner == Some(Mark::O))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_two_nodes_keep_their_game_when_the_node_playing_it_is_killed() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("play_kill");
    let dir = Scratch::new("play-kill");
    let first = node(&dir, &db, &redis, "first");
    let second = node(&dir, &db, &redis, "second");
    let third = node(&dir, &db, &redis, "third");
    // The room, and so the game, is on the first node; the guest plays from the third.
    let mut host = Client::join(&first.url, "hal").await;
    make_account(&mut host).await;
    let rated = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Classic,
        clock: None,
        private: false,
        rated: true,
    });
    let ServerMessage::RoomCreated { code, .. } = host.request(1, rated).await else {
        panic!("a room");
    };
    let mut guest = Client::join(&third.url, "gil").await;
    make_account(&mut guest).await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let host_is_x = host.game_state().await.you == Some(Mark::X);
    let game = guest.game_state().await.game;
    let token = host.token.clone();
    let (mut x, mut o) = if host_is_x {
        (host, guest)
    } else {
        (guest, host)
    };
    alternate(&mut x, &mut o, game, &[0, 4]).await;
    first.kill();
    // The guest, still connected to the third node, finds the game again by itself; the host,
    // whose connection died with the first node, comes back on the second.
    let host = Client::resume(&second.url, "hal", &token).await;
    let (mut x, mut o) = if host_is_x { (host, o) } else { (x, host) };
    for player in [&mut x, &mut o] {
        let state = player.game_state().await;
        assert_eq!(state.game, game);
        assert_eq!(state.moves, [0, 4]);
    }
    alternate(&mut x, &mut o, game, &[1, 2, 6, 3, 5, 7, 8]).await;
    let record = o.record(9, game).await;
    assert_eq!(
        record.moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        [0, 4, 1, 2, 6, 3, 5, 7, 8],
        "every move kept"
    );
    assert!(record.result.is_some(), "the game finished");
    // Rated once, from the node that finished it, as every node sees it.
    for player in [&mut x, &mut o] {
        let me = player.player;
        let ServerMessage::Profile(profile) = player
            .request(
                10,
                ClientMessage::Profile {
                    player: Some(me),
                    username: None,
                },
            )
            .await
        else {
            panic!("a profile");
        };
        assert_eq!(profile.variants[0].rated_games, 1, "one rated game");
        assert_ne!(
            (profile.variants[0].rating, profile.variants[0].deviation),
            (1500, 350),
            "the rating moved"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_back_on_another_node_is_shown_how_its_game_ended_meanwhile() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_ended_away"), 2).await;
    let (mut x, mut o, state) = nodes[0].quick_match(Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[0, 3, 1, 4]).await;
    // O's connection goes (its node restarting, say); X completes its line meanwhile.
    let token = o.token.clone();
    drop(o);
    x.until(|m| {
        matches!(
            m,
            ServerMessage::Presence {
                connected: false,
                ..
            }
        )
    })
    .await;
    x.send(ClientMessage::Move { game, cell: 2 }).await;
    let ServerMessage::GameOver { result, board, .. } = x
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await
    else {
        unreachable!()
    };
    // O comes back on the other node, which has never seen it, and is told how the game ended.
    let (resumed, frames) = come_back(&nodes[1].url(), &token).await;
    assert!(resumed, "O comes back to its game: {frames:?}");
    let [ServerMessage::GameState(last)] = &frames[..] else {
        panic!("the final snapshot alone: {frames:?}")
    };
    assert_eq!((last.game, last.you), (game, Some(Mark::O)));
    assert_eq!(last.result.as_ref(), Some(&result), "the result X was told");
    assert_eq!(
        (last.board.as_str(), board.as_str()),
        ("XXXOO....", "XXXOO....")
    );
    assert_eq!(last.to_move, None);
}

/// Starts a room game on `node` between two players there: (X, O, game, the room's code).
async fn room_game(node: &TestServer, private: bool) -> (Client, Client, GameId, String) {
    let mut host = node.join("hope").await;
    let code = host.create_room(1, Variant::Classic, private).await;
    let mut guest = node.join("gale").await;
    guest
        .send(ClientMessage::JoinRoom { code: code.clone() })
        .await;
    let (x, o, game) = sides(host, guest).await;
    (x, o, game, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_on_other_nodes_are_counted_may_chat_and_may_watch_private_games() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_watch"), 2).await;

    // A private game on the first node: from the second, only its code shows it.
    let (mut x, _o, game, code) = room_game(&nodes[0], true).await;
    let mut wes = nodes[1].join("wes").await;
    wes.expect_error(
        1,
        ClientMessage::Watch(Watch { game, code: None }),
        noughts_protocol::ErrorCode::NoSuchGame,
    )
    .await;
    let ServerMessage::GameState(state) = wes
        .request(
            2,
            ClientMessage::Watch(Watch {
                game,
                code: Some(code),
            }),
        )
        .await
    else {
        panic!("a snapshot");
    };
    assert_eq!((state.game, state.you), (game, None));
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 1, .. }))
        .await;
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    wes.saw(|m| matches!(m, ServerMessage::Moved { cell: 4, .. }))
        .await;

    // A listed game, watched from the second node through what the first publishes: counted
    // there, and its watcher's chat is a spectator's, which a watcher on the first node reads.
    let (mut x, _o, game, _) = room_game(&nodes[0], false).await;
    let mut near = nodes[0].join("nia").await;
    assert!(matches!(
        near.request(1, ClientMessage::Watch(Watch { game, code: None }))
            .await,
        ServerMessage::GameState(_)
    ));
    let mut far = nodes[1].join("fay").await;
    assert!(matches!(
        far.request(1, ClientMessage::Watch(Watch { game, code: None }))
            .await,
        ServerMessage::GameState(_)
    ));
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 2, .. }))
        .await;
    far.send(ClientMessage::Chat {
        game,
        text: "nice opening".into(),
    })
    .await;
    near.saw(|m| {
        matches!(m, ServerMessage::Chat { line, .. } if line.text == "nice opening" && line.mark.is_none())
    })
    .await;
    // The far watcher leaves: the count drops.
    assert!(matches!(
        far.request(3, ClientMessage::Unwatch { game }).await,
        ServerMessage::Ok
    ));
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 1, .. }))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rooms_host_who_moved_to_another_node_closes_it_from_there_and_hears_when_one_is_joined()
{
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_moved"), 2).await;
    let mut host = nodes[0].join("hugo").await;
    let kept = host.create_room(1, Variant::Classic, false).await;
    let closed = host.create_room(2, Variant::Four, true).await;
    // The host's connection to the first node drops; they come back on the second.
    let token = host.token.clone();
    drop(host);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut host = Client::resume(&nodes[1].url(), "hugo", &token).await;
    assert!(matches!(
        host.request(
            3,
            ClientMessage::CloseRoom {
                code: closed.clone()
            }
        )
        .await,
        ServerMessage::Ok
    ));
    let mut guest = nodes[0].join("gwen").await;
    guest
        .expect_error(
            1,
            ClientMessage::JoinRoom { code: closed },
            noughts_protocol::ErrorCode::NoSuchRoom,
        )
        .await;
    guest.send(ClientMessage::JoinRoom { code: kept }).await;
    let (mut x, mut o, game) = sides(host, guest).await;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_redis_games_pause_and_say_so_and_go_on_when_it_returns() {
    let (Some(mut redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let nodes = nodes_on(&redis, &postgres.database("play_no_redis"), 2).await;
    // One game across the two nodes, one on the first alone.
    let (mut x, mut o, local, _) = room_game(&nodes[0], false).await;
    let mut host = nodes[0].join("hank").await;
    let code = host.create_room(1, Variant::Classic, false).await;
    let mut guest = nodes[1].join("gina").await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let across = guest.game_state().await.game;
    redis.kill();
    // The second node cannot reach the game's node: it says the game is paused rather than
    // leave the request unanswered, call the game unknown or call it an internal error.
    guest
        .expect_error(
            5,
            ClientMessage::Move {
                game: across,
                cell: 4,
            },
            ErrorCode::GamePaused,
        )
        .await;
    // The first node's own game pauses within a lease time, before another node could have
    // taken it, and says so to its players; a move meanwhile is not played.
    let paused =
        |m: &ServerMessage| matches!(m, ServerMessage::GamePaused { game, .. } if *game == local);
    x.saw(paused).await;
    o.saw(paused).await;
    x.expect_error(
        6,
        ClientMessage::Move {
            game: local,
            cell: 4,
        },
        ErrorCode::GamePaused,
    )
    .await;
    // Redis comes back, empty: the game is taken again and its players get its state.
    redis.restart().await;
    let resumed =
        |m: &ServerMessage| matches!(m, ServerMessage::GameState(state) if state.game == local);
    x.saw(resumed).await;
    o.saw(resumed).await;
    alternate(&mut x, &mut o, local, &[4, 0]).await;
    drop(host);
}
