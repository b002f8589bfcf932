//! The server under test: a child process started for the run (so its `/proc` figures are its
//! own), or one already running. Also: pinning processes to cores, and `/proc` samples.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use noughts_kit::process;

use crate::usage::Sample;

/// How long a started server has to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Samples a process, or nothing when its pid is unknown.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    pub pid: Option<u32>,
}

impl Probe {
    /// This process.
    pub fn me() -> Probe {
        Probe {
            pid: Some(std::process::id()),
        }
    }

    pub fn sample(&self) -> Option<Sample> {
        self.pid.and_then(Sample::of)
    }
}

/// A window of measurement: when it started and the samples taken then.
#[derive(Debug)]
pub struct Window {
    started: Instant,
    server: (Probe, Option<Sample>),
    generator: (Probe, Option<Sample>),
}

impl Window {
    /// Starts measuring now.
    pub fn start(server: Probe) -> Window {
        let me = Probe::me();
        Window {
            started: Instant::now(),
            server: (server, server.sample()),
            generator: (me, me.sample()),
        }
    }

    /// Ends the window: its length and the use of the server and the generator over it.
    pub fn end(
        &self,
    ) -> (
        Duration,
        Option<crate::usage::Usage>,
        Option<crate::usage::Usage>,
    ) {
        let elapsed = self.started.elapsed();
        let use_of = |(probe, start): &(Probe, Option<Sample>)| {
            Some(crate::usage::Usage::between(
                (*start)?,
                probe.sample()?,
                elapsed,
            ))
        };
        (elapsed, use_of(&self.server), use_of(&self.generator))
    }
}

/// A measured run: when it starts and ends, and the window measured over it in the background.
#[derive(Debug)]
pub struct Run {
    pub start: tokio::time::Instant,
    pub end: tokio::time::Instant,
    /// The window's length and the use of the server and the generator over it.
    pub measured: tokio::task::JoinHandle<(
        Duration,
        Option<crate::usage::Usage>,
        Option<crate::usage::Usage>,
    )>,
}

impl Run {
    /// A run of `secs` starting 100 ms from now (time to set the clients going): waits for its
    /// start, then measures `server` until its end.
    pub async fn starting(server: Probe, secs: f64) -> Run {
        let start = tokio::time::Instant::now() + Duration::from_millis(100);
        let end = start + Duration::from_secs_f64(secs);
        tokio::time::sleep_until(start).await;
        let window = Window::start(server);
        let measured = tokio::spawn(async move {
            tokio::time::sleep_until(end).await;
            window.end()
        });
        Run {
            start,
            end,
            measured,
        }
    }
}

/// Where the server under test is, and its process if this run started it.
#[derive(Debug)]
pub struct Target {
    /// The `ws://` URL clients connect to.
    pub url: String,
    /// Its process, for `/proc` samples.
    pub probe: Probe,
    /// Its metrics endpoint (`http://HOST:PORT/metrics`), if it serves one.
    pub metrics: Option<String>,
    /// Killed when the target is dropped.
    child: Option<Child>,
    /// A database file of the child's, removed (with its WAL) when the target is dropped.
    scratch: Option<PathBuf>,
}

impl Target {
    /// A server that is already running, with its pid if known.
    pub fn external(url: &str, pid: Option<u32>) -> Target {
        Target {
            url: url.to_owned(),
            probe: Probe { pid },
            metrics: None,
            child: None,
            scratch: None,
        }
    }

    /// Starts `program` with `args` (pinned to `cpus` with taskset, if given) through the kit,
    /// and waits for the line on its stdout that names its `ws://` address.
    pub fn start(program: &Path, args: &[String], cpus: Option<&str>) -> anyhow::Result<Target> {
        if !program.exists() {
            bail!(
                "{} not found; build it first (cargo build --release -p noughts-server -p noughts-loadgen) or name it with --server-bin",
                program.display()
            );
        }
        let mut command = match cpus {
            Some(cpus) => {
                let mut command = Command::new("taskset");
                command.arg("-c").arg(cpus).arg(program);
                command
            }
            None => Command::new(program),
        };
        command
            .args(args)
            .env(
                "RUST_LOG",
                std::env::var("NOUGHTS_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stderr(Stdio::inherit());
        let metrics = args.iter().any(|a| a == "--metrics-listen");
        let (child, listening) = process::start(&mut command, metrics, START_TIMEOUT)
            .with_context(|| format!("{} did not start", program.display()))?;
        let target = Target {
            url: listening.url,
            probe: Probe {
                pid: Some(child.id()),
            },
            metrics: listening.metrics,
            child: Some(child),
            scratch: None,
        };
        Ok(target)
    }
}

impl Target {
    /// Starts `noughts-server` for load (see [`server_args`]) with its games kept in a fresh
    /// database file in `db_dir` (removed afterwards), or in memory when `db_dir` is `None`.
    pub fn start_server(
        program: &Path,
        connections: usize,
        db_dir: Option<&Path>,
        cpus: Option<&str>,
    ) -> anyhow::Result<Target> {
        Target::start_server_with(program, connections, db_dir, cpus, &[])
    }

    /// [`Target::start_server`] with `extra` flags after the usual ones.
    pub fn start_server_with(
        program: &Path,
        connections: usize,
        db_dir: Option<&Path>,
        cpus: Option<&str>,
        extra: &[String],
    ) -> anyhow::Result<Target> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let db = db_dir.map(|dir| {
            dir.join(format!(
                "noughts-bench-{}-{}.db",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ))
        });
        let mut args = server_args(connections);
        args.extend_from_slice(extra);
        args.push("--db".to_owned());
        args.push(
            db.as_ref()
                .map_or(":memory:".to_owned(), |p| p.display().to_string()),
        );
        let mut target = Target::start(program, &args, cpus);
        if let Ok(target) = &mut target {
            target.scratch = db;
        } else if let Some(db) = &db {
            remove_db(db);
        }
        target
    }
}

/// Removes a SQLite database and its write-ahead log.
fn remove_db(db: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut path = db.as_os_str().to_owned();
        path.push(suffix);
        let _ = std::fs::remove_file(path);
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(db) = &self.scratch {
            remove_db(db);
        }
    }
}

/// The flags that make `noughts-server` fit for load: no war games, no AI pause, rate limits out
/// of the way, room for `connections` connections (all from this one address) and any number of
/// games, rooms, seeks and new accounts (the arena's players register from this one address). (The database is [`Target::start_server`]'s to choose.)
pub fn server_args(connections: usize) -> Vec<String> {
    [
        "--listen",
        "127.0.0.1:0",
        "--no-war-games",
        "--ai-think-ms",
        "0",
        "--rate",
        "1000000",
        "--burst",
        "1000000",
        "--max-games",
        "1000000",
        "--max-rooms-per-ip",
        "1000000",
        "--max-seeks-per-ip",
        "1000000",
        "--registrations-per-hour",
        "1000000",
        "--accounts-per-day",
        "1000000",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--max-connections".to_owned(),
        (connections + 1000).to_string(),
        "--max-connections-per-ip".to_owned(),
        (connections + 1000).to_string(),
    ])
    .collect()
}

/// A binary that sits beside this one (the build puts all of a workspace's binaries in one
/// directory).
pub fn sibling(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Whether `taskset` can pin processes here and there are at least two cores to pin to.
pub fn can_pin() -> bool {
    cores() >= 2
        && Command::new("taskset")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// Pins every thread of this process to `cpus` (a taskset list such as `1` or `2-3`). Call it
/// before the runtime starts, so that the runtime sizes itself to those cores.
pub fn pin_self(cpus: &str) -> anyhow::Result<()> {
    let status = Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status()
        .context("cannot run taskset")?;
    if !status.success() {
        bail!("taskset could not pin this process to {cpus}");
    }
    Ok(())
}

/// The cores of this machine.
pub fn cores() -> usize {
    // Count every core, not just the ones this process is pinned to.
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|info| info.lines().filter(|l| l.starts_with("processor")).count())
        .ok()
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
