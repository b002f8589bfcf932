//! The operator's plane: the moderation commands, `noughts-server admin …` (`commands`), run
//! against the database or through the running server that holds its SQLite file; the
//! server's operator's socket, where that server takes them and backups from its own user and
//! root alone (`socket`, and `remote` for the commands); the commands' way in (`client`); and
//! the command line of both (`cli`).

mod cli;
mod client;
mod commands;
mod remote;
mod socket;

pub use cli::OperatorCommand;
pub use client::{fetch_backup, run_admin};
pub use commands::{AdminAction, BanTarget};
pub use socket::AdminSocket;
pub(crate) use socket::{open as open_admin_socket, serve as serve_admin_socket};
