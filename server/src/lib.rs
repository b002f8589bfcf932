//! The noughts game server (being built).
