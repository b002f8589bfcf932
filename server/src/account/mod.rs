//! Accounts: the knobs ([`AccountConfig`]), passwords hashed and checked off the runtime
//! ([`Passwords`]), the limit on wrong guesses ([`Attempts`]), what one address or player may
//! pile up ([`Quotas`]), and the token each open connection holds ([`Live`]).

mod attempts;
mod config;
mod fair;
mod live;
mod password;
mod quota;

pub(crate) use attempts::{Attempts, Device, Verdict};
pub use config::AccountConfig;
pub(crate) use live::Live;
pub(crate) use password::Passwords;
pub(crate) use quota::{Quotas, in_words};

/// The device cookies kept per account, the newest; an older one no longer exempts its device.
pub(crate) const DEVICE_COOKIES_KEPT: u32 = 32;
