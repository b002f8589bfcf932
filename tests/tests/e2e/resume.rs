//! Resuming with a token the server never issued. (Killed clients that resume, or lose by
//! abandonment, are in the server's fault suite, `server/tests/faults.rs`.)

use noughts_protocol::{ClientMessage, ServerMessage};
use noughts_tests::{TestServer, test_config};

#[tokio::test]
async fn a_forged_token_is_refused() {
    let server = TestServer::start(test_config()).await;
    let mut socket = noughts_tests::connect(&server.url()).await;
    let hello = ClientMessage::Hello {
        protocol: noughts_protocol::PROTOCOL_VERSION,
        name: "mallory".into(),
        token: Some("00112233445566778899aabbccddeeff".into()),
        credentials: None,
    };
    noughts_tests::send_frame(&mut socket, &noughts_protocol::ClientFrame::new(hello)).await;
    let frame = noughts_tests::read_frame(&mut socket)
        .await
        .expect("a reply");
    assert!(
        matches!(
            frame.message,
            ServerMessage::Error {
                code: noughts_protocol::ErrorCode::UnknownToken,
                ..
            }
        ),
        "{frame:?}"
    );
}
