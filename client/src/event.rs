//! Everything that can happen to the client (keys, the mouse, a resize, time, the network),
//! merged into the one stream that drives [`crate::app::App::update`].

use std::time::Instant;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::net::NetEvent;

/// Everything that can happen to the client, merged into one stream.
#[derive(Debug, Clone)]
pub enum Event {
    /// A key was pressed.
    Key(KeyEvent),
    /// The mouse was used.
    Mouse(MouseEvent),
    /// The terminal now has this many columns and rows.
    Resize(u16, u16),
    /// Time passed: clocks and countdowns move on.
    Tick(Instant),
    /// Something happened on the connection.
    Net(NetEvent),
}
