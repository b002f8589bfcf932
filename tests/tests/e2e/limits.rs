//! Per-address caps: connections, open rooms and waiting seeks, counted across every player and
//! connection from one address (here all come from 127.0.0.1) and given back however they end.

use std::time::Duration;

use noughts_engine::Variant;
use noughts_protocol::{
    ClientMessage, ClockSpec, CreateRoom, ErrorCode, Seek, ServerMessage, close,
};
use noughts_tests::{Client, TestServer, test_config};

/// Connects and says hello; the refusal's error code and close code if turned away.
async fn try_join(server: &TestServer, name: &str) -> Result<Client, (ErrorCode, Option<u16>)> {
    Client::try_join(&server.url(), name)
        .await
        .map_err(|(message, closed)| match message {
            ServerMessage::Error { code, .. } => (code, closed),
            other => panic!("expected welcome or an error, got {other:?}"),
        })
}

/// Joins as `name`, retrying while the address is still over its cap: a place comes back when
/// the server has finished with a connection, a moment after the client has gone.
async fn join_when_free(server: &TestServer, name: &str) -> Client {
    for _ in 0..200 {
        match try_join(server, name).await {
            Ok(client) => return client,
            Err((ErrorCode::TooManyConnections, _)) => {
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            Err(other) => panic!("unexpected refusal {other:?}"),
        }
    }
    panic!("the address never got a place back");
}

/// Sends `message` until it is not refused with `limit_reached` (a place is given back when a
/// room or seek of a departed player is cleared up, a moment later), and returns the reply.
async fn until_not_limited(client: &mut Client, message: ClientMessage) -> ServerMessage {
    for id in 1000..1200 {
        match client.request(id, message.clone()).await {
            ServerMessage::Error {
                code: ErrorCode::LimitReached,
                ..
            } => tokio::time::sleep(Duration::from_millis(25)).await,
            reply => return reply,
        }
    }
    panic!("{}: the address never got a place back", client.name);
}

fn room(variant: Variant) -> ClientMessage {
    ClientMessage::CreateRoom(CreateRoom {
        variant,
        clock: None,
        private: false,
        rated: false,
    })
}

async fn open_room(client: &mut Client, id: u64) -> String {
    match client.request(id, room(Variant::Classic)).await {
        ServerMessage::RoomCreated { code, .. } => code,
        other => panic!("{}: expected room_created, got {other:?}", client.name),
    }
}

fn seek(initial_ms: u64) -> ClientMessage {
    ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: Some(ClockSpec {
            initial_ms,
            increment_ms: 0,
        }),
        rated: false,
        bots: false,
    })
}

#[tokio::test]
async fn connections_per_address_are_capped_and_given_back() {
    let server = TestServer::start(noughts_server::Config {
        max_connections_per_ip: 3,
        ..test_config()
    })
    .await;
    let mut first = server.join("one").await;
    let _second = server.join("two").await;
    let _third = server.join("three").await;
    let Err((code, closed)) = try_join(&server, "four").await else {
        panic!("a fourth connection from the address is refused");
    };
    assert_eq!(code, ErrorCode::TooManyConnections);
    assert_eq!(closed, Some(close::TRY_AGAIN_LATER));
    // The refused connection took no place; the others go on.
    first.request(1, ClientMessage::Ping).await;
    drop(first);
    let mut fourth = join_when_free(&server, "four").await;
    assert!(matches!(
        fourth.request(1, ClientMessage::Ping).await,
        ServerMessage::Pong
    ));
    let Err((code, _)) = try_join(&server, "five").await else {
        panic!("the cap holds again once the place is taken");
    };
    assert_eq!(code, ErrorCode::TooManyConnections);
}

#[tokio::test]
async fn open_rooms_are_capped_per_address_across_players() {
    let server = TestServer::start(noughts_server::Config {
        max_rooms_per_ip: 4,
        grace: Duration::from_millis(200),
        ..test_config()
    })
    .await;
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    let mut cy = server.join("cy").await;
    let mut ada_rooms = Vec::new();
    for id in 1..=3 {
        ada_rooms.push(open_room(&mut ada, id).await);
    }
    // The player's own cap (3) still comes first.
    ada.expect_error(4, room(Variant::Four), ErrorCode::LimitReached)
        .await;
    let bob_room = open_room(&mut bob, 1).await;
    // Four rooms are open from the address: nobody there may open a fifth.
    bob.expect_error(2, room(Variant::Four), ErrorCode::LimitReached)
        .await;
    cy.expect_error(1, room(Variant::Cube), ErrorCode::LimitReached)
        .await;

    // Closing one gives its place back.
    assert!(matches!(
        bob.request(3, ClientMessage::CloseRoom { code: bob_room })
            .await,
        ServerMessage::Ok
    ));
    open_room(&mut cy, 2).await;
    cy.expect_error(3, room(Variant::Cube), ErrorCode::LimitReached)
        .await;

    // A room that fills gives its place back too.
    let mut guest = server.join("guest").await;
    let joined = guest
        .request(
            1,
            ClientMessage::JoinRoom {
                code: ada_rooms[0].clone(),
            },
        )
        .await;
    assert!(matches!(joined, ServerMessage::GameState(_)), "{joined:?}");
    open_room(&mut bob, 4).await;
    bob.expect_error(5, room(Variant::Four), ErrorCode::LimitReached)
        .await;

    // A host who leaves keeps the rooms for the grace period; then they close and free their
    // places.
    drop(ada);
    let reply = until_not_limited(&mut cy, room(Variant::Qubic)).await;
    assert!(
        matches!(reply, ServerMessage::RoomCreated { .. }),
        "{reply:?}"
    );
    let again = until_not_limited(&mut bob, room(Variant::Four)).await;
    assert!(
        matches!(again, ServerMessage::RoomCreated { .. }),
        "{again:?}"
    );
}

#[tokio::test]
async fn waiting_seeks_are_capped_per_address_and_given_back_however_they_end() {
    let server = TestServer::start(noughts_server::Config {
        max_seeks_per_ip: 2,
        ..test_config()
    })
    .await;
    let [mut ada, mut bob, mut cy, mut di, mut eve] = [
        server.join("ada").await,
        server.join("bob").await,
        server.join("cy").await,
        server.join("di").await,
        server.join("eve").await,
    ];
    // Clocks of different speeds (bullet, blitz, rapid, classical), so none of these meet.
    for (client, initial_ms) in [(&mut ada, 60_000), (&mut bob, 180_000)] {
        let reply = client.request(1, seek(initial_ms)).await;
        assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
    }
    cy.expect_error(1, seek(600_000), ErrorCode::LimitReached)
        .await;

    // Over the cap, a seek that meets a waiting one is still served: bob's seek is used up.
    let reply = di.request(1, seek(180_000)).await;
    assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
    let state = di.game_state().await;
    assert_eq!(bob.game_state().await.game, state.game);
    let reply = cy.request(2, seek(600_000)).await;
    assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
    eve.expect_error(1, seek(1_800_000), ErrorCode::LimitReached)
        .await;

    // Cancelling gives the place back.
    assert!(matches!(
        ada.request(2, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    ));
    let reply = eve.request(2, seek(1_800_000)).await;
    assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
    ada.expect_error(3, seek(300_000), ErrorCode::LimitReached)
        .await;

    // So does going away.
    drop(eve);
    let reply = until_not_limited(&mut ada, seek(300_000)).await;
    assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
}
