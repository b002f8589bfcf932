//! TLS: a game over `wss://` with a certificate made at test time; a client that does not trust
//! it, a plain `ws://` client on the TLS port and connections that never finish the handshake are
//! turned away without harming anyone else.

use std::time::Duration;

use noughts_engine::{Mark, Variant};
use noughts_protocol::{EndReason, ServerMessage};
use noughts_tests::tls::TestCert;
use noughts_tests::{TestServer, WAIT, alternate, connect_with, follow_to_end, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Error as WsError;

/// Two players meet by quick match over the server's URL and play classic to X's win on the top
/// row; both see every move and the result.
async fn play_a_game(server: &TestServer) {
    let (mut x, mut o, state) = server.quick_match(Variant::Classic).await;
    let cells = [0, 3, 1, 4, 2];
    alternate(&mut x, &mut o, state.game, &cells).await;
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, state.game).await;
        let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
            panic!("{}: the game ends with game_over", client.name);
        };
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(result.reason, EndReason::Line);
    }
}

/// Waits until the server closes a raw TCP connection; fails the test if it never does.
async fn dropped_by_the_server(mut tcp: TcpStream) {
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(WAIT, tcp.read(&mut buf))
        .await
        .expect("the server drops the connection");
    // Closed (end of file) or reset; either way nothing was said.
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
}

#[tokio::test]
async fn a_game_is_played_over_tls() {
    let cert = TestCert::localhost();
    let server = TestServer::start_tls(test_config(), &cert).await;
    assert!(server.url().starts_with("wss://localhost:"));
    play_a_game(&server).await;
}

#[tokio::test]
async fn a_client_that_does_not_trust_the_certificate_is_refused() {
    let cert = TestCert::localhost();
    let server = TestServer::start_tls(test_config(), &cert).await;
    // It trusts another certificate for the same name, not the server's.
    let other = TestCert::localhost();
    let err = connect_with(&server.url(), Some(other.trusted()))
        .await
        .expect_err("an untrusted certificate is refused");
    let WsError::Io(io) = &err else {
        panic!("expected a TLS error, got {err}");
    };
    let tls = io
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
        .unwrap_or_else(|| panic!("expected a rustls error, got {io}"));
    assert!(matches!(tls, rustls::Error::InvalidCertificate(_)), "{tls}");
    // The server carries on.
    play_a_game(&server).await;
}

#[tokio::test]
async fn a_plain_client_on_the_tls_port_is_told_to_use_wss() {
    let cert = TestCert::localhost();
    let server = TestServer::start_tls(test_config(), &cert).await;
    let plain = format!("ws://{}/", server.addr);
    let err = connect_with(&plain, None)
        .await
        .expect_err("plain WebSocket on a TLS port fails");
    let WsError::Http(response) = &err else {
        panic!("expected an HTTP answer, got {err}");
    };
    assert_eq!(response.status(), 400);
    let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
    assert!(body.contains("wss://"), "{body}");
    // A client that sends garbage that is neither TLS nor HTTP is dropped too.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(&[0u8; 32]).await.unwrap();
    dropped_by_the_server(tcp).await;
    play_a_game(&server).await;
}

#[tokio::test]
async fn connections_that_never_finish_the_handshake_are_dropped() {
    let cert = TestCert::localhost();
    let config = noughts_server::Config {
        tls_handshake_timeout: Duration::from_millis(300),
        ..test_config()
    };
    let server = TestServer::start_tls(config, &cert).await;
    // One says nothing at all; another starts a TLS record and stops.
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let mut stalled = TcpStream::connect(server.addr).await.unwrap();
    stalled.write_all(&[0x16, 0x03, 0x01]).await.unwrap();
    // Meanwhile a game is played: the stalled handshakes hold nobody up.
    play_a_game(&server).await;
    dropped_by_the_server(silent).await;
    dropped_by_the_server(stalled).await;
}
