//! The noughts terminal client (being built).
