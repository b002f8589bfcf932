//! Watching a game held by another node. The node that plays a listed game publishes what its
//! watchers get: each update on the channel `{gID}:updates`, and the watcher's snapshot under
//! `{gID}:state`, the snapshot first, so the snapshot always includes every update published
//! before it (one pipeline a move, in order on one connection: a `MULTI` around it would only
//! add two commands a move to the cluster's busiest shared part). A node with watchers of a game
//! it does not hold subscribes to that channel (one subscription per game, on one connection per
//! node), sends each new watcher the snapshot, and then every update with a higher `seq`. A watcher here is spared the chat lines of players
//! they mute, in the snapshot and in the updates, as a watcher on the game's own node is. Both are
//! sealed ([`super::seal`]): an update is taken only from its own game's channel, a snapshot only
//! from its own game's key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use noughts_protocol::{GameId, PlayerId, RequestId, ServerFrame, ServerMessage};
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::channels::{Messages, Sink};
use super::mail::Mail;
use super::{Cluster, ClusterError};
use crate::moderation::Moderation;
use crate::net::outbound::{ConnId, Frame, Outbound, frame, with_id};

/// How long a game's snapshot outlives its last update.
const STATE_TTL: Duration = Duration::from_secs(600);

/// The channel of `game`'s updates, in the game's slot ([`super::lease`]'s hash tag), so that
/// a snapshot and its update go out in one pipeline to one shard of a Redis Cluster.
fn channel(game: GameId) -> String {
    format!("{{g{}}}:updates", game.0)
}

/// The game a channel named by [`channel`] carries the updates of.
fn game_of(channel: &str) -> Option<GameId> {
    let id = channel.strip_prefix("{g")?.strip_suffix("}:updates")?;
    id.parse().ok().map(GameId)
}

fn state_key(game: GameId) -> String {
    format!("{{g{}}}:state", game.0)
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
        // The snapshot is set before the update goes out: whoever reads it then has every
        // update published before it, and drops the ones it has by their `seq`.
        let mut pipe = redis::pipe();
        let key = state_key(publication.game);
        pipe.cmd("SET")
            .arg(&key)
            .arg(
                cluster
                    .seal
                    .keep(&key, publication.snapshot.as_str())
                    .as_ref(),
            )
            .arg("PX")
            .arg(ttl)
            .ignore();
        if let Some(update) = &publication.update {
            let channel = channel(publication.game);
            let sealed = cluster.seal.publish(&channel, update.as_str());
            cluster.publish_in(&mut pipe, &channel, sealed.as_ref());
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
    /// Who watches: whose mutes apply to the chat lines.
    player: PlayerId,
    /// The `seq` of the snapshot it got; `None` until then, while updates wait in `pending`.
    since: Option<u64>,
    pending: Vec<(u64, Frame)>,
}

/// This node's watchers of games other nodes hold.
#[derive(Debug)]
pub(crate) struct RemoteWatches {
    cluster: Cluster,
    moderation: Arc<Moderation>,
    /// Subscribes and unsubscribes; `None` while the subscription connection is down.
    sink: Mutex<Option<Sink>>,
    games: Mutex<HashMap<GameId, HashMap<ConnId, Watcher>>>,
}

/// What a node reads of a frame published for watchers: its `seq`, and a chat line's speaker.
#[derive(Deserialize)]
struct Published<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    seq: Option<u64>,
    player: Option<PlayerId>,
}

/// The `seq` of a frame published for watchers, and the speaker if it is a chat line.
fn read_published(text: &str) -> Option<(u64, Option<PlayerId>)> {
    let published: Published = serde_json::from_str(text).ok()?;
    let chat = published.kind.as_deref() == Some("chat");
    Some((published.seq?, published.player.filter(|_| chat)))
}

/// The `seq` of a frame published for watchers.
fn seq_of(text: &str) -> Option<u64> {
    read_published(text).map(|(seq, _)| seq)
}

impl RemoteWatches {
    /// Connects for the subscriptions and starts routing what comes, until `stop`; a broken
    /// connection is made again, every game subscribed again, and every watcher sent a fresh
    /// snapshot (updates may have been missed meanwhile).
    pub(crate) async fn start(
        cluster: Cluster,
        moderation: Arc<Moderation>,
        stop: CancellationToken,
    ) -> Result<Arc<RemoteWatches>, ClusterError> {
        let (sink, stream) = cluster.subscribe().await?;
        let watches = Arc::new(RemoteWatches {
            cluster,
            moderation,
            sink: Mutex::new(Some(sink)),
            games: Mutex::default(),
        });
        let router = watches.clone();
        tokio::spawn(async move {
            let mut stream = Some(stream);
            loop {
                if let Some(stream) = stream.take() {
                    router.route(stream, &stop).await;
                }
                if stop.is_cancelled() {
                    return;
                }
                *router.sink.lock().unwrap_or_else(|p| p.into_inner()) = None;
                tokio::time::sleep(Duration::from_millis(250)).await;
                match router.cluster.subscribe().await {
                    Ok((sink, fresh)) => {
                        router.resume(sink).await;
                        stream = Some(fresh);
                    }
                    Err(err) => warn!(cause = %err, "cannot follow other nodes' games yet"),
                }
            }
        });
        Ok(watches)
    }

    /// Routes what comes on `stream` until it ends or `stop`.
    async fn route(&self, mut stream: Messages, stop: &CancellationToken) {
        loop {
            let message = tokio::select! {
                message = stream.next() => message,
                () = stop.cancelled() => return,
            };
            let Some(message) = message else {
                warn!("lost the subscription to other nodes' games");
                return;
            };
            if let Some(game) = game_of(&message.channel)
                && let Some(text) = self.cluster.seal.open(&message.channel, &message.payload)
            {
                self.deliver(game, text);
            }
        }
    }

    /// On a new subscription connection: every game followed again, every watcher resent its
    /// game's snapshot.
    async fn resume(&self, mut sink: Sink) {
        let games: Vec<GameId> = self.games().keys().copied().collect();
        for &game in &games {
            if let Err(err) = sink.subscribe(&channel(game)).await {
                warn!(cause = %err, game = game.0, "cannot follow another node's game");
            }
        }
        *self.sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(sink);
        for game in games {
            let Some((snapshot, seq)) = self.snapshot(game).await else {
                continue;
            };
            if let Some(watchers) = self.games().get_mut(&game) {
                for watcher in watchers.values_mut() {
                    watcher
                        .out
                        .send(self.snapshot_for(&snapshot, watcher.player, None));
                    watcher.since = Some(seq);
                    watcher.pending.clear();
                }
            }
        }
    }

    /// The watchers' snapshot of `game`, and its `seq`, if its node publishes one.
    async fn snapshot(&self, game: GameId) -> Option<(String, u64)> {
        let key = state_key(game);
        let snapshot: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut self.cluster.redis.clone())
            .await
            .unwrap_or(None);
        let snapshot = snapshot.as_deref()?;
        let snapshot = self.cluster.seal.open_kept(&key, snapshot)?;
        seq_of(snapshot).map(|seq| (snapshot.to_owned(), seq))
    }

    /// The snapshot `text` as `player` is to get it (echoing `id`): without the chat lines of
    /// the players they mute. Most watchers mute nobody and get the published text as it is.
    fn snapshot_for(&self, text: &str, player: PlayerId, id: Option<&RequestId>) -> Frame {
        let shared = Frame::new(text.to_owned());
        let moderation = self.moderation.state();
        if !moderation.mutes_anyone(player) {
            return with_id(&shared, id);
        }
        let Ok(ServerFrame {
            message: ServerMessage::GameState(mut state),
            ..
        }) = serde_json::from_str::<ServerFrame>(text)
        else {
            return with_id(&shared, id);
        };
        state.chat.retain(|line| {
            line.player
                .is_none_or(|speaker| !moderation.mutes(player, speaker))
        });
        frame(id.cloned(), ServerMessage::GameState(state))
    }

    /// The subscription connection's sink, if it is up.
    fn sink(&self) -> Option<Sink> {
        self.sink.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn games(&self) -> MutexGuard<'_, HashMap<GameId, HashMap<ConnId, Watcher>>> {
        self.games
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// An update of `game` for its watchers here.
    fn deliver(&self, game: GameId, text: &str) {
        let Some((seq, speaker)) = read_published(text) else {
            return;
        };
        let hidden = speaker
            .map(|speaker| self.moderation.state().muted_by(speaker))
            .unwrap_or_default();
        let frame = Frame::new(text.to_owned());
        let mut games = self.games();
        let Some(watchers) = games.get_mut(&game) else {
            return;
        };
        watchers.retain(|_, watcher| match watcher.since {
            _ if hidden.contains(&watcher.player) => true,
            None => {
                watcher.pending.push((seq, frame.clone()));
                true
            }
            Some(since) if seq > since => watcher.out.send(frame.clone()),
            Some(_) => true,
        });
    }

    /// Starts sending `out`, of `player`, the game `game` held by another node: its snapshot (echoing `id`),
    /// then its updates. False if no node publishes such a game.
    pub(crate) async fn watch(
        &self,
        game: GameId,
        player: PlayerId,
        out: Outbound,
        id: Option<RequestId>,
    ) -> bool {
        let conn = out.conn;
        let first = {
            let mut games = self.games();
            let first = !games.contains_key(&game);
            games.entry(game).or_default().insert(
                conn,
                Watcher {
                    out: out.clone(),
                    player,
                    since: None,
                    pending: Vec::new(),
                },
            );
            first
        };
        if first
            && let Some(mut sink) = self.sink()
            && let Err(err) = sink.subscribe(&channel(game)).await
        {
            warn!(cause = %err, game = game.0, "cannot follow another node's game");
        }
        let Some((snapshot, seq)) = self.snapshot(game).await else {
            self.unwatch(game, conn).await;
            return false;
        };
        {
            let mut games = self.games();
            let Some(watcher) = games.get_mut(&game).and_then(|w| w.get_mut(&conn)) else {
                return true;
            };
            out.send(self.snapshot_for(&snapshot, player, id.as_ref()));
            for (pending_seq, frame) in watcher.pending.drain(..) {
                if pending_seq > seq {
                    out.send(frame);
                }
            }
            watcher.since = Some(seq);
        }
        self.report(game).await;
        true
    }

    /// Whether the node that plays `game` publishes it for other nodes' watchers (it is listed).
    pub(crate) async fn published(&self, game: GameId) -> bool {
        redis::cmd("EXISTS")
            .arg(state_key(game))
            .query_async::<bool>(&mut self.cluster.redis.clone())
            .await
            .unwrap_or(false)
    }

    /// Tells the node that plays `game` how many watch it from here.
    async fn report(&self, game: GameId) {
        let count = self.games().get(&game).map_or(0, HashMap::len);
        let Ok(Some(node)) = self.cluster.player_node(game).await else {
            return;
        };
        let mail = Mail::Watching {
            from: self.cluster.node().to_owned(),
            game,
            count,
        };
        if let Err(err) = self.cluster.mail(&node, &mail).await {
            warn!(cause = %err, game = game.0, "cannot tell a game's node of its watchers here");
        }
    }

    /// Tells, every lease time until `stop`, each watched game's node how many watch it from
    /// here (a node that took a game over learns so; a count not told again lapses there).
    pub(crate) async fn keep_reporting(self: Arc<Self>, stop: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(self.cluster.lease()) => {}
                () = stop.cancelled() => return,
            }
            let games: Vec<GameId> = self.games().keys().copied().collect();
            for game in games {
                self.report(game).await;
            }
        }
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
        if last
            && let Some(mut sink) = self.sink()
            && let Err(err) = sink.unsubscribe(&channel(game)).await
        {
            warn!(cause = %err, game = game.0, "cannot stop following another node's game");
        }
        self.report(game).await;
    }
}
