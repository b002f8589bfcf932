//! Dropped connections: resuming within the grace period, and losing by abandonment after it.

use std::time::Duration;

use noughts_engine::{Mark, Variant};
use noughts_protocol::{ClientMessage, EndReason, ServerMessage};
use noughts_tests::{Client, TestServer, alternate, follow_to_end, moves_of, seq_of, test_config};

use crate::matchmaking::quick_match;

#[tokio::test]
async fn a_player_resumes_with_its_token_and_the_game_goes_on() {
    let server = TestServer::start(test_config()).await;
    let (mut x, o, state) = quick_match(&server, Variant::Classic).await;
    let game = state.game;
    let (o_name, o_token, o_player) = (o.name.clone(), o.token.clone(), o.player);
    x.send(ClientMessage::Move { game, cell: 0 }).await;
    x.saw(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
        .await;

    // O's connection drops without a goodbye.
    drop(o);
    let presence = x
        .until(|m| matches!(m, ServerMessage::Presence { .. }))
        .await;
    let ServerMessage::Presence {
        mark,
        connected,
        grace_ms,
        seq: away_seq,
        ..
    } = presence
    else {
        unreachable!()
    };
    assert_eq!((mark, connected), (Mark::O, false));
    assert!(grace_ms.is_some_and(|ms| ms > 0 && ms <= 5_000));

    // O comes back with its token: same identity, same game, same seq, nothing lost.
    let mut o = Client::resume(&server.url(), &o_name, &o_token).await;
    assert_eq!(o.player, o_player);
    let snapshot = o.game_state().await;
    assert_eq!(snapshot.game, game);
    assert_eq!(snapshot.you, Some(Mark::O));
    assert_eq!(snapshot.moves, vec![0]);
    assert_eq!(snapshot.board, "X........");
    assert!(snapshot.seq >= away_seq);
    let back = x
        .until(|m| {
            matches!(
                m,
                ServerMessage::Presence {
                    connected: true,
                    ..
                }
            )
        })
        .await;
    assert!(seq_of(&back).unwrap().1 > away_seq);

    // The game goes on to the end, and both see the same moves.
    alternate(&mut o, &mut x, game, &[3, 1, 4, 2]).await;
    let seen_by_o = follow_to_end(&mut o, game).await;
    assert_eq!(moves_of(&seen_by_o), vec![3, 1, 4, 2]);
    let seen_by_x = follow_to_end(&mut x, game).await;
    assert_eq!(moves_of(&seen_by_x), vec![3, 1, 4, 2]);
    let Some(ServerMessage::GameOver { result, .. }) = seen_by_o.last() else {
        panic!("game over");
    };
    assert_eq!(result.winner, Some(Mark::X));
}

#[tokio::test]
async fn a_player_who_stays_away_past_the_grace_loses_by_abandonment() {
    let mut config = test_config();
    config.grace = Duration::from_millis(300);
    let server = TestServer::start(config).await;
    let (mut x, o, state) = quick_match(&server, Variant::Classic).await;
    drop(o);
    let events = follow_to_end(&mut x, state.game).await;
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("game over");
    };
    assert_eq!(result.reason, EndReason::Abandon);
    assert_eq!(result.winner, Some(Mark::X));
}

#[tokio::test]
async fn a_forged_token_is_refused() {
    let server = TestServer::start(test_config()).await;
    let mut socket = noughts_tests::connect(&server.url()).await;
    let hello = ClientMessage::Hello {
        protocol: noughts_protocol::PROTOCOL_VERSION,
        name: "mallory".into(),
        token: Some("00112233445566778899aabbccddeeff".into()),
    };
    noughts_tests::send_frame(&mut socket, &noughts_protocol::ClientFrame::new(hello)).await;
    let frame = noughts_tests::read_frame(&mut socket)
        .await
        .expect("a reply");
    assert!(
        matches!(
            frame.message,
            ServerMessage::Error {
                code: noughts_protocol::ErrorCode::UnknownToken,
                ..
            }
        ),
        "{frame:?}"
    );
}
