//! The end of a game as its actor carries it out: the end stored (and a rated game rated) before
//! anyone hears of it, then `game_over` to everyone, with each player's rating change.

use noughts_protocol::{GameKind, Mark, RatingChange, RatingChanges, ServerMessage};
use tracing::{debug, error, info, warn};

use super::actor::{Game, now};
use super::seat::index;
use super::stored::stored;
use crate::registry::games::Requester;
use crate::rules::sitter::Sitter;
use crate::rules::{EndRecord, Update};
use crate::store::{Rerated, Settled};

/// How long a game waits between tries to store its end.
const END_RETRY: std::time::Duration = std::time::Duration::from_millis(250);
/// Tries to store a game's end before it is told unstored (a minute): a database that long gone
/// on a lone server is an outage the operator sees; in a cluster the lease lapses well before.
const END_TRIES: u32 = 240;

impl Game {
    /// Ends the game: stores the end (and rates a rated game), then tells everyone.
    pub(super) async fn end(&mut self, end: EndRecord, from: Option<Requester>) {
        let mut tries = 0;
        let settled = loop {
            let written = self
                .shared
                .store
                .end_game(self.rules.id(), stored(&end))
                .await;
            match self.persisted(written) {
                Ok(settled) => break settled,
                // Another node plays it now: it is not this node's to end.
                Err(None) => return,
                // A store that keeps the game would restore it live: a result told now but not
                // stored would be followed by another. The end is tried again until it is
                // stored, or (in a cluster) the game's lease lapses and it steps down here.
                Err(Some(err)) if self.shared.store.is_persistent() && tries < END_TRIES => {
                    if tries == 0 {
                        warn!(cause = %err, "the end of the game cannot be stored yet; trying again");
                    }
                    tries += 1;
                    tokio::time::sleep(END_RETRY).await;
                    if self.lease_lapsed() {
                        return;
                    }
                }
                Err(Some(err)) => {
                    // The game is over for the players all the same; only the store lags behind.
                    error!(cause = %err, "the end of the game could not be stored");
                    break Settled::default();
                }
            }
        };
        let reply = from.as_ref().is_some_and(|from| from.id.is_some());
        if let Some(game_over) = self.rules.conclude(&end, reply, now()) {
            self.concluded(game_over, from, settled).await;
        }
    }

    /// The game is over and stored: tells everyone and shows the new ratings, then whoever waits
    /// for the end (with the arena lines its count scored).
    pub(super) async fn concluded(
        &mut self,
        game_over: Update,
        from: Option<Requester>,
        settled: Settled,
    ) {
        let mut game_over = game_over;
        if let Some(Rerated { x, o }) = settled.rerated {
            let variant = self.rules.board().variant();
            let mut changes = [None, None];
            for (mark, rating) in [(Mark::X, x), (Mark::O, o)] {
                if let Sitter::Human(human) = &self.audience.seats[index(mark)] {
                    let before =
                        crate::rules::rating::points(human.session.ratings().get(variant).rating);
                    human.session.rated_game(variant, rating);
                    let after = crate::rules::rating::points(rating.rating);
                    changes[index(mark)] = Some(RatingChange {
                        rating: after,
                        change: i32::try_from(i64::from(after) - i64::from(before)).unwrap_or(0),
                    });
                }
            }
            if let ([Some(x), Some(o)], ServerMessage::GameOver { ratings, .. }) =
                (changes, &mut game_over.message)
            {
                *ratings = Some(RatingChanges { x, o });
            }
        }
        self.shared.registry.games.end_live();
        self.broadcast(game_over, from).await;
        for mark in self.audience.dropped_marks() {
            self.rules.missed_end(mark);
        }
        if let Some(result) = self.rules.result() {
            if self.rules.kind() == GameKind::War {
                debug!(winner = ?result.winner, reason = ?result.reason, "game over");
            } else {
                info!(winner = ?result.winner, reason = ?result.reason, "game over");
            }
        }
        if self.listed {
            self.shared.lobby.remove_game(self.rules.id());
        }
        if let Some(on_end) = self.on_end.take() {
            let _ = on_end.send(settled.counted);
        }
    }
}
