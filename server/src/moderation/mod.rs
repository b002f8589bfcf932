//! Moderation: players muting, blocking and reporting each other, and the operator's bans, chat
//! mutes, reserved names and ended games. Every fact is appended to the store's moderation log;
//! each node folds the log into [`State`], reading it forward every second (`crate::handler::enforce`), so
//! that what the `noughts-server admin` commands (`crate::ops::operator`) write to the database holds
//! on every node at once.

mod folded;
mod state;

pub(crate) use folded::{Moderation, OVERLAP};
pub(crate) use state::Effect;
