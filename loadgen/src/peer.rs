//! The peer: noughts' workloads played against the same game on Colyseus (`bench/peer/colyseus`),
//! its server started and pinned as the noughts server is, its load client (Node) run as a child
//! of this generator; and the side-by-side table of the two.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use futures_util::future::LocalBoxFuture;

use crate::capacity::Stepper;
use crate::judge::cpu_us_per_op;
use crate::report::Report;
use crate::site::SiteOptions;
use crate::sizes::Sizes;
use crate::target::Target;

/// Where the peer lives and what runs it.
#[derive(Debug, Clone)]
pub struct Peer {
    /// `bench/peer/colyseus`, with its `node_modules` installed.
    pub dir: PathBuf,
    /// The `node` binary.
    pub node: PathBuf,
    /// The cores its server is pinned to, as the noughts server's.
    pub cpus: Option<String>,
}

impl Peer {
    /// The peer in `dir`, run by the `node` found on `PATH`.
    pub fn at(dir: &Path, cpus: Option<String>) -> anyhow::Result<Peer> {
        if !dir.join("node_modules").is_dir() {
            bail!(
                "{} has no node_modules: run `npm ci` there first",
                dir.display()
            );
        }
        let node = std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join("node"))
            .find(|p| p.is_file())
            .context("node is not on PATH")?;
        Ok(Peer {
            dir: dir.to_owned(),
            node,
            cpus,
        })
    }

    /// Starts the peer's server, pinned as the noughts server is.
    pub fn server(&self) -> anyhow::Result<Target> {
        let script = self.dir.join("server.js").display().to_string();
        Target::start(
            &self.node,
            &[script, "--port".to_owned(), "0".to_owned()],
            self.cpus.as_deref(),
        )
    }

    /// Runs the peer's load client against `target` with `args` and reads its report.
    async fn load(&self, target: &Target, args: &[String]) -> anyhow::Result<Report> {
        let mut command = tokio::process::Command::new(&self.node);
        command
            .arg(self.dir.join("load.js"))
            .args(args)
            .args(["--url", &target.url]);
        if let Some(pid) = target.probe.pid {
            command.args(["--server-pid", &pid.to_string()]);
        }
        let output = command.output().await.context("cannot run load.js")?;
        if !output.status.success() {
            bail!(
                "load.js {args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        serde_json::from_slice(&output.stdout).context("load.js printed no report")
    }

    /// The suite's paced games, saturation and idle connections against fresh peer servers.
    pub async fn run(&self, sizes: &Sizes, progress: bool) -> anyhow::Result<Vec<Report>> {
        let s = &sizes.saturation;
        let g = &sizes.games;
        let runs = [
            vec![
                "games".to_owned(),
                "--games".to_owned(),
                s.games.to_string(),
                "--saturate".to_owned(),
                "--secs".to_owned(),
                s.secs.to_string(),
            ],
            vec![
                "games".to_owned(),
                "--games".to_owned(),
                g.games.to_string(),
                "--rate".to_owned(),
                g.rate.unwrap_or(1.0).to_string(),
                "--secs".to_owned(),
                g.secs.to_string(),
            ],
            vec![
                "idle".to_owned(),
                "--connections".to_owned(),
                sizes.idle.connections.to_string(),
                "--settle-secs".to_owned(),
                sizes.idle.settle_secs.to_string(),
            ],
        ];
        let mut reports = Vec::new();
        for args in runs {
            let target = self.server()?;
            let report = self.load(&target, &args).await?;
            if progress {
                eprintln!("{report}");
            }
            reports.push(report);
        }
        Ok(reports)
    }
}

/// The peer's capacity ramp: its site (`load.js site`: players in Colyseus's LobbyRoom who
/// match into listed rooms, lobby followers, spectators) against a fresh server a step.
impl Stepper for Peer {
    fn step<'a>(&'a self, site: &'a SiteOptions) -> LocalBoxFuture<'a, anyhow::Result<Report>> {
        Box::pin(async move {
            let target = self.server()?;
            let args = [
                ("games", site.games.to_string()),
                ("followers", site.followers.to_string()),
                ("watchers", site.watchers.to_string()),
                ("rate", site.rate.to_string()),
                ("warmup", site.warmup.to_string()),
                ("secs", site.secs.to_string()),
            ];
            let mut line = vec!["site".to_owned()];
            for (name, value) in args {
                line.extend([format!("--{name}"), value]);
            }
            self.load(&target, &line).await
        })
    }
}

/// The reports a comparison is drawn from.
#[derive(Debug, Clone, Copy)]
pub struct Sides<'a> {
    /// noughts: unpaced games on the durable store, on the memory store, paced games, idle.
    pub durable: &'a Report,
    pub memory: &'a Report,
    pub games: &'a Report,
    pub idle: &'a Report,
    /// Colyseus: unpaced games, paced games, idle.
    pub peer: &'a [Report],
}

/// The side-by-side table: noughts ÷ Colyseus on each workload.
pub fn comparison(sides: Sides<'_>) -> String {
    let [saturated, paced, idle] = sides.peer else {
        return String::new();
    };
    let mut md = String::from(
        "| Workload | Figure | noughts | Colyseus | noughts ÷ Colyseus |\n|---|---|---|---|---|\n",
    );
    let mut row =
        |workload: &str, figure: &str, ours: Option<f64>, theirs: Option<f64>, unit: &str| {
            let show = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.1}{unit}"));
            let ratio = match (ours, theirs) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                _ => "–".to_owned(),
            };
            let _ = writeln!(
                md,
                "| {workload} | {figure} | {} | {} | {ratio} |",
                show(ours),
                show(theirs)
            );
        };
    let rate = |r: &Report| Some(r.ops_per_sec);
    let p50 = |r: &Report| r.latency.map(|l| l.p50_us as f64 / 1000.0);
    let p99 = |r: &Report| r.latency.map(|l| l.p99_us as f64 / 1000.0);
    let rss = |r: &Report| r.figures.get("rss_per_conn_kib").copied();
    let saturation = format!("{} games, as fast as they go", saturated.connections / 2);
    for (store, ours) in [
        ("memory store", sides.memory),
        ("durable store", sides.durable),
    ] {
        let label = format!("{saturation} (noughts: {store})");
        row(&label, "moves/s", rate(ours), rate(saturated), "");
        row(&label, "p50", p50(ours), p50(saturated), " ms");
        row(&label, "p99", p99(ours), p99(saturated), " ms");
        row(
            &label,
            "server CPU a move",
            cpu_us_per_op(ours),
            cpu_us_per_op(saturated),
            " µs",
        );
    }
    let paced_label = format!(
        "{} games at 1 move/s (noughts: the run's store)",
        paced.connections / 2
    );
    row(&paced_label, "p50", p50(sides.games), p50(paced), " ms");
    row(&paced_label, "p99", p99(sides.games), p99(paced), " ms");
    row(
        &paced_label,
        "server CPU a move",
        cpu_us_per_op(sides.games),
        cpu_us_per_op(paced),
        " µs",
    );
    let idle_label = format!("{} idle connections", idle.connections);
    row(
        &idle_label,
        "server RSS a connection",
        rss(sides.idle),
        rss(idle),
        " KiB",
    );
    let errors: u64 = sides.peer.iter().map(Report::error_count).sum();
    let _ = writeln!(
        md,
        "\nColyseus's errors over its three runs: {errors}. Its scenarios, in the table below: {}.",
        sides
            .peer
            .iter()
            .map(|r| r.scenario.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Latency;
    use crate::usage::Usage;

    fn report(ops_per_sec: f64, p99_us: u64, cpu_secs: f64) -> Report {
        Report {
            connections: 100,
            ops: 1000,
            ops_per_sec,
            latency: Some(Latency {
                p50_us: 500,
                p99_us,
                ..Latency::default()
            }),
            server: Some(Usage {
                cpu_secs,
                ..Usage::default()
            }),
            ..Report::default()
        }
    }

    #[test]
    fn the_comparison_divides_noughts_by_the_peer() {
        let ours = report(30_000.0, 2_000, 0.02);
        let mut idle = Report::default();
        idle.figures.insert("rss_per_conn_kib".to_owned(), 12.0);
        let mut peer_idle = Report::default();
        peer_idle
            .figures
            .insert("rss_per_conn_kib".to_owned(), 48.0);
        let peer = [
            report(10_000.0, 4_000, 0.08),
            report(1_000.0, 8_000, 0.1),
            peer_idle,
        ];
        let sides = Sides {
            durable: &ours,
            memory: &ours,
            games: &ours,
            idle: &idle,
            peer: &peer,
        };
        let table = comparison(sides);
        assert!(
            table.contains("| moves/s | 30000.0 | 10000.0 | 3.00 |"),
            "{table}"
        );
        assert!(
            table.contains("| server CPU a move | 20.0 µs | 80.0 µs | 0.25 |"),
            "{table}"
        );
        assert!(
            table.contains("| p99 | 2.0 ms | 8.0 ms | 0.25 |"),
            "{table}"
        );
        assert!(
            table.contains("| server RSS a connection | 12.0 KiB | 48.0 KiB | 0.25 |"),
            "{table}"
        );
        assert!(comparison(Sides { peer: &[], ..sides }).is_empty());
    }
}
