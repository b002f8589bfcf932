//! The opponent leaving, and offers taken back or turned down: a player left alone may claim the
//! win or a draw once the opponent has been away long enough (never before, never as a watcher,
//! never against an AI); draw offers, takeback requests and rematch offers can be withdrawn by
//! whoever made them, and a rematch offer declined.

use std::time::Duration;

use noughts_protocol::{
    ClaimOutcome, ClientMessage, EndReason, ErrorCode, GameId, Level, Mark, OfferKind,
    PendingOffer, ServerMessage, SideChoice, Variant, Watch,
};

use noughts_tests::{Client, TestServer, alternate, quick_match, test_config};

/// A server whose players may be claimed against after one second away, with a grace long
/// enough that it never runs out during a test.
async fn server() -> TestServer {
    TestServer::start(noughts_server::Config {
        grace: Duration::from_secs(30),
        claim_after: Duration::from_secs(1),
        ..test_config()
    })
    .await
}

fn claim(game: GameId, outcome: ClaimOutcome) -> ClientMessage {
    ClientMessage::Claim { game, outcome }
}

/// The snapshot `client` gets when it asks for the game again.
async fn snapshot(client: &mut Client, id: u64, game: GameId) -> noughts_protocol::GameState {
    let reply = client
        .request(id, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("{reply:?}")
    };
    *state
}

#[tokio::test]
async fn the_player_left_behind_claims_the_win_once_the_opponent_has_been_away_long_enough() {
    let server = server().await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    let mut eve = Client::join(&url, "eve").await;
    eve.request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    // Nobody has left yet.
    x.expect_error(2, claim(game, ClaimOutcome::Win), ErrorCode::NotAway)
        .await;
    drop(o);
    let left = x
        .until(|m| {
            matches!(
                m,
                ServerMessage::Presence {
                    connected: false,
                    ..
                }
            )
        })
        .await;
    let ServerMessage::Presence {
        mark: Mark::O,
        grace_ms: Some(grace_ms),
        claim_ms: Some(claim_ms),
        ..
    } = left
    else {
        panic!("{left:?}")
    };
    assert_eq!((grace_ms, claim_ms), (30_000, 1_000));
    // Too early, then a watcher's claim (refused as not a player, before anything else).
    x.expect_error(3, claim(game, ClaimOutcome::Win), ErrorCode::TooEarly)
        .await;
    eve.expect_error(2, claim(game, ClaimOutcome::Win), ErrorCode::NotAPlayer)
        .await;
    // A snapshot says who is away and how long is left, for a client's countdown.
    let away = snapshot(&mut x, 4, game).await.away;
    assert_eq!(away.len(), 1, "{away:?}");
    assert_eq!(away[0].mark, Mark::O);
    assert!(
        away[0].claim_ms <= 1_000 && away[0].grace_ms > 28_000,
        "{away:?}"
    );
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let over = x.request(5, claim(game, ClaimOutcome::Win)).await;
    let ServerMessage::GameOver { result, .. } = over else {
        panic!("{over:?}")
    };
    assert_eq!(
        (result.winner, result.reason),
        (Some(Mark::X), EndReason::Abandon)
    );
    let seen = eve
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    assert!(
        matches!(&seen, ServerMessage::GameOver { result, .. } if result.winner == Some(Mark::X)),
        "{seen:?}"
    );
    x.expect_error(6, claim(game, ClaimOutcome::Draw), ErrorCode::GameOver)
        .await;
    let record = x.record(7, game).await;
    assert_eq!(
        record.result.map(|r| (r.winner, r.reason)),
        Some((Some(Mark::X), EndReason::Abandon))
    );
}

#[tokio::test]
async fn a_draw_is_claimed_after_a_return_cancels_the_first_absence_and_never_against_the_ai() {
    let server = server().await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    // X leaves long enough to be claimed against, but comes back first: no claim.
    let (name, token) = (x.name.clone(), x.token.clone());
    drop(x);
    o.until(|m| {
        matches!(
            m,
            ServerMessage::Presence {
                connected: false,
                ..
            }
        )
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let mut x = Client::resume(&url, &name, &token).await;
    o.until(|m| {
        matches!(
            m,
            ServerMessage::Presence {
                connected: true,
                ..
            }
        )
    })
    .await;
    o.expect_error(1, claim(game, ClaimOutcome::Draw), ErrorCode::NotAway)
        .await;
    // A new absence starts the count again.
    x.until(|m| matches!(m, ServerMessage::GameState(_))).await;
    drop(x);
    o.until(|m| {
        matches!(
            m,
            ServerMessage::Presence {
                connected: false,
                ..
            }
        )
    })
    .await;
    o.expect_error(2, claim(game, ClaimOutcome::Draw), ErrorCode::TooEarly)
        .await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let over = o.request(3, claim(game, ClaimOutcome::Draw)).await;
    let ServerMessage::GameOver { result, .. } = over else {
        panic!("{over:?}")
    };
    assert_eq!((result.winner, result.reason), (None, EndReason::Abandon));
    // An AI seat never leaves.
    let state = o
        .play_ai(4, Variant::Classic, Level::Easy, SideChoice::X)
        .await;
    o.expect_error(5, claim(state.game, ClaimOutcome::Win), ErrorCode::NotAway)
        .await;
    // A claim with an outcome that is neither `win` nor `draw` is a bad request.
    o.send_text(&format!(
        r#"{{"type":"claim","id":6,"game":{},"outcome":"loss"}}"#,
        state.game
    ))
    .await;
    let refused = o.until(|m| matches!(m, ServerMessage::Error { .. })).await;
    assert!(
        matches!(
            refused,
            ServerMessage::Error {
                code: ErrorCode::BadRequest,
                ..
            }
        ),
        "{refused:?}"
    );
}

fn withdrawn(message: &ServerMessage) -> Option<(Mark, OfferKind)> {
    match message {
        ServerMessage::Withdrawn { by, offer, .. } => Some((*by, *offer)),
        _ => None,
    }
}

#[tokio::test]
async fn offers_are_withdrawn_by_whoever_made_them_and_a_rematch_offer_is_declined() {
    let server = server().await;
    let url = server.url();
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    x.expect_error(1, ClientMessage::CancelOffer { game }, ErrorCode::NoOffer)
        .await;
    // A draw offer, withdrawn: both hear of it; only its maker may withdraw it.
    x.request(2, ClientMessage::OfferDraw { game }).await;
    o.until(|m| matches!(m, ServerMessage::Offered { .. }))
        .await;
    let pending = snapshot(&mut o, 3, game).await.offer;
    assert_eq!(
        pending,
        Some(PendingOffer {
            by: Mark::X,
            offer: OfferKind::Draw
        })
    );
    o.expect_error(4, ClientMessage::CancelOffer { game }, ErrorCode::NoOffer)
        .await;
    let reply = x.request(5, ClientMessage::CancelOffer { game }).await;
    assert_eq!(withdrawn(&reply), Some((Mark::X, OfferKind::Draw)));
    let seen = o.until(|m| withdrawn(m).is_some()).await;
    assert_eq!(withdrawn(&seen), Some((Mark::X, OfferKind::Draw)));
    o.expect_error(6, ClientMessage::Decline { game }, ErrorCode::NoOffer)
        .await;
    assert_eq!(snapshot(&mut o, 7, game).await.offer, None);
    // A takeback request, withdrawn; asked again and granted, the update says whose it was.
    x.request(8, ClientMessage::Takeback { game }).await;
    o.until(|m| matches!(m, ServerMessage::Offered { .. }))
        .await;
    let reply = x.request(9, ClientMessage::CancelOffer { game }).await;
    assert_eq!(withdrawn(&reply), Some((Mark::X, OfferKind::Takeback)));
    o.until(|m| withdrawn(m).is_some()).await;
    x.request(10, ClientMessage::Takeback { game }).await;
    o.until(|m| matches!(m, ServerMessage::Offered { .. }))
        .await;
    let back = o.request(11, ClientMessage::Takeback { game }).await;
    assert!(
        matches!(back, ServerMessage::TakenBack { by: Some(Mark::X), ref moves, .. } if moves.is_empty()),
        "{back:?}"
    );
    x.until(|m| matches!(m, ServerMessage::TakenBack { .. }))
        .await;
    // After the game: a rematch offer declined, offered again and withdrawn.
    o.request(12, ClientMessage::Resign { game }).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    o.expect_error(13, ClientMessage::Decline { game }, ErrorCode::GameOver)
        .await;
    x.request(14, ClientMessage::Rematch { game }).await;
    o.until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    assert_eq!(
        snapshot(&mut o, 15, game).await.offer,
        Some(PendingOffer {
            by: Mark::X,
            offer: OfferKind::Rematch
        })
    );
    let declined = o.request(16, ClientMessage::Decline { game }).await;
    assert!(
        matches!(
            declined,
            ServerMessage::Declined {
                by: Mark::X,
                offer: OfferKind::Rematch,
                ..
            }
        ),
        "{declined:?}"
    );
    x.until(|m| matches!(m, ServerMessage::Declined { .. }))
        .await;
    x.request(17, ClientMessage::Rematch { game }).await;
    o.until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    let reply = x.request(18, ClientMessage::CancelOffer { game }).await;
    assert_eq!(withdrawn(&reply), Some((Mark::X, OfferKind::Rematch)));
    o.until(|m| withdrawn(m).is_some()).await;
    o.expect_error(19, ClientMessage::Decline { game }, ErrorCode::GameOver)
        .await;
    x.expect_error(20, ClientMessage::CancelOffer { game }, ErrorCode::GameOver)
        .await;
    // The offer can still be made and taken: the rematch starts.
    o.request(21, ClientMessage::Rematch { game }).await;
    x.until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    let reply = x.request(22, ClientMessage::Rematch { game }).await;
    assert!(
        matches!(&reply, ServerMessage::GameState(state) if state.rematch_of == Some(game)),
        "{reply:?}"
    );
}
