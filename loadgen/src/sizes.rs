//! The sizes of the suite's scenarios: the ones the targets name, and a quick run that only
//! checks that everything works.

use noughts_protocol::{Level, Variant};

use crate::ai::AiOptions;
use crate::arena::ArenaOptions;
use crate::echo::EchoOptions;
use crate::games::GamesOptions;
use crate::idle::IdleOptions;
use crate::relay::RelayOptions;
use crate::site::SiteOptions;
use crate::watchers::WatchersOptions;

/// The sizes of every scenario of the suite.
#[derive(Debug, Clone)]
pub struct Sizes {
    pub echo: EchoOptions,
    /// The relay baseline: as many connections as the echo run, in pairs.
    pub relay: RelayOptions,
    /// The saturation run: as many connections as the echo run, playing unpaced.
    pub saturation: GamesOptions,
    /// Rounds of the relay and the two saturation runs, one after another; each store's ratio is
    /// judged by its median round.
    pub saturation_rounds: usize,
    pub games: GamesOptions,
    pub ai: AiOptions,
    pub watchers: WatchersOptions,
    /// A watched game again, with paced games beside it (not a target: whether its fan-out holds
    /// up other games).
    pub beside: WatchersOptions,
    pub idle: IdleOptions,
    /// The site: listed games played through the lobby, followers and watchers.
    pub site: SiteOptions,
    /// The same listed games beside more and more lobby followers (and no watchers).
    pub flat: Vec<SiteOptions>,
    /// An arena: players paired by the server, back to it between games, and its watchers.
    pub arena: ArenaOptions,
    /// The capacity ramp (on the memory store), and with the peer, the peer's.
    pub capacity: CapacityOptions,
}

/// A ramp from `start` by `step` up to `max` games at `rate` moves a second, the site shaped as
/// the suite's (two followers and half a watcher a game).
fn ramp(
    start: usize,
    step: usize,
    max: usize,
    rate: f64,
    warmup: f64,
    secs: f64,
) -> CapacityOptions {
    CapacityOptions {
        start,
        step,
        max,
        followers_per_game: 2.0,
        watchers_per_game: 0.5,
        rate,
        p99_ms: 50.0,
        warmup,
        secs,
    }
}

/// How the ramp grows.
#[derive(Debug, Clone, clap::Args)]
pub struct CapacityOptions {
    /// Games at the first step.
    #[arg(long, default_value_t = 500)]
    pub start: usize,
    /// Games added at each step.
    #[arg(long, default_value_t = 500)]
    pub step: usize,
    /// The most games tried.
    #[arg(long, default_value_t = 8000)]
    pub max: usize,
    /// Lobby followers beside each game's two players (the site has two).
    #[arg(long, default_value_t = 2.0)]
    pub followers_per_game: f64,
    /// Watchers of featured games per game (the site has one for two games).
    #[arg(long, default_value_t = 0.5)]
    pub watchers_per_game: f64,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// The line: a step whose move p99 passes it (milliseconds) is not held.
    #[arg(long, default_value_t = 50.0)]
    pub p99_ms: f64,
    /// Seconds of warm-up at each step, and one more for each 1,000 connections of the step.
    #[arg(long, default_value_t = 10.0)]
    pub warmup: f64,
    /// The measured window of each step, in seconds.
    #[arg(long, default_value_t = 15.0)]
    pub secs: f64,
}

/// A site of `games` listed games at `rate` moves a second.
fn site(games: usize, followers: usize, watchers: usize, rate: f64, secs: f64) -> SiteOptions {
    SiteOptions {
        games,
        followers,
        watchers,
        rate,
        host_share: 0.05,
        warmup: (secs / 2.0).max(1.0),
        secs,
    }
}

impl Sizes {
    /// The sizes the targets name.
    pub fn full() -> Sizes {
        Sizes {
            echo: EchoOptions {
                connections: 100,
                size: 20,
                secs: 10.0,
            },
            relay: RelayOptions {
                pairs: 50,
                secs: 10.0,
            },
            saturation: GamesOptions {
                games: 50,
                rate: None,
                secs: 10.0,
            },
            saturation_rounds: 3,
            games: GamesOptions {
                games: 1000,
                rate: Some(1.0),
                secs: 30.0,
            },
            ai: AiOptions {
                ai_games: 200,
                variant: Variant::Cube,
                level: Level::Perfect,
                ai_rate: 1.0,
                games: 1000,
                rate: 1.0,
                secs: 30.0,
            },
            watchers: WatchersOptions {
                watchers: 5000,
                stalled: 2,
                rate: 8.0,
                moves: 64,
                join_at_once: 64,
                beside_games: 0,
            },
            beside: WatchersOptions {
                watchers: 5000,
                stalled: 0,
                rate: 8.0,
                moves: 64,
                join_at_once: 64,
                beside_games: 1000,
            },
            idle: IdleOptions {
                connections: 10_000,
                procs: 2,
                settle_secs: 3.0,
            },
            site: site(1000, 2000, 500, 1.0, 30.0),
            flat: [0, 1000, 5000]
                .map(|followers| site(500, followers, 0, 1.0, 20.0))
                .to_vec(),
            arena: ArenaOptions {
                players: 1000,
                watchers: 250,
                rate: 1.0,
                withdraw_share: 0.05,
                away_secs: 3.0,
                warmup: 15.0,
                secs: 30.0,
            },
            // Some 20 s a step; noughts held 1,500 games on one core of the reference machine.
            capacity: ramp(500, 500, 8000, 1.0, 8.0, 10.0),
        }
    }

    /// A few seconds in all, to see that everything still works.
    pub fn quick() -> Sizes {
        Sizes {
            echo: EchoOptions {
                connections: 10,
                size: 20,
                secs: 1.0,
            },
            relay: RelayOptions {
                pairs: 5,
                secs: 1.0,
            },
            saturation: GamesOptions {
                games: 5,
                rate: None,
                secs: 1.0,
            },
            saturation_rounds: 2,
            games: GamesOptions {
                games: 10,
                rate: Some(5.0),
                secs: 2.0,
            },
            ai: AiOptions {
                ai_games: 4,
                variant: Variant::Cube,
                level: Level::Perfect,
                ai_rate: 5.0,
                games: 10,
                rate: 5.0,
                secs: 2.0,
            },
            watchers: WatchersOptions {
                watchers: 20,
                stalled: 1,
                rate: 20.0,
                moves: 16,
                join_at_once: 8,
                beside_games: 0,
            },
            beside: WatchersOptions {
                watchers: 20,
                stalled: 0,
                rate: 20.0,
                moves: 16,
                join_at_once: 8,
                beside_games: 10,
            },
            idle: IdleOptions {
                connections: 50,
                procs: 2,
                settle_secs: 0.2,
            },
            site: SiteOptions {
                host_share: 0.3,
                ..site(10, 10, 5, 5.0, 2.0)
            },
            flat: [0, 10, 50]
                .map(|followers| site(5, followers, 0, 5.0, 1.5))
                .to_vec(),
            arena: ArenaOptions {
                players: 16,
                watchers: 4,
                rate: 5.0,
                withdraw_share: 0.3,
                away_secs: 0.5,
                warmup: 1.5,
                secs: 2.0,
            },
            capacity: ramp(4, 4, 8, 5.0, 1.5, 1.5),
        }
    }
}
