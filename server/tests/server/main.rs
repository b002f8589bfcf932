//! The server end to end at small scale: a real listener on port 0 and real WebSocket clients.
//! The full scenarios live in the workspace's `tests/` crate; these check the server's own corners.

mod common;
mod connection;
mod play;
mod resume;
