//! Rules and search for noughts and crosses on four boards.
//!
//! - [`Variant`]: the four games (3×3, 4×4, 3×3×3, 4×4×4), each a set of cells and winning lines.
//! - [`Board`]: a legal position as two bit masks; parsing, moves, the outcome.
//! - [`Level`] and [`choose_move`]: the AI players, from the two-ply `easy` to `perfect`.
//!
//! The crate is pure: no I/O, no async, no global state but precomputed tables. Serde support for
//! the value types is behind the `serde` feature.

mod ai;
mod board;
mod level;
mod variant;

pub use ai::{Budget, Choice, Value, choose_move};
pub use board::{Board, BoardError, Mark, MoveError, Outcome, cells_of};
pub use fastrand::Rng;
pub use level::{Level, UnknownLevel};
pub use variant::{UnknownVariant, Variant};
