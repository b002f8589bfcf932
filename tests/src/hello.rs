//! One-off hellos on connections of their own: the first answer, what a player coming back with
//! its token is sent, and waiting until a hello is refused (a ban or a reservation that takes a
//! moment to reach the server).

use std::time::Duration;

use noughts_protocol::{ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerMessage};

use crate::{WAIT, connect, read_frame, send_frame};

/// The first answer to a `hello` as `name` (with `token`) on a new connection.
pub async fn hello_answer(url: &str, name: &str, token: Option<String>) -> ServerMessage {
    let mut socket = connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: name.to_owned(),
        token,
        credentials: None,
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    read_frame(&mut socket).await.expect("an answer").message
}

/// A `hello` with `token` on a new connection: whether its `welcome` says `resumed`, and every
/// frame that follows up to the answer to a `ping` sent after it (a player's snapshots).
pub async fn come_back(url: &str, token: &str) -> (bool, Vec<ServerMessage>) {
    let mut socket = connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "back".to_owned(),
        token: Some(token.to_owned()),
        credentials: None,
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    let welcome = read_frame(&mut socket).await.expect("an answer").message;
    let ServerMessage::Welcome { resumed, .. } = welcome else {
        panic!("expected welcome, got {welcome:?}")
    };
    send_frame(&mut socket, &ClientFrame::new(ClientMessage::Ping)).await;
    let mut frames = Vec::new();
    loop {
        match read_frame(&mut socket).await.expect("a frame").message {
            ServerMessage::Pong => return (resumed, frames),
            other => frames.push(other),
        }
    }
}

/// Waits until `hello` as `name` gets the error `code` (a ban or a reservation that takes a
/// moment to reach the server).
pub async fn until_hello_refused(url: &str, name: &str, token: Option<String>, code: ErrorCode) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let answer = hello_answer(url, name, token.clone()).await;
        if matches!(&answer, ServerMessage::Error { code: got, .. } if *got == code) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "hello as {name} still gets {answer:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
