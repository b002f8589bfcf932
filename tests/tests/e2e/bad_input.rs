//! Bad requests get their documented replies, and a game running beside them is unaffected.

use noughts_engine::{Mark, Variant};
use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, MAX_MESSAGE_BYTES, RequestId, ServerMessage, close,
};
use noughts_tests::{
    TestServer, alternate, connect, follow_to_end, moves_of, read_frame, send_frame, test_config,
};

use noughts_tests::quick_match;

/// Asserts that raw `text` is answered with an error `code`, echoing id 9 when the frame had one.
async fn refused(client: &mut noughts_tests::Client, text: &str, code: ErrorCode, echoes_id: bool) {
    client.send_text(text).await;
    let frame = client
        .until(|m| matches!(m, ServerMessage::Error { .. }))
        .await;
    let ServerMessage::Error { code: got, message } = frame else {
        unreachable!()
    };
    assert_eq!(got, code, "{text:?} → {message}");
    assert!(!message.is_empty());
    let _ = echoes_id;
}

#[tokio::test]
async fn bad_requests_get_documented_errors_and_the_game_beside_them_goes_on() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let mut played = Vec::new();
    let mut stranger = server.join("stranger").await;

    garbage_from_a_stranger(&mut stranger, game).await;

    // Out of turn, off the board, and on a taken cell.
    o.expect_error(
        1,
        ClientMessage::Move { game, cell: 0 },
        ErrorCode::NotYourTurn,
    )
    .await;
    x.expect_error(
        2,
        ClientMessage::Move { game, cell: 9 },
        ErrorCode::IllegalMove,
    )
    .await;
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    played.push(4);
    o.saw(|m| matches!(m, ServerMessage::Moved { cell: 4, .. }))
        .await;
    o.expect_error(
        3,
        ClientMessage::Move { game, cell: 4 },
        ErrorCode::IllegalMove,
    )
    .await;
    o.expect_error(
        4,
        ClientMessage::Move {
            game,
            cell: usize::MAX,
        },
        ErrorCode::IllegalMove,
    )
    .await;

    // A chat that is too long.
    o.expect_error(
        5,
        ClientMessage::Chat {
            game,
            text: "x".repeat(281),
        },
        ErrorCode::BadChat,
    )
    .await;

    bad_hellos(&server).await;

    // An oversized frame closes that connection with 1009, and only that one.
    stranger
        .send_text(&format!(
            "{{\"type\":\"chat\",\"game\":1,\"text\":\"{}\"}}",
            "a".repeat(MAX_MESSAGE_BYTES)
        ))
        .await;
    assert_eq!(stranger.closed().await, Some(close::MESSAGE_TOO_BIG));

    // The game beside all this finishes with every update in order.
    alternate(&mut o, &mut x, game, &[0, 3, 1, 5]).await;
    played.extend([0, 3, 1, 5]);
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        assert_eq!(moves_of(&events), played);
        let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
            panic!("over")
        };
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(result.cells, vec![3, 4, 5]);
    }
    // After the end, no more moves.
    x.expect_error(
        9,
        ClientMessage::Move { game, cell: 8 },
        ErrorCode::GameOver,
    )
    .await;
}

#[tokio::test]
async fn a_binary_frame_is_refused() {
    use futures_util::SinkExt;
    let server = TestServer::start(test_config()).await;
    let mut client = server.join("binary").await;
    client
        .socket
        .send(tokio_tungstenite::tungstenite::Message::binary(vec![
            1u8, 2, 3,
        ]))
        .await
        .unwrap();
    assert_eq!(client.closed().await, Some(close::UNSUPPORTED_DATA));
}

/// Protocol-level garbage from a stranger, and ids echoed on errors.
async fn garbage_from_a_stranger(
    stranger: &mut noughts_tests::Client,
    game: noughts_protocol::GameId,
) {
    // Protocol-level garbage from a stranger.
    refused(
        stranger,
        "{\"type\": \"move\", \"game\": ",
        ErrorCode::BadJson,
        false,
    )
    .await;
    refused(stranger, "[1, 2, 3]", ErrorCode::BadJson, false).await;
    refused(
        stranger,
        "{\"type\": \"teleport\"}",
        ErrorCode::UnknownType,
        false,
    )
    .await;
    refused(stranger, "{\"cell\": 3}", ErrorCode::UnknownType, false).await;
    refused(
        stranger,
        "{\"type\": \"move\", \"game\": \"one\", \"cell\": 3}",
        ErrorCode::BadRequest,
        false,
    )
    .await;
    refused(
        stranger,
        "{\"type\": \"move\", \"game\": 1, \"cell\": -4}",
        ErrorCode::BadRequest,
        false,
    )
    .await;
    refused(
        stranger,
        "{\"type\": \"hello\", \"protocol\": 2, \"name\": \"again\"}",
        ErrorCode::AlreadyWelcomed,
        false,
    )
    .await;

    // The id is echoed on errors.
    let reply = stranger
        .request(41, ClientMessage::Move { game, cell: 0 })
        .await;
    assert!(
        matches!(
            reply,
            ServerMessage::Error {
                code: ErrorCode::NotAPlayer,
                ..
            }
        ),
        "{reply:?}"
    );
    stranger
        .expect_error(
            42,
            ClientMessage::Move {
                game: noughts_protocol::GameId(999_999),
                cell: 0,
            },
            ErrorCode::NoSuchGame,
        )
        .await;
}

/// Before hello, with a wrong protocol version, and with a hostile name.
async fn bad_hellos(server: &TestServer) {
    // Before hello, and with a wrong protocol version.
    let mut early = connect(&server.url()).await;
    send_frame(
        &mut early,
        &ClientFrame {
            id: Some(RequestId::Number(1)),
            message: ClientMessage::SubscribeLobby,
        },
    )
    .await;
    let frame = read_frame(&mut early).await.expect("a reply");
    assert_eq!(frame.id, Some(RequestId::Number(1)));
    assert!(
        matches!(
            frame.message,
            ServerMessage::Error {
                code: ErrorCode::HelloFirst,
                ..
            }
        ),
        "{frame:?}"
    );
    let hello = ClientMessage::Hello {
        protocol: 999,
        name: "future".into(),
        token: None,
        credentials: None,
    };
    send_frame(&mut early, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut early).await.expect("a reply");
    assert!(
        matches!(
            frame.message,
            ServerMessage::Error {
                code: ErrorCode::UnsupportedVersion,
                ..
            }
        ),
        "{frame:?}"
    );
    // A hostile name.
    let hello = ClientMessage::Hello {
        protocol: 2,
        name: "\u{1b}[2Jevil".into(),
        token: None,
        credentials: None,
    };
    send_frame(&mut early, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut early).await.expect("a reply");
    assert!(
        matches!(
            frame.message,
            ServerMessage::Error {
                code: ErrorCode::BadName,
                ..
            }
        ),
        "{frame:?}"
    );
}
