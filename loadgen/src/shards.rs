//! The `cluster` command from start to end: its parts run on one Redis, or once on a Redis
//! Cluster of each size asked for (`--redis-shards 1,2,3`); the lobby's two lines between nodes
//! judged; and, over the sizes, what each shard's Redis did a move while the site ran.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::backing::BackingWork;
use crate::cluster::{self, ClusterArgs, ClusterResult};
use crate::judge::{Verdict, ms};

/// The p99 within which another node itself lists a new room under the site (line a).
const EXCHANGE_P99_US: u64 = 150_000;
/// The p99 within which a follower is shown a new room under the site (line b).
const SHOWN_P99_US: u64 = 2_000_000;

/// Runs `args`' parts once for each Redis it asks for; prints (and with `--out` writes) the
/// results as Markdown, or as JSON. Fails (exit 2) on errors; a missed line is printed, not
/// failed on.
pub async fn command(
    args: &ClusterArgs,
    server_bin: &Path,
    db_dir: &Path,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let sizes: Vec<Option<usize>> = if args.redis_shards.is_empty() {
        vec![None]
    } else {
        args.redis_shards.iter().map(|&n| Some(n)).collect()
    };
    let mut results = Vec::new();
    let mut markdown = String::new();
    for shards in sizes {
        let on = match shards {
            Some(0) => Some("one Redis, not a cluster".to_owned()),
            Some(n) => Some(format!("a Redis Cluster of {n} shards")),
            None => None,
        };
        if let Some(on) = &on {
            eprintln!("cluster: on {on}");
        }
        // The Redis and PostgreSQL the run started, if any, stay up until it ends.
        let (launch, backing) = cluster::launch(args, server_bin, shards).await?;
        let mut result = cluster::run(args, &launch, db_dir).await?;
        drop(backing);
        result.redis_shards = shards;
        if let Some(on) = &on {
            markdown.push_str(&format!("\n#### On {on}\n\n"));
        }
        markdown.push_str(&result.markdown());
        markdown.push_str(&lines_markdown(&verdicts(&result)));
        if !json {
            print!("{}", result.timelines());
        }
        results.push(result);
    }
    markdown.push_str(&scaling(&results));
    if json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        print!("{markdown}");
    }
    if let Some(out) = &args.out {
        std::fs::write(out, &markdown)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    let errors: u64 = results.iter().map(ClusterResult::error_count).sum();
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// The lobby's lines between nodes, judged on the rooms timed under the site: (a) another node
/// itself lists a new room within 150 ms at p99; (b) its followers are shown it within 2 s at
/// p99, at the default lobby budget.
pub fn verdicts(result: &ClusterResult) -> Vec<Verdict> {
    let Some(site) = &result.site else {
        return Vec::new();
    };
    let convergence = site.convergence.as_ref();
    let listed = convergence.and_then(|c| c.listed);
    let added = convergence.and_then(|c| c.added);
    let missed = convergence.map_or(0, |c| c.missed_added);
    let count = |l: Option<crate::report::Latency>| l.map_or(0, |l| l.count);
    let p99 = |l: Option<crate::report::Latency>| l.map_or("–".to_owned(), |l| ms(l.p99_us));
    let command = format!(
        "bench/cluster --parts site --games {} --rate {} --secs {} --lobby-rooms {}",
        result.games,
        result.rate,
        result.secs,
        convergence.map_or(0, |c| c.rooms)
    );
    vec![
        Verdict {
            target: format!(
                "Lobby (a). The exchange between nodes: another node lists a new room within 150 ms at p99 (a fresh lobby snapshot asked of it), under the site over {} nodes",
                result.nodes
            ),
            measured: format!("p99 {} (n = {})", p99(listed), count(listed)),
            pass: listed.is_some_and(|l| l.p99_us <= EXCHANGE_P99_US),
            judged: listed.is_some(),
            info: false,
            command: command.clone(),
        },
        Verdict {
            target: format!(
                "Lobby (b). A follower on another node, some {} followers a node, is shown a new room within 2 s at p99 at the default budget",
                site.followers_per_node
            ),
            measured: format!(
                "p99 {} (n = {}); not shown within 5 s: {missed}",
                p99(added),
                count(added)
            ),
            pass: added.is_some_and(|l| l.p99_us <= SHOWN_P99_US) && missed == 0,
            judged: added.is_some(),
            info: false,
            command,
        },
    ]
}

/// Verdicts as the suite prints them: the label, the target, and what was measured.
fn lines_markdown(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for verdict in verdicts {
        let label = match verdict.label() {
            "miss" => "MISS",
            "not judged" => "----",
            label => label,
        };
        out.push_str(&format!(
            "\n{label} {}\n    {}\n",
            verdict.target, verdict.measured
        ));
    }
    out
}

/// One row of the shards' table: what each Redis node did a move while the site ran.
fn shard_row(shards: usize, result: &ClusterResult) -> Option<String> {
    let site = result.site.as_ref()?;
    let work: &BackingWork = site.backing.as_ref()?;
    let us = |secs: f64| secs * 1e6;
    let primaries: Vec<f64> = (work.redis_nodes.iter())
        .filter(|node| node.role != "slave")
        .map(|node| us(node.cpu_secs))
        .collect();
    let replicas: Vec<f64> = (work.redis_nodes.iter())
        .filter(|node| node.role == "slave")
        .map(|node| us(node.cpu_secs))
        .collect();
    let list = |v: &[f64]| {
        if v.is_empty() {
            return "–".to_owned();
        }
        let each: Vec<String> = v.iter().map(|c| format!("{c:.1}")).collect();
        format!("{} µs", each.join(" + "))
    };
    let most = primaries.iter().copied().fold(0.0, f64::max);
    let mean = primaries.iter().sum::<f64>() / primaries.len().max(1) as f64;
    let moves = site.site.ops.max(1) as f64;
    let nodes_us = site.node_cpu_secs.iter().sum::<f64>() * 1e6 / moves;
    let shards = match shards {
        0 => "one Redis".to_owned(),
        n => n.to_string(),
    };
    Some(format!(
        "| {shards} | {:.0} | {} | {:.1} µs | {:.2} | {:.0} | {} | {:.2} | {:.1} µs | {:.0} µs | {} |\n",
        site.site.ops_per_sec,
        list(&primaries),
        primaries.iter().sum::<f64>(),
        if mean > 0.0 { most / mean } else { 0.0 },
        if most > 0.0 { 1e6 / most } else { 0.0 },
        list(&replicas),
        work.redis_commands,
        us(work.pg_cpu_secs),
        nodes_us,
        site.site.latency.map_or("–".to_owned(), |l| ms(l.p99_us)),
    ))
}

/// The table over the Redis Cluster sizes of a run: each shard's Redis CPU a move, how evenly
/// the shards share it, and the moves a second at which the busiest shard would be full.
fn scaling(results: &[ClusterResult]) -> String {
    let rows: Vec<String> = (results.iter())
        .filter_map(|r| shard_row(r.redis_shards?, r))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut out = "\nRedis a move by shard, while the site ran (each redis-server's \
         `used_cpu_sys` + `used_cpu_user` from `INFO` before and after the window, divided by the \
         window's moves):\n\n\
         | shards | moves/s | Redis CPU a move, each primary | all primaries | busiest ÷ mean | \
         moves/s that fill the busiest primary's core | each replica | Redis calls a move | \
         PostgreSQL CPU a move | nodes' CPU a move | move p99 |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_owned();
    for row in rows {
        out.push_str(&row);
    }
    for result in results {
        let (Some(shards), Some(work)) = (
            result.redis_shards,
            (result.site.as_ref()).and_then(|s| s.backing.as_ref()),
        ) else {
            continue;
        };
        let mut calls: Vec<(&String, &f64)> = work.redis_calls.iter().collect();
        calls.sort_by(|a, b| b.1.total_cmp(a.1));
        let calls: Vec<String> = (calls.iter().take(10))
            .map(|(name, n)| format!("{name} {n:.2}"))
            .collect();
        out.push_str(&format!(
            "
{}: Redis calls a move by command (the primaries', a script's own calls counted \
             too): {}.\n",
            match shards {
                0 => "One Redis".to_owned(),
                n => format!("{n} shards"),
            },
            calls.join(", ")
        ));
    }
    out
}
