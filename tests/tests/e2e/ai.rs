//! Playing the AI seat: `perfect` is never beaten; `easy` falls to the opposite-corners trap.

use noughts_engine::{Board, Budget, Level, Mark, Rng, Variant, choose_move};
use noughts_protocol::{ClientMessage, EndReason, GameResult, ServerMessage, SideChoice};
use noughts_tests::{Client, TestServer, test_config};

/// Starts a game against the AI and returns the game id and the human's mark.
async fn start(
    client: &mut Client,
    level: Level,
    side: SideChoice,
) -> (noughts_protocol::GameId, Mark) {
    let state = client.play_ai(1, Variant::Classic, level, side).await;
    assert_eq!(state.kind, noughts_protocol::GameKind::Ai);
    let you = state.you.expect("the human has a seat");
    match side {
        SideChoice::X => assert_eq!(you, Mark::X),
        SideChoice::O => assert_eq!(you, Mark::O),
        SideChoice::Random => {}
    }
    let seat = if you == Mark::X { &state.o } else { &state.x };
    assert_eq!(seat.level, Some(level));
    (state.game, you)
}

/// Plays a game in which the human picks its moves with `pick`; returns the result.
async fn play(
    client: &mut Client,
    level: Level,
    side: SideChoice,
    mut pick: impl FnMut(&Board) -> usize,
) -> (Mark, GameResult) {
    let (game, you) = start(client, level, side).await;
    let mut board = Board::new(Variant::Classic);
    loop {
        if board.to_move() == you && !board.is_over() {
            let cell = pick(&board);
            client.send(ClientMessage::Move { game, cell }).await;
        }
        match client.game_event(game).await {
            ServerMessage::Moved {
                board: text, cell, ..
            } => {
                let next = Board::parse(Variant::Classic, &text).expect("a legal board");
                assert_eq!(next.ply(), board.ply() + 1, "one move at a time");
                assert!(next.get(cell).is_some());
                board = next;
            }
            ServerMessage::GameOver { result, .. } => return (you, result),
            _ => {}
        }
    }
}

#[tokio::test]
async fn perfect_ai_is_never_beaten_from_any_opening() {
    let server = TestServer::start(test_config()).await;
    let mut client = server.join("challenger").await;
    let mut rng = Rng::with_seed(7);
    // As X, open in a corner, on an edge and in the centre, then play perfectly.
    for opening in [0, 1, 4, 8, 5] {
        let mut first = true;
        let (you, result) = play(&mut client, Level::Perfect, SideChoice::X, |board| {
            if std::mem::take(&mut first) {
                return opening;
            }
            choose_move(board, Level::Perfect, &mut rng, Budget::DEFAULT)
                .unwrap()
                .cell
        })
        .await;
        assert_ne!(result.winner, Some(you), "opening {opening}: {result:?}");
    }
    // As O, perfectly, and as either side at random.
    for side in [SideChoice::O, SideChoice::O, SideChoice::Random] {
        let (you, result) = play(&mut client, Level::Perfect, side, |board| {
            choose_move(board, Level::Perfect, &mut rng, Budget::DEFAULT)
                .unwrap()
                .cell
        })
        .await;
        assert_ne!(result.winner, Some(you), "{side:?}: {result:?}");
    }
    // Random play loses or draws too.
    for _ in 0..4 {
        let (you, result) = play(&mut client, Level::Perfect, SideChoice::Random, |board| {
            let moves: Vec<usize> = board.legal_moves().collect();
            moves[rng.usize(..moves.len())]
        })
        .await;
        assert_ne!(result.winner, Some(you), "random play: {result:?}");
    }
}

/// The cell that completes a line for `mark`, if there is one.
fn winning_cell(board: &Board, mark: Mark) -> Option<usize> {
    board
        .legal_moves()
        .find(|&cell| board.play_unchecked(cell).wins_through(mark, cell))
}

#[tokio::test]
async fn easy_ai_falls_to_the_opposite_corners_trap() {
    let server = TestServer::start(test_config()).await;
    let mut client = server.join("alberto").await;
    for _ in 0..5 {
        let mut plan = vec![0usize, 8];
        let (you, result) = play(&mut client, Level::Easy, SideChoice::X, |board| {
            if !plan.is_empty() {
                let cell = plan.remove(0);
                if cell == 8 {
                    assert_eq!(
                        board.get(4),
                        Some(Mark::O),
                        "easy answers a corner in the centre"
                    );
                }
                return cell;
            }
            if let Some(cell) = winning_cell(board, Mark::X) {
                return cell;
            }
            // Third move: easy took a corner; take the last one for a double threat.
            assert!(
                board.get(2) == Some(Mark::O) || board.get(6) == Some(Mark::O),
                "easy answers the opposite corner with a corner: {board}"
            );
            if board.get(2).is_none() { 2 } else { 6 }
        })
        .await;
        assert_eq!(result.winner, Some(you), "the trap wins: {result:?}");
        assert_eq!(result.reason, EndReason::Line);
    }
}
