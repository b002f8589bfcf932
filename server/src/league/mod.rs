//! The engines' league, as TCEC runs one: its entrants (the AI levels) meet in a double round
//! robin on one variant, every pairing once with each colour a round, for ever. The table counts
//! 1 a win and ½ a draw; each round is one Glicko-2 rating period, every entrant rated from its
//! games of the round against the others' ratings from before it, so that a level's rating says
//! how it plays on the scale the site's players are rated on (a new player starts at 1500).
//!
//! The table (`table.rs`) is pure: no tasks, clocks or store. `live.rs` runs a league on each variant from
//! what the store counted; the war games (the engine, with a fixed time a move) are the
//! caller's. `entrant.rs` says who plays.

mod entrant;
mod live;
mod table;

pub(crate) use live::Leagues;
pub use table::{Finish, Pairing, Row, Table, round};
