//! Tokens and sessions: a token is traded for a new one each time it is used, expires when left
//! unused, and is revoked by `logout`; one player may be connected from several places at once,
//! and a connection coming and going beside the one playing never takes the game from it.

use std::time::Duration;

use noughts_protocol::{
    ClientFrame, ClientMessage, EndReason, ErrorCode, Mark, PROTOCOL_VERSION, ServerMessage, close,
};

use noughts_tests::{
    Client, TestServer, alternate, connect, quick_match, read_frame, send_frame, test_config,
};

/// `hello` with `token` on a new connection, expecting to be turned away with `unknown_token`.
async fn refused(url: &str, token: &str) {
    let mut socket = connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "thief".to_owned(),
        token: Some(token.to_owned()),
        credentials: None,
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    match read_frame(&mut socket).await.map(|frame| frame.message) {
        Ok(ServerMessage::Error { code, .. }) => assert_eq!(code, ErrorCode::UnknownToken),
        other => panic!("token {token}: expected unknown_token, got {other:?}"),
    }
}

#[tokio::test]
async fn every_hello_with_a_token_trades_it_for_a_new_one_and_the_old_one_soon_stops() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let first = Client::join(&url, "ada").await;
    let second = Client::resume(&url, "ada", &first.token).await;
    assert_eq!(second.player, first.player);
    assert_ne!(second.token, first.token, "a new token on every hello");
    // The new token works in turn, and gives another.
    let third = Client::resume(&url, "ada", &second.token).await;
    assert_eq!(third.player, first.player);
    assert_ne!(third.token, second.token);
    // A replaced token keeps working for a moment (clients sharing it), then no more: checked
    // with a short overlap below and, at the store, with a clock of the test's own.
    let server = TestServer::start(noughts_server::Config {
        token_overlap: Duration::from_millis(200),
        ..test_config()
    })
    .await;
    let url = server.url();
    let ada = Client::join(&url, "ada").await;
    let again = Client::resume(&url, "ada", &ada.token).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    refused(&url, &ada.token).await;
    let last = Client::resume(&url, "ada", &again.token).await;
    assert_eq!(last.player, ada.player);
}

#[tokio::test]
async fn a_token_left_unused_too_long_has_expired() {
    let server = TestServer::start(noughts_server::Config {
        token_idle: Duration::from_millis(300),
        ..test_config()
    })
    .await;
    let url = server.url();
    let ada = Client::join(&url, "ada").await;
    let bob = Client::join(&url, "bob").await;
    let bob = Client::resume(&url, "bob", &bob.token).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    refused(&url, &ada.token).await;
    refused(&url, &bob.token).await;
}

#[tokio::test]
async fn a_token_counts_as_used_while_its_connection_is_open() {
    let server = TestServer::start(noughts_server::Config {
        token_idle: Duration::from_secs(1),
        ..test_config()
    })
    .await;
    let url = server.url();
    // Ada stays connected longer than a token may lie unused, then leaves.
    let ada = Client::join(&url, "ada").await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let (player, token) = (ada.player, ada.token.clone());
    drop(ada);
    // Her token's unused time counts from when she left: it works once the server has seen her
    // go (until then it is refused, which changes nothing).
    let mut back = None;
    for _ in 0..200 {
        let mut socket = connect(&url).await;
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "ada".to_owned(),
            token: Some(token.clone()),
            credentials: None,
        };
        send_frame(&mut socket, &ClientFrame::new(hello)).await;
        match read_frame(&mut socket).await.map(|frame| frame.message) {
            Ok(ServerMessage::Welcome { player, .. }) => {
                back = Some(player);
                break;
            }
            Ok(ServerMessage::Error {
                code: ErrorCode::UnknownToken,
                ..
            }) => tokio::time::sleep(Duration::from_millis(10)).await,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        back,
        Some(player),
        "the token was used while ada was connected"
    );
}

#[tokio::test]
async fn a_second_connection_shares_the_game_and_its_going_leaves_the_first_playing() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, noughts_protocol::Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4]).await;
    // X, from another terminal, looks at its history: that connection gets the game too.
    let mut other = Client::resume(&url, "ada", &x.token).await;
    let snapshot = other.game_state().await;
    assert_eq!((snapshot.game, snapshot.you), (game, Some(Mark::X)));
    other.history(7).await;
    // O's move reaches both of X's connections.
    o.request(8, ClientMessage::Move { game, cell: 0 }).await;
    for client in [&mut x, &mut other] {
        client
            .until(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
            .await;
    }
    drop(other);
    // X is still there: its next move is played, and O never hears that X left.
    x.request(9, ClientMessage::Move { game, cell: 8 }).await;
    let message = o
        .until(|m| {
            matches!(
                m,
                ServerMessage::Moved { cell: 8, .. } | ServerMessage::Presence { .. }
            )
        })
        .await;
    assert!(
        matches!(message, ServerMessage::Moved { .. }),
        "{message:?}"
    );
}

#[tokio::test]
async fn logout_resigns_revokes_every_token_and_closes_every_connection() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, noughts_protocol::Variant::Classic).await;
    let game = state.game;
    let mut other = Client::resume(&url, "ada", &x.token).await;
    other.game_state().await;
    let reply = x.request(5, ClientMessage::Logout).await;
    assert_eq!(reply, ServerMessage::Ok);
    assert_eq!(x.closed().await, Some(close::LOGGED_OUT));
    assert_eq!(other.closed().await, Some(close::LOGGED_OUT));
    let over = o
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let ServerMessage::GameOver { result, .. } = over else {
        unreachable!()
    };
    assert_eq!(
        (result.winner, result.reason),
        (Some(Mark::O), EndReason::Resign)
    );
    refused(&url, &x.token).await;
    refused(&url, &other.token).await;
    let _ = game;
}

#[tokio::test]
async fn traded_and_revoked_tokens_stay_so_across_a_restart() {
    let scratch = noughts_tests::Scratch::new("tokens");
    let mut server = TestServer::start(noughts_tests::file_config(scratch.db())).await;
    let url = server.url();
    let ada = Client::join(&url, "ada").await;
    let ada = Client::resume(&url, "ada", &ada.token).await;
    let mut bob = Client::join(&url, "bob").await;
    let bob_token = bob.token.clone();
    assert_eq!(
        bob.request(2, ClientMessage::Logout).await,
        ServerMessage::Ok
    );
    server.shut_down().await.unwrap();
    let server = TestServer::start(noughts_tests::file_config(scratch.db())).await;
    let url = server.url();
    let again = Client::resume(&url, "ada", &ada.token).await;
    assert_eq!(again.player, ada.player, "the traded token is the one kept");
    refused(&url, &bob_token).await;
}
