//! The test kit, what the end-to-end tests, the server's own tests and the load generator share:
//! one protocol client (`client`), and one way to start the parts they run against — a server
//! process (`process`), a real `redis-server`, PostgreSQL and `haproxy` of the caller's own on
//! free loopback ports, each stopped when dropped, and a scratch directory for their files. A program that is missing makes
//! the starter return `None` and say so, so that a test skips loudly rather than fails.
//!
//! Of the workspace it depends on the protocol crate alone, so that every other crate (the server
//! included, as a dev-dependency) can use it without a circle.

pub mod client;
pub mod haproxy;
pub mod postgres;
pub mod process;
pub mod redis;
pub mod redis_cluster;
mod scratch;

pub use scratch::Scratch;
