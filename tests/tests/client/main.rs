//! The terminal client end to end: the real `noughts` binary against a real server (under tmux
//! for the interactive screens), and the app with its connection task against a real server.

mod accounts;
mod analysis;
mod arena;
mod bot_arena;
mod bot_engine;
mod commands;
mod game_panel;
mod lobby;
mod moderation;
mod notation;
mod reconnect;
mod sessions;
mod support;
mod tui;
