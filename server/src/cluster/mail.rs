//! Mail between nodes: each node subscribes to its own channel `mail:{node}`, and other nodes
//! publish there what concerns it. A player's connection stays on the node it reached, and a game
//! is played by one node; mail joins the two. The connection's node forwards the player's requests
//! about a game to the game's node ([`Mail::Request`]), which answers them as it answers its own
//! connections', through a stand-in connection whose frames it mails back ([`Mail::Deliver`]).
//! Redis keeps the order of what one connection publishes on a channel, so each stand-in's frames
//! arrive in the order they were sent.
//!
//! Mail is sealed ([`super::seal`]): what comes by mail is taken as the sending node says once its
//! MAC shows that a node sent it to this mailbox; mail that fails the check, or that this node
//! cannot read, is dropped. So is a room's note of its node, kept under the room's key.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use noughts_protocol::{ClientFrame, GameId, SeekId};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::{Cluster, ClusterError};
use crate::net::outbound::{Frame, Inbox, Queued};

/// Frames mailed at once, at most.
const BATCH: usize = 64;

/// How long to wait before subscribing again after the mailbox's connection broke.
const RETRY: Duration = Duration::from_millis(250);

fn mailbox(node: &str) -> String {
    format!("mail:{node}")
}

fn player_key(player: u64) -> String {
    format!("player:{player}:nodes")
}

fn room_key(code: &str) -> String {
    format!("room:{code}")
}

/// Forgets a room's note (`KEYS[1]`) if it names node `ARGV[1]`: the note's last line, after the
/// header a sealed note starts with.
const DROP_ROOM: &str = r"
local note = redis.call('GET', KEYS[1])
if note then
    local at = string.find(note, '\n', 1, true)
    if string.sub(note, (at or 0) + 1) == ARGV[1] then redis.call('DEL', KEYS[1]) end
end
return 0
";

/// A player as the node that forwards their requests knows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Who {
    pub player: u64,
    pub name: String,
    /// Whether the player has an account (its name is then its username).
    #[serde(default)]
    pub account: bool,
    /// Whether that account is a bot account.
    #[serde(default)]
    pub bot: bool,
    /// Per variant, in `Variant::ALL` order: rating, deviation, volatility and rated games.
    pub ratings: [(f64, f64, f64, u32); 4],
    /// The address the per-address limits count under.
    pub network: std::net::IpAddr,
}

impl Who {
    /// The player of `session`, counted under `network`, as another node is told of them.
    pub(crate) fn of(
        session: &crate::session::Session,
        network: crate::net::network::Network,
    ) -> Who {
        Who {
            player: session.player.0,
            name: session.name(),
            account: session.is_account(),
            bot: session.is_bot(),
            ratings: session.ratings().parts(),
            network: network.ip(),
        }
    }
}

/// Connections of one node that follow an arena, each with its own members of the standings.
pub(crate) type Followers = Vec<(u64, String)>;

/// One message from one node to another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mail", rename_all = "snake_case")]
pub(crate) enum Mail {
    /// Frames for connection `conn` of the receiving node, in order.
    Deliver { conn: u64, frames: Vec<String> },
    /// An arena's standings for the receiving node's connections that follow it: the frame
    /// every follower gets, and for each connection `conn`, its own members (`,"me":…`) to
    /// splice in (see [`crate::net::outbound::with_members`]). One mail a node and a push,
    /// however many of its connections follow the arena.
    Standings { frame: String, followers: Followers },
    /// Close connection `conn` of the receiving node with `code`.
    Close { conn: u64, code: u16 },
    /// Everything sent to `conn` before this has been delivered: what waits on `mark` may go on.
    Marked { mark: u64 },
    /// A request (the client's frame as sent) from connection `conn` of node `from`, for the
    /// receiving node to answer.
    Request {
        from: String,
        conn: u64,
        who: Who,
        /// The request, as the connection's node read it.
        frame: ClientFrame,
        /// Whether the connection watches the game the request is about, from its own node.
        #[serde(default)]
        watching: bool,
    },
    /// Connection `conn` of node `from` speaks for the player from now on: it gets the snapshots
    /// of the player's games here, then `Marked { mark }`.
    Attach {
        from: String,
        conn: u64,
        who: Who,
        mark: u64,
    },
    /// The player of connection `conn` of node `from` takes waiting seek `seek` here; answered by
    /// `Marked { mark }` once the game has started, or `Refused { mark }`.
    TakeSeek {
        from: String,
        conn: u64,
        who: Who,
        seek: SeekId,
        mark: u64,
    },
    /// What `TakeSeek` with `mark` could not do.
    Refused { mark: u64 },
    /// Connection `conn` of node `from` has gone: whatever stood in for it here goes too.
    Gone { from: String, conn: u64 },
    /// Node `from`, stopping, has handed `game` over before it could serve request `frame` of
    /// connection `conn` of the receiving node: that node serves it again, now that the game is
    /// to be found elsewhere (or taken over there).
    Retry {
        from: String,
        conn: u64,
        game: GameId,
        frame: ClientFrame,
    },
    /// Node `from` still has connections `conns` with stand-ins on the receiving node (sent every
    /// half lease time): a stand-in left out twice has lost its `Gone`, and ends.
    Alive { from: String, conns: Vec<u64> },
    /// `player`, connected to the receiving node, has a seat in the new game `game` on `from`.
    Seated {
        from: String,
        player: u64,
        game: GameId,
    },
    /// Node `from` has `count` watchers of `game`, which the receiving node plays.
    Watching {
        from: String,
        game: GameId,
        count: usize,
    },
}

impl Cluster {
    /// Mails `mail` to `node`; false if no node listens under that name (it is gone).
    pub(crate) async fn mail(&self, node: &str, mail: &Mail) -> Result<bool, ClusterError> {
        let text = serde_json::to_string(mail).expect("mail serialises");
        let mailbox = mailbox(node);
        // On a Redis Cluster the mailbox is a sharded channel: its shard counts every listener.
        let listeners: u64 = super::channels::publish(self.is_sharded())
            .arg(&mailbox)
            .arg(self.seal.publish(&mailbox, &text).as_ref())
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(listeners > 0)
    }

    /// Mails several messages to `node` in one round trip, in order.
    pub(crate) async fn mail_all(&self, node: &str, mails: &[Mail]) -> Result<(), ClusterError> {
        let mut pipe = redis::pipe();
        let mailbox = mailbox(node);
        for mail in mails {
            let text = serde_json::to_string(mail).expect("mail serialises");
            self.publish_in(
                &mut pipe,
                &mailbox,
                self.seal.publish(&mailbox, &text).as_ref(),
            );
        }
        pipe.exec_async(&mut self.redis.clone()).await?;
        Ok(())
    }

    /// The node that plays `game`, if it is not this one and its lease stands.
    pub(crate) async fn player_node(&self, game: GameId) -> Result<Option<String>, ClusterError> {
        Ok(self.owner(game).await?.filter(|node| *node != self.node))
    }

    /// Notes that `player` is connected to this node (for a day at most, renewed at each
    /// connection).
    pub(crate) async fn here(&self, player: u64) -> Result<(), ClusterError> {
        redis::pipe()
            .atomic()
            .sadd(player_key(player), &self.node)
            .ignore()
            .expire(player_key(player), 86_400)
            .ignore()
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Notes that `player` has no connection left on this node.
    pub(crate) async fn gone_from_here(&self, player: u64) -> Result<(), ClusterError> {
        redis::cmd("SREM")
            .arg(player_key(player))
            .arg(&self.node)
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The other nodes `player` is connected to.
    pub(crate) async fn where_else(&self, player: u64) -> Vec<String> {
        let nodes: Vec<String> = redis::cmd("SMEMBERS")
            .arg(player_key(player))
            .query_async(&mut self.redis.clone())
            .await
            .unwrap_or_default();
        nodes.into_iter().filter(|n| *n != self.node).collect()
    }

    /// Tells the other nodes the players of the new `game` here are connected to, so that their
    /// connections there reach it.
    pub(crate) fn tell_seated(&self, game: GameId, players: Vec<u64>) {
        let cluster = self.clone();
        tokio::spawn(async move {
            for player in players {
                for node in cluster.where_else(player).await {
                    let seated = Mail::Seated {
                        from: cluster.node.clone(),
                        player,
                        game,
                    };
                    if let Err(err) = cluster.mail(&node, &seated).await {
                        warn!(cause = %err, %node, "cannot tell another node of a new game");
                    }
                }
            }
        });
    }

    /// Notes that this node holds the room with canonical code `code` (for a day at most: a
    /// room's host leaves long before, and a stale note only leads to a "no such room").
    pub(crate) async fn hold_room(&self, code: &str) -> Result<(), ClusterError> {
        let key = room_key(code);
        redis::cmd("SET")
            .arg(&key)
            .arg(self.seal.keep(&key, &self.node).as_ref())
            .arg("EX")
            .arg(86_400)
            .exec_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Forgets the room with canonical code `code`, if this node held it.
    pub(crate) async fn drop_room(&self, code: &str) -> Result<(), ClusterError> {
        redis::Script::new(DROP_ROOM)
            .key(room_key(code))
            .arg(&self.node)
            .invoke_async::<u64>(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// The node holding the room with canonical code `code`, if another node does.
    pub(crate) async fn room_node(&self, code: &str) -> Result<Option<String>, ClusterError> {
        let key = room_key(code);
        let note: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(note
            .as_deref()
            .and_then(|note| self.seal.open_kept(&key, note))
            .filter(|node| *node != self.node)
            .map(str::to_owned))
    }

    /// Hands every message mailed to this node to `receive`, in order, until `stop`; subscribes
    /// again after a broken connection (what was mailed meanwhile is lost, as with any pub/sub:
    /// the senders' waits time out, and players resume). `reading` hears when the mailbox is
    /// first subscribed: until then, other nodes take this one for gone.
    pub(crate) async fn read_mail(
        self,
        receive: impl Fn(Mail) + Send + 'static,
        stop: CancellationToken,
        reading: oneshot::Sender<()>,
    ) {
        let mut reading = Some(reading);
        loop {
            match self.read_mail_once(&receive, &stop, &mut reading).await {
                Ok(()) => return,
                Err(err) => warn!(cause = %err, "lost this node's mailbox; subscribing again"),
            }
            tokio::select! {
                () = tokio::time::sleep(RETRY) => {}
                () = stop.cancelled() => return,
            }
        }
    }

    async fn read_mail_once(
        &self,
        receive: &impl Fn(Mail),
        stop: &CancellationToken,
        reading: &mut Option<oneshot::Sender<()>>,
    ) -> Result<(), ClusterError> {
        let (mut sink, mut messages) = self.subscribe().await?;
        sink.subscribe(&mailbox(&self.node)).await?;
        info!("reading this node's mail");
        if let Some(reading) = reading.take() {
            let _ = reading.send(());
        }
        loop {
            let message = tokio::select! {
                message = messages.next() => message,
                () = stop.cancelled() => return Ok(()),
            };
            let Some(message) = message else {
                return Err(ClusterError::Broken("the mailbox's channel closed"));
            };
            let Some(text) = self.seal.open(&message.channel, &message.payload) else {
                continue;
            };
            match serde_json::from_str::<Mail>(text) {
                Ok(mail) => receive(mail),
                Err(err) => warn!(cause = %err, "mail this node cannot read"),
            }
        }
    }
}

/// Requests to other nodes that wait for an answer ([`Mail::Marked`] or [`Mail::Refused`]).
#[derive(Debug, Default)]
pub(crate) struct Marks {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<bool>>>,
}

impl Marks {
    /// A fresh mark to send, and where its answer comes: true for `Marked`, false for `Refused`.
    pub(crate) fn wait(&self) -> (u64, oneshot::Receiver<bool>) {
        let mark = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting().insert(mark, tx);
        (mark, rx)
    }

    /// The answer to `mark` has come.
    pub(crate) fn answer(&self, mark: u64, done: bool) {
        if let Some(tx) = self.waiting().remove(&mark) {
            let _ = tx.send(done);
        }
    }

    /// Gives up waiting for `mark`.
    pub(crate) fn forget(&self, mark: u64) {
        self.waiting().remove(&mark);
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<bool>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Cluster {
    /// Mails pushed standings to the followers of an arena on other nodes: one mail a node
    /// ([`Mail::Standings`]), the `shared` frame once with each follower's own members, spliced
    /// in there as the director's node does for its own followers.
    pub(crate) fn mail_standings(&self, shared: &Frame, elsewhere: HashMap<&str, Followers>) {
        for (node, followers) in elsewhere {
            let (cluster, node) = (self.clone(), node.to_owned());
            let mail = Mail::Standings {
                frame: shared.as_str().to_owned(),
                followers,
            };
            tokio::spawn(async move {
                if let Err(err) = cluster.mail(&node, &mail).await {
                    warn!(cause = %err, %node, "cannot mail an arena's standings");
                }
            });
        }
    }

    /// Mails what a stand-in for connection `conn` of `node` is sent, in order, until its queue
    /// closes: frames in batches, marks as they come, and a close when it is asked to close.
    pub(crate) async fn mail_frames(self, node: String, conn: u64, mut inbox: Inbox) {
        let mut queued = Vec::new();
        loop {
            tokio::select! {
                biased;
                first = inbox.frames.recv() => {
                    let Some(first) = first else { return };
                    queued.push(first);
                    inbox.take(&mut queued, BATCH);
                }
                changed = inbox.kick.changed() => {
                    let why = *inbox.kick.borrow_and_update();
                    if let (Ok(()), Some(why)) = (changed, why) {
                        inbox.take(&mut queued, usize::MAX);
                        let mut mails = as_mails(conn, queued.drain(..));
                        mails.push(Mail::Close { conn, code: why.code });
                        if let Err(err) = self.mail_all(&node, &mails).await {
                            warn!(cause = %err, %node, "cannot mail a close");
                        }
                    }
                    return;
                }
            }
            let mails = as_mails(conn, queued.drain(..));
            if let Err(err) = self.mail_all(&node, &mails).await {
                warn!(cause = %err, %node, "cannot mail frames to another node");
            }
        }
    }
}

/// Queued items as mail: runs of frames as one delivery each, marks as they stand.
fn as_mails(conn: u64, queued: impl Iterator<Item = Queued>) -> Vec<Mail> {
    let mut mails = Vec::new();
    for item in queued {
        match item {
            Queued::Frame(frame) => match mails.last_mut() {
                Some(Mail::Deliver { frames, .. }) => frames.push(frame.as_str().to_owned()),
                _ => mails.push(Mail::Deliver {
                    conn,
                    frames: vec![frame.as_str().to_owned()],
                }),
            },
            Queued::Mark(mark) => mails.push(Mail::Marked { mark }),
            Queued::Flush => {}
        }
    }
    mails
}

impl Cluster {
    /// Whether the node `node` serves now: its heartbeat stands (a node paused past its lease
    /// has lost it) and it reads its mail (a node killed a moment ago stops at once, while its
    /// heartbeat stands until it lapses).
    pub(crate) async fn is_serving(&self, node: &str) -> bool {
        self.is_alive(node).await && self.is_listening(node).await
    }

    /// Whether the node `node` reads its mail now. If Redis cannot say, it is presumed to: a
    /// node is never taken for dead because Redis is out of reach (its players would be cut
    /// from their games, and lose them by abandonment, for a fault of the site's own).
    pub(crate) async fn is_listening(&self, node: &str) -> bool {
        // On a Redis Cluster the mailbox is a sharded channel, counted by its shard (the crate
        // asks every node and sums).
        let numsub = if self.is_sharded() {
            "SHARDNUMSUB"
        } else {
            "NUMSUB"
        };
        let counts: Result<HashMap<String, u64>, _> = redis::cmd("PUBSUB")
            .arg(numsub)
            .arg(mailbox(node))
            .query_async(&mut self.redis.clone())
            .await;
        counts.map_or(true, |counts| counts.values().any(|n| *n > 0))
    }

    /// Whether the node `node` is alive (its heartbeat stands); presumed so if Redis cannot say.
    pub(crate) async fn is_alive(&self, node: &str) -> bool {
        redis::cmd("EXISTS")
            .arg(super::nodes::alive_key(node))
            .query_async::<bool>(&mut self.redis.clone())
            .await
            .unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use noughts_protocol::{ClientMessage, RequestId};

    use super::*;

    #[test]
    fn mail_reads_back_as_written() {
        let who = Who {
            player: 7,
            name: "ada".into(),
            ratings: [(1500.0, 350.0, 0.06, 0); 4],
            network: "192.0.2.1".parse().unwrap(),
            account: false,
            bot: false,
        };
        let a_move = ClientFrame {
            id: Some(RequestId::Number(7)),
            message: ClientMessage::Move {
                game: GameId(1),
                cell: 4,
            },
        };
        let all = [
            Mail::Deliver {
                conn: 3,
                frames: vec![r#"{"type":"pong"}"#.into()],
            },
            Mail::Request {
                from: "b".into(),
                conn: 4,
                who: who.clone(),
                frame: a_move.clone(),
                watching: false,
            },
            Mail::TakeSeek {
                from: "b".into(),
                conn: 4,
                who,
                seek: SeekId(9),
                mark: 2,
            },
            Mail::Gone {
                from: "b".into(),
                conn: 4,
            },
            Mail::Standings {
                frame: r#"{"type":"arena"}"#.into(),
                followers: vec![(4, r#","my_game":9"#.into()), (5, String::new())],
            },
            Mail::Retry {
                from: "b".into(),
                conn: 4,
                game: GameId(1),
                frame: a_move,
            },
        ];
        for mail in all {
            let text = serde_json::to_string(&mail).unwrap();
            assert_eq!(serde_json::from_str::<Mail>(&text).unwrap(), mail);
        }
    }
}
