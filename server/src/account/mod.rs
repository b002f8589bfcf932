//! Accounts: the knobs ([`AccountConfig`]), passwords hashed and checked off the runtime
//! ([`Passwords`]), the limit on wrong guesses ([`Attempts`]), and the token each open
//! connection holds ([`Live`]).

mod attempts;
mod config;
mod live;
mod password;

pub(crate) use attempts::{Attempts, Verdict};
pub use config::AccountConfig;
pub(crate) use live::Live;
pub(crate) use password::Passwords;
