//! Accounts: the knobs ([`AccountConfig`]), passwords hashed and checked off the runtime
//! ([`Passwords`]), and the limit on wrong guesses ([`Attempts`]).

mod attempts;
mod config;
mod password;

pub(crate) use attempts::{Attempts, Verdict};
pub use config::AccountConfig;
pub(crate) use password::Passwords;
