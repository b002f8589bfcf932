//! `rename`: the player keeps its id, token, games and ratings under a new name, which new games,
//! the profile, the records and a later `hello` with the token show; registering makes the
//! username the name, which an account cannot change.

use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, ErrorCode, ListGames, ServerMessage, Watch};
use noughts_tests::accounts::TEST_PASSWORD;
use noughts_tests::{Client, Scratch, TestServer, file_config, pair};

#[tokio::test]
async fn a_rename_keeps_the_player_and_shows_in_new_games() {
    let scratch = Scratch::new("rename");
    let server = TestServer::start(file_config(scratch.db())).await;
    let url = server.url();
    let ada = server.join("ada").await;
    let bob = server.join("bob").await;
    let player = ada.player;
    let (mut x, mut o, state) = pair(ada, bob, Variant::Classic).await;
    let game = state.game;
    let (ada, bob) = if x.player == player {
        (&mut x, &mut o)
    } else {
        (&mut o, &mut x)
    };
    // A second connection of the same player hears of the rename too.
    let mut elsewhere = Client::resume(&url, "ada", &ada.token.clone()).await;
    // A name that breaks hello's rules is refused, and changes nothing.
    for (id, name) in [
        (1, "  ".to_owned()),
        (11, "x".repeat(25)),
        (12, "red\u{1b}[31m".to_owned()),
        (13, "a\u{202e}b".to_owned()),
    ] {
        ada.expect_error(id, ClientMessage::Rename { name }, ErrorCode::BadName)
            .await;
    }
    // A name the server reserves (the AI's, the staff's) is refused as at hello.
    for (id, name) in [(14, "admin"), (15, "A.I. (Perfect)")] {
        let name = name.to_owned();
        ada.expect_error(id, ClientMessage::Rename { name }, ErrorCode::ReservedName)
            .await;
    }
    let reply = ada
        .request(
            2,
            ClientMessage::Rename {
                name: "  Ada L. ".to_owned(),
            },
        )
        .await;
    assert_eq!(
        reply,
        ServerMessage::Renamed {
            name: "Ada L.".to_owned()
        }
    );
    elsewhere
        .saw(|m| matches!(m, ServerMessage::Renamed { name } if name == "Ada L."))
        .await;
    // The game's record names its players by id: it shows the new name.
    ada.request(3, ClientMessage::Resign { game }).await;
    let record = bob.record(4, game).await;
    let mine = if record.x.player == Some(player) {
        &record.x
    } else {
        &record.o
    };
    assert_eq!(mine.name, "Ada L.");
    // The profile shows the new name, and a new game seats it.
    let ServerMessage::Profile(profile) = bob
        .request(
            5,
            ClientMessage::Profile {
                player: Some(player),
                username: None,
            },
        )
        .await
    else {
        panic!("a profile")
    };
    assert_eq!(profile.name, "Ada L.");
    // A hello with the token comes back as the new name (whatever name it says), and a new game
    // seats the player under it.
    let again = Client::resume(&url, "whatever", &elsewhere.token).await;
    let rival = server.join("cy").await;
    let (x, o, state) = pair(again, rival, Variant::Classic).await;
    let seat = if x.player == player {
        &state.x
    } else {
        &state.o
    };
    assert_eq!(seat.player, Some(player));
    assert_eq!(seat.name, "Ada L.");
    drop(o);
}

#[tokio::test]
async fn a_game_being_played_keeps_the_names_it_started_with_until_it_ends() {
    let server = TestServer::start(noughts_tests::test_config()).await;
    let ada = server.join("ada").await;
    let bob = server.join("bob").await;
    let player = ada.player;
    let (mut x, mut o, state) = pair(ada, bob, Variant::Classic).await;
    let game = state.game;
    let (ada, bob) = if x.player == player {
        (&mut x, &mut o)
    } else {
        (&mut o, &mut x)
    };
    let rename = ClientMessage::Rename {
        name: "Ada L.".to_owned(),
    };
    assert!(matches!(
        ada.request(2, rename).await,
        ServerMessage::Renamed { .. }
    ));
    let ada_seat = |x: &noughts_protocol::SeatInfo, o: &noughts_protocol::SeatInfo| {
        if x.player == Some(player) {
            x.name.clone()
        } else {
            o.name.clone()
        }
    };
    // A new watcher's snapshot, the opponent's and the player's own all show the name the game
    // started with, as the lobby's entry does.
    let mut cy = server.join("cy").await;
    let watch = ClientMessage::Watch(Watch { game, code: None });
    for (who, client) in [("cy", &mut cy), ("bob", &mut *bob), ("ada", &mut *ada)] {
        let ServerMessage::GameState(state) = client.request(3, watch.clone()).await else {
            panic!("{who}: a snapshot")
        };
        assert_eq!(ada_seat(&state.x, &state.o), "ada", "{who}'s snapshot");
    }
    let list = ClientMessage::ListGames(ListGames {
        variant: None,
        after: None,
        limit: None,
    });
    let ServerMessage::GameList { games, .. } = cy.request(4, list).await else {
        panic!("a game list")
    };
    let entry = games.iter().find(|entry| entry.game == game).unwrap();
    assert_eq!(ada_seat(&entry.x, &entry.o), "ada", "the lobby's entry");
    // Once it has ended, its record names the player as it is now.
    ada.request(5, ClientMessage::Resign { game }).await;
    let record = bob.record(6, game).await;
    let mine = if record.x.player == Some(player) {
        &record.x
    } else {
        &record.o
    };
    assert_eq!(mine.name, "Ada L.");
}

/// The `welcome` a `hello` as `name` (with `token`, if any) gets on a connection of its own.
async fn welcome(url: &str, name: &str, token: Option<String>) -> ServerMessage {
    let mut socket = noughts_tests::connect(url).await;
    let hello = ClientMessage::Hello {
        protocol: noughts_protocol::PROTOCOL_VERSION,
        name: name.to_owned(),
        token,
        credentials: None,
    };
    let frame = noughts_protocol::ClientFrame::new(hello);
    noughts_tests::send_frame(&mut socket, &frame).await;
    noughts_tests::read_frame(&mut socket)
        .await
        .expect("a welcome")
        .message
}

#[tokio::test]
async fn registering_makes_the_username_the_name_which_an_account_cannot_change() {
    let server = TestServer::start(noughts_tests::test_config()).await;
    let url = server.url();
    let mut ada = server.join("ada").await;
    let mut elsewhere = Client::resume(&url, "ada", &ada.token.clone()).await;
    // A guest's welcome carries no username.
    match welcome(&url, "cy", None).await {
        ServerMessage::Welcome { name, username, .. } => {
            assert_eq!((name.as_str(), username), ("cy", None));
        }
        other => panic!("expected welcome, got {other:?}"),
    }
    noughts_tests::accounts::registered(&mut ada, "ada_walk", TEST_PASSWORD).await;
    // Her other connection hears of the new name as of a rename.
    elsewhere
        .saw(|m| matches!(m, ServerMessage::Renamed { name } if name == "ada_walk"))
        .await;
    let rename = ClientMessage::Rename {
        name: "Ada L.".to_owned(),
    };
    ada.expect_error(2, rename, ErrorCode::AccountName).await;
    // Coming back with her token under another name: welcomed under her username, which the
    // welcome carries too.
    match welcome(&url, "someone else", Some(elsewhere.token.clone())).await {
        ServerMessage::Welcome { name, username, .. } => {
            assert_eq!(name, "ada_walk");
            assert_eq!(username.as_deref(), Some("ada_walk"));
        }
        other => panic!("expected welcome, got {other:?}"),
    }
    let profile = ada
        .request(
            3,
            ClientMessage::Profile {
                player: None,
                username: None,
            },
        )
        .await;
    match profile {
        ServerMessage::Profile(profile) => {
            assert_eq!((profile.name.as_str(), profile.guest), ("ada_walk", false));
        }
        other => panic!("expected profile, got {other:?}"),
    }
}
