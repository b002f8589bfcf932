//! Watching: a snapshot midway, then every update; watcher counts in the lobby; war games.

use std::time::Duration;

use noughts_engine::{Level, Mark, Variant};
use noughts_protocol::{ClientMessage, ErrorCode, GameKind, ServerMessage, StartWar, Watch};
use noughts_tests::{TestServer, alternate, follow_to_end, moves_of, test_config};

use noughts_tests::quick_match;

#[tokio::test]
async fn a_watcher_joins_midway_and_sees_every_move_in_order() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let mut lobby = server.join("lurker").await;
    let mut view = lobby.follow_lobby(1).await;
    lobby
        .lobby_until(&mut view, |view| view.games.contains_key(&game))
        .await;
    let listed = &view.games[&game];
    assert_eq!((listed.watchers, listed.moves), (0, 0));
    assert_eq!(listed.kind, GameKind::Human);

    // Two moves before the watcher arrives.
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    o.saw(|m| matches!(m, ServerMessage::Moved { cell: 4, .. }))
        .await;
    o.send(ClientMessage::Move { game, cell: 0 }).await;
    x.saw(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
        .await;

    let mut watcher = server.join("watcher").await;
    let ServerMessage::GameState(snapshot) = watcher
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await
    else {
        panic!("watch answers with a snapshot");
    };
    assert_eq!(snapshot.moves, vec![4, 0]);
    assert_eq!(snapshot.board, "O...X....");
    assert_eq!(snapshot.you, None);
    assert_eq!(snapshot.watchers, 1);
    assert_eq!(snapshot.to_move, Some(Mark::X));

    // The lobby sees the watcher arrive.
    lobby
        .lobby_until(&mut view, |view| view.games[&game].watchers == 1)
        .await;

    // A watcher may not move.
    watcher
        .expect_error(
            2,
            ClientMessage::Move { game, cell: 8 },
            ErrorCode::NotAPlayer,
        )
        .await;

    // The game goes on; the watcher sees the rest in order, after the snapshot's seq.
    alternate(&mut x, &mut o, game, &[1, 8, 7]).await;
    let events = follow_to_end(&mut watcher, game).await;
    assert_eq!(moves_of(&events), vec![1, 8, 7]);
    for event in &events {
        let (_, seq) = noughts_tests::seq_of(event).unwrap();
        assert!(seq > snapshot.seq, "updates come after the snapshot");
    }
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("ends with game over");
    };
    assert_eq!(result.winner, Some(Mark::X));
    assert_eq!(result.cells, vec![1, 4, 7]);

    // Leaving is counted too (on a fresh game, since this one has ended).
    drop(watcher);
}

#[tokio::test]
async fn the_watcher_count_goes_down_when_a_watcher_leaves() {
    let server = TestServer::start(test_config()).await;
    let (mut x, _o, state) = quick_match(&server.url(), Variant::Four).await;
    let game = state.game;
    let mut watcher = server.join("watcher").await;
    watcher
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 1, .. }))
        .await;
    assert_eq!(
        watcher.request(2, ClientMessage::Unwatch { game }).await,
        ServerMessage::Ok
    );
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 0, .. }))
        .await;
    let mut second = server.join("second").await;
    second
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 1, .. }))
        .await;
    drop(second);
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 0, .. }))
        .await;
}

#[tokio::test]
async fn after_a_burst_of_watchers_the_count_arrives_and_is_right() {
    const BURST: u32 = 40;
    let server = TestServer::start(test_config()).await;
    let (mut x, _o, state) = server.quick_match(Variant::Classic).await;
    let game = state.game;
    let mut watchers = Vec::new();
    for i in 0..BURST {
        let mut watcher = server.join(&format!("watcher{i}")).await;
        watcher
            .send(ClientMessage::Watch(Watch { game, code: None }))
            .await;
        watchers.push(watcher);
    }
    // Counts are coalesced, so some joins share an update; the last one says how many watch,
    // and every count on the way is one the game had.
    let mut seq = state.seq;
    loop {
        let ServerMessage::Watchers {
            count, seq: now, ..
        } = x
            .until(|m| matches!(m, ServerMessage::Watchers { .. }))
            .await
        else {
            unreachable!()
        };
        assert!(now > seq, "seq only grows");
        assert!(count <= BURST);
        seq = now;
        if count == BURST {
            break;
        }
    }
    let mut late = server.join("late").await;
    let ServerMessage::GameState(snapshot) = late
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await
    else {
        panic!("watch answers with a snapshot");
    };
    assert_eq!(
        snapshot.watchers,
        BURST + 1,
        "the snapshot's count is exact"
    );
    drop(watchers);
    x.saw(|m| matches!(m, ServerMessage::Watchers { count: 1, .. }))
        .await;
}

#[tokio::test]
async fn war_games_run_from_the_start_and_a_new_one_follows_each_end() {
    let mut config = test_config();
    config.war_games = true;
    config.war_variants = vec![Variant::Classic];
    // The lobby shows games as they stand once a second: a war game must outlive that to be
    // seen, and the shortest (five moves) at 300 ms a move does.
    config.war_move_delay = Duration::from_millis(300);
    config.war_restart_delay = Duration::from_millis(200);
    let server = TestServer::start(config).await;
    let mut client = server.join("spectator").await;
    let mut view = client.follow_lobby(1).await;
    let is_war =
        |g: &noughts_protocol::GameInfo| g.kind == GameKind::War && g.variant == Variant::Classic;
    client
        .lobby_until(&mut view, |view| view.games.values().any(is_war))
        .await;
    let war = (view.games.values().find(|g| is_war(g)))
        .expect("a classic war game is listed once the server starts")
        .clone();
    assert!(war.x.level.is_some() && war.o.level.is_some());
    let first = war.game;
    let ServerMessage::GameState(snapshot) = client
        .request(
            2,
            ClientMessage::Watch(Watch {
                game: first,
                code: None,
            }),
        )
        .await
    else {
        panic!("watch a war game");
    };
    let events = follow_to_end(&mut client, first).await;
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("the war game ends");
    };
    // Perfect against perfect on classic is always a draw.
    if snapshot.x.level == Some(Level::Perfect) && snapshot.o.level == Some(Level::Perfect) {
        assert_eq!(result.winner, None);
    }
    // A new one starts after it.
    client
        .lobby_until(&mut view, |view| {
            view.games
                .values()
                .any(|game| is_war(game) && game.game != first)
        })
        .await;
}

#[tokio::test]
async fn a_player_can_start_an_ai_match_and_watch_it() {
    let server = TestServer::start(test_config()).await;
    let mut client = server.join("general").await;
    let ServerMessage::GameState(state) = client
        .request(
            1,
            ClientMessage::StartWar(StartWar {
                variant: Variant::Classic,
                x_level: Level::Perfect,
                o_level: Level::Easy,
            }),
        )
        .await
    else {
        panic!("start_war answers with the game");
    };
    assert_eq!(state.kind, GameKind::War);
    assert_eq!(state.you, None);
    let events = follow_to_end(&mut client, state.game).await;
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("it ends");
    };
    // Easy never beats perfect.
    assert_ne!(result.winner, Some(Mark::O));
}
