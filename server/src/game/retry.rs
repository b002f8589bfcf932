//! A move whose commit was cut off: the database stopped as it committed, the mover was told that
//! nothing was played, and yet the move was stored. The same move tried again is taken as stored
//! (by the store); another move tried at that ply meets the stored one, which stands: it is played
//! here for everyone to see, as the store has it, and the new try is refused.

use noughts_protocol::ErrorCode;
use tracing::{error, warn};

use super::actor::{Game, now, refuse};
use crate::error::Refusal;
use crate::registry::games::Requester;

impl Game {
    /// The store holds `cell` at `ply`, from an earlier try whose answer was lost: it is played,
    /// and `from`'s other move is refused.
    pub(super) async fn earlier_try_stands(
        &mut self,
        ply: u32,
        cell: usize,
        from: Option<Requester>,
    ) {
        let Some(pending) = self.rules.stored_move(ply, cell, now()) else {
            error!(ply, cell, "the store holds a move this game cannot play");
            if let Some(from) = from {
                refuse(&from, Refusal::new(ErrorCode::Internal, STUCK));
            }
            return;
        };
        warn!(
            ply,
            cell, "a move stored by an earlier try, whose answer was lost, stands"
        );
        // Stored already: the write repeats harmlessly (the store takes the same move at the
        // same ply as stored), and everyone is told.
        Box::pin(self.play(pending, None)).await;
        if let Some(from) = from {
            let refusal = if self.rules.is_over() {
                Refusal::new(
                    ErrorCode::GameOver,
                    format!("your earlier move at {cell} was saved after all and ended the game"),
                )
            } else {
                Refusal::new(
                    ErrorCode::NotYourTurn,
                    format!("your earlier move at {cell} was saved after all and stands"),
                )
            };
            refuse(&from, refusal);
        }
    }
}

/// What a player is told when the stored move cannot be played here.
const STUCK: &str = "the site could not save that move; please reload the game";
