//! Hostile input: everything a bored or malicious client might send, each answered with the
//! documented error or close code, grouped by what it attacks. Beside every test a reference game
//! goes on and must finish with every update in order; no task may panic.

mod chat;
mod floods;
mod frames;
mod names;
mod ranges;
mod requests;
mod rules;
mod support;
