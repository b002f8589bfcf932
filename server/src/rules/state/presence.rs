//! Presence: a seat's player going away and coming back, with the grace it spends meanwhile, and
//! the opponent's claim to the game once they have been away long enough.

use std::time::{Duration, Instant};

use noughts_protocol::{Away, ClaimOutcome, EndReason, ErrorCode, Mark, PlayerId, ServerMessage};

use super::Rules;
use crate::error::Refusal;
use crate::rules::seat::index;
use crate::rules::updates::{EndRecord, Returned, Sitter, Update, refused};

/// A duration in whole milliseconds, as the protocol carries it.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl Rules {
    /// A seat's player has gone: their clock stops, their grace runs, everyone is told.
    pub fn seat_left(&mut self, mark: Mark, now: Instant) -> Option<Update> {
        let live = self.result.is_none();
        let Sitter::Human(presence) = &mut self.seats[index(mark)] else {
            return None;
        };
        if !presence.connected && presence.away_since.is_some() {
            return None;
        }
        presence.connected = false;
        presence.away_since = Some(now);
        let grace_left = presence.grace_left;
        let claim_in = self.claim_after.min(grace_left);
        if let Some(clock) = &mut self.clock
            && clock.running() == Some(mark)
        {
            clock.stop(now);
        }
        self.seq += 1;
        let message = ServerMessage::Presence {
            game: self.id,
            seq: self.seq,
            mark,
            connected: false,
            grace_ms: live.then(|| millis(grace_left)),
            claim_ms: live.then(|| millis(claim_in)),
        };
        Some(Update::to_all(message, false))
    }

    /// A seat's player has a new connection.
    pub fn seat_returned(&mut self, mark: Mark, now: Instant) -> Returned {
        let live = self.result.is_none();
        let Sitter::Human(presence) = &mut self.seats[index(mark)] else {
            return Returned {
                update: None,
                snapshot: false,
            };
        };
        presence.connected = true;
        let missed_end = std::mem::take(&mut presence.missed_end);
        let mut update = None;
        if let Some(since) = presence.away_since.take() {
            presence.grace_left = presence
                .grace_left
                .saturating_sub(now.saturating_duration_since(since));
            self.seq += 1;
            let message = ServerMessage::Presence {
                game: self.id,
                seq: self.seq,
                mark,
                connected: true,
                grace_ms: None,
                claim_ms: None,
            };
            update = Some(Update {
                message,
                reply: false,
                skip: Some(mark),
                watchers_only: false,
            });
        }
        if live && self.board.to_move() == mark {
            self.start_turn(now);
        }
        Returned {
            update,
            snapshot: live || missed_end,
        }
    }

    /// How long `mark`'s player has been away at `now`, with the grace they have left then;
    /// `None` unless they are away from a live game.
    fn absence(&self, mark: Mark, now: Instant) -> Option<(Duration, Duration)> {
        if self.result.is_some() {
            return None;
        }
        match &self.seats[index(mark)] {
            Sitter::Human(presence) if !presence.connected => {
                let gone = now.saturating_duration_since(presence.away_since?);
                Some((gone, presence.grace_left.saturating_sub(gone)))
            }
            _ => None,
        }
    }

    /// The players of a live game who are away at `now`, with the grace each has left and the
    /// time before the opponent may claim (never more than the grace), for snapshots.
    pub fn away(&self, now: Instant) -> Vec<Away> {
        [Mark::X, Mark::O]
            .into_iter()
            .filter_map(|mark| {
                let (gone, grace) = self.absence(mark, now)?;
                let claim = self.claim_after.saturating_sub(gone).min(grace);
                Some(Away {
                    mark,
                    grace_ms: millis(grace),
                    claim_ms: millis(claim),
                })
            })
            .collect()
    }

    /// `player` claims the game (`outcome`) while the opponent is away: refused, or the end to
    /// store (then [`Rules::conclude`]). The opponent must have been away, this time, for at
    /// least the claim time (or have no grace left); the game ends as `abandon`, won by the
    /// claimant or with no winner.
    pub fn claim(
        &self,
        player: PlayerId,
        outcome: ClaimOutcome,
        now: Instant,
    ) -> Result<EndRecord, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(
                ErrorCode::NotAPlayer,
                "only the game's players may claim it",
            );
        };
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        let opponent = mark.opponent();
        if let Sitter::Ai(_) = self.seats[index(opponent)] {
            return refused(ErrorCode::NotAway, "an AI seat never leaves the game");
        }
        let Some((gone, grace)) = self.absence(opponent, now) else {
            return refused(ErrorCode::NotAway, "your opponent is connected");
        };
        if gone < self.claim_after && !grace.is_zero() {
            let wait = self.claim_after - gone;
            return refused(
                ErrorCode::TooEarly,
                format!(
                    "your opponent has been away {} s; you may claim the game in {} s",
                    gone.as_secs(),
                    wait.as_secs_f64().ceil()
                ),
            );
        }
        let winner = match outcome {
            ClaimOutcome::Win => Some(mark),
            ClaimOutcome::Draw => None,
        };
        Ok(self.end_record(winner, EndReason::Abandon, 0))
    }
}
