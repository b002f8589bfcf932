//! What accounts change for everyone, end to end on SQLite and on PostgreSQL: rated games are
//! between accounts (a guest's rated seek, room, acceptance or join is refused, guests still play
//! unrated), the leaderboard lists accounts by username, a closed account's name is marked in
//! old games and freed after the hold, and a session's device is named by the connection's
//! `User-Agent` when the client names none.

use std::time::Duration;

use noughts_protocol::{
    ClientMessage, CloseAccount, CreateRoom, DEVICE_MAX_CHARS, ErrorCode, GameId, GameState,
    Leaderboard, Mark, Seek, ServerMessage, Variant,
};
use noughts_server::AccountConfig;
use noughts_tests::accounts::{TEST_PASSWORD, make_account, register, sign_in_on};
use noughts_tests::on_both_stores;
use noughts_tests::stores::Db;
use noughts_tests::{Client, Socket, TestServer, WAIT};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use super::accounts::{refusal, server, sessions};

on_both_stores!(
    a_guest_cannot_start_a_rated_game_and_accounts_play_each_other,
    a_closed_accounts_name_is_marked_in_old_games_and_freed_after_the_hold,
    a_session_without_a_device_is_named_by_its_user_agent,
);

fn seek(rated: bool) -> ClientMessage {
    ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated,
        bots: false,
    })
}

fn room(rated: bool) -> ClientMessage {
    ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Classic,
        clock: None,
        private: false,
        rated,
    })
}

/// The leaderboard of classic, as (name, player) pairs.
async fn leaderboard(client: &mut Client, id: u64) -> Vec<(String, noughts_protocol::PlayerId)> {
    let ask = ClientMessage::Leaderboard(Leaderboard {
        variant: Variant::Classic,
        offset: None,
        limit: None,
    });
    match client.request(id, ask).await {
        ServerMessage::Leaderboard { players, .. } => {
            players.into_iter().map(|p| (p.name, p.player)).collect()
        }
        other => panic!("expected the leaderboard, got {other:?}"),
    }
}

/// Both players' snapshot of the game a pairing just started, checked to be the same game.
async fn paired(a: &mut Client, b: &mut Client) -> GameState {
    let state = a.game_state().await;
    assert_eq!(b.game_state().await.game, state.game);
    state
}

async fn a_guest_cannot_start_a_rated_game_and_accounts_play_each_other(db: Db) {
    let Some((server, _db)) = server(db, "rated").await else {
        return;
    };
    let url = server.url();
    let mut guest = Client::join(&url, "guest").await;
    let mut ada = Client::join(&url, "ada").await;
    let mut bob = Client::join(&url, "bob").await;
    make_account(&mut ada).await;
    make_account(&mut bob).await;

    // A guest may neither seek nor open a rated game.
    guest
        .expect_error(1, seek(true), ErrorCode::NotAnAccount)
        .await;
    guest
        .expect_error(2, room(true), ErrorCode::NotAnAccount)
        .await;
    // Nor join an account's rated room, which stays open for an account.
    let ServerMessage::RoomCreated { code, .. } = ada.request(3, room(true)).await else {
        panic!("ada's room");
    };
    let join = ClientMessage::JoinRoom { code: code.clone() };
    guest
        .expect_error(4, join.clone(), ErrorCode::NotAnAccount)
        .await;
    let ServerMessage::GameState(state) = bob.request(5, join).await else {
        panic!("bob joins ada's room");
    };
    assert!(state.rated, "accounts play a rated game from a room");
    let room_game = state.game;
    assert_eq!(ada.game_state().await.game, room_game);
    bob.request(6, ClientMessage::Resign { game: room_game })
        .await;

    // Nor take an account's rated seek, which waits on for an account.
    let ServerMessage::Seeking { seek: waiting, .. } = ada.request(7, seek(true)).await else {
        panic!("ada seeks");
    };
    let accept = ClientMessage::AcceptSeek { seek: waiting };
    guest.expect_error(8, accept, ErrorCode::NotAnAccount).await;
    // A guest's casual seek does not meet the rated one; an account's rated seek does.
    assert!(matches!(
        guest.request(9, seek(false)).await,
        ServerMessage::Seeking { .. }
    ));
    bob.send(seek(true)).await;
    let state = paired(&mut ada, &mut bob).await;
    assert!(state.rated);
    let players = [state.x.player, state.o.player];
    assert!(players.contains(&Some(ada.player)) && players.contains(&Some(bob.player)));
    let (x, o) = if state.you == Some(Mark::X) {
        (&mut ada, &mut bob)
    } else {
        (&mut bob, &mut ada)
    };
    noughts_tests::alternate(x, o, state.game, &[0, 3, 1, 4, 2]).await;
    // Rated before its end goes out.
    let rated_game = state.game;
    ada.saw(|m| matches!(m, ServerMessage::GameOver { game, .. } if *game == rated_game))
        .await;

    // Guests play casual games as before.
    let mut other = Client::join(&url, "other").await;
    other.send(seek(false)).await;
    let state = paired(&mut guest, &mut other).await;
    assert!(!state.rated);

    // The leaderboard lists the two accounts, by username.
    let board = leaderboard(&mut guest, 10).await;
    let names: Vec<&str> = board.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.len(), 2, "{board:?}");
    assert!(
        names.contains(&"ada") && names.contains(&"bob"),
        "{board:?}"
    );
}

async fn a_closed_accounts_name_is_marked_in_old_games_and_freed_after_the_hold(db: Db) {
    let Some(own) = db.fresh("closed-name") else {
        return;
    };
    // No hold: the name is free as soon as the account is closed.
    let server = TestServer::start(noughts_server::Config {
        accounts: AccountConfig {
            closed_name_hold: Duration::ZERO,
            ..AccountConfig::default()
        },
        ..own.config()
    })
    .await;
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    let mut bob = Client::join(&url, "bob").await;
    make_account(&mut ada).await;
    make_account(&mut bob).await;
    ada.send(seek(true)).await;
    bob.send(seek(true)).await;
    let game: GameId = paired(&mut ada, &mut bob).await.game;
    ada.request(1, ClientMessage::Resign { game }).await;
    bob.saw(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let close = ClientMessage::CloseAccount(CloseAccount {
        password: TEST_PASSWORD.to_owned(),
    });
    assert_eq!(ada.request(2, close).await, ServerMessage::Ok);

    // Old games, the history and the profile show the name as closed.
    let record = bob.record(3, game).await;
    let seat = |mark| {
        if mark == Mark::X {
            &record.x
        } else {
            &record.o
        }
    };
    let ada_seat = [Mark::X, Mark::O]
        .into_iter()
        .map(seat)
        .find(|s| s.player == Some(ada.player))
        .expect("ada's seat");
    assert_eq!(ada_seat.name, "ada (closed)");
    let history = bob.history(4).await;
    let names = [history[0].x.name.as_str(), history[0].o.name.as_str()];
    assert!(
        names.contains(&"ada (closed)") && names.contains(&"bob"),
        "{names:?}"
    );
    let profile = ClientMessage::Profile {
        player: Some(ada.player),
        username: None,
    };
    match bob.request(5, profile).await {
        ServerMessage::Profile(profile) => assert_eq!(profile.name, "ada (closed)"),
        other => panic!("expected a profile, got {other:?}"),
    }
    // The leaderboard leaves it out.
    let board = leaderboard(&mut bob, 6).await;
    assert_eq!(board, [("bob".to_owned(), bob.player)]);
    // Nobody may call themselves so.
    let Err((answer, _)) = Client::try_join(&url, "ada (Closed)").await else {
        panic!("the mark of a closed account is refused as a name");
    };
    assert_eq!(refusal(answer).0, ErrorCode::ReservedName);

    // The name is free again (held for no time here); the old game still shows the old one.
    let mut carol = Client::join(&url, "carol").await;
    match register(&mut carol, 7, "ADA", TEST_PASSWORD).await {
        ServerMessage::Registered { username, .. } => assert_eq!(username, "ADA"),
        other => panic!("the freed name is taken again, not {other:?}"),
    }
    let record = bob.record(8, game).await;
    let names = [record.x.name.as_str(), record.o.name.as_str()];
    assert!(names.contains(&"ada (closed)"), "{names:?}");
}

/// A plain WebSocket to `server` whose upgrade carries `user_agent`, if any.
async fn with_user_agent(server: &TestServer, user_agent: Option<&[u8]>) -> Socket {
    let mut request = server.url().into_client_request().unwrap();
    if let Some(agent) = user_agent {
        let value = HeaderValue::from_bytes(agent).expect("a header value");
        request.headers_mut().insert("user-agent", value);
    }
    let (socket, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(request))
        .await
        .expect("in time")
        .expect("connect");
    socket
}

async fn a_session_without_a_device_is_named_by_its_user_agent(db: Db) {
    let Some((server, _db)) = server(db, "device").await else {
        return;
    };
    // A tab, an 8-bit escape sequence and more than the label may hold.
    let long = format!("Browser\t1.0 \u{9b}31mred{}", "x".repeat(100));
    let mut socket = with_user_agent(&server, Some(long.as_bytes())).await;
    let hello = ClientMessage::Hello {
        protocol: noughts_protocol::PROTOCOL_VERSION,
        name: "ada".to_owned(),
        token: None,
        credentials: None,
    };
    noughts_tests::send_frame(&mut socket, &noughts_protocol::ClientFrame::new(hello)).await;
    let welcome = noughts_tests::read_frame(&mut socket)
        .await
        .expect("welcome");
    let ServerMessage::Welcome { player, token, .. } = welcome.message else {
        panic!("expected welcome, got {:?}", welcome.message);
    };
    let mut ada = Client::welcomed(socket, "ada", player, token);
    make_account(&mut ada).await;
    let expected: String = format!("Browser 1.0 red{}", "x".repeat(100))
        .chars()
        .take(DEVICE_MAX_CHARS)
        .collect();
    let listed = sessions(&mut ada, 1).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].device.as_deref(), Some(expected.as_str()));

    // Signing in: the device the client names, else its User-Agent, else "unknown".
    let named = with_user_agent(&server, Some(b"noughts/1.0")).await;
    sign_in_on(named, "ada", TEST_PASSWORD, Some("laptop"))
        .await
        .expect("signed in");
    let agent = with_user_agent(&server, Some(b"  noughts/1.0 (linux)  ")).await;
    sign_in_on(agent, "ada", TEST_PASSWORD, None)
        .await
        .expect("signed in");
    let bare = with_user_agent(&server, None).await;
    sign_in_on(bare, "ada", TEST_PASSWORD, None)
        .await
        .expect("signed in");
    let mut devices: Vec<String> = sessions(&mut ada, 2)
        .await
        .into_iter()
        .filter(|s| !s.current)
        .filter_map(|s| s.device)
        .collect();
    devices.sort();
    assert_eq!(devices, ["laptop", "noughts/1.0 (linux)", "unknown"]);
}
