//! Clocks: the server is the only judge, and running out loses.

use noughts_engine::{Mark, Variant};
use noughts_protocol::{ClientMessage, ClockSpec, EndReason, ServerMessage};
use noughts_tests::{TestServer, follow_to_end, test_config};

#[tokio::test]
async fn running_out_of_time_loses() {
    let server = TestServer::start(test_config()).await;
    let clock = ClockSpec {
        initial_ms: 1_000,
        increment_ms: 0,
    };
    let mut a = server.join("ada").await;
    let mut b = server.join("bob").await;
    let seek = ClientMessage::Seek {
        variant: Variant::Classic,
        clock: Some(clock),
        rated: false,
    };
    a.send(seek.clone()).await;
    b.send(seek).await;
    let (sa, sb) = (a.game_state().await, b.game_state().await);
    assert_eq!(sa.clock, Some(clock));
    let clocks = sa.clocks.expect("a timed game reports its clocks");
    assert_eq!((clocks.x_ms, clocks.o_ms), (1_000, 1_000));
    let (mut x, mut o) = if sa.you == Some(Mark::X) {
        (a, b)
    } else {
        (b, a)
    };
    let game = sa.game;
    assert_eq!(sb.game, game);

    // X moves at once; O never answers and loses on time.
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    let moved = o.until(|m| matches!(m, ServerMessage::Moved { .. })).await;
    let ServerMessage::Moved { clocks, .. } = moved else {
        unreachable!()
    };
    let clocks = clocks.expect("moves carry the clocks in a timed game");
    assert_eq!(clocks.running, Some(Mark::O));
    assert!(clocks.x_ms <= 1_000);
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        let Some(ServerMessage::GameOver { result, clocks, .. }) = events.last() else {
            panic!("game over");
        };
        assert_eq!(result.reason, EndReason::Timeout);
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(clocks.expect("final clocks").o_ms, 0);
    }
}

#[tokio::test]
async fn absurd_clocks_are_refused() {
    let server = TestServer::start(test_config()).await;
    let mut a = server.join("ada").await;
    for (id, clock) in [
        (
            1,
            ClockSpec {
                initial_ms: 0,
                increment_ms: 0,
            },
        ),
        (
            2,
            ClockSpec {
                initial_ms: u64::MAX,
                increment_ms: 0,
            },
        ),
        (
            3,
            ClockSpec {
                initial_ms: 60_000,
                increment_ms: u64::MAX,
            },
        ),
    ] {
        a.expect_error(
            id,
            ClientMessage::Seek {
                variant: Variant::Classic,
                clock: Some(clock),
                rated: false,
            },
            noughts_protocol::ErrorCode::BadClock,
        )
        .await;
    }
}
