//! `analyse_game`: the engine's judgement on every move of a finished game (verdict, best move,
//! values before and after), the same verdicts the terminal client's replay shows, kept per game;
//! qubic filled in by pushes until complete; refused for a game still being played and for one the
//! server has not kept.

use noughts_engine::{Board, Budget, Level, Mark as Side, Rng, Variant, analyse, review};
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, Mark, MoveAnalysis, NotJudged, ServerMessage, SideChoice,
    Value, Verdict, Worth,
};
use noughts_tests::{TestServer, alternate, test_config};

/// The answer the server gives on `game`, asked with `id`: verdicts, moves judged in full, and
/// whether it is complete.
async fn analysis(
    client: &mut noughts_tests::Client,
    id: u64,
    game: GameId,
) -> (Vec<Verdict>, Vec<MoveAnalysis>, bool) {
    match client
        .request(id, ClientMessage::AnalyseGame { game })
        .await
    {
        ServerMessage::GameAnalysis {
            game: of,
            verdicts,
            moves,
            complete,
        } if of == game => {
            assert_eq!(verdicts.len(), moves.len());
            for (verdict, judged) in verdicts.iter().zip(&moves) {
                assert_eq!(*verdict, judged.verdict);
                only_proven_best(judged);
            }
            (verdicts, moves, complete)
        }
        other => panic!("expected game_analysis, got {other:?}"),
    }
}

/// The verdicts the server gives on `game`, asked with `id`.
async fn verdicts(client: &mut noughts_tests::Client, id: u64, game: GameId) -> Vec<Verdict> {
    analysis(client, id, game).await.0
}

/// No move is labelled best, nor given a best move, unless proven; a move without a verdict says
/// why, and only such a move does.
fn only_proven_best(judged: &MoveAnalysis) {
    if judged.verdict == Verdict::Best {
        assert_ne!(judged.before.value, Value::Unknown, "{judged:?}");
        assert_eq!(judged.after.value, judged.before.value, "{judged:?}");
    }
    if judged.best.is_some() {
        assert_ne!(judged.before.value, Value::Unknown, "{judged:?}");
    }
    assert_eq!(
        judged.not_judged.is_some(),
        judged.verdict == Verdict::Unknown,
        "{judged:?}"
    );
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
    // The blunder says what the best move was and what it cost: a draw before, a loss after.
    let (_, moves, complete) = analysis(&mut o, 6, game).await;
    assert!(complete, "classic is answered complete");
    let blunder = moves[1];
    assert_eq!(blunder.cell, 1);
    assert!(
        blunder
            .best
            .is_some_and(|best| [0, 2, 6, 8].contains(&best))
    );
    assert_eq!(blunder.before.value, Value::Draw);
    assert_eq!(blunder.after.value, Value::Loss);
    assert!(blunder.after.plies.is_some());
    assert_eq!(
        moves[0].before,
        Worth {
            value: Value::Draw,
            plies: Some(9)
        }
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

/// The empty cell that completes a line of `mark`'s three, if any.
fn threat(board: &Board, mark: Side) -> Option<usize> {
    let (own, other) = (board.mask(mark), board.mask(mark.opponent()));
    board.variant().lines().iter().find_map(|&line| {
        let open = line & !own;
        (line & other == 0 && open.count_ones() == 1).then(|| open.trailing_zeros() as usize)
    })
}

/// A qubic game where X follows the engine's book (a proven win) until O threatens a line, then
/// plays elsewhere, and O completes its line: the moves, and the index of X's blunder.
fn thrown_qubic_win() -> (Vec<usize>, usize) {
    let budget = Budget::millis(150);
    for seed in 0..64 {
        let mut rng = Rng::with_seed(seed);
        let mut board = Board::new(Variant::Qubic);
        let mut cells = Vec::new();
        while !board.is_over() {
            let cell = if board.to_move() == Side::X {
                if threat(&board, Side::X).is_none()
                    && let Some(block) = threat(&board, Side::O)
                {
                    let away = board.legal_moves().find(|&c| c != block).unwrap();
                    let blunder = cells.len();
                    cells.extend([away, block]);
                    return (cells, blunder);
                }
                analyse(&board, budget).moves[0].cell
            } else {
                let moves: Vec<usize> = board.legal_moves().collect();
                let three = moves.iter().copied().find(|&cell| {
                    let next = board.play(cell).unwrap();
                    !next.is_over() && threat(&next, Side::O).is_some()
                });
                threat(&board, Side::X)
                    .or(three)
                    .unwrap_or_else(|| moves[rng.usize(..moves.len())])
            };
            cells.push(cell);
            board = board.play(cell).unwrap();
        }
    }
    panic!("no O threat reached");
}

#[tokio::test]
async fn giving_away_a_proven_qubic_win_is_a_blunder_filled_in_by_pushes() {
    let (cells, blunder) = thrown_qubic_win();
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = server.quick_match(Variant::Qubic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &cells).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    // The first answer comes at once, with moves still pending.
    let (_, first, complete) = analysis(&mut x, 1, game).await;
    assert!(!complete);
    assert_eq!(first.len(), cells.len());
    assert!(
        first
            .iter()
            .any(|m| m.not_judged == Some(NotJudged::Pending)),
        "{first:?}"
    );
    // Then pushes, each no less settled than the last, until one is complete.
    let mut last = first;
    let mut pushes = 0;
    let done = loop {
        let ServerMessage::GameAnalysis {
            moves, complete, ..
        } = x
            .until(|m| matches!(m, ServerMessage::GameAnalysis { game: g, .. } if *g == game))
            .await
        else {
            unreachable!()
        };
        pushes += 1;
        for (before, now) in last.iter().zip(&moves) {
            only_proven_best(now);
            assert!(
                now.is_settled() || !before.is_settled(),
                "{before:?} {now:?}"
            );
        }
        last = moves;
        if complete {
            break last;
        }
    };
    assert!(pushes >= 2, "{pushes} pushes");
    assert!(done.iter().all(MoveAnalysis::is_settled));
    // X's opening moves follow the book: proven, and best.
    assert_eq!(done[0].verdict, Verdict::Best, "{:?}", done[0]);
    assert_eq!(done[0].before.value, Value::Win);
    // The book proves the win but not its length: no plies rather than a bound.
    assert_eq!(done[0].before.plies, None);
    // The move that let O's line through: a blunder, with the block as the best move.
    let thrown = done[blunder];
    assert_eq!(thrown.verdict, Verdict::Blunder, "{thrown:?}");
    assert_eq!(thrown.best, Some(cells[blunder + 1]));
    assert_eq!(thrown.before.value, Value::Win);
    assert_eq!(
        thrown.after,
        Worth {
            value: Value::Loss,
            plies: Some(1)
        }
    );
    // Asked again: complete at once, and the same.
    let (_, again, complete) = analysis(&mut o, 2, game).await;
    assert!(complete);
    assert_eq!(again, done);
}
