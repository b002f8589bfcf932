//! The test kit: one way to start the parts that the end-to-end tests, the server's own tests and
//! the load generator run against — a real `redis-server`, PostgreSQL and `haproxy` of the
//! caller's own on free loopback ports, each stopped when dropped, and a scratch directory for
//! their files. A program that is missing makes the starter return `None` and say so, so that a
//! test skips loudly rather than fails.
//!
//! It depends on no workspace crate, so that every one of them (the server included, as a
//! dev-dependency) can use it without a circle.

pub mod haproxy;
pub mod postgres;
pub mod redis;
mod scratch;

pub use scratch::Scratch;
