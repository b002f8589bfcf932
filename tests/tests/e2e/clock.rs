//! Clocks: the server is the only judge, and running out loses.

use std::time::Duration;

use noughts_engine::{Mark, Variant};
use noughts_protocol::{ClientMessage, ClockSpec, EndReason, GameId, Seek, ServerMessage, Watch};
use noughts_tests::accounts::make_account;
use noughts_tests::{TestServer, alternate, follow_to_end, moves_of, test_config};

#[tokio::test]
async fn running_out_of_time_loses() {
    let server = TestServer::start(test_config()).await;
    let clock = ClockSpec {
        initial_ms: 1_000,
        increment_ms: 0,
    };
    let mut a = server.join("ada").await;
    let mut b = server.join("bob").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: Some(clock),
        rated: false,
        bots: false,
    });
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

    // Both sides make their first moves (no clock runs before them); then X never answers and
    // loses on time.
    x.send(ClientMessage::Move { game, cell: 4 }).await;
    o.until(|m| matches!(m, ServerMessage::Moved { .. })).await;
    o.send(ClientMessage::Move { game, cell: 0 }).await;
    let moved = x
        .until(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
        .await;
    let ServerMessage::Moved { clocks, .. } = moved else {
        unreachable!()
    };
    let clocks = clocks.expect("moves carry the clocks in a timed game");
    assert_eq!(clocks.running, Some(Mark::X));
    assert!(clocks.x_ms <= 1_000);
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        let Some(ServerMessage::GameOver { result, clocks, .. }) = events.last() else {
            panic!("game over");
        };
        assert_eq!(result.reason, EndReason::Timeout);
        assert_eq!(result.winner, Some(Mark::O));
        assert_eq!(clocks.expect("final clocks").x_ms, 0);
    }
}

/// A timed game between two fresh players, quick-matched: (X, O, game).
async fn timed_match(
    server: &TestServer,
    clock: ClockSpec,
    rated: bool,
) -> (noughts_tests::Client, noughts_tests::Client, GameId) {
    let mut a = server.join("ada").await;
    let mut b = server.join("bob").await;
    if rated {
        make_account(&mut a).await;
        make_account(&mut b).await;
    }
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: Some(clock),
        rated,
        bots: false,
    });
    a.send(seek.clone()).await;
    b.send(seek).await;
    let (sa, _) = (a.game_state().await, b.game_state().await);
    if sa.you == Some(Mark::X) {
        (a, b, sa.game)
    } else {
        (b, a, sa.game)
    }
}

#[tokio::test]
async fn no_clock_runs_before_both_sides_have_moved_once() {
    let server = TestServer::start(test_config()).await;
    let clock = ClockSpec {
        initial_ms: 180_000,
        increment_ms: 2_000,
    };
    let (mut x, mut o, game) = timed_match(&server, clock, false).await;
    // However long X takes over its first move, its clock stands still, and so does O's (time
    // passes here only so that a running clock would show it).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let watch = ClientMessage::Watch(Watch { game, code: None });
    let ServerMessage::GameState(state) = x.request(1, watch).await else {
        panic!("a snapshot")
    };
    let clocks = state.clocks.expect("a timed game reports its clocks");
    assert_eq!(
        (clocks.x_ms, clocks.o_ms, clocks.running),
        (180_000, 180_000, None)
    );
    // The first moves are not timed and earn no increment.
    let mut seen = Vec::new();
    for (ply, cell) in [4, 0].into_iter().enumerate() {
        let (mover, other) = if ply == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let ServerMessage::Moved { clocks, .. } =
            mover.request(2, ClientMessage::Move { game, cell }).await
        else {
            panic!("moved")
        };
        other
            .until(|m| matches!(m, ServerMessage::Moved { .. }))
            .await;
        seen.push(clocks.expect("clocks"));
    }
    assert_eq!(
        (seen[0].x_ms, seen[0].o_ms, seen[0].running),
        (180_000, 180_000, None)
    );
    // After both first moves, X's clock starts.
    assert_eq!((seen[1].x_ms, seen[1].o_ms), (180_000, 180_000));
    assert_eq!(seen[1].running, Some(Mark::X));
}

#[tokio::test]
async fn a_game_whose_first_moves_do_not_come_in_time_is_aborted_unrated() {
    let server = TestServer::start(noughts_server::Config {
        first_move_timeout: Duration::from_millis(300),
        ..test_config()
    })
    .await;
    let clock = ClockSpec {
        initial_ms: 60_000,
        increment_ms: 0,
    };
    // Nobody moves: the game is aborted, rated or not, and nobody's rating moves.
    let (mut x, mut o, game) = timed_match(&server, clock, true).await;
    for client in [&mut x, &mut o] {
        let events = follow_to_end(client, game).await;
        let Some(ServerMessage::GameOver {
            result, ratings, ..
        }) = events.last()
        else {
            panic!("game over");
        };
        assert_eq!((result.winner, result.reason), (None, EndReason::Aborted));
        assert_eq!(*ratings, None, "an aborted game is not rated");
    }
    // X moves; O does not: aborted too, O's window starting at X's move.
    let (mut x, mut o, game) = timed_match(&server, clock, false).await;
    x.request(1, ClientMessage::Move { game, cell: 4 }).await;
    let events = follow_to_end(&mut o, game).await;
    assert_eq!(moves_of(&events), [4]);
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("game over");
    };
    assert_eq!(result.reason, EndReason::Aborted);
    // Once both have moved, the clocks judge: the game runs past the first-move time.
    let (mut x, mut o, game) = timed_match(&server, clock, false).await;
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let ServerMessage::Moved { .. } = x.request(2, ClientMessage::Move { game, cell: 8 }).await
    else {
        panic!("the game goes on")
    };
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
            ClientMessage::Seek(Seek {
                variant: Variant::Classic,
                clock: Some(clock),
                rated: false,
                bots: false,
            }),
            noughts_protocol::ErrorCode::BadClock,
        )
        .await;
    }
}
