//! Values the decoder accepts and the server refuses: clocks, levels and sides out of range,
//! cells off the board, games and players that do not exist, requests in the wrong place; and
//! limits out of bounds, which it takes as the nearest bound.

use noughts_protocol::{ErrorCode, GameId};

use crate::support::{Beside, Case, Expect, text};

/// Values the decoder accepts and the server refuses.
#[tokio::test]
async fn out_of_range_values_are_refused_by_the_server() {
    let beside = Beside::start().await;
    beside.run_all(&out_of_range()).await;
    beside.finish().await;
}

/// Requests the server refuses for where they are sent: other people's games, a second hello.
#[tokio::test]
async fn misplaced_requests_are_refused_by_the_server() {
    let beside = Beside::start().await;
    beside.run_all(&misplaced(beside.reference.game)).await;
    beside.finish().await;
}

/// Out-of-range values.
fn out_of_range() -> Vec<Case> {
    use ErrorCode::*;
    use Expect::{Error, Reply};
    vec![
        // Out-of-range values the decoder accepts and the server refuses.
        text(
            "zero clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":0,\"increment_ms\":0}}",
            Error(BadClock),
            true,
        ),
        text(
            "clock past three hours",
            "{\"type\":\"create_room\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":10800001,\"increment_ms\":0}}",
            Error(BadClock),
            true,
        ),
        text(
            "increment past a minute",
            "{\"type\":\"play_ai\",\"id\":7,\"variant\":\"classic\",\"level\":\"easy\",\"clock\":{\"initial_ms\":1000,\"increment_ms\":60001}}",
            Error(BadClock),
            true,
        ),
        text(
            "the largest clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":18446744073709551615,\"increment_ms\":18446744073709551615}}",
            Error(BadClock),
            true,
        ),
        text(
            "game zero",
            "{\"type\":\"watch\",\"id\":7,\"game\":0}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "numeric watch code",
            "{\"type\":\"watch\",\"id\":7,\"game\":1,\"code\":1234}",
            Error(BadRequest),
            true,
        ),
        text(
            "watch code of escapes and emoji",
            "{\"type\":\"watch\",\"id\":7,\"game\":0,\"code\":\"\\u001b[2J\\u202e🂡-ØØØØ\"}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "the longest watch code",
            format!(
                "{{\"type\":\"watch\",\"id\":7,\"game\":0,\"code\":\"{}\"}}",
                "K".repeat(3900)
            ),
            Error(NoSuchGame),
            true,
        ),
        text(
            "the largest game",
            "{\"type\":\"move\",\"id\":7,\"game\":18446744073709551615,\"cell\":18446744073709551615}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "record of no game",
            "{\"type\":\"game_record\",\"id\":7,\"game\":18446744073709551615}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "history of nobody",
            "{\"type\":\"history\",\"id\":7,\"player\":18446744073709551615}",
            Error(NoSuchPlayer),
            true,
        ),
        text(
            "profile of nobody",
            "{\"type\":\"profile\",\"id\":7,\"player\":999999}",
            Error(NoSuchPlayer),
            true,
        ),
        // A limit out of bounds is taken as the nearest bound.
        text(
            "a limit of none",
            "{\"type\":\"list_games\",\"id\":7,\"limit\":0}",
            Reply("game_list"),
            true,
        ),
        text(
            "a limit past 100",
            "{\"type\":\"leaderboard\",\"id\":7,\"variant\":\"classic\",\"limit\":4294967295}",
            Reply("leaderboard"),
            true,
        ),
    ]
}

/// Requests in the wrong place.
fn misplaced(game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::Error;
    let g = game.0;
    vec![
        text(
            "empty room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "punctuation room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"!!!!-????\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "escape room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"\\u001b[2J\\u0000\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "long room code",
            format!(
                "{{\"type\":\"join_room\",\"id\":7,\"code\":\"{}\"}}",
                "K".repeat(3000)
            ),
            Error(NoSuchRoom),
            true,
        ),
        text(
            "closing no room",
            "{\"type\":\"close_room\",\"id\":7,\"code\":\"K7QM-4TXP-2D\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "cancelling no seek",
            "{\"type\":\"cancel_seek\",\"id\":7}",
            Error(NotSeeking),
            true,
        ),
        text(
            "a stranger's move",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":3}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's resign",
            format!("{{\"type\":\"resign\",\"id\":7,\"game\":{g}}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's rematch",
            format!("{{\"type\":\"rematch\",\"id\":7,\"game\":{g}}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's chat",
            format!("{{\"type\":\"chat\",\"id\":7,\"game\":{g},\"text\":\"hi\"}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "hello again",
            "{\"type\":\"hello\",\"id\":7,\"protocol\":1,\"name\":\"again\"}",
            Error(AlreadyWelcomed),
            true,
        ),
        text(
            "hello again with a bad version",
            "{\"type\":\"hello\",\"id\":7,\"protocol\":\"1\",\"name\":\"again\"}",
            Error(BadRequest),
            true,
        ),
    ]
}
