//! The operator's moderation commands, `noughts-server admin …`: run against the database
//! (`commands`), or through a running server's metrics port when that server holds its SQLite
//! file (`remote`, the server's side).

mod commands;
mod remote;

pub use commands::{AdminAction, BanTarget, run_admin};
pub(crate) use remote::answer;
