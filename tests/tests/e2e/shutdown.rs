//! Shutdown: every client is told, the connections close with 1001, and `run` returns.

use noughts_engine::Variant;
use noughts_protocol::{ServerMessage, close};
use noughts_tests::{TestServer, test_config};

use noughts_tests::quick_match;

#[tokio::test]
async fn shutdown_tells_every_client_and_the_server_returns() {
    let mut server = TestServer::start(test_config()).await;
    let (mut x, mut o, _) = quick_match(&server.url(), Variant::Classic).await;
    let mut idle = server.join("idle").await;
    let clients = async {
        for client in [&mut x, &mut o, &mut idle] {
            client
                .until(|m| matches!(m, ServerMessage::Shutdown { .. }))
                .await;
            assert_eq!(client.closed().await, Some(close::GOING_AWAY));
        }
    };
    let (stopped, ()) = tokio::join!(server.shut_down(), clients);
    stopped.expect("a clean shutdown");
    // Nothing listens any more.
    assert!(
        tokio::time::timeout(
            noughts_tests::WAIT,
            tokio_tungstenite::connect_async(server.url())
        )
        .await
        .expect("refused at once")
        .is_err()
    );
}
