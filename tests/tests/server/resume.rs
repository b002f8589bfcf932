//! Dropping and resuming: grace, abandonment, paused clocks, games that ended meanwhile.

use std::time::Duration;

use noughts_protocol::{ErrorCode, Mark, ServerMessage};
use serde_json::json;

use noughts_tests::hello::come_back;
use noughts_tests::raw::*;
use noughts_tests::{Socket, TestServer, connect};

#[tokio::test]
async fn resume_and_abandon() {
    let server = TestServer::start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url()).await;
    let g = game.0;
    send(&mut x, json!({"type": "move", "game": g, "cell": 4})).await;
    assert!(matches!(next(&mut x).await, ServerMessage::Moved { .. }));
    assert!(matches!(next(&mut o).await, ServerMessage::Moved { .. }));
    // O drops; X hears it with the grace period.
    send(
        &mut o,
        json!({"type": "hello", "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "again"}),
    )
    .await;
    let ServerMessage::Error {
        code: ErrorCode::AlreadyWelcomed,
        ..
    } = next(&mut o).await
    else {
        panic!()
    };
    drop(o);
    let ServerMessage::Presence {
        connected: false,
        grace_ms: Some(300),
        mark: Mark::O,
        ..
    } = next(&mut x).await
    else {
        panic!()
    };
    // After the grace, X wins by abandon.
    let ServerMessage::GameOver { result, .. } = next(&mut x).await else {
        panic!()
    };
    assert_eq!(result.winner, Some(Mark::X));
    assert_eq!(result.reason, noughts_protocol::EndReason::Abandon);
}

#[tokio::test]
async fn resume_within_grace_gets_the_game_back() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = TestServer::start(config).await;
    let (mut a, token) = hello(&server.url(), "ada").await;
    send(
        &mut a,
        json!({"type": "play_ai", "id": 2, "variant": "classic", "level": "perfect", "side": "x"}),
    )
    .await;
    let (value, frame) = recv(&mut a).await.unwrap();
    assert_eq!(value["id"], 2);
    let ServerMessage::GameState(state) = frame.message else {
        panic!("{value}")
    };
    assert_eq!(state.you, Some(Mark::X));
    send(
        &mut a,
        json!({"type": "move", "game": state.game.0, "cell": 0}),
    )
    .await;
    assert!(matches!(
        next(&mut a).await,
        ServerMessage::Moved { mark: Mark::X, .. }
    ));
    assert!(matches!(
        next(&mut a).await,
        ServerMessage::Moved { mark: Mark::O, .. }
    ));
    drop(a);
    let mut b = connect(&server.url()).await;
    send(
        &mut b,
        json!({"type": "hello", "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "ada", "token": token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(again) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(again.game, state.game);
    assert_eq!(again.moves.len(), 2);
    assert_eq!(again.you, Some(Mark::X));
    assert_eq!(again.to_move, Some(Mark::X));
}

#[tokio::test]
async fn a_clock_does_not_run_while_its_player_is_away() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = TestServer::start(config).await;
    let (mut a, token_a) = hello(&server.url(), "ada").await;
    let (mut b, token_b) = hello(&server.url(), "bob").await;
    let clock = json!({"initial_ms": 60000, "increment_ms": 0});
    send(
        &mut a,
        json!({"type": "seek", "variant": "classic", "clock": clock}),
    )
    .await;
    let ServerMessage::Seeking { .. } = next(&mut a).await else {
        panic!()
    };
    send(
        &mut b,
        json!({"type": "seek", "variant": "classic", "clock": clock}),
    )
    .await;
    let ServerMessage::Seeking { .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(_) = next(&mut b).await else {
        panic!()
    };
    let game = state.game.0;
    let (mut x, o, o_token) = if state.you == Some(Mark::X) {
        (a, b, token_b)
    } else {
        (b, a, token_a)
    };
    let mut o = o;
    // No clock runs before both sides have moved once: X, O, then X again starts O's.
    for (ply, cell) in [4, 0, 8].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut x } else { &mut o };
        send(mover, json!({"type": "move", "game": game, "cell": cell})).await;
        let ServerMessage::Moved { .. } = next(mover).await else {
            panic!()
        };
        if ply < 2 {
            let other = if ply % 2 == 0 { &mut o } else { &mut x };
            let ServerMessage::Moved { .. } = next(other).await else {
                panic!()
            };
        }
    }
    let ServerMessage::Moved { clocks, .. } = next(&mut o).await else {
        panic!()
    };
    let before = clocks.unwrap();
    assert_eq!(before.running, Some(Mark::O));
    // O drops on its move and stays away for a while.
    drop(o);
    let ServerMessage::Presence {
        connected: false, ..
    } = next(&mut x).await
    else {
        panic!()
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;
    o = connect(&server.url()).await;
    send(
        &mut o,
        json!({"type": "hello", "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "o", "token": o_token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut o).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut o).await else {
        panic!()
    };
    let after = state.clocks.unwrap();
    // The time away was not charged: only the moment before the drop was noticed.
    assert!(
        before.o_ms - after.o_ms < 1_000,
        "{before:?} then {after:?}"
    );
    assert_eq!(
        after.running,
        Some(Mark::O),
        "the clock runs again once O is told"
    );
    assert_eq!(after.x_ms, before.x_ms);
}

#[tokio::test]
async fn a_game_that_ended_while_away_is_shown_on_return() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = TestServer::start(config).await;
    let (mut a, token_a) = hello(&server.url(), "ada").await;
    let (mut b, token_b) = hello(&server.url(), "bob").await;
    send(&mut a, json!({"type": "seek", "variant": "classic"})).await;
    let ServerMessage::Seeking { .. } = next(&mut a).await else {
        panic!()
    };
    send(&mut b, json!({"type": "seek", "variant": "classic"})).await;
    let ServerMessage::Seeking { .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(_) = next(&mut b).await else {
        panic!()
    };
    let game = state.game;
    // Bob drops; Ada resigns meanwhile; Bob comes back to the final position.
    let (_ada, bob_token) = (token_a, token_b);
    drop(b);
    let ServerMessage::Presence {
        connected: false, ..
    } = next(&mut a).await
    else {
        panic!()
    };
    send(&mut a, json!({"type": "resign", "id": 1, "game": game.0})).await;
    let ServerMessage::GameOver { .. } = next(&mut a).await else {
        panic!()
    };
    let mut b = connect(&server.url()).await;
    send(
        &mut b,
        json!({"type": "hello", "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "bob", "token": bob_token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(last) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(last.game, game);
    let result = last.result.expect("the final snapshot has the result");
    assert_eq!(result.reason, noughts_protocol::EndReason::Resign);
    assert_eq!(last.to_move, None);
}

/// Ada and Bob quick-matched on classic, with their tokens: (X's socket and token, O's, game).
async fn matched_with_tokens(url: &str) -> ((Socket, String), (Socket, String), u64) {
    let (mut a, token_a) = hello(url, "ada").await;
    let (mut b, token_b) = hello(url, "bob").await;
    for socket in [&mut a, &mut b] {
        send(socket, json!({"type": "seek", "variant": "classic"})).await;
        let ServerMessage::Seeking { .. } = next(socket).await else {
            panic!()
        };
    }
    let ServerMessage::GameState(state) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(_) = next(&mut b).await else {
        panic!()
    };
    let game = state.game.0;
    if state.you == Some(Mark::X) {
        ((a, token_a), (b, token_b), game)
    } else {
        ((b, token_b), (a, token_a), game)
    }
}

#[tokio::test]
async fn a_game_that_ended_after_the_session_expired_is_shown_on_return() {
    // The grace is 300 ms: O's session is long gone when it comes back.
    let server = TestServer::start(quiet()).await;
    let url = server.url();
    let ((mut x, x_token), (mut o, o_token), game) = matched_with_tokens(&url).await;
    for (ply, cell) in [0, 3, 1, 4].into_iter().enumerate() {
        let (mover, other) = if ply % 2 == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        send(mover, json!({"type": "move", "game": game, "cell": cell})).await;
        for socket in [mover, other] {
            let ServerMessage::Moved { .. } = next(socket).await else {
                panic!()
            };
        }
    }
    // O drops; X completes its line while O is away.
    drop(o);
    let ServerMessage::Presence {
        connected: false, ..
    } = next(&mut x).await
    else {
        panic!()
    };
    send(&mut x, json!({"type": "move", "game": game, "cell": 2})).await;
    let ServerMessage::Moved { .. } = next(&mut x).await else {
        panic!()
    };
    let ServerMessage::GameOver {
        seq, board, result, ..
    } = next(&mut x).await
    else {
        panic!()
    };
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    // O comes back to a new session, and is told how the game ended, as X was.
    let (resumed, frames) = come_back(&url, &o_token).await;
    assert!(resumed, "O comes back to a game: {frames:?}");
    let [ServerMessage::GameState(last)] = &frames[..] else {
        panic!("the final snapshot alone: {frames:?}")
    };
    assert_eq!(last.game.0, game);
    assert_eq!(last.you, Some(Mark::O));
    assert_eq!(last.result.as_ref(), Some(&result));
    assert_eq!(result.winner, Some(Mark::X));
    assert_eq!(last.board, board);
    assert_eq!(board, "XXXOO....");
    assert_eq!(last.moves, vec![0, 3, 1, 4, 2]);
    assert_eq!(last.to_move, None);
    assert!(last.seq >= seq, "{} then {seq}", last.seq);
    // X, who saw the end before leaving, is not shown it again.
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(x);
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (resumed, frames) = come_back(&url, &x_token).await;
    assert!(!resumed);
    assert!(frames.is_empty(), "{frames:?}");
}

#[tokio::test]
async fn a_second_connection_joins_the_session_and_both_stay_open() {
    let server = TestServer::start(quiet()).await;
    let (mut first, token) = hello(&server.url(), "ada").await;
    let mut second = connect(&server.url()).await;
    send(
        &mut second,
        json!({"type": "hello", "id": 1, "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "ada", "token": token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut second).await else {
        panic!()
    };
    for socket in [&mut first, &mut second] {
        send(socket, json!({"type": "ping", "id": 2})).await;
        assert!(matches!(next(socket).await, ServerMessage::Pong));
    }
}
