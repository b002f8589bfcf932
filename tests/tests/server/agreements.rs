//! What players agree on, as on lichess: a draw offered and accepted or declined, a takeback in an
//! unrated game, an abort before both sides have moved; and each player's rating change shown when
//! a rated game ends.

use noughts_protocol::{
    ClientMessage, ClockSpec, EndReason, ErrorCode, Level, Mark, OfferKind, Seek, ServerMessage,
    SideChoice, Variant,
};

use noughts_tests::accounts::make_account;
use noughts_tests::{Client, TestServer, alternate, pair, quick_match, test_config};

fn offered(message: &ServerMessage) -> Option<(Mark, OfferKind)> {
    match message {
        ServerMessage::Offered { by, offer, .. } => Some((*by, *offer)),
        _ => None,
    }
}

#[tokio::test]
async fn a_draw_is_offered_declined_offered_again_and_agreed() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    let reply = x.request(10, ClientMessage::OfferDraw { game }).await;
    assert_eq!(offered(&reply), Some((Mark::X, OfferKind::Draw)));
    x.expect_error(
        11,
        ClientMessage::OfferDraw { game },
        ErrorCode::AlreadyOffered,
    )
    .await;
    let seen = o.until(|m| offered(m).is_some()).await;
    assert_eq!(offered(&seen), Some((Mark::X, OfferKind::Draw)));
    x.expect_error(12, ClientMessage::Decline { game }, ErrorCode::NoOffer)
        .await;
    let declined = o.request(13, ClientMessage::Decline { game }).await;
    assert!(
        matches!(
            declined,
            ServerMessage::Declined {
                by: Mark::X,
                offer: OfferKind::Draw,
                ..
            }
        ),
        "{declined:?}"
    );
    x.until(|m| matches!(m, ServerMessage::Declined { .. }))
        .await;
    // A move lets an offer lapse: O's offer, then X moves, and X's own offer stands alone.
    o.request(14, ClientMessage::OfferDraw { game }).await;
    x.until(|m| offered(m).is_some()).await;
    alternate(&mut x, &mut o, game, &[8]).await;
    x.request(15, ClientMessage::OfferDraw { game }).await;
    let over = o.request(16, ClientMessage::OfferDraw { game }).await;
    let ServerMessage::GameOver { result, .. } = over else {
        panic!("accepting ends the game: {over:?}")
    };
    assert_eq!((result.winner, result.reason), (None, EndReason::Agreement));
    let record = x.record(17, game).await;
    assert_eq!(record.result.map(|r| r.reason), Some(EndReason::Agreement));
    // On a finished game, `game_over` comes before every other refusal: no `no_offer` for a
    // decline with nothing offered, no `too_late` for an abort after both sides have moved.
    for (id, request) in [
        (18, ClientMessage::Decline { game }),
        (19, ClientMessage::Abort { game }),
        (20, ClientMessage::OfferDraw { game }),
        (21, ClientMessage::Takeback { game }),
    ] {
        x.expect_error(id, request, ErrorCode::GameOver).await;
    }
}

#[tokio::test]
async fn an_abort_is_allowed_until_both_sides_have_moved() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4]).await;
    let over = o.request(5, ClientMessage::Abort { game }).await;
    let ServerMessage::GameOver {
        result, ratings, ..
    } = over
    else {
        panic!("{over:?}")
    };
    assert_eq!(
        (result.winner, result.reason, ratings),
        (None, EndReason::Aborted, None)
    );
    let (mut x, mut o, state) = pair(x, o, Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    x.expect_error(6, ClientMessage::Abort { game }, ErrorCode::TooLate)
        .await;
}

#[tokio::test]
async fn a_takeback_by_agreement_in_an_unrated_game_and_never_in_a_rated_one() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    o.expect_error(5, ClientMessage::Takeback { game }, ErrorCode::NoTakeback)
        .await;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    // X asks with the move to X: X's move and O's reply come off.
    x.request(6, ClientMessage::Takeback { game }).await;
    o.until(|m| offered(m) == Some((Mark::X, OfferKind::Takeback)))
        .await;
    let back = o.request(7, ClientMessage::Takeback { game }).await;
    let ServerMessage::TakenBack {
        moves,
        to_move,
        board,
        ..
    } = back
    else {
        panic!("{back:?}")
    };
    assert_eq!(
        (moves.as_slice(), to_move, board.as_str()),
        (&[][..], Mark::X, ".........")
    );
    x.until(|m| matches!(m, ServerMessage::TakenBack { .. }))
        .await;
    // Play goes on from there, and the record has the moves as they stand.
    alternate(&mut x, &mut o, game, &[0, 3, 1, 4, 2]).await;
    let record = x.record(8, game).await;
    let cells: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
    assert_eq!(cells, [0, 3, 1, 4, 2]);
    // A rated game allows none.
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: true,
        bots: false,
    });
    let mut ada = Client::join(&url, "ada").await;
    let mut bob = Client::join(&url, "bob").await;
    make_account(&mut ada).await;
    make_account(&mut bob).await;
    ada.request(9, seek.clone()).await;
    bob.send(seek).await;
    let state = ada.game_state().await;
    bob.game_state().await;
    let (mut rx, mut ro) = if state.you == Some(Mark::X) {
        (ada, bob)
    } else {
        (bob, ada)
    };
    alternate(&mut rx, &mut ro, state.game, &[4]).await;
    rx.expect_error(
        10,
        ClientMessage::Takeback { game: state.game },
        ErrorCode::NoTakeback,
    )
    .await;
    // A rated game's end shows both players' new ratings and the change.
    alternate(&mut ro, &mut rx, state.game, &[0, 2, 1, 6]).await;
    let over = ro
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let ServerMessage::GameOver {
        ratings: Some(ratings),
        ..
    } = over
    else {
        panic!("a rated game's end carries the ratings: {over:?}")
    };
    assert!(ratings.x.change > 0 && ratings.o.change < 0, "{ratings:?}");
    assert_eq!(
        i64::from(ratings.x.rating),
        1500 + i64::from(ratings.x.change)
    );
}

#[tokio::test]
async fn the_ai_grants_a_takeback_at_once_and_plays_on_rather_than_draw() {
    let server = TestServer::start(test_config()).await;
    let mut ada = Client::join(&server.url(), "ada").await;
    let state = ada
        .play_ai(1, Variant::Classic, Level::Perfect, SideChoice::X)
        .await;
    let game = state.game;
    ada.send(ClientMessage::Move { game, cell: 4 }).await;
    ada.until(|m| matches!(m, ServerMessage::Moved { mark: Mark::O, .. }))
        .await;
    ada.request(2, ClientMessage::Takeback { game }).await;
    let back = ada
        .until(|m| matches!(m, ServerMessage::TakenBack { .. }))
        .await;
    let ServerMessage::TakenBack { moves, to_move, .. } = back else {
        unreachable!()
    };
    assert_eq!((moves.len(), to_move), (0, Mark::X));
    // No draw before both sides have moved; after, the AI's answer follows the `offered` reply.
    ada.expect_error(3, ClientMessage::OfferDraw { game }, ErrorCode::TooEarly)
        .await;
    ada.send(ClientMessage::Move { game, cell: 4 }).await;
    let ServerMessage::Moved { cell: answered, .. } = ada
        .until(|m| matches!(m, ServerMessage::Moved { mark: Mark::O, .. }))
        .await
    else {
        unreachable!()
    };
    let reply = ada.request(4, ClientMessage::OfferDraw { game }).await;
    assert_eq!(offered(&reply), Some((Mark::X, OfferKind::Draw)));
    let declined = ada
        .until(|m| {
            matches!(
                m,
                ServerMessage::Declined { .. } | ServerMessage::Moved { .. }
            )
        })
        .await;
    assert!(matches!(
        declined,
        ServerMessage::Declined {
            by: Mark::X,
            offer: OfferKind::Draw,
            ..
        }
    ));
    // The game goes on: a move is answered.
    let cell = [0, 2, 6, 8]
        .into_iter()
        .find(|&c| c != answered)
        .unwrap_or(1);
    ada.send(ClientMessage::Move { game, cell }).await;
    ada.until(|m| matches!(m, ServerMessage::Moved { mark: Mark::O, .. }))
        .await;
    // Against an AI, a rematch is accepted at once: its reply is the new game's snapshot.
    let over = ada.request(5, ClientMessage::Resign { game }).await;
    assert!(matches!(over, ServerMessage::GameOver { .. }), "{over:?}");
    let reply = ada.request(6, ClientMessage::Rematch { game }).await;
    let ServerMessage::GameState(rematch) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(
        (rematch.rematch_of, rematch.you),
        (Some(game), Some(Mark::O))
    );
}

#[tokio::test]
async fn a_timed_takeback_keeps_the_increment_the_move_taken_back_earned() {
    let server = TestServer::start(test_config()).await;
    let clock = ClockSpec {
        initial_ms: 60_000,
        increment_ms: 30_000,
    };
    let mut ada = server.join("ada").await;
    let mut bob = server.join("bob").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: Some(clock),
        rated: false,
        bots: false,
    });
    ada.request(1, seek.clone()).await;
    bob.send(seek).await;
    let state = ada.game_state().await;
    bob.game_state().await;
    let (mut x, mut o) = if state.you == Some(Mark::X) {
        (ada, bob)
    } else {
        (bob, ada)
    };
    let game = state.game;
    // X's second move is its first timed one: it earns the increment.
    alternate(&mut x, &mut o, game, &[4, 0, 8]).await;
    x.request(2, ClientMessage::Takeback { game }).await;
    o.until(|m| offered(m) == Some((Mark::X, OfferKind::Takeback)))
        .await;
    let back = o.request(3, ClientMessage::Takeback { game }).await;
    let ServerMessage::TakenBack {
        moves,
        clocks: Some(clocks),
        ..
    } = back
    else {
        panic!("{back:?}")
    };
    assert_eq!(moves, [4, 0]);
    assert!(clocks.x_ms > 60_000, "the increment is kept: {clocks:?}");
    assert_eq!(clocks.running, Some(Mark::X));
}

#[tokio::test]
async fn an_aborted_game_is_in_history_but_not_among_the_profile_s_games() {
    let server = TestServer::start(test_config()).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let over = x.request(1, ClientMessage::Abort { game }).await;
    assert!(matches!(over, ServerMessage::GameOver { .. }), "{over:?}");
    o.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let history = x.history(2).await;
    assert_eq!(history.len(), 1);
    assert_eq!(
        (history[0].game, history[0].result.reason),
        (game, EndReason::Aborted)
    );
    let reply = x
        .request(
            3,
            ClientMessage::Profile {
                player: None,
                username: None,
            },
        )
        .await;
    let ServerMessage::Profile(profile) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(profile.variants[0].games, 0, "{profile:?}");
}
