//! One-off hellos on connections of their own: the first answer, and waiting until a hello is
//! refused (a ban or a reservation that takes a moment to reach the server).

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
