//! Lobby convergence between the nodes of a cluster: a public room is opened on one node, and a
//! lobby subscriber on every other node times the `lobby_update` that lists it; then the room is
//! closed and they time the one that removes it. One room at a time, the nodes taking turns.
//! Beside the subscribers, a client on every other node asks for a fresh lobby snapshot every few
//! milliseconds until it lists the room: when the node itself has it, whatever its followers'
//! frames then wait for (the exchange between the nodes, apart from the lobby's own pacing).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use noughts_protocol::{ClientMessage, ServerMessage, Variant};
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::client::{self, Socket};
use crate::report::{Errors, Latency, Recorder};

/// How the hosts of the timed rooms are named (and a number): the site's players, when the rooms
/// are timed beside the site, leave such rooms alone, since a room joined before every node has
/// shown it would count as missed though the lobby did nothing wrong.
pub const PROBE_HOST: &str = "probe-host";

/// How long a room may take to show (or go) on every node before it counts as missed.
const WAIT: Duration = Duration::from_secs(5);
/// How often a client asks another node for a fresh snapshot while it waits for a room.
const POLL: Duration = Duration::from_millis(5);

/// What a convergence run measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Convergence {
    /// Rooms opened (and closed).
    pub rooms: usize,
    /// `create_room` sent → the `lobby_update` listing it read by a subscriber on another node.
    pub added: Option<Latency>,
    /// `close_room` sent → the `lobby_update` removing it read by a subscriber on another node.
    pub removed: Option<Latency>,
    /// The same, by the subscriber on the room's own node, for comparison.
    pub added_here: Option<Latency>,
    /// `create_room` sent → a fresh `lobby` snapshot from another node lists it (asked for every
    /// [`POLL`]): the node has the room, whatever its followers' frames wait for.
    #[serde(default)]
    pub listed: Option<Latency>,
    /// Sightings expected on other nodes (rooms × (nodes − 1)) and those that did not come
    /// within 5 s, for opening and for closing.
    pub expected: u64,
    pub missed_added: u64,
    pub missed_removed: u64,
    pub errors: std::collections::BTreeMap<String, u64>,
}

/// When each node's subscriber saw each room come and go: by code, (node, time).
#[derive(Debug, Default)]
struct Sightings {
    added: Mutex<HashMap<String, Vec<(usize, Instant)>>>,
    removed: Mutex<HashMap<String, Vec<(usize, Instant)>>>,
}

/// Node `node`'s subscriber: notes every room it sees come and go, until its socket ends.
async fn follow(mut ws: Socket, node: usize, seen: Arc<Sightings>) {
    while let Ok(frame) = client::read(&mut ws).await {
        let now = Instant::now();
        let ServerMessage::LobbyUpdate(update) = frame.message else {
            continue;
        };
        let added = update
            .rooms
            .into_iter()
            .map(|room| (&seen.added, room.code));
        let removed = (update.rooms_removed.into_iter()).map(|code| (&seen.removed, code));
        for (map, code) in added.chain(removed) {
            map.lock()
                .expect("sightings lock")
                .entry(code)
                .or_default()
                .push((node, now));
        }
    }
}

/// Waits until `code` has been seen by `count` subscribers in `map`, or [`WAIT`] has passed;
/// the sightings.
async fn sightings(
    map: &Mutex<HashMap<String, Vec<(usize, Instant)>>>,
    code: &str,
    count: usize,
) -> Vec<(usize, Instant)> {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = map
            .lock()
            .expect("sightings lock")
            .get(code)
            .cloned()
            .unwrap_or_default();
        if seen.len() >= count || Instant::now() > deadline {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Asks `ws`'s node for a fresh lobby snapshot every [`POLL`] until it lists `code`; when it did,
/// or `None` if [`WAIT`] passed first.
async fn listed(ws: &mut Socket, code: &str) -> anyhow::Result<Option<Instant>> {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        client::send(ws, ClientMessage::SubscribeLobby).await?;
        let rooms = client::until(ws, |m| match m {
            ServerMessage::Lobby { rooms, .. } => Some(rooms),
            _ => None,
        })
        .await?;
        if rooms.iter().any(|room| room.code == code) {
            let now = Instant::now();
            client::send(ws, ClientMessage::UnsubscribeLobby).await?;
            return Ok(Some(now));
        }
        tokio::time::sleep(POLL).await;
    }
    client::send(ws, ClientMessage::UnsubscribeLobby).await?;
    Ok(None)
}

/// Opens and closes `rooms` public rooms, the nodes of `urls` taking turns, `gap` apart.
pub async fn run(urls: &[String], rooms: usize, gap: Duration) -> anyhow::Result<Convergence> {
    let nodes = urls.len();
    let seen = Arc::new(Sightings::default());
    let mut followers = JoinSet::new();
    for (node, url) in urls.iter().enumerate() {
        let mut ws = client::join(url, &format!("look{node}")).await?;
        client::send(&mut ws, ClientMessage::SubscribeLobby).await?;
        client::until(&mut ws, |m| {
            matches!(m, ServerMessage::Lobby { .. }).then_some(())
        })
        .await?;
        followers.spawn(follow(ws, node, seen.clone()));
    }
    let (mut hosts, mut lookers) = (Vec::new(), Vec::new());
    for (node, url) in urls.iter().enumerate() {
        hosts.push(client::join(url, &format!("{PROBE_HOST}{node}")).await?);
        lookers.push(client::join(url, &format!("ask{node}")).await?);
    }
    let (added, removed, added_here, listed_at) = (
        Recorder::default(),
        Recorder::default(),
        Recorder::default(),
        Recorder::default(),
    );
    let errors = Errors::default();
    let (mut missed_added, mut missed_removed) = (0, 0);
    for i in 0..rooms {
        let node = i % nodes;
        let host = &mut hosts[node];
        let opened = Instant::now();
        let code = match client::create_room(host, Variant::Classic, false).await {
            Ok(code) => code,
            Err(err) => {
                errors.add_err(&err);
                continue;
            }
        };
        let others = |seen: Vec<(usize, Instant)>, since: Instant, into: &Recorder| {
            let mut count = 0;
            for (at, when) in seen {
                if at == node {
                    added_here.record(when.saturating_duration_since(since));
                } else {
                    into.record(when.saturating_duration_since(since));
                    count += 1;
                }
            }
            (nodes - 1).saturating_sub(count) as u64
        };
        let asks = (lookers.iter_mut().enumerate())
            .filter(|(at, _)| *at != node)
            .map(|(_, ws)| listed(ws, &code));
        let (seen_added, asked) = tokio::join!(
            sightings(&seen.added, &code, nodes),
            futures_util::future::join_all(asks)
        );
        for asked in asked {
            match asked {
                Ok(Some(at)) => listed_at.record(at.saturating_duration_since(opened)),
                Ok(None) => errors.add("not listed within 5 s"),
                Err(err) => errors.add_err(&err),
            }
        }
        missed_added += others(seen_added, opened, &added);
        let closing = Instant::now();
        if let Err(err) = client::send(host, ClientMessage::CloseRoom { code: code.clone() }).await
        {
            errors.add_err(&err.into());
            continue;
        }
        let gone = sightings(&seen.removed, &code, nodes).await;
        let gone = gone.into_iter().filter(|(at, _)| *at != node).collect();
        missed_removed += others(gone, closing, &removed);
        tokio::time::sleep(gap).await;
    }
    for ws in hosts.into_iter().chain(lookers) {
        client::close(ws).await;
    }
    followers.abort_all();
    Ok(Convergence {
        rooms,
        added: added.latency(),
        removed: removed.latency(),
        added_here: added_here.latency(),
        listed: listed_at.latency(),
        expected: (rooms * (nodes - 1)) as u64,
        missed_added,
        missed_removed,
        errors: errors.snapshot(),
    })
}
