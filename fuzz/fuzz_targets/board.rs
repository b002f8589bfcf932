//! Arbitrary bytes as a sequence of moves on every variant's board: the board stays legal, the
//! ply only grows, and a finished game takes no more moves.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../invariants/board.rs"]
mod invariant;

fuzz_target!(|data: &[u8]| {
    invariant::check_bytes(data);
});
