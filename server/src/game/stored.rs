//! A game's end as the store keeps it: shared by the actor (a move that ends the game) and the
//! ending (an end without a move), which must not import each other.

use noughts_engine::cells_of;

use crate::rules::EndRecord;
use crate::store::{Ending, now_ms};

/// The end as the store keeps it.
pub(super) fn stored(end: &EndRecord) -> Ending {
    Ending {
        seq: end.seq,
        winner: end.winner,
        reason: end.reason,
        cells: cells_of(end.cells).collect(),
        ended_ms: now_ms(),
    }
}
