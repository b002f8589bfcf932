//! Arbitrary bytes as a game: a table, then moves, AI moves, resignations, rematches, chat,
//! watchers, players leaving and returning, time and timers, fed to the game's rules; the
//! invariants in `fuzz/invariants/game.rs` are checked after every input.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../invariants/game.rs"]
mod invariant;

fuzz_target!(|data: &[u8]| {
    invariant::check_bytes(data);
});
