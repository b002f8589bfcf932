//! The screens, each owning its state (or reading the model it shows), its keys and its drawing:
//! the lobby with its all-games, leaderboard and history tabs, an arena, a game, a replay, the boxes over them and the
//! help. A key on a screen becomes [`action::Action`]s that the app applies; no screen knows the
//! app.

pub mod action;
pub mod arena;
pub mod board;
pub mod browse;
pub mod game;
pub mod help;
pub mod history;
pub mod leaderboard;
pub mod league;
pub mod listing;
pub mod lobby;
pub mod modal;
pub mod offers;
pub mod people;
pub mod profile;
pub mod replay;
pub mod rows;
pub mod tab;
pub mod theme;
pub mod widgets;
