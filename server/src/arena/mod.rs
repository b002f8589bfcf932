//! Arenas, as lichess runs them: between its start and its end an arena pairs each of its free
//! players with another of close score and rating, and each game it starts is an ordinary rated
//! game (watched and replayed as any other). One director task per arena ([`director`]) owns its
//! standings, kept in order as they change ([`table`]); the arithmetic is pure ([`standings`]);
//! the server opens its own arenas on a schedule ([`schedule`]). Everything an arena must not
//! lose is in the store first, so a restart carries each arena on ([`restore_all`]); in a cluster
//! one node directs each arena at a time, and another carries it on from the store when that
//! node dies (`keeper`).

mod director;
mod joined;
#[cfg(feature = "cluster")]
mod keeper;
mod opening;
mod schedule;
pub(crate) mod standings;
mod table;

pub(crate) use director::no_such_arena;
pub(crate) use joined::tell_welcomed;
#[cfg(feature = "cluster")]
pub(crate) use keeper::{direct_if_orphaned, keep_arenas, slot_name};
pub(crate) use opening::{create, restore_all};
pub(crate) use schedule::keep_schedule;
