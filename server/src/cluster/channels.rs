//! Channels between nodes: classic pub/sub on one Redis; on a Redis Cluster, sharded pub/sub
//! (`SSUBSCRIBE`, `SPUBLISH`), where a channel lives on the shard that holds its slot (the hash
//! tag of its name, as keys have) instead of being copied to every Redis node of the cluster, so
//! that the games' channels spread over the shards as their keys do.
//!
//! A subscription is a [`Sink`], to subscribe and unsubscribe, and its [`Messages`]. Messages end
//! (`None`) when the connection breaks; the subscriber opens another and subscribes again, and
//! takes what it may have missed from Redis's keys. On a cluster a break is any shard's
//! connection lost, or a channel unsubscribed by Redis rather than asked (a shard's primary
//! handing over to its replica drops its sharded subscribers): the cluster connection would
//! subscribe again by itself, but what was published meanwhile is gone, so the subscriber is told
//! all the same.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use redis::aio::{PubSubSink, PubSubStream};
use redis::cluster_async::ClusterConnection;
use redis::{PushInfo, PushKind, RedisResult, Value};
use tokio::sync::mpsc;

use super::{Cluster, ClusterError};

/// Where a subscription's requests go.
#[derive(Clone)]
pub(crate) enum Sink {
    One(PubSubSink),
    /// The cluster connection, and the channels it has asked to leave and not yet heard left.
    Sharded(ClusterConnection, Leaving),
}

/// Channels a sharded subscription asked to leave: their `sunsubscribe` is expected, any other
/// is Redis's doing.
type Leaving = Arc<Mutex<HashSet<String>>>;

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sink::One(_) => "Sink::One",
            Sink::Sharded(..) => "Sink::Sharded",
        })
    }
}

impl Sink {
    /// Subscribes to `channel`.
    pub(crate) async fn subscribe(&mut self, channel: &str) -> RedisResult<()> {
        match self {
            Sink::One(sink) => sink.subscribe(channel).await,
            Sink::Sharded(cluster, _) => cluster.ssubscribe(channel).await,
        }
    }

    /// Stops listening to `channel`.
    pub(crate) async fn unsubscribe(&mut self, channel: &str) -> RedisResult<()> {
        match self {
            Sink::One(sink) => sink.unsubscribe(channel).await,
            Sink::Sharded(cluster, leaving) => {
                lock(leaving).insert(channel.to_owned());
                cluster.sunsubscribe(channel).await
            }
        }
    }
}

/// What comes on a subscription's channels.
pub(crate) enum Messages {
    One(PubSubStream),
    Sharded(mpsc::UnboundedReceiver<PushInfo>, Leaving),
}

/// One message: the channel it came on, and its text.
pub(crate) struct Message {
    pub channel: String,
    pub payload: String,
}

impl Messages {
    /// The next message whose text is UTF-8; `None` once the connection broke.
    pub(crate) async fn next(&mut self) -> Option<Message> {
        loop {
            match self {
                Messages::One(stream) => {
                    let message = stream.next().await?;
                    if let Ok(payload) = message.get_payload::<String>() {
                        let channel = message.get_channel_name().to_owned();
                        return Some(Message { channel, payload });
                    }
                }
                Messages::Sharded(pushes, leaving) => {
                    let push = pushes.recv().await?;
                    match push.kind {
                        PushKind::SMessage | PushKind::Message => {
                            if let Some(message) = message_of(push.data) {
                                return Some(message);
                            }
                        }
                        PushKind::Disconnection => return None,
                        PushKind::SUnsubscribe => {
                            let channel = push.data.into_iter().next().and_then(text);
                            let asked = channel.is_some_and(|c| lock(leaving).remove(&c));
                            if !asked {
                                return None;
                            }
                        }
                        // Confirmations of (un)subscriptions, and other pushes.
                        _ => {}
                    }
                }
            }
        }
    }
}

/// A pushed message's channel and text (`[channel, payload]`), if both are text.
fn message_of(data: Vec<Value>) -> Option<Message> {
    let mut data = data.into_iter();
    let channel = text(data.next()?)?;
    let payload = text(data.next()?)?;
    Some(Message { channel, payload })
}

/// A pushed value as text, if it is.
fn text(value: Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes).ok(),
        Value::SimpleString(text) => Some(text),
        _ => None,
    }
}

fn lock(leaving: &Leaving) -> std::sync::MutexGuard<'_, HashSet<String>> {
    leaving.lock().unwrap_or_else(|p| p.into_inner())
}

/// The command that publishes on a channel: `SPUBLISH` on a Redis Cluster, `PUBLISH` otherwise.
pub(crate) fn publish(sharded: bool) -> redis::Cmd {
    redis::cmd(if sharded { "SPUBLISH" } else { "PUBLISH" })
}

impl Cluster {
    /// A subscription of its own: on one Redis, a connection to the first seed that answers;
    /// on a Redis Cluster, a cluster connection for sharded channels.
    pub(crate) async fn subscribe(&self) -> Result<(Sink, Messages), ClusterError> {
        let (pushes, received) = mpsc::unbounded_channel();
        if let Some(sharded) = self.seeds.sharded_pubsub(pushes).await {
            let leaving = Leaving::default();
            return Ok((
                Sink::Sharded(sharded?, leaving.clone()),
                Messages::Sharded(received, leaving),
            ));
        }
        let (sink, stream) = self.seeds.pubsub().await?.split();
        Ok((Sink::One(sink), Messages::One(stream)))
    }

    /// Publishes `payload` on `channel` in `pipe` (its answer ignored).
    pub(crate) fn publish_in(&self, pipe: &mut redis::Pipeline, channel: &str, payload: &str) {
        let mut publish = publish(self.is_sharded());
        publish.arg(channel).arg(payload);
        pipe.add_command(publish).ignore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pushed_message_reads_as_its_channel_and_text() {
        let data = vec![
            Value::BulkString(b"{g7}:updates".to_vec()),
            Value::BulkString(b"{}".to_vec()),
        ];
        let message = message_of(data).unwrap();
        assert_eq!(
            (message.channel.as_str(), message.payload.as_str()),
            ("{g7}:updates", "{}")
        );
        assert!(message_of(vec![Value::BulkString(vec![0xff])]).is_none());
    }
}
