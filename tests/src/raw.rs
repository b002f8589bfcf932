//! Raw JSON over a WebSocket, for tests that must send what the typed [`crate::Client`] never
//! would (malformed frames, unknown fields) or read a reply's exact JSON.

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{GameId, Mark, ServerFrame, ServerMessage};
use noughts_server::Config;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::{Socket, WAIT, connect};

/// The server's defaults without war games or an AI pause, and a short grace.
pub fn quiet() -> Config {
    Config {
        war_games: false,
        arena_schedule: false,
        ai_think_delay: std::time::Duration::ZERO,
        grace: std::time::Duration::from_millis(300),
        ..Config::default()
    }
}

/// Sends `value` as one text frame.
pub async fn send(ws: &mut Socket, value: Value) {
    ws.send(Message::text(value.to_string())).await.unwrap();
}

/// The next text frame, parsed both as JSON and as the protocol type.
pub async fn recv(ws: &mut Socket) -> Result<(Value, ServerFrame), Option<u16>> {
    loop {
        match tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("in time")
        {
            Some(Ok(Message::Text(text))) => {
                let value: Value = serde_json::from_str(&text).unwrap();
                let frame: ServerFrame = serde_json::from_str(&text).unwrap();
                return Ok((value, frame));
            }
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| u16::from(f.code))),
            Some(Ok(_)) => {}
            _ => return Err(None),
        }
    }
}

pub async fn next(ws: &mut Socket) -> ServerMessage {
    recv(ws).await.expect("a frame, not a close").1.message
}

pub async fn hello(url: &str, name: &str) -> (Socket, String) {
    let mut ws = connect(url).await;
    send(
        &mut ws,
        json!({"type": "hello", "id": 1, "protocol": noughts_protocol::PROTOCOL_VERSION, "name": name}),
    )
    .await;
    let (value, frame) = recv(&mut ws).await.unwrap();
    assert_eq!(value["id"], 1);
    let ServerMessage::Welcome { token, resumed, .. } = frame.message else {
        panic!("expected welcome, got {value}");
    };
    assert!(!resumed);
    assert_eq!(token.len(), 32);
    (ws, token)
}

/// Two players quick-matched on classic: (x socket, o socket, game).
pub async fn matched(url: &str) -> (Socket, Socket, GameId) {
    let (mut a, _) = hello(url, "ada").await;
    let (mut b, _) = hello(url, "bob").await;
    send(
        &mut a,
        json!({"type": "seek", "id": 2, "variant": "classic"}),
    )
    .await;
    assert!(matches!(next(&mut a).await, ServerMessage::Seeking { .. }));
    send(
        &mut b,
        json!({"type": "seek", "id": 2, "variant": "classic"}),
    )
    .await;
    assert!(matches!(next(&mut b).await, ServerMessage::Seeking { .. }));
    let ServerMessage::GameState(sa) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(sb) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(sa.game, sb.game);
    assert_ne!(sa.you, sb.you);
    if sa.you == Some(Mark::X) {
        (a, b, sa.game)
    } else {
        (b, a, sa.game)
    }
}

pub async fn recv_error_after(ws: &mut Socket, request: Value) -> (Value, ServerFrame) {
    send(ws, request).await;
    loop {
        let (value, frame) = recv(ws).await.unwrap();
        if value["type"] == "error" {
            return (value, frame);
        }
    }
}
