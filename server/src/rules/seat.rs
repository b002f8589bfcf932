//! A seat as the rules keep it: an AI, or a person with their presence and grace.

use std::time::{Duration, Instant};

use noughts_protocol::{Mark, PlayerId};

/// A person's presence in a seat.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Presence {
    pub(super) player: PlayerId,
    /// Whether a connection is attached.
    pub(super) connected: bool,
    /// When the player went away, while they are away.
    pub(super) away_since: Option<Instant>,
    /// What is left of this game's grace budget (spent by every absence).
    pub(super) grace_left: Duration,
    /// The game ended while this player was away: their return brings the final snapshot.
    pub(super) missed_end: bool,
}

/// A seat's place in `[x, o]`.
pub(super) fn index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}
