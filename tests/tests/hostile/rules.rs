//! The game's rules under attack: moves out of turn, off the board, in other people's games and
//! by watchers; the limits per player on games, seeks and rooms; requests before hello.

use noughts_engine::{Level, Mark, Variant};
use noughts_protocol::{
    ClientFrame, ClientMessage, ClockSpec, CreateRoom, ErrorCode, GameId, PlayAi, RequestId, Seek,
    ServerMessage, SideChoice, Watch,
};
use noughts_tests::{TestServer, connect, read_frame, send_frame};

use crate::support::*;

/// Moves out of turn, off every board, in someone else's game, on a taken cell, by watchers; and
/// one AI game too many.
#[tokio::test]
async fn moves_that_break_the_rules_are_refused() {
    let mut beside = Beside::start().await;
    // X to move, as the checks below expect.
    beside.reference.advance().await;
    moves(&beside.server, &mut beside.reference).await;
    beside.finish().await;
}

/// One seek at a time, three rooms at most and never one's own, nothing but hello before hello.
#[tokio::test]
async fn seeks_rooms_and_requests_before_hello_are_limited() {
    let beside = Beside::start().await;
    limits(&beside.server, beside.reference.game).await;
    beside.finish().await;
}

async fn moves(server: &TestServer, reference: &mut Reference) {
    let game = reference.game;
    // X to move.
    reference
        .o
        .expect_error(
            10,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::NotYourTurn,
        )
        .await;
    for (id, cell) in [(11, 9), (12, 4), (13, 0), (14, usize::MAX)] {
        reference
            .x
            .expect_error(
                id,
                ClientMessage::Move { game, cell },
                ErrorCode::IllegalMove,
            )
            .await;
    }
    let watcher = &mut reference.watcher;
    watcher
        .expect_error(
            10,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::NotAPlayer,
        )
        .await;
    watcher
        .expect_error(11, ClientMessage::Resign { game }, ErrorCode::NotAPlayer)
        .await;
    watcher
        .expect_error(12, ClientMessage::Rematch { game }, ErrorCode::NotAPlayer)
        .await;
    reference
        .x
        .expect_error(15, ClientMessage::Rematch { game }, ErrorCode::GameNotOver)
        .await;

    // Cells off every board, in games against the AI where it is always the player's move.
    let mut solo = server.join("solo").await;
    let mut id = 100;
    let mut ai_games = Vec::new();
    for variant in [
        Variant::Four,
        Variant::Cube,
        Variant::Qubic,
        Variant::Classic,
        Variant::Classic,
    ] {
        id += 1;
        let play = ClientMessage::PlayAi(PlayAi {
            variant,
            level: Level::Easy,
            side: SideChoice::X,
            clock: None,
        });
        let ServerMessage::GameState(state) = solo.request(id, play).await else {
            panic!("an AI game")
        };
        for cell in [variant.cells(), variant.cells() + 1, usize::MAX] {
            id += 1;
            solo.expect_error(
                id,
                ClientMessage::Move {
                    game: state.game,
                    cell,
                },
                ErrorCode::IllegalMove,
            )
            .await;
        }
        ai_games.push(state.game);
    }
    // A sixth game is one too many.
    solo.expect_error(
        200,
        ClientMessage::PlayAi(PlayAi {
            variant: Variant::Classic,
            level: Level::Easy,
            side: SideChoice::X,
            clock: None,
        }),
        ErrorCode::LimitReached,
    )
    .await;
    // Someone else's game, both ways.
    reference
        .x
        .expect_error(
            16,
            ClientMessage::Move {
                game: ai_games[0],
                cell: 0,
            },
            ErrorCode::NotAPlayer,
        )
        .await;
    solo.expect_error(
        201,
        ClientMessage::Move { game, cell: 3 },
        ErrorCode::NotAPlayer,
    )
    .await;
    // A taken cell, once the AI has answered.
    let four = ai_games[0];
    solo.send(ClientMessage::Move {
        game: four,
        cell: 0,
    })
    .await;
    solo.saw(|m| matches!(m, ServerMessage::Moved { game: g, mark: Mark::O, .. } if *g == four))
        .await;
    solo.expect_error(
        202,
        ClientMessage::Move {
            game: four,
            cell: 0,
        },
        ErrorCode::IllegalMove,
    )
    .await;
    for (i, &g) in ai_games.iter().enumerate() {
        assert!(matches!(
            solo.request(210 + i as u64, ClientMessage::Resign { game: g })
                .await,
            ServerMessage::GameOver { .. }
        ));
    }
}

async fn limits(server: &TestServer, game: GameId) {
    // One seek at a time (on a clock nobody else uses, so nobody is matched).
    let mut solo = server.join("roomy").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Qubic,
        clock: Some(ClockSpec {
            initial_ms: 4321,
            increment_ms: 7,
        }),
        rated: false,
        bots: false,
    });
    assert!(matches!(
        solo.request(220, seek.clone()).await,
        ServerMessage::Seeking { .. }
    ));
    solo.expect_error(221, seek, ErrorCode::AlreadySeeking)
        .await;
    assert_eq!(
        solo.request(222, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );
    solo.expect_error(223, ClientMessage::CancelSeek, ErrorCode::NotSeeking)
        .await;

    // Three rooms at most, and never one's own.
    let mut codes = Vec::new();
    for i in 0..3 {
        let create = ClientMessage::CreateRoom(CreateRoom {
            variant: Variant::Classic,
            clock: None,
            private: true,
            rated: false,
        });
        let ServerMessage::RoomCreated { code, .. } = solo.request(230 + i, create).await else {
            panic!("a room")
        };
        codes.push(code);
    }
    solo.expect_error(
        233,
        ClientMessage::CreateRoom(CreateRoom {
            variant: Variant::Classic,
            clock: None,
            private: false,
            rated: false,
        }),
        ErrorCode::LimitReached,
    )
    .await;
    solo.expect_error(
        234,
        ClientMessage::JoinRoom {
            code: codes[0].clone(),
        },
        ErrorCode::OwnRoom,
    )
    .await;
    for (i, code) in codes.into_iter().enumerate() {
        assert_eq!(
            solo.request(240 + i as u64, ClientMessage::CloseRoom { code })
                .await,
            ServerMessage::Ok
        );
    }
    // Before hello, nothing but hello (yet bad JSON is still called bad JSON).
    let mut early = connect(&server.url()).await;
    for (id, message) in [
        (1, ClientMessage::Ping),
        (2, ClientMessage::Move { game, cell: 3 }),
        (3, ClientMessage::Watch(Watch { game, code: None })),
        (4, ClientMessage::SubscribeLobby),
    ] {
        send_frame(
            &mut early,
            &ClientFrame {
                id: Some(RequestId::Number(id)),
                message,
            },
        )
        .await;
        let frame = read_frame(&mut early).await.expect("a reply");
        assert_eq!(frame.id, Some(RequestId::Number(id)));
        assert!(
            matches!(
                frame.message,
                ServerMessage::Error {
                    code: ErrorCode::HelloFirst,
                    ..
                }
            ),
            "{frame:?}"
        );
    }
}
