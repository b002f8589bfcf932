//! Idle connections: clients that say hello and then only answer pings. The server's resident
//! memory before and after says what a connection costs it. The clients can be spread over
//! several processes (copies of this binary started with `idle-shard`), since one process may
//! hold only so many open files.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, timeout};

use crate::client;
use crate::report::{Errors, Report};
use crate::target::Probe;
use crate::usage::Sample;
use crate::usage::Usage;

/// Clients connecting at once.
const CONNECT_AT_ONCE: usize = 256;
/// The longest a shard holds its connections without being told to let go.
pub const MAX_HOLD: Duration = Duration::from_secs(600);

/// How an `idle` run is shaped.
#[derive(Debug, Clone)]
pub struct IdleOptions {
    /// Connections to hold, in all.
    pub connections: usize,
    /// Processes to spread them over; 1 holds them in this one.
    pub procs: usize,
    /// How long to hold them once all are open, before reading the server's memory.
    pub settle_secs: f64,
}

/// What a shard says once its connections are open.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ShardReady {
    pub held: usize,
    pub errors: std::collections::BTreeMap<String, u64>,
}

/// Connections held open, each read by its own task (so pings are answered) until released.
#[derive(Debug)]
pub struct Held {
    pub count: usize,
    release: watch::Sender<bool>,
    tasks: JoinSet<()>,
}

impl Held {
    /// Opens `count` connections, each saying hello as `{prefix}{i}`.
    pub async fn open(url: &str, count: usize, prefix: &str, errors: &Arc<Errors>) -> Held {
        let (release, released) = watch::channel(false);
        let gate = Arc::new(Semaphore::new(CONNECT_AT_ONCE));
        let mut joins = JoinSet::new();
        for i in 0..count {
            let (url, gate, name) = (url.to_owned(), gate.clone(), format!("{prefix}{i}"));
            joins.spawn(async move {
                let _permit = gate.acquire_owned().await;
                client::join(&url, &name).await
            });
        }
        let mut tasks = JoinSet::new();
        let mut held = 0;
        while let Some(joined) = joins.join_next().await {
            match joined {
                Ok(Ok(mut ws)) => {
                    held += 1;
                    let mut released = released.clone();
                    let errors = errors.clone();
                    tasks.spawn(async move {
                        loop {
                            tokio::select! {
                                _ = released.wait_for(|go| *go) => break,
                                message = ws.next() => if !matches!(message, Some(Ok(_))) {
                                    errors.add("closed");
                                    return;
                                },
                            }
                        }
                        client::close(ws).await;
                    });
                }
                Ok(Err(err)) => errors.add_err(&err),
                Err(_) => errors.add("panic"),
            }
        }
        Held {
            count: held,
            release,
            tasks,
        }
    }

    /// Closes every connection.
    pub async fn release(mut self) {
        let _ = self.release.send(true);
        while self.tasks.join_next().await.is_some() {}
    }
}

/// The `idle-shard` process: opens its connections, says so on stdout as one JSON line, holds
/// them until stdin closes (or [`MAX_HOLD`]), then closes them.
pub async fn shard(url: &str, count: usize, prefix: &str) -> anyhow::Result<()> {
    let errors = Arc::new(Errors::default());
    let held = Held::open(url, count, prefix, &errors).await;
    let ready = ShardReady {
        held: held.count,
        errors: errors.snapshot(),
    };
    let mut stdout = tokio::io::stdout();
    stdout
        .write_all(format!("{}\n", serde_json::to_string(&ready)?).as_bytes())
        .await?;
    stdout.flush().await?;
    let mut line = String::new();
    let _ = timeout(
        MAX_HOLD,
        BufReader::new(tokio::io::stdin()).read_line(&mut line),
    )
    .await;
    held.release().await;
    Ok(())
}

/// A shard process and its pipes.
#[derive(Debug)]
struct Shard {
    child: Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

fn start_shard(url: &str, count: usize, index: usize) -> anyhow::Result<Shard> {
    let exe = std::env::current_exe().context("cannot find this binary")?;
    let mut child = Command::new(exe)
        .args(["idle-shard", "--server", url, "--connections"])
        .arg(count.to_string())
        .arg("--prefix")
        .arg(format!("i{index}-"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .context("cannot start a shard")?;
    let stdout = child.stdout.take().context("shard stdout")?;
    Ok(Shard {
        child,
        lines: BufReader::new(stdout).lines(),
    })
}

/// Runs the `idle` scenario against `url`.
pub async fn run(url: &str, server: Probe, options: &IdleOptions) -> anyhow::Result<Report> {
    let errors = Arc::new(Errors::default());
    sleep(Duration::from_millis(300)).await;
    let before = server.sample();
    let me = Probe::me();
    let me_before = me.sample();
    let started = Instant::now();
    let procs = options.procs.max(1);
    let mut held_here = None;
    let mut shards = Vec::new();
    let mut held = 0;
    if procs == 1 {
        let h = Held::open(url, options.connections, "i", &errors).await;
        held = h.count;
        held_here = Some(h);
    } else {
        for index in 0..procs {
            let count =
                options.connections / procs + usize::from(index < options.connections % procs);
            shards.push(start_shard(url, count, index)?);
        }
        for shard in &mut shards {
            let line = timeout(MAX_HOLD, shard.lines.next_line())
                .await
                .context("a shard did not open its connections in time")??
                .context("a shard ended early")?;
            let ready: ShardReady = serde_json::from_str(&line)?;
            held += ready.held;
            for (kind, n) in ready.errors {
                for _ in 0..n {
                    errors.add(&kind);
                }
            }
        }
    }
    let connect_secs = started.elapsed().as_secs_f64();
    sleep(Duration::from_secs_f64(options.settle_secs)).await;
    let after = server.sample();
    let elapsed = started.elapsed();
    // The generator: this process and its shards, while they hold everything.
    let mut generator = me_before
        .zip(me.sample())
        .map(|(a, b)| Usage::between(a, b, elapsed));
    if let Some(generator) = &mut generator {
        for shard in &shards {
            if let Some(s) = shard.child.id().and_then(Sample::of) {
                generator.cpu_secs += s.cpu_secs;
                generator.rss_kib += s.rss_kib;
                generator.peak_rss_kib += s.peak_rss_kib;
            }
        }
        generator.cores = generator.cpu_secs / elapsed.as_secs_f64();
    }
    if let Some(h) = held_here {
        h.release().await;
    }
    for mut shard in shards {
        drop(shard.child.stdin.take());
        if timeout(Duration::from_secs(30), shard.child.wait())
            .await
            .is_err()
        {
            let _ = shard.child.kill().await;
        }
    }
    let mut report = Report {
        scenario: format!(
            "idle: {} connections held over {procs} processes",
            options.connections
        ),
        connections: held,
        secs: connect_secs,
        unit: "connections".to_owned(),
        ops: held as u64,
        ops_per_sec: held as f64 / connect_secs,
        latency: None,
        errors: errors.snapshot(),
        server: before
            .zip(after)
            .map(|(a, b)| Usage::between(a, b, elapsed)),
        generator,
        ..Report::default()
    };
    if let (Some(before), Some(after)) = (before, after) {
        let growth = after.rss_kib.saturating_sub(before.rss_kib) as f64;
        report
            .figures
            .insert("server_rss_before_kib".to_owned(), before.rss_kib as f64);
        report
            .figures
            .insert("server_rss_after_kib".to_owned(), after.rss_kib as f64);
        report
            .figures
            .insert("rss_per_conn_kib".to_owned(), growth / held.max(1) as f64);
    }
    Ok(report)
}
