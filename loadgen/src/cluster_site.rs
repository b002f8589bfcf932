//! The site spread over the nodes of a cluster: the players, followers and watchers of the site
//! scenario connect to the nodes in turn, while the lobby's Redis channel is counted by node (how
//! many messages each node publishes a second, whatever the moves) and public rooms are opened
//! and closed one at a time to time how soon another node's followers see them under that load.
//! What Redis (each node of a Redis Cluster apart) and PostgreSQL did over the measured window,
//! and every node's CPU, are counted and divided by the window's moves.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::backing::{Backing, BackingWork};
use crate::convergence::{self, Convergence};
use crate::judge::ms;
use crate::nodes::Launch;
use crate::report::Report;
use crate::site::{self, SiteOptions};
use crate::target::{Target, Window};

/// The channel the nodes publish their lobby changes on (`server/src/cluster/lobby.rs`), under
/// the hash tag that keeps the lobby's keys in one slot of a Redis Cluster.
const CHANNEL: &str = "{lobby}";

/// What the site over a cluster measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClusterSite {
    pub site: Report,
    /// Lobby messages published a second, by node, over the site's measured window.
    pub messages_per_sec: BTreeMap<String, f64>,
    /// Rooms opened and closed while the site ran.
    pub convergence: Option<Convergence>,
    /// What Redis and PostgreSQL did a move over the measured window.
    #[serde(default)]
    pub backing: Option<BackingWork>,
    /// Each node's CPU seconds over the measured window.
    #[serde(default)]
    pub node_cpu_secs: Vec<f64>,
    /// Lobby followers (and players between games, following it) a node, at the start.
    #[serde(default)]
    pub followers_per_node: usize,
}

/// Runs the site over `nodes` on the Redis and PostgreSQL of `launch`, with `rooms` rooms timed
/// beside it.
pub async fn run(
    nodes: &[Target],
    launch: &Launch,
    options: &SiteOptions,
    rooms: usize,
) -> anyhow::Result<ClusterSite> {
    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
    // Every node of a Redis Cluster hears every classic PUBLISH: the first will do.
    let first = crate::backing::node_urls(&launch.redis)
        .into_iter()
        .next()
        .context("no Redis to subscribe to")?;
    let client = redis::Client::open(first.1)?;
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(CHANNEL).await?;
    let start = Instant::now() + Duration::from_secs_f64(options.warmup);
    let end = start + Duration::from_secs_f64(options.secs);
    let counting = tokio::spawn(count_messages(pubsub, start, end));
    let timing = {
        let urls = urls.clone();
        async move {
            tokio::time::sleep_until(start).await;
            convergence::run(&urls, rooms, Duration::from_millis(50)).await
        }
    };
    let probes: Vec<_> = nodes.iter().map(|n| n.probe).collect();
    let (redis, postgres) = (launch.redis.clone(), launch.postgres.clone());
    let counted = tokio::spawn(async move {
        // Read before the window (psql takes some milliseconds).
        tokio::time::sleep_until(start - Duration::from_millis(300)).await;
        let backing = Backing::start(Some(&redis), Some(&postgres)).await;
        tokio::time::sleep_until(start).await;
        let windows: Vec<Window> = probes.into_iter().map(Window::start).collect();
        tokio::time::sleep_until(end).await;
        let cpu: Vec<f64> = (windows.iter())
            .filter_map(|w| w.end().1.map(|u| u.cpu_secs))
            .collect();
        let work = match backing {
            Ok(backing) => backing.end().await,
            Err(err) => Err(err),
        };
        (work, cpu)
    });
    let (site, convergence) = tokio::join!(site::run_on(&urls, nodes[0].probe, options), timing);
    let site = site?;
    let counts = counting.await?;
    let (work, node_cpu_secs) = counted.await?;
    let backing = work.map(|w| w.per(site.ops as f64));
    if let Err(err) = &backing {
        eprintln!("cluster: the shared services' counters: {err:#}");
    }
    Ok(ClusterSite {
        messages_per_sec: (counts.into_iter())
            .map(|(node, n)| (node, n as f64 / options.secs))
            .collect(),
        convergence: convergence.ok(),
        backing: backing.ok(),
        node_cpu_secs,
        followers_per_node: (options.games * 2 + options.followers) / nodes.len().max(1),
        site,
    })
}

/// Counts the lobby's messages by the node that published them, from `start` to `end`.
async fn count_messages(
    pubsub: redis::aio::PubSub,
    start: Instant,
    end: Instant,
) -> BTreeMap<String, u64> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut messages = pubsub.into_on_message();
    while let Ok(Some(message)) = tokio::time::timeout_at(end, messages.next()).await {
        let now = Instant::now();
        let Ok(payload) = message.get_payload::<String>() else {
            continue;
        };
        // A node's message is sealed: a line with its MAC and sender, then the batch.
        let body = payload
            .split_once('\n')
            .map_or(payload.as_str(), |(_, body)| body);
        let node = serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v["node"].as_str().map(str::to_owned))
            .unwrap_or_else(|| "?".to_owned());
        if now >= start {
            *counts.entry(node).or_default() += 1;
        }
    }
    counts
}

impl ClusterSite {
    /// The results as Markdown.
    pub fn markdown(&self) -> String {
        let r = &self.site;
        let figure = |name: &str| r.figures.get(name).copied().unwrap_or_default();
        let messages: Vec<String> = (self.messages_per_sec.iter())
            .map(|(node, n)| format!("{node} {n:.1}"))
            .collect();
        let mut out = format!(
            "\nThe site over the nodes ({}): {:.0} moves/s, move p99 {}; {:.2} lobby frames a \
             second per follower; lobby messages published a second, by node: {}; errors {}.\n",
            r.scenario,
            r.ops_per_sec,
            r.latency.map_or("—".to_owned(), |l| ms(l.p99_us)),
            figure("lobby_frames_per_follower_per_sec"),
            messages.join(", "),
            r.error_count(),
        );
        if let Some(c) = &self.convergence {
            out.push_str(&format!(
                "Under it, {} public rooms opened and closed one at a time: shown on another \
                 node p99 {}, gone p99 {} (shown on the room's own node p99 {}); listed in a \
                 fresh snapshot from another node p99 {}; missed within 5 s: {} and {} of {}.\n",
                c.rooms,
                c.added.map_or("—".to_owned(), |l| ms(l.p99_us)),
                c.removed.map_or("—".to_owned(), |l| ms(l.p99_us)),
                c.added_here.map_or("—".to_owned(), |l| ms(l.p99_us)),
                c.listed.map_or("—".to_owned(), |l| ms(l.p99_us)),
                c.missed_added,
                c.missed_removed,
                c.expected,
            ));
        }
        out
    }
}
