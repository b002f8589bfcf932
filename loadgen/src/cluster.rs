//! The several-nodes benchmark in one run: paced games on one node (SQLite), one node
//! (PostgreSQL) and a cluster of nodes (PostgreSQL and Redis, players of a game on the same node
//! or on two), lobby convergence between the nodes, and the failover time when a node is killed.
//! Every server is started here, each part on a fresh database.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use tokio::time::{Instant, sleep_until};

use crate::backing::{Backing, BackingWork};
use crate::convergence::{self, Convergence};
use crate::failover::{self, Failover, FailoverOptions};
use crate::games::{self, Tally};
use crate::nodes::{Launch, OwnBacking};
use crate::report::{Latency, Recorder};
use crate::target::{Target, Window};
use crate::timeline::{Second, Timeline};

/// The seconds of a paced run counted as its warm-up: the steady-state figures leave them out.
pub const WARM_UP_SECS: usize = 5;

/// The parts of a cluster run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
pub enum Part {
    /// Paced games on one node keeping its games in a SQLite file.
    Sqlite,
    /// Paced games on one node (no Redis) keeping its games in PostgreSQL.
    Postgres,
    /// Lobby convergence between the nodes of a cluster.
    Lobby,
    /// Paced games spread over the nodes of a cluster.
    Nodes,
    /// A node killed under live games; its players back on the others.
    Failover,
    /// The site scenario spread over the nodes, the lobby's Redis messages counted by node.
    Site,
}

/// The `cluster` command's settings.
#[derive(Debug, Clone, clap::Args)]
pub struct ClusterArgs {
    /// The Redis the nodes share (redis://[USER:PASSWORD@]HOST:PORT). Without it, the run starts
    /// a `redis-server` of its own (asking a password, as a site's must, and saving nothing).
    #[arg(long)]
    pub redis: Option<String>,
    /// A PostgreSQL server (postgres://USER[:PASSWORD]@HOST:PORT[/NAME]): each part gets a fresh
    /// database there, made with `createdb`. Without it, the run starts a PostgreSQL of its own
    /// (`initdb` in a temporary directory; PostgreSQL's default settings, durable commits
    /// included; as `nobody` when run as root).
    #[arg(long)]
    pub postgres: Option<String>,
    /// The port of the Redis the run starts of its own (PostgreSQL's takes the next); free ports
    /// when not given.
    #[arg(long)]
    pub backing_port: Option<u16>,
    /// Run on a Redis Cluster of this many shards (a primary and a replica each) that the run
    /// starts of its own through the kit, instead of one Redis (0: one Redis, not a cluster); a
    /// list (`0,1,2,3`) runs the parts once on each, and ends with what each shard's Redis did a
    /// move at each size.
    #[arg(long, value_delimiter = ',', conflicts_with = "redis")]
    pub redis_shards: Vec<usize>,
    /// Nodes in the cluster.
    #[arg(long, default_value_t = 3)]
    pub nodes: usize,
    /// Paced games in each of the games parts (two connections each).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Seconds each games part is measured.
    #[arg(long, default_value_t = 30.0)]
    pub secs: f64,
    /// The share of the cluster's games whose two players are on different nodes.
    #[arg(long, default_value_t = 0.5)]
    pub cross: f64,
    /// Rooms opened (and closed) for lobby convergence.
    #[arg(long, default_value_t = 300)]
    pub lobby_rooms: usize,
    /// Milliseconds between two rooms.
    #[arg(long, default_value_t = 20)]
    pub lobby_gap_ms: u64,
    /// Games against the AI on the node that is killed.
    #[arg(long, default_value_t = 100)]
    pub failover_ai: usize,
    /// Human pairs on the node that is killed.
    #[arg(long, default_value_t = 50)]
    pub failover_pairs: usize,
    /// The nodes' lease (--lease-ms): a dead node's games are taken over after it.
    #[arg(long, default_value_t = 5000)]
    pub lease_ms: u64,
    /// The cluster's secret (the nodes' --cluster-secret-file), under which the nodes sign what
    /// they send each other; without it they run with --insecure-cluster and sign nothing.
    #[arg(long, value_name = "PATH")]
    pub cluster_secret_file: Option<PathBuf>,
    /// The parts to run, in order.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "sqlite,postgres,lobby,nodes,site,failover"
    )]
    pub parts: Vec<Part>,
    /// Also write the results as Markdown to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The launch of a run with `args`: on the Redis and PostgreSQL they name, or on ones it starts
/// of its own (up while the [`OwnBacking`] is): a Redis Cluster of `shards` shards if given.
pub async fn launch(
    args: &ClusterArgs,
    server_bin: &Path,
    shards: Option<usize>,
) -> anyhow::Result<(Launch, OwnBacking)> {
    let mut own = OwnBacking::default();
    let redis = match (&args.redis, shards) {
        (Some(url), _) => url.clone(),
        (None, Some(shards)) if shards > 0 => own.redis_cluster(shards).await?,
        (None, _) => own.redis(args.backing_port).await?,
    };
    let postgres = match &args.postgres {
        Some(url) => url.clone(),
        None => own.postgres(args.backing_port.map(|port| port + 1)).await?,
    };
    let launch = Launch {
        server_bin: server_bin.to_owned(),
        redis,
        postgres,
        connections: args.games * 2,
        secret: args.cluster_secret_file.clone(),
    };
    Ok((launch, own))
}

/// One setup's paced games.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MovesRow {
    pub setup: String,
    pub games: usize,
    /// Games whose players are on two nodes.
    pub cross_games: usize,
    pub moves_per_sec: f64,
    pub latency: Option<Latency>,
    /// From the second [`WARM_UP_SECS`] on.
    pub steady: Option<Latency>,
    /// Games with both players on one node, and games across two (cluster only).
    pub same_node: Option<Latency>,
    pub cross_node: Option<Latency>,
    /// Each server's CPU seconds over the window.
    pub server_cpu_secs: Vec<f64>,
    pub generator_cpu_secs: Option<f64>,
    pub errors: std::collections::BTreeMap<String, u64>,
    /// What Redis and PostgreSQL did a move over the window, where the setup has them.
    #[serde(default)]
    pub backing: Option<BackingWork>,
    /// Latency by the second of the schedule.
    pub seconds: Vec<Second>,
}

/// Everything a cluster run measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClusterResult {
    /// `/proc/loadavg`'s first three fields at the start and at the end.
    pub load_start: String,
    pub load_end: String,
    pub nodes: usize,
    pub lease_ms: u64,
    /// Whether the nodes signed what they sent each other (a cluster secret was given).
    #[serde(default)]
    pub signed: bool,
    /// Paced games in each games part, and the seconds each was measured.
    pub games: usize,
    pub secs: f64,
    /// Moves a second a game.
    #[serde(default)]
    pub rate: f64,
    pub rows: Vec<MovesRow>,
    pub convergence: Option<Convergence>,
    pub failover: Option<Failover>,
    pub site: Option<crate::cluster_site::ClusterSite>,
    /// The shards of the Redis Cluster the nodes ran on; `None` for one Redis.
    #[serde(default)]
    pub redis_shards: Option<usize>,
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Runs the parts of `args`, starting the servers with `launch`; SQLite files go in `db_dir`.
pub async fn run(
    args: &ClusterArgs,
    launch: &Launch,
    db_dir: &Path,
) -> anyhow::Result<ClusterResult> {
    let mut result = ClusterResult {
        load_start: load_average(),
        nodes: args.nodes,
        lease_ms: args.lease_ms,
        signed: args.cluster_secret_file.is_some(),
        games: args.games,
        secs: args.secs,
        rate: args.rate,
        ..ClusterResult::default()
    };
    let connections = args.games * 2;
    let mut cluster: Option<Vec<Target>> = None;
    for part in &args.parts {
        eprintln!("cluster: {part:?} (load average {})", load_average());
        match part {
            Part::Sqlite => {
                let node =
                    Target::start_server(&launch.server_bin, connections, Some(db_dir), None)?;
                let row = paced("one node, SQLite", &[node], 0, args, None, None).await;
                result.rows.push(row);
            }
            Part::Postgres => {
                let node = launch.lone_postgres("one")?;
                let postgres = Some(launch.postgres.as_str());
                let row = paced("one node, PostgreSQL", &[node], 0, args, None, postgres).await;
                result.rows.push(row);
            }
            Part::Lobby | Part::Nodes => {
                let nodes = match cluster.take() {
                    Some(nodes) => nodes,
                    None => launch.cluster("three", args.nodes, args.lease_ms)?,
                };
                if *part == Part::Lobby {
                    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
                    let gap = Duration::from_millis(args.lobby_gap_ms);
                    result.convergence =
                        Some(convergence::run(&urls, args.lobby_rooms, gap).await?);
                    cluster = Some(nodes);
                } else {
                    let cross = (args.games as f64 * args.cross.clamp(0.0, 1.0)).round() as usize;
                    let setup = format!("{} nodes, PostgreSQL + Redis", nodes.len());
                    let redis = Some(launch.redis.as_str());
                    let postgres = Some(launch.postgres.as_str());
                    let row = paced(&setup, &nodes, cross, args, redis, postgres).await;
                    result.rows.push(row);
                }
            }
            Part::Site => {
                let nodes = match cluster.take() {
                    Some(nodes) => nodes,
                    None => launch.cluster("site", args.nodes, args.lease_ms)?,
                };
                let options = crate::site::SiteOptions {
                    games: args.games,
                    followers: args.games * 2,
                    watchers: args.games / 2,
                    rate: args.rate,
                    host_share: 0.05,
                    warmup: (args.secs / 3.0).clamp(1.0, 10.0),
                    secs: args.secs,
                };
                let rooms = args.lobby_rooms.min(100);
                let site = crate::cluster_site::run(&nodes, launch, &options, rooms).await?;
                result.site = Some(site);
                cluster = Some(nodes);
            }
            Part::Failover => {
                // The earlier part's nodes die here; their games' ids come again from the fresh
                // database, so their leases must have run out in Redis first (two lease times).
                let earlier = cluster.take();
                if earlier.is_some() {
                    drop(earlier);
                    tokio::time::sleep(Duration::from_millis(2 * args.lease_ms)).await;
                }
                let nodes = launch.cluster("fail", args.nodes, args.lease_ms)?;
                let options = FailoverOptions {
                    ai_games: args.failover_ai,
                    pairs: args.failover_pairs,
                    lease_ms: args.lease_ms,
                };
                result.failover = Some(failover::run(&nodes, &options).await?);
            }
        }
    }
    result.load_end = load_average();
    Ok(result)
}

/// Where each game's two players connect: (A's server, B's server).
type Places = Vec<(String, String)>;

/// Which node each player of each game connects to: game `i`'s A on node `i mod n`, its B on the
/// same node for the first `games − cross` games and on the next node for the rest.
fn places(urls: &[String], games: usize, cross: usize) -> (Places, Places) {
    let n = urls.len();
    let cross = if n < 2 { 0 } else { cross.min(games) };
    let place = |i: usize, step: usize| (urls[i % n].clone(), urls[(i + step) % n].clone());
    let same = (0..games - cross).map(|i| place(i, 0)).collect();
    let across = (games - cross..games).map(|i| place(i, 1)).collect();
    (same, across)
}

/// Paced games against `nodes`, `cross` of them with their players on two nodes; what the
/// `redis` and `postgres` behind them did meanwhile is counted.
async fn paced(
    setup: &str,
    nodes: &[Target],
    cross: usize,
    args: &ClusterArgs,
    redis: Option<&str>,
    postgres: Option<&str>,
) -> MovesRow {
    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
    let (same_places, cross_places) = places(&urls, args.games, cross);
    let (same, across) = (Arc::new(Tally::default()), Arc::new(Tally::default()));
    let (same_pairs, cross_pairs) = tokio::join!(
        games::seat_pairs_named(same_places, "s", &same),
        games::seat_pairs_named(cross_places, "c", &across),
    );
    let cross_games = cross_pairs.len();
    let period = Duration::from_secs_f64(1.0 / args.rate.max(1e-3));
    let start = Instant::now() + Duration::from_millis(100);
    let end = start + Duration::from_secs_f64(args.secs);
    same.timeline.start(start);
    across.timeline.start(start);
    // Read before the window (psql takes some milliseconds), so the first moves go out on time.
    let backing = Backing::start(redis, postgres).await;
    sleep_until(start).await;
    let windows: Vec<Window> = nodes.iter().map(|n| Window::start(n.probe)).collect();
    let measured = tokio::spawn(async move {
        sleep_until(end).await;
        windows.iter().map(Window::end).collect::<Vec<_>>()
    });
    // The cross games' moves fall between the others'.
    let offset = period / (2 * cross_games.max(1) as u32);
    tokio::join!(
        games::play_pairs(same_pairs, Some(period), start, end, &same),
        games::play_pairs(cross_pairs, Some(period), start + offset, end, &across),
    );
    let ends = measured.await.unwrap_or_default();
    let backing = match backing {
        Ok(backing) => backing.end().await,
        Err(err) => Err(err),
    };
    let all = Recorder::default();
    let timeline = Timeline::default();
    for tally in [&same, &across] {
        all.absorb(&tally.latency);
        timeline.absorb(&tally.timeline);
    }
    let mut errors = same.errors.snapshot();
    for (kind, n) in across.errors.snapshot() {
        *errors.entry(kind).or_default() += n;
    }
    let moves = same.moves.load(Ordering::Relaxed) + across.moves.load(Ordering::Relaxed);
    let backing = match backing {
        Ok(work) => Some(work.per(moves as f64)),
        Err(err) => {
            *errors
                .entry(format!("backing counters: {err:#}"))
                .or_default() += 1;
            None
        }
    };
    let secs = ends.first().map_or(args.secs, |(elapsed, _, _)| {
        elapsed.as_secs_f64().min(args.secs)
    });
    MovesRow {
        setup: setup.to_owned(),
        games: args.games,
        cross_games,
        moves_per_sec: moves as f64 / secs,
        latency: all.latency(),
        steady: timeline.since(WARM_UP_SECS),
        same_node: (nodes.len() > 1).then(|| same.latency.latency()).flatten(),
        cross_node: across.latency.latency(),
        server_cpu_secs: ends
            .iter()
            .filter_map(|(_, server, _)| server.map(|u| u.cpu_secs))
            .collect(),
        generator_cpu_secs: ends
            .first()
            .and_then(|(_, _, generator)| generator.map(|u| u.cpu_secs)),
        errors,
        backing,
        seconds: timeline.seconds(),
    }
}

fn ms(us: u64) -> String {
    if us >= 100_000 {
        format!("{:.0} ms", us as f64 / 1000.0)
    } else {
        format!("{:.2} ms", us as f64 / 1000.0)
    }
}

/// `p50 …, p99 …, max …` of a latency, or a dash.
fn percentiles(latency: Option<&Latency>) -> String {
    latency.map_or("—".to_owned(), |l| {
        format!(
            "p50 {}, p99 {}, max {} (n = {})",
            ms(l.p50_us),
            ms(l.p99_us),
            ms(l.max_us),
            l.count
        )
    })
}

fn errors(errors: &std::collections::BTreeMap<String, u64>) -> String {
    if errors.is_empty() {
        return "none".to_owned();
    }
    let list: Vec<String> = errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
    list.join(", ")
}

impl ClusterResult {
    /// Errors of every part, rooms missed and games that did not come back intact.
    pub fn error_count(&self) -> u64 {
        let rows: u64 = self.rows.iter().flat_map(|r| r.errors.values()).sum();
        let lobby = self.convergence.as_ref().map_or(0, |c| {
            c.errors.values().sum::<u64>() + c.missed_added + c.missed_removed
        });
        let failover = self.failover.as_ref().map_or(0, |f| {
            f.errors.values().sum::<u64>() + f.players.saturating_sub(f.intact)
        });
        let site = self.site.as_ref().map_or(0, |s| s.site.error_count());
        rows + lobby + failover + site
    }

    /// The results as Markdown: the games table, then lobby convergence and failover.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "Load average {} at the start, {} at the end; {} games at {} s each, {} nodes, \
             lease {} ms, messages between nodes {}.\n\n",
            self.load_start,
            self.load_end,
            self.games,
            self.secs,
            self.nodes,
            self.lease_ms,
            if self.signed {
                "signed (HMAC-SHA256)"
            } else {
                "unsigned (--insecure-cluster)"
            }
        );
        if !self.rows.is_empty() {
            out.push_str(
                "| setup | moves/s | p50 | p99 | p99.9 | max | p99 after the first 5 s | server CPU s | errors |\n\
                 |---|---|---|---|---|---|---|---|---|\n",
            );
        }
        for row in &self.rows {
            let l = row.latency.unwrap_or_default();
            let cpu: Vec<String> = row
                .server_cpu_secs
                .iter()
                .map(|c| format!("{c:.2}"))
                .collect();
            out.push_str(&format!(
                "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} |\n",
                row.setup,
                row.moves_per_sec,
                ms(l.p50_us),
                ms(l.p99_us),
                ms(l.p999_us),
                ms(l.max_us),
                row.steady.map_or("—".to_owned(), |s| ms(s.p99_us)),
                cpu.join(" + "),
                errors(&row.errors),
            ));
        }
        for row in self
            .rows
            .iter()
            .filter(|r| r.same_node.is_some() || r.cross_games > 0)
        {
            out.push_str(&format!(
                "\n{}: games on one node {}; games across two nodes ({} of {}) {}.\n",
                row.setup,
                percentiles(row.same_node.as_ref()),
                row.cross_games,
                row.games,
                percentiles(row.cross_node.as_ref()),
            ));
        }
        out.push_str(&self.backing_markdown());
        if let Some(c) = &self.convergence {
            out.push_str(&format!(
                "\nLobby convergence, {} public rooms opened and closed one at a time over the \
                 nodes: shown on another node {}; gone from another node {}; shown on the room's \
                 own node {}; listed in a fresh snapshot from another node {}; missed within 5 \
                 s: {} and {} of {}; errors {}.\n",
                c.rooms,
                percentiles(c.added.as_ref()),
                percentiles(c.removed.as_ref()),
                percentiles(c.added_here.as_ref()),
                percentiles(c.listed.as_ref()),
                c.missed_added,
                c.missed_removed,
                c.expected,
                errors(&c.errors),
            ));
        }
        if let Some(site) = &self.site {
            out.push_str(&site.markdown());
        }
        if let Some(f) = &self.failover {
            out.push_str(&format!(
                "\nFailover, lease {} ms, {} players with live games on the killed node: kill to \
                 socket closed {}; kill to welcome on another node {}; **kill to `game_state` \
                 {}**; {} players found their game intact (every mark seen still there, seq \
                 not behind); {} of {} players to move moved on; errors {}.\n",
                f.lease_ms,
                f.players,
                percentiles(f.closed.as_ref()),
                percentiles(f.welcome.as_ref()),
                percentiles(f.resumed.as_ref()),
                f.intact,
                f.moved_on,
                f.to_move,
                errors(&f.errors),
            ));
        }
        out
    }

    /// What Redis and PostgreSQL did a move in each setup that has them.
    fn backing_markdown(&self) -> String {
        let rows: Vec<(&MovesRow, &BackingWork)> = (self.rows.iter())
            .filter_map(|row| Some((row, row.backing.as_ref()?)))
            .collect();
        if rows.is_empty() {
            return String::new();
        }
        let mut out = "\nWhat the shared services did a move (counted over the measured window, \
             divided by its moves):\n\n\
             | setup | Redis commands | Redis bytes in / out | Redis CPU | PostgreSQL commits | \
             rows written | WAL bytes | PostgreSQL CPU |\n|---|---|---|---|---|---|---|---|\n"
            .to_owned();
        for (row, b) in &rows {
            out.push_str(&format!(
                "| {} | {:.2} | {:.0} / {:.0} | {:.1} µs | {:.2} | {:.2} | {:.0} | {:.1} µs |\n",
                row.setup,
                b.redis_commands,
                b.redis_bytes_in,
                b.redis_bytes_out,
                b.redis_cpu_secs * 1e6,
                b.pg_commits,
                b.pg_rows_written,
                b.pg_wal_bytes,
                b.pg_cpu_secs * 1e6,
            ));
        }
        for (row, b) in rows.iter().filter(|(_, b)| !b.redis_calls.is_empty()) {
            let mut calls: Vec<(&String, &f64)> = b.redis_calls.iter().collect();
            calls.sort_by(|a, b| b.1.total_cmp(a.1));
            let calls: Vec<String> = (calls.iter().take(8))
                .map(|(name, n)| format!("{name} {n:.2}"))
                .collect();
            out.push_str(&format!(
                "\n{}: Redis calls a move by command: {}.\n",
                row.setup,
                calls.join(", ")
            ));
        }
        out
    }

    /// Each games row's latency second by second, as text.
    pub fn timelines(&self) -> String {
        let mut out = String::new();
        for row in &self.rows {
            out.push_str(&format!(
                "{} by second (count, p50, p99, max):\n",
                row.setup
            ));
            for s in &row.seconds {
                out.push_str(&format!(
                    "  {:>3} s {:>6} {:>10} {:>10} {:>10}\n",
                    s.second,
                    s.count,
                    ms(s.p50_us),
                    ms(s.p99_us),
                    ms(s.max_us)
                ));
            }
        }
        out
    }
}
