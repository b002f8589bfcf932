//! A refused `hello` changes nothing: whatever the refusal (`limit_reached`, `bad_name`,
//! `unsupported_version`, `already_welcomed`), the token it carried is not traded and keeps
//! working; and it does not count as saying hello for the connection's deadline.

use std::time::Duration;

use noughts_protocol::{ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerMessage};
use noughts_server::Config;
use noughts_tests::{Client, Socket, TestServer, connect, read_frame, send_frame, test_config};

fn hello(protocol: u32, name: &str, token: Option<&str>) -> ClientMessage {
    ClientMessage::Hello {
        protocol,
        name: name.to_owned(),
        token: token.map(str::to_owned),
        credentials: None,
    }
}

/// Sends `message` on `socket`: the reply, or the close code if the connection closed instead.
async fn answer(socket: &mut Socket, message: ClientMessage) -> Result<ServerMessage, Option<u16>> {
    send_frame(socket, &ClientFrame::new(message)).await;
    read_frame(socket).await.map(|frame| frame.message)
}

fn code(reply: Result<ServerMessage, Option<u16>>) -> ErrorCode {
    match reply {
        Ok(ServerMessage::Error { code, .. }) => code,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_refused_hello_does_not_trade_its_token() {
    // A replaced token works 200 ms more: one traded by mistake stops working soon after.
    let server = TestServer::start(Config {
        token_overlap: Duration::from_millis(200),
        ..test_config()
    })
    .await;
    let url = server.url();
    // One player on eight connections, the last with the newest token.
    let mut conns = vec![Client::join(&url, "ada").await];
    while conns.len() < 8 {
        let token = conns.last().map(|c| c.token.clone()).unwrap_or_default();
        conns.push(Client::resume(&url, "ada", &token).await);
    }
    let newest = conns[7].token.clone();
    let mut ninth = connect(&url).await;
    let refusals = [
        (
            hello(PROTOCOL_VERSION, "ada", Some(&newest)),
            ErrorCode::LimitReached,
        ),
        (
            hello(99, "ada", Some(&newest)),
            ErrorCode::UnsupportedVersion,
        ),
        (
            hello(PROTOCOL_VERSION, "a\u{1b}[31mda", Some(&newest)),
            ErrorCode::BadName,
        ),
        (
            hello(PROTOCOL_VERSION, " ", Some(&newest)),
            ErrorCode::BadName,
        ),
    ];
    for (message, expected) in refusals {
        assert_eq!(code(answer(&mut ninth, message).await), expected);
    }
    conns[0]
        .expect_error(
            9,
            hello(PROTOCOL_VERSION, "ada", Some(&newest)),
            ErrorCode::AlreadyWelcomed,
        )
        .await;
    // Well past the overlap, the token still works: once a connection has gone, it is traded
    // for a new one (until the server has let that connection go, the limit still holds).
    tokio::time::sleep(Duration::from_millis(400)).await;
    let player = conns[0].player;
    drop(conns.pop());
    let mut welcomed = None;
    for _ in 0..500 {
        match answer(&mut ninth, hello(PROTOCOL_VERSION, "ada", Some(&newest))).await {
            Ok(ServerMessage::Welcome { player, token, .. }) => {
                welcomed = Some((player, token));
                break;
            }
            Ok(ServerMessage::Error {
                code: ErrorCode::LimitReached,
                ..
            }) => tokio::time::sleep(Duration::from_millis(20)).await,
            other => panic!("the untraded token was refused: {other:?}"),
        }
    }
    let (again, token) = welcomed.expect("a place came free");
    assert_eq!(again, player);
    assert_ne!(token, newest);
}

#[tokio::test]
async fn a_refused_hello_does_not_count_as_saying_hello() {
    let server = TestServer::start(Config {
        hello_timeout: Duration::from_millis(300),
        ..test_config()
    })
    .await;
    let url = server.url();
    let refusals = [
        (hello(99, "ada", None), ErrorCode::UnsupportedVersion),
        (hello(PROTOCOL_VERSION, "\u{7}", None), ErrorCode::BadName),
        (
            hello(
                PROTOCOL_VERSION,
                "ada",
                Some("00000000000000000000000000000000"),
            ),
            ErrorCode::UnknownToken,
        ),
    ];
    for (message, expected) in refusals {
        let mut socket = connect(&url).await;
        assert_eq!(code(answer(&mut socket, message).await), expected);
        // Nothing more is said: the deadline closes the connection as if no hello had come.
        match read_frame(&mut socket).await {
            Ok(frame) => panic!("expected the deadline's close, got {frame:?}"),
            Err(code) => assert_eq!(code, Some(1008), "{expected:?}"),
        }
    }
}
