//! What PROTOCOL.md promises in its fine print: ids echoed to their full range, `unwatch` of a game
//! that is not there, a double line's cells, `hello` counting against the burst, and what a player
//! who comes back after the grace is told.

use std::time::Duration;

use noughts_protocol::{EndReason, ErrorCode, Mark, ServerMessage};
use noughts_server::Config;
use serde_json::json;

use noughts_tests::TestServer;
use noughts_tests::raw::*;

#[tokio::test]
async fn the_largest_request_id_is_echoed_exactly() {
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    // Sent as raw text: a JSON number that a double cannot hold.
    ws_text(&mut ws, r#"{"type":"ping","id":18446744073709551615}"#).await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(
        value.to_string(),
        r#"{"id":18446744073709551615,"type":"pong"}"#
    );
}

async fn ws_text(ws: &mut noughts_tests::Socket, text: &str) {
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::text(text))
        .await
        .unwrap();
}

#[tokio::test]
async fn unwatching_a_game_that_is_not_there_is_no_such_game() {
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    let (value, _) =
        recv_error_after(&mut ws, json!({"type": "unwatch", "id": 3, "game": 999})).await;
    assert_eq!(value["code"], "no_such_game");
    assert_eq!(value["id"], 3);
}

#[tokio::test]
async fn a_double_line_lists_each_cell_once_in_ascending_order() {
    let server = TestServer::start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url()).await;
    // X ends with 0-1-2 and 2-5-8 at once by playing 2.
    let moves = [0, 6, 1, 7, 8, 3, 5, 4, 2];
    let mut last = None;
    for (ply, cell) in moves.into_iter().enumerate() {
        let (mover, other) = if ply % 2 == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        send(mover, json!({"type": "move", "game": game.0, "cell": cell})).await;
        assert!(matches!(next(mover).await, ServerMessage::Moved { .. }));
        assert!(matches!(next(other).await, ServerMessage::Moved { .. }));
        if ply == moves.len() - 1 {
            last = Some(next(other).await);
        }
    }
    let Some(ServerMessage::GameOver { result, .. }) = last else {
        panic!("{last:?}")
    };
    assert_eq!(
        (result.winner, result.reason),
        (Some(Mark::X), EndReason::Line)
    );
    assert_eq!(result.cells, [0, 1, 2, 5, 8]);
}

#[tokio::test]
async fn hello_counts_against_the_burst() {
    let server = TestServer::start(Config {
        message_burst: 3,
        messages_per_second: 1,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    // The burst of three is hello and two pings; the third ping is refused.
    for id in 2..=3 {
        send(&mut ws, json!({"type": "ping", "id": id})).await;
        assert!(matches!(next(&mut ws).await, ServerMessage::Pong));
    }
    send(&mut ws, json!({"type": "ping", "id": 4})).await;
    let ServerMessage::Error { code, .. } = next(&mut ws).await else {
        panic!("the fourth message is over the burst")
    };
    assert_eq!(code, ErrorCode::RateLimited);
}

#[tokio::test]
async fn a_player_back_after_the_grace_starts_afresh_and_finds_the_loss_in_history() {
    let server = TestServer::start(quiet()).await;
    let (mut ada, _) = hello(&server.url(), "ada").await;
    let (mut bob, bob_token) = hello(&server.url(), "bob").await;
    for ws in [&mut ada, &mut bob] {
        send(ws, json!({"type": "seek", "variant": "classic"})).await;
        assert!(matches!(next(ws).await, ServerMessage::Seeking { .. }));
    }
    let ServerMessage::GameState(state) = next(&mut ada).await else {
        panic!()
    };
    let bob_player = if state.x.name == "bob" {
        state.x.player
    } else {
        state.o.player
    };
    drop(bob);
    // Ada sees Bob go, then win by abandon once the grace (300 ms) is spent.
    loop {
        if let ServerMessage::GameOver { result, .. } = next(&mut ada).await {
            assert_eq!(result.reason, EndReason::Abandon);
            break;
        }
    }
    // Once a whole grace has passed, Bob's session has expired: his token starts a new session,
    // which is told nothing of the lost game (the next thing it hears is the answer to its ping).
    // Should the session's expiry run late, Bob resumes it instead; he leaves and tries again.
    let mut bob_token = bob_token;
    let mut fresh = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let mut bob = noughts_tests::connect(&server.url()).await;
        send(
            &mut bob,
            json!({"type": "hello", "id": 1, "protocol": noughts_protocol::PROTOCOL_VERSION, "name": "bob", "token": bob_token}),
        )
        .await;
        let ServerMessage::Welcome {
            resumed,
            player,
            token,
            ..
        } = next(&mut bob).await
        else {
            panic!()
        };
        assert_eq!(Some(player), bob_player);
        bob_token = token;
        if !resumed {
            fresh = Some(bob);
            break;
        }
    }
    let mut bob = fresh.expect("bob's session expired");
    send(&mut bob, json!({"type": "ping", "id": 2})).await;
    assert!(matches!(next(&mut bob).await, ServerMessage::Pong));
    send(&mut bob, json!({"type": "history", "id": 3})).await;
    let ServerMessage::History { games, .. } = next(&mut bob).await else {
        panic!()
    };
    assert_eq!(games[0].game, state.game);
    assert_eq!(games[0].result.reason, EndReason::Abandon);
    assert_ne!(games[0].result.winner, None);
}
