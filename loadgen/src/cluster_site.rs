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
    let lobby = Lobby::subscribe(&launch.redis).await?;
    let start = Instant::now() + Duration::from_secs_f64(options.warmup);
    let end = start + Duration::from_secs_f64(options.secs);
    let counting = tokio::spawn(count_messages(lobby, start, end));
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

/// The lobby's channel, subscribed to as the nodes publish on it: a classic channel on one
/// Redis, a sharded one (`SSUBSCRIBE`, on the shard that owns its slot) on a Redis Cluster, where
/// a classic subscriber would hear none of the nodes' `SPUBLISH`es.
enum Lobby {
    One(redis::aio::PubSub),
    /// The pushes of a cluster connection, which is kept open while they are read.
    Sharded {
        messages: tokio::sync::mpsc::UnboundedReceiver<redis::PushInfo>,
        _connection: redis::cluster_async::ClusterConnection,
    },
}

impl Lobby {
    async fn subscribe(redis: &str) -> anyhow::Result<Lobby> {
        let nodes = crate::backing::node_urls(redis);
        if !redis.contains("+cluster://") {
            let first = nodes
                .into_iter()
                .next()
                .context("no Redis to subscribe to")?;
            let mut pubsub = redis::Client::open(first.1)?.get_async_pubsub().await?;
            pubsub.subscribe(CHANNEL).await?;
            return Ok(Lobby::One(pubsub));
        }
        let (pushes, messages) = tokio::sync::mpsc::unbounded_channel();
        let seeds = nodes.into_iter().map(|(_, url)| url);
        let mut connection = redis::cluster::ClusterClientBuilder::new(seeds)
            .use_protocol(redis::ProtocolVersion::RESP3)
            .push_sender(pushes)
            .build()?
            .get_async_connection()
            .await?;
        connection.ssubscribe(CHANNEL).await?;
        Ok(Lobby::Sharded {
            messages,
            _connection: connection,
        })
    }

    /// The next message's text; `None` once the subscription has ended.
    async fn next(&mut self) -> Option<String> {
        match self {
            Lobby::One(pubsub) => loop {
                let message = pubsub.on_message().next().await?;
                if let Ok(payload) = message.get_payload::<String>() {
                    return Some(payload);
                }
            },
            Lobby::Sharded { messages, .. } => loop {
                let push = messages.recv().await?;
                match push.kind {
                    redis::PushKind::SMessage | redis::PushKind::Message => {
                        // [channel, payload]
                        let payload = push.data.into_iter().nth(1);
                        if let Some(Ok(text)) = payload.map(redis::from_redis_value) {
                            return Some(text);
                        }
                    }
                    redis::PushKind::Disconnection => return None,
                    _ => {}
                }
            },
        }
    }
}

/// Counts the lobby's messages by the node that published them, from `start` to `end`.
async fn count_messages(mut lobby: Lobby, start: Instant, end: Instant) -> BTreeMap<String, u64> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    while let Ok(Some(payload)) = tokio::time::timeout_at(end, lobby.next()).await {
        let now = Instant::now();
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
