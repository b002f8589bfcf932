//! `analyse_game`: the engine's verdict on every move of a finished game, the same verdicts the
//! terminal client's replay shows, kept per game; refused for a game still being played and for
//! one the server has not kept.

use noughts_engine::{Budget, Level, Variant, review};
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, Mark, ServerMessage, SideChoice, Verdict,
};
use noughts_tests::{TestServer, alternate, test_config};

/// The verdicts the server gives on `game`, asked with `id`.
async fn verdicts(client: &mut noughts_tests::Client, id: u64, game: GameId) -> Vec<Verdict> {
    match client
        .request(id, ClientMessage::AnalyseGame { game })
        .await
    {
        ServerMessage::GameAnalysis { game: of, verdicts } if of == game => verdicts,
        other => panic!("expected game_analysis, got {other:?}"),
    }
}

#[tokio::test]
async fn a_finished_game_gets_a_verdict_on_every_move() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = server.quick_match(Variant::Classic).await;
    let game = state.game;
    // X centre, O on an edge (a blunder: X now wins by force), and X goes on to win.
    let cells = [4, 1, 0, 8, 6, 2, 3];
    // While the game is on, no verdicts.
    alternate(&mut x, &mut o, game, &cells[..2]).await;
    o.expect_error(
        1,
        ClientMessage::AnalyseGame { game },
        ErrorCode::GameNotOver,
    )
    .await;
    alternate(&mut x, &mut o, game, &cells[2..]).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let got = verdicts(&mut o, 2, game).await;
    let engine: Vec<Verdict> = review(Variant::Classic, &cells, Budget::DEFAULT)
        .into_iter()
        .map(Verdict::from)
        .collect();
    assert_eq!(got, engine, "the terminal client's verdicts");
    assert_eq!(got.len(), cells.len());
    assert_eq!(got[0], Verdict::Best);
    assert_eq!(got[1], Verdict::Blunder);
    assert!(
        !got.contains(&Verdict::Unknown),
        "classic is judged exactly"
    );
    // Asked again (kept), and by someone who did not play it: the same answer.
    assert_eq!(verdicts(&mut x, 3, game).await, got);
    let mut eve = server.join("eve").await;
    assert_eq!(verdicts(&mut eve, 4, game).await, got);
    eve.expect_error(
        5,
        ClientMessage::AnalyseGame {
            game: GameId(999_999),
        },
        ErrorCode::NoSuchGame,
    )
    .await;
}

#[tokio::test]
async fn a_qubic_game_is_judged_within_a_budget() {
    let server = TestServer::start(test_config()).await;
    let mut ada = server.join("ada").await;
    let state = ada
        .play_ai(1, Variant::Qubic, Level::Easy, SideChoice::X)
        .await;
    let game = state.game;
    // A few moves each, then X gives up: every move gets a verdict, known or not.
    let mut board = state.board;
    for _ in 0..3 {
        let cell = board.find('.').expect("an empty cell");
        ada.send(ClientMessage::Move { game, cell }).await;
        let answer = ada
            .until(|m| matches!(m, ServerMessage::Moved { mark: Mark::O, .. }))
            .await;
        let ServerMessage::Moved { board: now, .. } = answer else {
            unreachable!()
        };
        board = now;
    }
    ada.request(2, ClientMessage::Resign { game }).await;
    let record = ada.record(3, game).await;
    assert!(record.result.is_some());
    let got = verdicts(&mut ada, 4, game).await;
    assert_eq!(got.len(), record.moves.len());
}
