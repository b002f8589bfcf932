//! Records on a real SQLite file: ratings after rated games (and not after casual or AI ones), the
//! leaderboard, history, a game's record replayed move by move, profiles, players coming back
//! after their session expired, and live games kept across a polite restart.

use std::time::Duration;

use noughts_engine::{Board, Level, Mark, Variant};
use noughts_protocol::{
    ClientMessage, EndReason, ErrorCode, GameId, GameState, History, Leaderboard, PlayAi, PlayerId,
    Seek, ServerMessage, SideChoice, Watch,
};
use noughts_tests::accounts::make_account;
use noughts_tests::{Client, Scratch, TestServer, file_config};

/// Pairs `a` and `b` by a seek and returns them as (X, O) with the snapshot.
async fn seek<'a>(
    a: &'a mut Client,
    b: &'a mut Client,
    rated: bool,
) -> (&'a mut Client, &'a mut Client, GameState) {
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated,
        bots: false,
    });
    a.request(100, seek.clone()).await;
    b.request(100, seek).await;
    let state = a.game_state().await;
    b.game_state().await;
    assert_eq!(state.rated, rated);
    if state.you == Some(Mark::X) {
        (a, b, state)
    } else {
        (b, a, state)
    }
}

/// X takes the top row while O answers on the middle one.
async fn x_wins(x: &mut Client, o: &mut Client, game: GameId) -> ServerMessage {
    noughts_tests::alternate(x, o, game, &[0, 3, 1, 4, 2]).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await
}

async fn classic(client: &mut Client, player: PlayerId) -> (u32, u32, u32, u32) {
    let reply = client
        .request(
            900,
            ClientMessage::Profile {
                player: Some(player),
                username: None,
            },
        )
        .await;
    let ServerMessage::Profile(profile) = reply else {
        panic!("{reply:?}")
    };
    let stats = &profile.variants[0];
    assert_eq!(stats.variant, Variant::Classic);
    (stats.rating, stats.rated_games, stats.games, stats.wins)
}

#[tokio::test]
async fn rated_games_move_ratings_and_everything_is_on_record() {
    let scratch = Scratch::new("records");
    let server = TestServer::start(file_config(scratch.db())).await;
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    // Rated games are between accounts.
    make_account(&mut ada).await;
    make_account(&mut bob).await;

    let (x, o, state) = seek(&mut ada, &mut bob, true).await;
    assert_eq!(state.x.rating, Some(1500));
    let (winner, loser) = (x.player, o.player);
    let game = state.game;
    let over = x_wins(x, o, game).await;
    let ServerMessage::GameOver { board, result, .. } = over else {
        unreachable!()
    };

    let (up, rated, games, wins) = classic(&mut ada, winner).await;
    assert!(up > 1500, "the winner went up: {up}");
    assert_eq!((rated, games, wins), (1, 1, 1));
    let (down, ..) = classic(&mut ada, loser).await;
    assert!(down < 1500, "the loser went down: {down}");

    // The record replays to the same board and result.
    let record = bob.record(1, game).await;
    let mut replayed = Board::new(Variant::Classic);
    for played in &record.moves {
        assert_eq!(replayed.to_move(), played.mark);
        replayed = replayed.play(played.cell).unwrap();
    }
    assert_eq!(replayed.to_compact(), board);
    assert_eq!(record.board, board);
    assert_eq!(record.result, Some(result));
    assert!(record.rated && record.ended_ms.is_some());
    assert_eq!(record.x.player, Some(winner));
    assert_eq!(record.x.rating, Some(1500));
    assert_eq!(
        record.x.rating_change,
        Some(i32::try_from(up).unwrap() - 1500)
    );

    // A casual game and a game against the AI leave ratings alone.
    let (x, o, state) = seek(&mut ada, &mut bob, false).await;
    let casual_winner = x.player;
    x_wins(x, o, state.game).await;
    let ai = ada
        .play_ai(2, Variant::Classic, Level::Easy, SideChoice::X)
        .await;
    ada.request(3, ClientMessage::Resign { game: ai.game })
        .await;
    assert_eq!(classic(&mut ada, winner).await.0, up);
    assert_eq!(classic(&mut ada, loser).await.0, down);
    let me = ada.player;
    let (_, rated, games, _) = classic(&mut ada, me).await;
    assert_eq!((rated, games), (1, 3));

    // The lobby and new snapshots show the new ratings beside the names.
    let (_, _, state) = seek(&mut ada, &mut bob, true).await;
    let shown = |mark: Mark| {
        let seat = if mark == Mark::X { &state.x } else { &state.o };
        (seat.player.unwrap(), seat.rating.unwrap())
    };
    for mark in [Mark::X, Mark::O] {
        let (player, rating) = shown(mark);
        assert_eq!(rating, if player == winner { up } else { down });
    }
    let mut view = ada.follow_lobby(4).await;
    ada.lobby_until(&mut view, |view| view.games.contains_key(&state.game))
        .await;
    let listed = &view.games[&state.game];
    assert!(listed.rated);
    assert_eq!(listed.x.rating, state.x.rating);

    // The leaderboard, best first.
    let reply = bob
        .request(
            5,
            ClientMessage::Leaderboard(Leaderboard {
                variant: Variant::Classic,
                offset: None,
                limit: None,
            }),
        )
        .await;
    let ServerMessage::Leaderboard { players, .. } = reply else {
        panic!("{reply:?}")
    };
    let board: Vec<_> = players
        .iter()
        .map(|p| (p.rank, p.player, p.rating))
        .collect();
    assert_eq!(board, [(1, winner, up), (2, loser, down)]);

    // History, newest first: the AI game, the casual one, the rated one.
    let reply = bob
        .request(
            6,
            ClientMessage::History(History {
                player: Some(ada.player),
                before: None,
                limit: None,
            }),
        )
        .await;
    let ServerMessage::History { games, more, .. } = reply else {
        panic!("{reply:?}")
    };
    assert!(!more);
    assert_eq!(games.len(), 3);
    assert_eq!(games[2].game, game);
    assert_eq!(games[0].result.reason, EndReason::Resign);
    assert!(games[2].rated && !games[1].rated);
    assert_eq!(
        games[1].result.winner,
        Some(if games[1].x.player == Some(casual_winner) {
            Mark::X
        } else {
            Mark::O
        })
    );

    // Unknown players and games.
    bob.expect_error(
        7,
        ClientMessage::Profile {
            player: Some(PlayerId(999)),
            username: None,
        },
        ErrorCode::NoSuchPlayer,
    )
    .await;
    bob.expect_error(
        8,
        ClientMessage::History(History {
            player: Some(PlayerId(999)),
            before: None,
            limit: None,
        }),
        ErrorCode::NoSuchPlayer,
    )
    .await;
    bob.expect_error(
        9,
        ClientMessage::GameRecord { game: GameId(999) },
        ErrorCode::NoSuchGame,
    )
    .await;
}

#[tokio::test]
async fn a_player_comes_back_as_itself_after_its_session_expired() {
    let scratch = Scratch::new("return");
    let server = TestServer::start(noughts_server::Config {
        grace: Duration::from_millis(50),
        ..file_config(scratch.db())
    })
    .await;
    let ada = server.join("ada").await;
    let (player, token) = (ada.player, ada.token.clone());
    drop(ada);
    // Until the session expires, the token resumes it; afterwards it starts a new session for the
    // same player.
    let returned = tokio::time::timeout(noughts_tests::WAIT, async {
        loop {
            let mut socket = noughts_tests::connect(&server.url()).await;
            let hello = ClientMessage::Hello {
                protocol: noughts_protocol::PROTOCOL_VERSION,
                name: "someone else".into(),
                token: Some(token.clone()),
                credentials: None,
            };
            noughts_tests::send_frame(&mut socket, &noughts_protocol::ClientFrame::new(hello))
                .await;
            let frame = noughts_tests::read_frame(&mut socket).await.unwrap();
            match frame.message {
                ServerMessage::Welcome { resumed: false, .. } => return frame.message,
                ServerMessage::Welcome { resumed: true, .. } => {
                    drop(socket);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                other => panic!("{other:?}"),
            }
        }
    })
    .await
    .expect("the session expires");
    let ServerMessage::Welcome {
        player: again,
        name,
        token: traded,
        ..
    } = returned
    else {
        unreachable!()
    };
    assert_eq!((again, name.as_str()), (player, "ada"));
    assert_ne!(
        traded, token,
        "each hello with a token trades it for a new one"
    );
}

#[tokio::test]
async fn a_polite_restart_keeps_live_games_on_a_file() {
    let scratch = Scratch::new("polite");
    let mut server = TestServer::start(file_config(scratch.db())).await;
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    let (x, o, state) = seek(&mut ada, &mut bob, false).await;
    let game = state.game;
    noughts_tests::alternate(x, o, game, &[4, 0]).await;
    server.shut_down().await.unwrap();
    for client in [&mut ada, &mut bob] {
        let last = client
            .until(|m| {
                matches!(
                    m,
                    ServerMessage::Shutdown { .. } | ServerMessage::GameOver { .. }
                )
            })
            .await;
        assert!(
            matches!(last, ServerMessage::Shutdown { .. }),
            "the game is kept, not aborted: {last:?}"
        );
    }

    let server = TestServer::start(file_config(scratch.db())).await;
    let mut back = Client::resume(&server.url(), "ada", &ada.token).await;
    let state = back.game_state().await;
    assert_eq!((state.game, state.board.as_str()), (game, "O...X...."));
    assert!(state.result.is_none());
}

#[tokio::test]
async fn war_games_go_on_after_a_restart() {
    let scratch = Scratch::new("war");
    let config = || noughts_server::Config {
        war_games: true,
        war_variants: vec![Variant::Classic],
        war_move_delay: Duration::from_millis(300),
        war_budget: noughts_engine::Budget::millis(20),
        ..file_config(scratch.db())
    };
    let mut server = TestServer::start(config()).await;
    let mut eve = server.join("eve").await;
    let mut view = eve.follow_lobby(1).await;
    eve.lobby_until(&mut view, |view| {
        view.games.values().any(|game| game.moves >= 2)
    })
    .await;
    let before = view.games.values().next().cloned().expect("the war game");
    server.shut_down().await.unwrap();

    let server = TestServer::start(config()).await;
    let mut eve = server.join("eve").await;
    let mut view = eve.follow_lobby(1).await;
    eve.lobby_until(&mut view, |view| !view.games.is_empty())
        .await;
    let wars: Vec<_> = (view.games.values())
        .filter(|g| g.kind == noughts_protocol::GameKind::War)
        .collect();
    assert_eq!(wars.len(), 1, "the restored war game, and no second one");
    assert_eq!(wars[0].game, before.game);
    assert!(wars[0].moves >= before.moves);
    let reply = eve
        .request(
            2,
            ClientMessage::Watch(Watch {
                game: before.game,
                code: None,
            }),
        )
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(state.game, before.game);
}

/// Plays the first empty cell whenever it is `client`'s turn in `game`, until the game ends.
/// Returns the moves played by both sides, as the updates told them.
async fn play_out(client: &mut Client, state: GameState) -> Vec<usize> {
    let game = state.game;
    let you = state.you.expect("a player");
    let mut moves = Vec::new();
    let mut board = state.board;
    let mut to_move = state.to_move;
    loop {
        if to_move.take() == Some(you) {
            let cell = board.find('.').expect("an empty cell");
            client.send(ClientMessage::Move { game, cell }).await;
        }
        // Whose turn it is changes only with a move; other updates leave it to the next one.
        match client.game_event(game).await {
            ServerMessage::Moved {
                cell,
                board: now,
                to_move: next,
                ..
            } => {
                moves.push(cell);
                board = now;
                to_move = next;
            }
            ServerMessage::GameOver { .. } => return moves,
            _ => {}
        }
    }
}

#[tokio::test]
async fn many_games_at_once_are_all_on_record() {
    let scratch = Scratch::new("many");
    let server = TestServer::start(file_config(scratch.db())).await;
    let url = server.url();
    let players = (0..24).map(|i| {
        let url = url.clone();
        tokio::spawn(async move {
            let mut client = Client::join(&url, &format!("p{i}")).await;
            let variant = [Variant::Classic, Variant::Four][i % 2];
            let reply = client
                .request(
                    1,
                    ClientMessage::PlayAi(PlayAi {
                        variant,
                        level: Level::Medium,
                        side: SideChoice::Random,
                        clock: None,
                    }),
                )
                .await;
            let ServerMessage::GameState(state) = reply else {
                panic!("{reply:?}")
            };
            let game = state.game;
            let moves = play_out(&mut client, *state).await;
            let games = client.history(2).await;
            assert_eq!(games.len(), 1);
            assert_eq!(games[0].game, game);
            let record = client.record(3, game).await;
            let stored: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
            assert_eq!(stored, moves, "every move is on record, in order");
            assert!(record.result.is_some());
        })
    });
    for player in players.collect::<Vec<_>>() {
        player.await.expect("a player's game is on record");
    }
}

#[tokio::test]
async fn a_restored_game_nobody_returns_to_ends_unrated() {
    let scratch = Scratch::new("nobody");
    let config = || noughts_server::Config {
        grace: Duration::from_millis(200),
        ..file_config(scratch.db())
    };
    let mut server = TestServer::start(config()).await;
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    make_account(&mut ada).await;
    make_account(&mut bob).await;
    let (x, o, state) = seek(&mut ada, &mut bob, true).await;
    let game = state.game;
    noughts_tests::alternate(x, o, game, &[4]).await;
    server.shut_down().await.unwrap();

    let server = TestServer::start(config()).await;
    let mut eve = server.join("eve").await;
    let reply = eve
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("{reply:?}")
    };
    // The game may have ended before Eve came to watch; then her snapshot says how.
    let result = match state.result {
        Some(result) => result,
        None => match eve
            .until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await
        {
            ServerMessage::GameOver { result, .. } => result,
            _ => unreachable!(),
        },
    };
    assert_eq!((result.winner, result.reason), (None, EndReason::Aborted));
    for player in [ada.player, bob.player] {
        assert_eq!(classic(&mut eve, player).await.0, 1500, "not rated");
    }
}

#[tokio::test]
async fn a_memory_store_keeps_the_newest_finished_games_and_every_result() {
    let server = TestServer::start(noughts_server::Config {
        memory_finished_games: 2,
        ..noughts_tests::test_config()
    })
    .await;
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    let mut games = Vec::new();
    for _ in 0..3 {
        let (x, o, state) = seek(&mut ada, &mut bob, false).await;
        x_wins(x, o, state.game).await;
        o.until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        games.push(state.game);
    }
    // The two newest keep their records; the oldest has gone from history and records.
    let listed: Vec<GameId> = ada.history(5).await.iter().map(|g| g.game).collect();
    assert_eq!(listed, [games[2], games[1]]);
    ada.expect_error(
        6,
        ClientMessage::GameRecord { game: games[0] },
        ErrorCode::NoSuchGame,
    )
    .await;
    assert_eq!(ada.record(7, games[1]).await.moves.len(), 5);
    // The profile still counts all three.
    for player in [ada.player, bob.player] {
        let (_, _, played, _) = classic(&mut ada, player).await;
        assert_eq!(played, 3);
    }
}
