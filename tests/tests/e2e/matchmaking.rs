//! Quick match: two seekers are paired and play a game to a win; rooms and rematches.

use noughts_engine::{Board, Mark, Variant};
use noughts_protocol::{ClientMessage, EndReason, Seek, ServerMessage};
use noughts_tests::{TestServer, follow_to_end, moves_of, quick_match, test_config};

/// X takes `x_cells` in turn while O answers with `o_cells`; X completes a line.
async fn play_to_win(variant: Variant, x_cells: &[usize], o_cells: &[usize]) {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), variant).await;
    let game = state.game;
    let mut order = Vec::new();
    for (i, &cell) in x_cells.iter().enumerate() {
        x.send(ClientMessage::Move { game, cell }).await;
        order.push(cell);
        if let Some(&reply) = o_cells.get(i)
            && i + 1 < x_cells.len()
        {
            // Each side waits to see the other's move before answering, as a person would.
            o.saw(|m| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == cell))
                .await;
            o.send(ClientMessage::Move { game, cell: reply }).await;
            order.push(reply);
            x.saw(|m| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == reply))
                .await;
        }
    }
    let mut board = Board::new(variant);
    for &cell in &order {
        board = board.play(cell).unwrap();
    }
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        assert_eq!(
            moves_of(&events),
            order,
            "{} saw every move in order",
            client.name
        );
        let Some(ServerMessage::GameOver {
            board: text,
            result,
            ..
        }) = events.last()
        else {
            panic!("ends with game_over");
        };
        assert_eq!(text, &board.to_compact());
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(result.reason, EndReason::Line);
        let mut line = x_cells.to_vec();
        line.sort_unstable();
        assert_eq!(result.cells, line, "the winning line");
    }
}

#[tokio::test]
async fn two_players_quick_match_on_classic_and_play_to_a_win() {
    play_to_win(Variant::Classic, &[0, 1, 2], &[3, 4]).await;
}

#[tokio::test]
async fn two_players_quick_match_on_cube_and_play_to_a_win() {
    play_to_win(Variant::Cube, &[0, 1, 2], &[13, 14]).await;
}

#[tokio::test]
async fn a_seek_can_be_cancelled_and_only_one_is_allowed() {
    let server = TestServer::start(test_config()).await;
    let mut a = server.join("ada").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Four,
        clock: None,
        rated: false,
        bots: false,
    });
    assert!(matches!(
        a.request(1, seek.clone()).await,
        ServerMessage::Seeking { .. }
    ));
    a.expect_error(2, seek, noughts_protocol::ErrorCode::AlreadySeeking)
        .await;
    assert_eq!(
        a.request(3, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );
    a.expect_error(
        4,
        ClientMessage::CancelSeek,
        noughts_protocol::ErrorCode::NotSeeking,
    )
    .await;
    // A cancelled seek pairs with nobody: the next two seekers meet each other.
    let mut b = server.join("bob").await;
    let mut c = server.join("cyd").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Four,
        clock: None,
        rated: false,
        bots: false,
    });
    b.send(seek.clone()).await;
    c.send(seek).await;
    let (sb, sc) = (b.game_state().await, c.game_state().await);
    assert_eq!(sb.game, sc.game);
    let names = [sb.x.name.as_str(), sb.o.name.as_str()];
    assert!(names.contains(&"bob") && names.contains(&"cyd"));
}

#[tokio::test]
async fn resign_then_rematch_with_sides_swapped() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    o.saw(|m| matches!(m, ServerMessage::Moved { .. })).await;
    // A rematch before the end is refused.
    o.expect_error(
        1,
        ClientMessage::Rematch { game },
        noughts_protocol::ErrorCode::GameNotOver,
    )
    .await;
    x.send(ClientMessage::Resign { game }).await;
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
            panic!("game over");
        };
        assert_eq!(result.winner, Some(Mark::O));
        assert_eq!(result.reason, EndReason::Resign);
    }
    x.send(ClientMessage::Rematch { game }).await;
    match o
        .until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await
    {
        ServerMessage::RematchOffered { by, .. } => assert_eq!(by, Mark::X),
        _ => unreachable!(),
    }
    o.send(ClientMessage::Rematch { game }).await;
    let (new_x, new_o) = (x.game_state().await, o.game_state().await);
    assert_eq!(new_x.game, new_o.game);
    assert_ne!(new_x.game, game);
    assert_eq!(new_x.rematch_of, Some(game));
    // Sides swapped: the old X is now O.
    assert_eq!(new_x.you, Some(Mark::O));
    assert_eq!(new_o.you, Some(Mark::X));
    assert_eq!(new_x.x.name, o.name);
    assert_eq!(new_x.o.name, x.name);
}
