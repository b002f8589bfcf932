//! Games from private rooms: watched only by their players or with the room's code, and on record
//! only for their players; public games stay open to everyone by id.

use noughts_engine::Variant;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, History, PlayerId, Seek, ServerMessage, Watch,
};
use noughts_tests::{Client, TestServer, alternate, test_config};

/// A private room opened by a host and joined by a guest: the game, the displayed code, and the
/// players as (X, O).
async fn private_game(server: &TestServer) -> (GameId, String, Client, Client) {
    let mut host = server.join("host").await;
    let mut guest = server.join("guest").await;
    let code = host.create_room(1, Variant::Classic, true).await;
    let ServerMessage::GameState(state) = guest
        .request(1, ClientMessage::JoinRoom { code: code.clone() })
        .await
    else {
        panic!("join_room answers with the game");
    };
    host.game_state().await;
    let (x, o) = if state.you == Some(noughts_engine::Mark::X) {
        (guest, host)
    } else {
        (host, guest)
    };
    (state.game, code, x, o)
}

fn watch(game: GameId, code: Option<&str>) -> ClientMessage {
    ClientMessage::Watch(Watch {
        game,
        code: code.map(str::to_owned),
    })
}

/// The games in `player`'s history as `asker` sees it.
async fn history_games(asker: &mut Client, id: u64, player: PlayerId) -> Vec<GameId> {
    let history = ClientMessage::History(History {
        player: Some(player),
        before: None,
        limit: None,
    });
    match asker.request(id, history).await {
        ServerMessage::History { games, .. } => games.iter().map(|g| g.game).collect(),
        other => panic!("history: {other:?}"),
    }
}

#[tokio::test]
async fn a_private_game_is_watched_only_with_its_code() {
    let server = TestServer::start(test_config()).await;
    let (game, code, mut x, mut o) = private_game(&server).await;
    let mut stranger = server.join("stranger").await;

    // Without the code, or with a wrong one, the game does not exist for a stranger.
    stranger
        .expect_error(1, watch(game, None), ErrorCode::NoSuchGame)
        .await;
    stranger
        .expect_error(2, watch(game, Some("ZZZZ-ZZZZ-ZZ")), ErrorCode::NoSuchGame)
        .await;
    stranger
        .expect_error(3, watch(game, Some("not a code")), ErrorCode::NoSuchGame)
        .await;
    // Refused exactly as an id that was never used.
    let unused = GameId(game.0 + 1000);
    let (
        ServerMessage::Error {
            message: hidden, ..
        },
        ServerMessage::Error {
            message: absent, ..
        },
    ) = (
        stranger.request(4, watch(game, None)).await,
        stranger.request(5, watch(unused, None)).await,
    )
    else {
        panic!("both are errors");
    };
    assert_eq!(
        hidden.replace(&game.to_string(), "N"),
        absent.replace(&unused.to_string(), "N")
    );

    // With the code, as typed or read aloud, it is watched like any game.
    let ServerMessage::GameState(snapshot) = stranger
        .request(6, watch(game, Some(&code.to_lowercase().replace('-', ""))))
        .await
    else {
        panic!("the code opens the game");
    };
    assert_eq!((snapshot.game, snapshot.you), (game, None));
    alternate(&mut x, &mut o, game, &[4]).await;
    stranger
        .saw(|m| matches!(m, ServerMessage::Moved { cell: 4, game: g, .. } if *g == game))
        .await;

    // Its players need no code.
    let ServerMessage::GameState(mine) = x.request(10, watch(game, None)).await else {
        panic!("a player gets the snapshot again");
    };
    assert!(mine.you.is_some());

    // A rematch keeps the room's code.
    alternate(&mut o, &mut x, game, &[0, 1, 2, 7]).await;
    let ServerMessage::GameOver { .. } = x
        .until(|m| matches!(m, ServerMessage::GameOver { game: g, .. } if *g == game))
        .await
    else {
        unreachable!()
    };
    x.send(ClientMessage::Rematch { game }).await;
    o.saw(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    let ServerMessage::GameState(rematch) = o.request(11, ClientMessage::Rematch { game }).await
    else {
        panic!("accepting starts the rematch");
    };
    let mut late = server.join("late").await;
    late.expect_error(1, watch(rematch.game, None), ErrorCode::NoSuchGame)
        .await;
    let ServerMessage::GameState(_) = late.request(2, watch(rematch.game, Some(&code))).await
    else {
        panic!("the room's code opens its rematch");
    };

    // A public game needs no code.
    let (_a, _b, public) = server.quick_match(Variant::Four).await;
    let ServerMessage::GameState(_) = late.request(3, watch(public.game, None)).await else {
        panic!("a public game is watched by id");
    };
}

#[tokio::test]
async fn a_private_game_is_on_record_only_for_its_players() {
    let server = TestServer::start(test_config()).await;
    let (game, _code, mut x, mut o) = private_game(&server).await;
    // X takes the top row.
    alternate(&mut x, &mut o, game, &[0, 3, 1, 4, 2]).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { game: g, .. } if *g == game))
        .await;
    o.until(|m| matches!(m, ServerMessage::GameOver { game: g, .. } if *g == game))
        .await;
    // And a public game of X's beside it.
    let mut rival = server.join("rival").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Cube,
        clock: None,
        rated: false,
        bots: false,
    });
    x.request(20, seek.clone()).await;
    rival.send(seek).await;
    let public = rival.game_state().await.game;
    x.send(ClientMessage::Resign { game: public }).await;
    rival
        .until(|m| matches!(m, ServerMessage::GameOver { game: g, .. } if *g == public))
        .await;

    let mut stranger = server.join("stranger").await;
    stranger
        .expect_error(1, ClientMessage::GameRecord { game }, ErrorCode::NoSuchGame)
        .await;
    let ServerMessage::GameRecord(record) = o.request(30, ClientMessage::GameRecord { game }).await
    else {
        panic!("a player gets the record");
    };
    assert_eq!(record.moves.len(), 5);

    // A stranger sees only X's public game; X, and O who played the private one, see both.
    let of_x = x.player;
    assert_eq!(history_games(&mut stranger, 2, of_x).await, vec![public]);
    assert_eq!(history_games(&mut x, 31, of_x).await, vec![public, game]);
    assert_eq!(history_games(&mut o, 32, of_x).await, vec![public, game]);
    assert_eq!(history_games(&mut rival, 1, of_x).await, vec![public]);
}
