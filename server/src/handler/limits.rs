//! The limits a request is checked against: clocks, open rooms, games a player starts.

use noughts_protocol::{ClockSpec, ErrorCode};

use super::client::{Reply, refuse};

/// The longest clock a game may have: three hours a side.
pub const MAX_CLOCK_MS: u64 = 3 * 60 * 60 * 1000;
/// The largest increment: one minute.
pub const MAX_INCREMENT_MS: u64 = 60 * 1000;
/// Rooms one player may have open at once, so nobody can flood the lobby.
pub const MAX_OPEN_ROOMS: usize = 3;
/// Live games one player may have started with `play_ai` or `start_war`, so nobody can fill the
/// server with games.
pub const MAX_STARTED_GAMES: usize = 5;

/// Checks a requested clock against the documented ranges.
pub(super) fn check_clock(clock: Option<ClockSpec>) -> Reply {
    let Some(clock) = clock else {
        return Ok(());
    };
    if clock.initial_ms == 0 || clock.initial_ms > MAX_CLOCK_MS {
        return refuse(
            ErrorCode::BadClock,
            format!("initial_ms must be from 1 to {MAX_CLOCK_MS}"),
        );
    }
    if clock.increment_ms > MAX_INCREMENT_MS {
        return refuse(
            ErrorCode::BadClock,
            format!("increment_ms must be at most {MAX_INCREMENT_MS}"),
        );
    }
    Ok(())
}
