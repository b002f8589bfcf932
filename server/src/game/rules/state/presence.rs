//! Presence: a seat's player going away and coming back, with the grace it spends meanwhile.

use std::time::Instant;

use noughts_protocol::{Mark, ServerMessage};

use super::Rules;
use crate::game::rules::seat::index;
use crate::game::rules::updates::{Returned, Sitter, Update};

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
            grace_ms: live.then(|| u64::try_from(grace_left.as_millis()).unwrap_or(u64::MAX)),
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
}
