//! Watching a game held by another node. The node that plays a listed game publishes what its
//! watchers get: each update on the channel `game:{id}`, and the watcher's snapshot under
//! `game:{id}:state`, both in one step, so the snapshot always includes every update published
//! before it. A node with watchers of a game it does not hold subscribes to that channel (one
//! subscription per game, on one connection per node), sends each new watcher the snapshot, and
//! then every update with a higher `seq`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use noughts_protocol::{GameId, RequestId};
use redis::aio::PubSubSink;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::{Cluster, ClusterError};
use crate::outbound::{ConnId, Frame, Outbound, with_id};

/// How long a game's snapshot outlives its last update.
const STATE_TTL: Duration = Duration::from_secs(600);

fn channel(game: GameId) -> String {
    format!("game:{}", game.0)
}

fn state_key(game: GameId) -> String {
    format!("game:{}:state", game.0)
}

/// What a game publishes at once: its watchers' new snapshot, and the update that led to it.
#[derive(Debug)]
pub(crate) struct Publication {
    pub game: GameId,
    /// The watcher's snapshot (`game_state`) after the update.
    pub snapshot: Frame,
    /// The update watchers got, if any (a listing change alone has none).
    pub update: Option<Frame>,
}

/// Publishes the games' updates in their order until `stop`.
pub(crate) async fn publish(
    cluster: Cluster,
    mut publications: mpsc::UnboundedReceiver<Publication>,
    stop: CancellationToken,
) {
    let ttl = u64::try_from(STATE_TTL.as_millis()).unwrap_or(u64::MAX);
    loop {
        let publication = tokio::select! {
            p = publications.recv() => match p {
                Some(p) => p,
                None => return,
            },
            () = stop.cancelled() => return,
        };
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.cmd("SET")
            .arg(state_key(publication.game))
            .arg(publication.snapshot.as_str())
            .arg("PX")
            .arg(ttl)
            .ignore();
        if let Some(update) = &publication.update {
            pipe.publish(channel(publication.game), update.as_str())
                .ignore();
        }
        if let Err(err) = pipe.exec_async(&mut cluster.redis.clone()).await {
            warn!(cause = %err, game = publication.game.0, "cannot publish a game's update");
        }
    }
}

/// One watcher here of a game held elsewhere.
#[derive(Debug)]
struct Watcher {
    out: Outbound,
    /// The `seq` of the snapshot it got; `None` until then, while updates wait in `pending`.
    since: Option<u64>,
    pending: Vec<(u64, Frame)>,
}

/// This node's watchers of games other nodes hold.
#[derive(Debug)]
pub(crate) struct RemoteWatches {
    cluster: Cluster,
    sink: PubSubSink,
    games: Mutex<HashMap<GameId, HashMap<ConnId, Watcher>>>,
}

/// The `seq` of a frame published for watchers.
fn seq_of(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get("seq")?
        .as_u64()
}

impl RemoteWatches {
    /// Connects for the subscriptions and starts routing what comes, until `stop`.
    pub(crate) async fn start(
        cluster: Cluster,
        stop: CancellationToken,
    ) -> Result<Arc<RemoteWatches>, ClusterError> {
        let (sink, mut stream) = cluster.client.get_async_pubsub().await?.split();
        let watches = Arc::new(RemoteWatches {
            cluster,
            sink,
            games: Mutex::default(),
        });
        let router = watches.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    message = stream.next() => message,
                    () = stop.cancelled() => return,
                };
                let Some(message) = message else {
                    warn!("lost the subscription to other nodes' games");
                    return;
                };
                let game = message
                    .get_channel_name()
                    .strip_prefix("game:")
                    .and_then(|id| id.parse().ok())
                    .map(GameId);
                if let (Some(game), Ok(text)) = (game, message.get_payload::<String>()) {
                    router.deliver(game, &text);
                }
            }
        });
        Ok(watches)
    }

    fn games(&self) -> MutexGuard<'_, HashMap<GameId, HashMap<ConnId, Watcher>>> {
        self.games
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// An update of `game` for its watchers here.
    fn deliver(&self, game: GameId, text: &str) {
        let Some(seq) = seq_of(text) else {
            return;
        };
        let frame = Frame::new(text.to_owned());
        let mut games = self.games();
        let Some(watchers) = games.get_mut(&game) else {
            return;
        };
        watchers.retain(|_, watcher| match watcher.since {
            None => {
                watcher.pending.push((seq, frame.clone()));
                true
            }
            Some(since) if seq > since => watcher.out.send(frame.clone()),
            Some(_) => true,
        });
    }

    /// Starts sending `out` the game `game` held by another node: its snapshot (echoing `id`),
    /// then its updates. False if no node publishes such a game.
    pub(crate) async fn watch(&self, game: GameId, out: Outbound, id: Option<RequestId>) -> bool {
        let conn = out.conn;
        let first = {
            let mut games = self.games();
            let first = !games.contains_key(&game);
            games.entry(game).or_default().insert(
                conn,
                Watcher {
                    out: out.clone(),
                    since: None,
                    pending: Vec::new(),
                },
            );
            first
        };
        if first && let Err(err) = self.sink.clone().subscribe(channel(game)).await {
            warn!(cause = %err, game = game.0, "cannot follow another node's game");
        }
        let snapshot: Option<String> = redis::cmd("GET")
            .arg(state_key(game))
            .query_async(&mut self.cluster.redis.clone())
            .await
            .unwrap_or(None);
        let Some((snapshot, seq)) = snapshot.and_then(|s| seq_of(&s).map(|seq| (s, seq))) else {
            self.unwatch(game, conn).await;
            return false;
        };
        let mut games = self.games();
        let Some(watcher) = games.get_mut(&game).and_then(|w| w.get_mut(&conn)) else {
            return true;
        };
        out.send(with_id(&Frame::new(snapshot), id.as_ref()));
        for (pending_seq, frame) in watcher.pending.drain(..) {
            if pending_seq > seq {
                out.send(frame);
            }
        }
        watcher.since = Some(seq);
        true
    }

    /// Whether `conn` watches `game` from here.
    pub(crate) fn watches(&self, game: GameId, conn: ConnId) -> bool {
        self.games()
            .get(&game)
            .is_some_and(|watchers| watchers.contains_key(&conn))
    }

    /// Stops sending `game` to `conn`; the last watcher's going ends the subscription.
    pub(crate) async fn unwatch(&self, game: GameId, conn: ConnId) {
        let last = {
            let mut games = self.games();
            let Some(watchers) = games.get_mut(&game) else {
                return;
            };
            watchers.remove(&conn);
            let last = watchers.is_empty();
            if last {
                games.remove(&game);
            }
            last
        };
        if last && let Err(err) = self.sink.clone().unsubscribe(channel(game)).await {
            warn!(cause = %err, game = game.0, "cannot stop following another node's game");
        }
    }
}
