//! `noughts-loadgen`: drives a noughts server with real clients and reports what it measured.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use noughts_loadgen::ai::AiOptions;
use noughts_loadgen::echo::EchoOptions;
use noughts_loadgen::games::GamesOptions;
use noughts_loadgen::idle::IdleOptions;
use noughts_loadgen::peer::Peer;
use noughts_loadgen::relay::RelayOptions;
use noughts_loadgen::servers::Servers;
use noughts_loadgen::sizes::Sizes;
use noughts_loadgen::soak::{self, SoakOptions};
use noughts_loadgen::suite::{self, Launcher};
use noughts_loadgen::target::{self, Target};
use noughts_loadgen::watchers::WatchersOptions;
use noughts_loadgen::{Report, idle};
use noughts_protocol::{Level, Variant};

/// Load generator for the noughts server: human games, AI games, watchers, idle connections, and
/// the WebSocket echo baseline, with latency percentiles and the server's CPU and memory.
///
/// By default each run starts its own server (the `noughts-server` beside this binary, with
/// war games off, no AI pause and no rate limit) pinned to core 0, and pins itself to core 1.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(flatten)]
    common: Common,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct Common {
    /// Load a server that is already running (ws://HOST:PORT/) instead of starting one; for
    /// `echo`, an echo server.
    #[arg(long, global = true)]
    server: Option<String>,
    /// The pid of the server given with --server, to read its CPU and memory from /proc.
    #[arg(long, global = true)]
    server_pid: Option<u32>,
    /// The noughts-server binary to start (default: beside this one).
    #[arg(long, global = true)]
    server_bin: Option<PathBuf>,
    /// The noughts-echo binary to start (default: beside this one).
    #[arg(long, global = true)]
    echo_bin: Option<PathBuf>,
    /// Cores for a server this run starts, as a taskset list (default: 0 on two or more cores).
    #[arg(long, global = true)]
    server_cpus: Option<String>,
    /// Cores for this generator, as a taskset list (default: 1 when it starts the server).
    #[arg(long, global = true)]
    client_cpus: Option<String>,
    /// Pin nothing.
    #[arg(long, global = true)]
    no_pin: bool,
    /// Where a server this run starts keeps its database (a fresh file per server, removed
    /// afterwards; default: the system's temporary directory). The server writes every move
    /// durably before anyone hears of it, so this disk is part of what is measured.
    #[arg(long, global = true)]
    db_dir: Option<PathBuf>,
    /// Keep the started servers' games in memory instead of a database file.
    #[arg(long, global = true, conflicts_with = "db_dir")]
    memory_store: bool,
    /// When the started servers' moves reach the disk (`--durability` of noughts-server):
    /// `move`, before anyone hears of them (the default), or `interval`, within 10 ms after.
    #[arg(long, global = true, default_value = "move", value_parser = ["move", "interval"])]
    durability: String,
    /// Print the report as JSON.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Human-vs-human classic games, paced open loop (latency from each move's scheduled time to
    /// the opponent reading it) or, with --saturate, as fast as they go.
    Games {
        /// Games at once (two connections each).
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Moves per second per game.
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
        /// Send each move as soon as the last one arrives, instead of on a schedule.
        #[arg(long)]
        saturate: bool,
        /// Seconds to measure.
        #[arg(long, default_value_t = 30.0)]
        secs: f64,
    },
    /// Games against an AI seat, beside paced human games; the human games' latency is reported.
    Ai {
        /// Games against the AI (one connection each).
        #[arg(long, default_value_t = 200)]
        ai_games: usize,
        #[arg(long, default_value = "cube")]
        variant: Variant,
        #[arg(long, default_value = "perfect")]
        level: Level,
        /// The person's moves per second in each AI game.
        #[arg(long, default_value_t = 1.0)]
        ai_rate: f64,
        /// Human-vs-human games beside them.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Moves per second per human game.
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
        #[arg(long, default_value_t = 30.0)]
        secs: f64,
    },
    /// One qubic game with many watchers: latency from each move to the last watcher reading it;
    /// watchers that stop reading must be dropped.
    Watchers {
        #[arg(long, default_value_t = 5000)]
        watchers: usize,
        /// Watchers that stop reading once they have joined.
        #[arg(long, default_value_t = 2)]
        stalled: usize,
        /// Moves per second.
        #[arg(long, default_value_t = 8.0)]
        rate: f64,
        /// Moves to measure (at most 64).
        #[arg(long, default_value_t = 64)]
        moves: usize,
        /// Watchers joining at once.
        #[arg(long, default_value_t = 64)]
        join_at_once: usize,
        /// Classic games (1 move/s each) played beside the watched game; the report is then about
        /// their latency, the watchers' in its figures.
        #[arg(long, default_value_t = 0)]
        beside_games: usize,
    },
    /// Idle connections (hello, then nothing): the server's memory per connection.
    Idle {
        #[arg(long, default_value_t = 10_000)]
        connections: usize,
        /// Processes to spread the clients over.
        #[arg(long, default_value_t = 2)]
        procs: usize,
        /// Seconds to hold them before reading the server's memory.
        #[arg(long, default_value_t = 3.0)]
        settle_secs: f64,
    },
    /// The echo baseline: connections each with one message in flight, against noughts-echo.
    Echo {
        #[arg(long, default_value_t = 100)]
        connections: usize,
        /// Bytes per message.
        #[arg(long, default_value_t = 20)]
        size: usize,
        #[arg(long, default_value_t = 10.0)]
        secs: f64,
    },
    /// The relay baseline: pairs of connections against noughts-echo, each frame one side sends
    /// relayed to the other and acknowledged to the sender, one in flight per pair.
    Relay {
        #[arg(long, default_value_t = 50)]
        pairs: usize,
        #[arg(long, default_value_t = 10.0)]
        secs: f64,
    },
    /// The server targets in one run, beside the echo and relay baselines; rewrites the Server
    /// table of BENCHMARKS.md.
    Suite {
        /// Small sizes, a few seconds in all.
        #[arg(long)]
        quick: bool,
        /// The file whose Server results to rewrite.
        #[arg(long, default_value = "BENCHMARKS.md")]
        write: PathBuf,
        /// Leave BENCHMARKS.md alone.
        #[arg(long)]
        no_write: bool,
        /// Only the site and the arena, the arena judged against the site; BENCHMARKS.md is
        /// left alone.
        #[arg(long)]
        arena_only: bool,
        /// With --server: the echo server to measure against.
        #[arg(long)]
        echo: Option<String>,
        /// Also run the workloads against the Colyseus peer in this folder
        /// (bench/peer/colyseus, its node_modules installed; needs node).
        #[arg(long)]
        peer: Option<PathBuf>,
    },
    /// The churn soak: clients connect, play (quick match and AI), watch, chat, drop without a
    /// close and come back (resuming or as someone new), over and over; the server's memory and
    /// task count are sampled and must stay flat.
    Soak {
        /// Clients in the population.
        #[arg(long, default_value_t = 100)]
        clients: usize,
        /// How long to run, in seconds.
        #[arg(long, default_value_t = 1800.0)]
        secs: f64,
        /// Seconds between two samples of the server.
        #[arg(long, default_value_t = 5.0)]
        sample_secs: f64,
        /// The chance that a player drops its connection instead of making a move.
        #[arg(long, default_value_t = 0.04)]
        drop_chance: f64,
        /// With --server: its metrics endpoint (http://HOST:PORT/metrics), for the task count. A
        /// server this run starts serves one on a loopback port.
        #[arg(long)]
        metrics: Option<String>,
        /// Also print every sample (with --json they are always included).
        #[arg(long)]
        samples: bool,
    },
    /// Several nodes: paced games on one node (SQLite), one node (PostgreSQL) and a cluster
    /// (PostgreSQL and Redis, players of a game on one node or two), lobby convergence between
    /// the nodes, and the failover time when a node is killed. Starts every server itself.
    Cluster(noughts_loadgen::cluster::ClusterArgs),
    /// The site: players who follow the lobby, quick-match or use public rooms into listed
    /// games and play them at a pace, lobby followers and watchers of featured games, as the
    /// shipped clients behave.
    Site(noughts_loadgen::site::SiteOptions),
    /// An arena: players with accounts who join it, are paired by the server, play at the
    /// site's pace and come back to it between games (some withdraw and join again), and
    /// watchers of its standings.
    Arena(noughts_loadgen::arena::ArenaOptions),
    /// The capacity ramp: the site grown step by step, a fresh server each step, until the move
    /// p99 passes the line or errors appear; prints the most concurrent games held.
    Capacity {
        #[command(flatten)]
        options: noughts_loadgen::capacity::CapacityOptions,
        /// Ramp the Colyseus peer in this folder instead (bench/peer/colyseus, its
        /// node_modules installed; needs node): its site on Colyseus's LobbyRoom.
        #[arg(long)]
        peer: Option<PathBuf>,
    },
    /// The engines' league as the server plays it: a server started with its war games back to
    /// back on a fresh database file (kept, in --db-dir), until each variant has counted
    /// --games; prints each variant's table (points, ratings with two deviations) as Markdown.
    League(noughts_loadgen::league::LeagueOptions),
    /// One process of a spread `idle` run (started by `idle --procs N`).
    #[command(hide = true)]
    IdleShard {
        #[arg(long)]
        connections: usize,
        #[arg(long, default_value = "i")]
        prefix: String,
    },
}

impl Command {
    /// Connections the server must admit.
    fn connections(&self) -> usize {
        match self {
            Command::Games { games, .. } => games * 2,
            Command::Ai {
                ai_games, games, ..
            } => games * 2 + ai_games,
            Command::Watchers {
                watchers,
                stalled,
                beside_games,
                ..
            } => watchers + stalled + 2 + beside_games * 2,
            Command::Idle { connections, .. } | Command::IdleShard { connections, .. } => {
                *connections
            }
            Command::Echo { connections, .. } => *connections,
            Command::Relay { pairs, .. } => pairs * 2,
            Command::Soak { clients, .. } => *clients * 2,
            Command::Suite { .. } => 10_000,
            Command::Cluster(args) => args.games * 2,
            Command::Site(site) => site.games * 2 + site.followers + site.watchers,
            Command::Arena(arena) => arena.players + arena.watchers,
            Command::Capacity { .. } | Command::League(_) => 0,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("noughts-loadgen: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let common = &cli.common;
    // The cluster's servers share the machine's cores with PostgreSQL and Redis: nothing is
    // pinned there.
    let starts_servers = common.server.is_none()
        && !matches!(cli.command, Command::IdleShard { .. } | Command::Cluster(_));
    let pin = !common.no_pin && starts_servers && target::can_pin();
    let server_cpus = common
        .server_cpus
        .clone()
        .or_else(|| pin.then(|| "0".to_owned()));
    let client_cpus = common
        .client_cpus
        .clone()
        .or_else(|| pin.then(|| "1".to_owned()));
    if let Some(cpus) = client_cpus.as_deref().filter(|_| !common.no_pin) {
        target::pin_self(cpus)?;
    }
    // On one core (pinned), a single-threaded runtime spends less per frame than a pool of one.
    let one_core = std::thread::available_parallelism().map_or(true, |n| n.get() == 1);
    let mut builder = if one_core {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = builder
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let servers = Servers {
        external: common.server.clone(),
        external_echo: match &cli.command {
            Command::Suite { echo, .. } => echo.clone(),
            _ => None,
        },
        pid: common.server_pid,
        server_bin: common
            .server_bin
            .clone()
            .unwrap_or_else(|| target::sibling("noughts-server")),
        echo_bin: common
            .echo_bin
            .clone()
            .unwrap_or_else(|| target::sibling("noughts-echo")),
        cpus: if common.no_pin { None } else { server_cpus },
        db_dir: (!common.memory_store)
            .then(|| common.db_dir.clone().unwrap_or_else(std::env::temp_dir)),
        durability: common.durability.clone(),
    };
    runtime.block_on(async {
        let report = match &cli.command {
            Command::IdleShard {
                connections,
                prefix,
            } => {
                let url = common
                    .server
                    .as_deref()
                    .context("idle-shard needs --server")?;
                idle::shard(url, *connections, prefix).await?;
                return Ok(ExitCode::SUCCESS);
            }
            Command::Suite {
                quick,
                arena_only: true,
                ..
            } => {
                return arena_command(&servers, common, *quick).await;
            }
            Command::Suite {
                quick,
                write,
                no_write,
                peer,
                ..
            } => {
                let peer = peer
                    .as_deref()
                    .map(|dir| Peer::at(dir, servers.cpus.clone()))
                    .transpose()?;
                let output = SuiteOutput {
                    write,
                    no_write: *no_write,
                };
                return suite_command(&servers, common, *quick, &output, peer.as_ref()).await;
            }
            Command::Soak {
                clients,
                secs,
                sample_secs,
                drop_chance,
                metrics,
                samples,
            } => {
                let soak = SoakArgs {
                    clients: *clients,
                    secs: *secs,
                    sample_secs: *sample_secs,
                    drop_chance: *drop_chance,
                    metrics: metrics.clone(),
                    samples: *samples,
                };
                return soak_command(&servers, common, &soak).await;
            }
            Command::Cluster(args) => return cluster_command(&servers, args, common.json).await,
            Command::League(options) => return league_command(&servers, options).await,
            Command::Capacity { options, peer } => {
                return capacity_command(&servers, common, options, peer.as_deref()).await;
            }
            Command::Echo {
                connections,
                size,
                secs,
            } => {
                let target = servers.echo()?;
                let options = EchoOptions {
                    connections: *connections,
                    size: *size,
                    secs: *secs,
                };
                noughts_loadgen::echo::run(&target.url, target.probe, &options).await?
            }
            Command::Relay { pairs, secs } => {
                let target = servers.echo()?;
                let options = RelayOptions {
                    pairs: *pairs,
                    secs: *secs,
                };
                noughts_loadgen::relay::run(&target.url, target.probe, &options).await?
            }
            command => {
                let target = servers.server(command.connections())?;
                scenario(command, &target).await?
            }
        };
        if common.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{report}");
        }
        Ok(if report.error_count() == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        })
    })
}

/// `cluster`: the several-nodes benchmark, its servers started in the database directory.
async fn cluster_command(
    servers: &Servers,
    args: &noughts_loadgen::cluster::ClusterArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let db_dir = servers.db_dir.clone().unwrap_or_else(std::env::temp_dir);
    noughts_loadgen::shards::command(args, &servers.server_bin, &db_dir, json).await
}

/// `league`: the league played by a server this run starts, its tables printed.
async fn league_command(
    servers: &Servers,
    options: &noughts_loadgen::league::LeagueOptions,
) -> anyhow::Result<ExitCode> {
    let db_dir = servers.db_dir.clone().unwrap_or_else(std::env::temp_dir);
    let (bin, cpus) = (&servers.server_bin, servers.cpus.as_deref());
    let tables = noughts_loadgen::league::command(bin, &db_dir, cpus, options).await?;
    print!("{tables}");
    Ok(ExitCode::SUCCESS)
}

/// `suite`: every target, against fresh servers, with its verdicts printed and BENCHMARKS.md
/// rewritten unless told not to.
async fn suite_command(
    servers: &Servers,
    common: &Common,
    quick: bool,
    output: &SuiteOutput<'_>,
    peer: Option<&Peer>,
) -> anyhow::Result<ExitCode> {
    let sizes = if quick { Sizes::quick() } else { Sizes::full() };
    let pinned = servers.cpus.is_some();
    let mut result = suite::run(servers, &sizes, pinned, !common.json, peer).await?;
    result.store = match (&servers.external, &servers.db_dir) {
        (Some(_), _) => "whatever store the running server has".to_owned(),
        (None, Some(dir)) if servers.durability == "interval" => format!(
            "a fresh SQLite file in `{}` (`--durability interval`: each move written before it \
             is sent, on disk within 10 ms)",
            dir.display()
        ),
        (None, Some(dir)) => format!(
            "a fresh SQLite file in `{}` (on disk, written durably before each move is sent)",
            dir.display()
        ),
        (None, None) => "memory (`--db :memory:`)".to_owned(),
    };
    if common.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        for verdict in &result.verdicts {
            println!(
                "{} {}\n    {}",
                match verdict.label() {
                    "miss" => "MISS",
                    "not judged" => "----",
                    label => label,
                },
                verdict.target,
                verdict.measured
            );
        }
    }
    if !output.no_write {
        suite::write_benchmarks(output.write, &result)?;
        eprintln!("wrote {}", output.write.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `capacity`: the ramp against noughts, or with `peer` against the Colyseus peer; prints each
/// step as it goes and the most concurrent games held.
/// `suite --arena-only`: the site and the arena, the arena's verdict printed.
async fn arena_command(
    servers: &Servers,
    common: &Common,
    quick: bool,
) -> anyhow::Result<ExitCode> {
    let sizes = if quick { Sizes::quick() } else { Sizes::full() };
    let (reports, verdict) = suite::arena_only(servers, &sizes, !common.json).await?;
    if common.json {
        let both = serde_json::json!({ "reports": reports, "verdict": verdict });
        println!("{}", serde_json::to_string_pretty(&both)?);
    } else {
        println!(
            "{} {}\n    {}",
            verdict.label(),
            verdict.target,
            verdict.measured
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn capacity_command(
    servers: &Servers,
    common: &Common,
    options: &noughts_loadgen::capacity::CapacityOptions,
    peer: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    use noughts_loadgen::capacity::{self, Noughts, Step};
    let say = |step: &Step| eprintln!("  {step}");
    let ramp = match peer.map(|dir| Peer::at(dir, servers.cpus.clone())) {
        Some(peer) => capacity::run(&peer?, options, &say).await?,
        None => capacity::run(&Noughts(&|c| servers.server(c)), options, &say).await?,
    };
    if common.json {
        println!("{}", serde_json::to_string_pretty(&ramp)?);
    } else {
        print!("{ramp}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the suite's results go.
struct SuiteOutput<'a> {
    /// The file whose Server results to rewrite.
    write: &'a std::path::Path,
    /// Leave it alone.
    no_write: bool,
}

/// The `soak` command's settings.
struct SoakArgs {
    clients: usize,
    secs: f64,
    sample_secs: f64,
    drop_chance: f64,
    metrics: Option<String>,
    samples: bool,
}

/// `soak`: churning clients for a while, the server's memory and tasks sampled; fails when they
/// grow.
async fn soak_command(
    servers: &Servers,
    common: &Common,
    soak: &SoakArgs,
) -> anyhow::Result<ExitCode> {
    let target = match &servers.external {
        Some(url) => Target::external(url, servers.pid),
        None => Target::start_server_with(
            &servers.server_bin,
            soak.clients * 2,
            servers.db_dir.as_deref(),
            servers.cpus.as_deref(),
            &["--metrics-listen".to_owned(), "127.0.0.1:0".to_owned()],
        )?,
    };
    let options = SoakOptions {
        clients: soak.clients,
        secs: soak.secs,
        sample_secs: soak.sample_secs,
        metrics: soak.metrics.clone().or_else(|| target.metrics.clone()),
        drop_chance: soak.drop_chance,
    };
    let result = soak::run(&target.url, target.probe, &options).await?;
    if common.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        if soak.samples {
            for p in &result.samples {
                println!(
                    "{:>8.1} s  rss {:>8} KiB  tasks {:>6}  connections {:>6}",
                    p.secs,
                    p.rss_kib.map_or("-".into(), |v| v.to_string()),
                    p.tasks.map_or("-".into(), |v| v.to_string()),
                    p.connections.map_or("-".into(), |v| v.to_string()),
                );
            }
        }
        print!("{result}");
    }
    Ok(if result.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

async fn scenario(command: &Command, target: &Target) -> anyhow::Result<Report> {
    let (url, probe) = (target.url.as_str(), target.probe);
    match command {
        Command::Games {
            games,
            rate,
            saturate,
            secs,
        } => {
            let options = GamesOptions {
                games: *games,
                rate: (!saturate).then_some(*rate),
                secs: *secs,
            };
            noughts_loadgen::games::run(url, probe, &options).await
        }
        Command::Ai {
            ai_games,
            variant,
            level,
            ai_rate,
            games,
            rate,
            secs,
        } => {
            let options = AiOptions {
                ai_games: *ai_games,
                variant: *variant,
                level: *level,
                ai_rate: *ai_rate,
                games: *games,
                rate: *rate,
                secs: *secs,
            };
            noughts_loadgen::ai::run(url, probe, &options).await
        }
        Command::Watchers {
            watchers,
            stalled,
            rate,
            moves,
            join_at_once,
            beside_games,
        } => {
            let options = WatchersOptions {
                watchers: *watchers,
                stalled: *stalled,
                rate: *rate,
                moves: *moves,
                join_at_once: *join_at_once,
                beside_games: *beside_games,
            };
            noughts_loadgen::watchers::run(url, probe, &options).await
        }
        Command::Site(options) => noughts_loadgen::site::run(url, probe, options).await,
        Command::Arena(options) => noughts_loadgen::arena::run(url, probe, options).await,
        Command::Idle {
            connections,
            procs,
            settle_secs,
        } => {
            let options = IdleOptions {
                connections: *connections,
                procs: *procs,
                settle_secs: *settle_secs,
            };
            noughts_loadgen::idle::run(url, probe, &options).await
        }
        Command::Echo { .. }
        | Command::Relay { .. }
        | Command::Suite { .. }
        | Command::Soak { .. }
        | Command::Cluster(_)
        | Command::Capacity { .. }
        | Command::League(_)
        | Command::IdleShard { .. } => {
            unreachable!("handled before")
        }
    }
}
