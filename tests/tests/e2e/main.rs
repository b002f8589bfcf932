//! End-to-end scenarios: a real server on 127.0.0.1:0 and real WebSocket clients.

mod ai;
mod analysis;
mod bad_input;
mod clock;
mod limits;
mod lobby;
mod matchmaking;
mod private;
mod records;
mod rename;
mod resume;
mod shutdown;
mod tls;
mod watch;
