//! Rules and search for noughts and crosses on four boards.
//!
//! - [`Variant`]: the four games (3×3, 4×4, 3×3×3, 4×4×4), each a set of cells and winning lines.
//! - [`Board`]: a legal position as two bit masks; parsing, moves, the outcome.
//! - [`Level`] and [`choose_move`]: the AI players, from `random` and the two-ply `easy` to
//!   `perfect` (`players`, `qubic_play`), played through an [`Engine`] that keeps its work from
//!   move to move; [`analyse`]: the value of a position and of each of its moves; [`review`]: a
//!   game's moves judged best, inaccuracy or blunder ([`MoveVerdict`]).
//! - [`search`]: negamax with alpha-beta (principal variation search), a transposition table
//!   keyed by the position's smallest symmetric image ([`symmetry`]: 8 for the squares, 48 for
//!   the cube, 192 for qubic), threat pruning, iterative deepening and a budget; scores carry the
//!   distance to the end. [`threats`]: immediate threats and the search for wins by continuous
//!   threats that lets `perfect` attack and defend on qubic.
//! - [`book`]: the qubic opening books, X's proven winning moves and O's stubborn replies, keyed
//!   by canonical position; [`book_build`] builds X's by proof-number search, [`book_check`]
//!   verifies it independently, [`defence_build`] builds O's.
//! - [`solve`]: every reachable position solved at once (classic is kept solved), and perft.
//! - `src/main.rs`: the `noughts-engine` analysis command line (`best`, `eval`, `perft`, `solve`,
//!   `selfplay`, `book-build`, `book-verify`, `defence-build`), printing JSON lines.
//!
//! The crate is pure: no I/O, no async, no global state but precomputed tables and the memory
//! each thread's [`Engine`] keeps for [`choose_move`] (a cache: it changes how fast a move is
//! found, and on qubic which move the budget reaches, never what a proven value is). Serde support for
//! the value types is behind the `serde` feature; the analysis binary behind `cli`.

mod ai;
mod board;
pub mod book;
pub mod book_build;
pub mod book_check;
mod budget;
pub mod defence_build;
mod engine;
mod level;
mod line_counts;
mod move_order;
mod players;
mod qubic_play;
mod review;
pub mod search;
mod small_board;
pub mod solve;
pub mod symmetry;
mod table;
pub mod threats;
mod variant;
mod verdict;

pub use ai::{Analysis, MoveValue, analyse, choose_hard_move, choose_move};
pub use board::{Board, BoardError, Mark, MoveError, Outcome, cells_of};
pub use budget::Budget;
pub use engine::Engine;
pub use fastrand::Rng;
pub use level::{Level, UnknownLevel};
pub use review::{Judgement, MoveVerdict, hint, judge, judge_move, review, review_judged};
pub use variant::{UnknownVariant, Variant};
pub use verdict::{Choice, Value};
