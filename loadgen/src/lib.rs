//! A load generator for the noughts server, and the WebSocket echo baseline it is measured
//! against.
//!
//! Every scenario opens real WebSocket clients that speak the protocol of `noughts-protocol`, runs
//! for a bounded time, and returns a [`Report`]: operations per second, latency percentiles from an
//! HdrHistogram, connections held, errors by kind, and the server's CPU seconds and memory as
//! `/proc` tells them.
//!
//! Code map:
//! - `client`: the kit's protocol client (a client's buffers, `hello`, a cheap look at a frame)
//!   over a stream that stamps what it reads.
//! - `games`: human-vs-human games, paced open loop or as fast as they go.
//! - `ai`: games against an AI seat, beside human games.
//! - `watchers`: one game with many watchers, and watchers that stop reading.
//! - `site`: the site as the shipped clients use it: players who follow the lobby, quick-match or
//!   use public rooms into listed games and stop following while they play, lobby followers,
//!   and watchers of featured games.
//! - `arena`: an arena as the shipped clients play one: players with accounts who join it, are
//!   paired by the server and come back to it between games, and watchers of its standings.
//! - `soak`: clients that connect, play, watch, drop and come back for a long while; the server's
//!   memory and tasks must stay flat.
//! - `idle`: connections that only say hello and stay, spread over processes.
//! - `echo`: the echo server and its load.
//! - `relay`: the relay baseline: pairs of connections, one frame in and two out, as a move.
//! - `pacer`: precise move times for the paced scenarios.
//! - `peer`: the same workloads against Colyseus (`bench/peer/colyseus`), its capacity ramp, and
//!   the side-by-side table; `peer_judge`: the targets set against it.
//! - `stamp`: a TCP stream that knows when the kernel received what it read.
//! - `target`: the server under test (started as a child process, or already running), pinning,
//!   and `/proc` samples; `servers`: the servers a run starts, or the running ones it points at.
//! - `report`: what a scenario measured, as text and JSON; `timeline`: latency second by second.
//! - `cluster_site`: the site scenario over the nodes of a cluster, the lobby's Redis messages
//!   counted by node.
//! - `cluster`: the several-nodes benchmark (one node on SQLite, one on PostgreSQL, a cluster);
//!   `nodes`: starting its servers and databases, and Redis and PostgreSQL through the kit; `convergence`: lobby convergence between
//!   nodes; `failover`: a node killed under live games and its players back on the others;
//!   `shards`: the command's runs, on one Redis or a Redis Cluster of each size asked for, its
//!   lobby lines judged and each shard's Redis a move.
//! - `lobby_cost`: the suite's lobby targets: the site against private rooms, and the cost of a
//!   move as the lobby's followers grow.
//! - `league`: the engines' league as the server plays it, fast, and its tables.
//! - `suite`: the server targets of `BENCHMARKS.md` in one run, and their results table;
//!   `sizes`: how big each of its scenarios is; `judge`: each target's verdict.

pub mod ai;
pub mod arena;
pub mod backing;
pub mod capacity;
pub mod churn;
pub mod client;
pub mod cluster;
pub mod cluster_site;
pub mod convergence;
pub mod echo;
pub mod failover;
pub mod games;
pub mod idle;
pub mod judge;
pub mod league;
pub mod lobby_cost;
pub mod nodes;
pub mod pacer;
pub mod peer;
pub mod peer_judge;
pub mod relay;
pub mod report;
pub mod servers;
pub mod shards;
pub mod site;
pub mod sizes;
pub mod soak;
pub mod stamp;
pub mod suite;
pub mod target;
pub mod timeline;
pub mod usage;
pub mod watchers;

pub use report::{Latency, Report};
pub use usage::Usage;
