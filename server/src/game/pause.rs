//! A game stepping down on this node: its lease lapsed (Redis did not confirm it in time) or was
//! lost to another node. It stops being served here before its lease can have expired anywhere:
//! no move is taken, no clock or grace runs out, no frame goes out as if it were live. Its players
//! and watchers here are told it is paused; it is taken again from the store, as after a
//! restart, by whichever node wins its lease once Redis answers, and they get its `game_state`
//! from there.

use noughts_protocol::ServerMessage;
use tracing::warn;

use super::actor::Game;
use crate::net::outbound::frame;
use crate::store::StoreError;

/// What players and watchers are told when the game pauses.
const PAUSED: &str = "the site is reconnecting; the game is paused and resumes in a moment";

impl Game {
    /// Whether this node may no longer serve the game; if so, it steps down (once).
    pub(super) fn lease_lapsed(&mut self) -> bool {
        if self.fenced {
            return true;
        }
        let id = self.rules.id();
        let lapsed = self
            .shared
            .wing
            .as_ref()
            .is_some_and(|wing| !wing.holds(id));
        if lapsed {
            self.step_down();
        }
        lapsed
    }

    /// A store write's answer, with a fenced write dealt with in one place: the store refused it
    /// because another node has taken the game (a higher epoch), so this node stops serving it
    /// (`Err(None)`); `Err(Some(err))` is a write that failed otherwise.
    pub(super) fn persisted<T>(
        &mut self,
        stored: Result<T, StoreError>,
    ) -> Result<T, Option<StoreError>> {
        match stored {
            Ok(value) => Ok(value),
            Err(StoreError::Fenced(_)) => {
                self.fenced = true;
                Err(None)
            }
            Err(err) => Err(Some(err)),
        }
    }

    /// Stops serving the game here without ending it: everyone here is told it is paused.
    fn step_down(&mut self) {
        warn!("this node's lease on the game lapsed; the game pauses here");
        self.fenced = true;
        if self.rules.is_over() {
            return;
        }
        let paused = frame(
            None,
            ServerMessage::GamePaused {
                game: self.rules.id(),
                message: PAUSED.to_owned(),
            },
        );
        self.audience.tell_everyone(&paused);
    }
}
