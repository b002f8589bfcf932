//! Rooms: public ones are listed until joined; private ones are joined by code and never listed.

use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, CreateRoom, ErrorCode, ListGames, ServerMessage};
use noughts_tests::{TestServer, test_config};

#[tokio::test]
async fn a_private_room_is_joined_by_code_and_never_listed() {
    let server = TestServer::start(test_config()).await;
    let mut lobby = server.join("lurker").await;
    let mut view = lobby.follow_lobby(1).await;
    assert!(view.rooms.is_empty() && view.games.is_empty());

    let mut host = server.join("host").await;
    let code = host.create_room(1, Variant::Classic, true).await;
    // At least 40 bits from an alphabet of at least 32 symbols: 8 or more symbols.
    let symbols = code.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    assert!(symbols >= 8, "invite code {code:?} is long enough");

    // A wrong code is refused; the host cannot join its own room.
    let mut guest = server.join("guest").await;
    guest
        .expect_error(
            1,
            ClientMessage::JoinRoom {
                code: "ZZZZ-ZZZZ-ZZ".into(),
            },
            ErrorCode::NoSuchRoom,
        )
        .await;
    host.expect_error(
        2,
        ClientMessage::JoinRoom { code: code.clone() },
        ErrorCode::OwnRoom,
    )
    .await;

    // Codes read aloud come back in lower case.
    let ServerMessage::GameState(state) = guest
        .request(
            2,
            ClientMessage::JoinRoom {
                code: code.to_lowercase(),
            },
        )
        .await
    else {
        panic!("join_room answers with the game");
    };
    let host_state = host.game_state().await;
    assert_eq!(state.game, host_state.game);
    assert_ne!(state.you, host_state.you);

    // A marker: a public room opened after everything above. The lobby must show it, and must
    // not have shown the private room or its game before it.
    let mut other = server.join("other").await;
    let ServerMessage::RoomCreated {
        code: public_code, ..
    } = other
        .request(
            1,
            ClientMessage::CreateRoom(CreateRoom {
                variant: Variant::Four,
                clock: None,
                private: false,
                rated: false,
            }),
        )
        .await
    else {
        panic!("room_created");
    };
    lobby
        .lobby_until(&mut view, |view| view.rooms.contains_key(&public_code))
        .await;
    assert_eq!(
        view.rooms.len(),
        1,
        "only the public room is listed: {view:?}"
    );
    // The code is the room's name in the lobby; joining it removes it, and its game is shown.
    let mut joiner = server.join("joiner").await;
    let ServerMessage::GameState(public) = joiner
        .request(
            2,
            ClientMessage::JoinRoom {
                code: public_code.clone(),
            },
        )
        .await
    else {
        panic!("join_room answers with the game");
    };
    lobby
        .lobby_until(&mut view, |view| {
            !view.rooms.contains_key(&public_code) && view.games.contains_key(&public.game)
        })
        .await;
    assert!(
        !view.games.contains_key(&state.game),
        "a private game is shown"
    );
    // Browsing every live game finds the public one and never the private one.
    let reply = lobby
        .request(
            3,
            ClientMessage::ListGames(ListGames {
                variant: None,
                after: None,
                limit: None,
            }),
        )
        .await;
    let ServerMessage::GameList { games, next } = reply else {
        panic!("game_list, got {reply:?}");
    };
    let ids: Vec<_> = games.iter().map(|game| game.game).collect();
    assert_eq!((ids, next), (vec![public.game], None));
}
