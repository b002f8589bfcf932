//! Floods: requests faster than the rate limit, the connection closed when they go on; lobby
//! subscriptions taken and dropped over and over.

use futures_util::SinkExt;
use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, CreateRoom, ErrorCode, RequestId, ServerMessage, close};
use tokio_tungstenite::tungstenite::Message;

use crate::support::Beside;
use crate::support::*;

/// Requests past the burst are refused with `rate_limited`, and a flood that goes on is closed.
#[tokio::test]
async fn floods_are_rate_limited_then_closed() {
    let beside = Beside::start().await;
    floods(&beside.server).await;
    beside.finish().await;
}

/// Subscribing and unsubscribing to the lobby over and over leaves one listing, not many.
#[tokio::test]
async fn lobby_subscriptions_cannot_be_multiplied() {
    let beside = Beside::start().await;
    lobby_subscriptions(&beside.server).await;
    beside.finish().await;
}

async fn floods(server: &noughts_tests::TestServer) {
    // A burst just over the limit: every request answered once, the excess refused, and the
    // connection still open.
    let mut eager = server.join("eager").await;
    let extra = 5;
    let total = u64::from(BURST) + extra;
    for id in 1..=total {
        eager
            .socket
            .feed(Message::text(format!("{{\"type\":\"ping\",\"id\":{id}}}")))
            .await
            .expect("feed");
    }
    eager.socket.flush().await.expect("flush");
    let mut limited = 0;
    for id in 1..=total {
        let frame = eager.next().await;
        assert_eq!(frame.id, Some(RequestId::Number(id)));
        match frame.message {
            ServerMessage::Pong => {}
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            other => panic!("{other:?}"),
        }
    }
    // hello took one token; a slow machine may have earned some back meanwhile.
    assert!((1..=extra + 1).contains(&limited), "{limited} refused");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(
        eager.request(999, ClientMessage::Ping).await,
        ServerMessage::Pong
    );

    // Persistent flooding with requests, with garbage, and with chat: refused, then closed.
    let floods: [(&str, String); 3] = [
        ("pings", "{\"type\":\"ping\",\"id\":1}".to_owned()),
        ("garbage", "{\"type\":".to_owned()),
        ("unknown types", "{\"type\":\"spam\"}".to_owned()),
    ];
    for (what, text) in floods {
        let mut flooder = server.join("flooder").await;
        let (errors, code) = flood(&mut flooder.socket, std::iter::repeat_n(text, 300)).await;
        assert_eq!(code, Some(close::POLICY_VIOLATION), "{what}");
        let refused = errors
            .iter()
            .filter(|&&c| c == ErrorCode::RateLimited)
            .count();
        assert!(
            refused >= BURST as usize,
            "{what}: {refused} refused before the close"
        );
    }
}

/// Many lobby subscriptions from one connection are one subscription; thousands close it.
async fn lobby_subscriptions(server: &noughts_tests::TestServer) {
    let mut keen = server.join("keen").await;
    for id in 1..=30 {
        assert!(matches!(
            keen.request(id, ClientMessage::SubscribeLobby).await,
            ServerMessage::Lobby { .. }
        ));
    }
    let mut host = server.join("host").await;
    let mut flooder = server.join("subscriber").await;
    let (_, code) = flood(
        &mut flooder.socket,
        std::iter::repeat_n("{\"type\":\"subscribe_lobby\"}".to_owned(), 2000),
    )
    .await;
    assert_eq!(code, Some(close::POLICY_VIOLATION));
    let create = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    });
    let ServerMessage::RoomCreated { code, .. } = host.request(1, create).await else {
        panic!("a room")
    };
    // The room is told once; a second subscription would tell it twice, before its removal.
    let mut announced = 0;
    while announced == 0 {
        if let ServerMessage::LobbyUpdate(update) = keen.next().await.message {
            announced += update.rooms.iter().filter(|r| r.code == code).count();
        }
    }
    assert_eq!(
        host.request(2, ClientMessage::CloseRoom { code: code.clone() })
            .await,
        ServerMessage::Ok
    );
    loop {
        if let ServerMessage::LobbyUpdate(update) = keen.next().await.message {
            announced += update.rooms.iter().filter(|r| r.code == code).count();
            if update.rooms_removed.contains(&code) {
                break;
            }
        }
    }
    assert_eq!(announced, 1, "one connection, one subscription");
}
