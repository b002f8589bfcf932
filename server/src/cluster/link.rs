//! The link to Redis: one server, or a Redis Cluster. A `redis+cluster://` URL (`rediss+cluster://`
//! over TLS) names a cluster by one or more of its nodes, `HOST:PORT` separated by commas; the
//! commands then go through the crate's cluster connection, which learns the slots from any node
//! and follows `MOVED` and `ASK` and a primary's failover by itself. Subscriptions need a
//! connection of their own (see [`super::channels`]): on one Redis, to the first seed that
//! answers; on a cluster, sharded pub/sub through a cluster connection of its own, which follows
//! each channel's slot to its shard.
//!
//! What a command touches together must sit in one slot on a cluster: the keys of one game share
//! the game's hash tag, the lobby's, the limits' and the nodes' each their own.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig, PubSub};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, Value};

/// Commands to Redis: one server, or a cluster. Cheap to clone; every clone shares the
/// connection.
#[derive(Clone)]
pub(super) enum Link {
    /// One Redis; reconnects by itself after it comes back.
    Single(ConnectionManager),
    /// A Redis Cluster: routes each command to its slot's primary.
    Sharded(ClusterConnection),
}

impl ConnectionLike for Link {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Link::Single(redis) => redis.req_packed_command(cmd),
            Link::Sharded(redis) => redis.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Link::Single(redis) => redis.req_packed_commands(pipeline, offset, count),
            Link::Sharded(redis) => redis.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Link::Single(redis) => redis.get_db(),
            Link::Sharded(redis) => redis.get_db(),
        }
    }
}

/// Where subscriptions connect: the one Redis, or each seed node of a cluster in turn.
#[derive(Debug)]
pub(super) struct Seeds {
    clients: Vec<redis::Client>,
    /// The seed to try first: the last one that answered.
    next: AtomicUsize,
    /// Of a Redis Cluster: its seeds' URLs and the certificates to check, for a cluster
    /// connection of sharded subscriptions.
    sharded: Option<Sharded>,
}

/// How to reach a Redis Cluster again.
#[derive(Debug, Clone)]
struct Sharded {
    urls: Vec<String>,
    certificates: Option<redis::TlsCertificates>,
}

impl Seeds {
    /// Every seed.
    pub(super) fn all(&self) -> &[redis::Client] {
        &self.clients
    }

    /// A connection for subscriptions, from the first seed that answers, starting with the one
    /// that answered last.
    pub(super) async fn pubsub(&self) -> redis::RedisResult<PubSub> {
        let start = self.next.load(Ordering::Relaxed);
        let mut last = None;
        for i in 0..self.clients.len() {
            let at = (start + i) % self.clients.len();
            match self.clients[at].get_async_pubsub().await {
                Ok(pubsub) => {
                    self.next.store(at, Ordering::Relaxed);
                    return Ok(pubsub);
                }
                Err(err) => last = Some(err),
            }
        }
        Err(last.expect("a link has at least one seed"))
    }

    /// Of a Redis Cluster, a cluster connection for sharded subscriptions, whose messages (and
    /// word of a lost connection) go to `pushes`; `None` for one Redis.
    pub(super) async fn sharded_pubsub(
        &self,
        pushes: tokio::sync::mpsc::UnboundedSender<redis::PushInfo>,
    ) -> Option<redis::RedisResult<ClusterConnection>> {
        let sharded = self.sharded.as_ref()?;
        let connect = async {
            cluster_builder(&sharded.urls, sharded.certificates.clone())
                .use_protocol(redis::ProtocolVersion::RESP3)
                .push_sender(pushes)
                .build()?
                .get_async_connection()
                .await
        };
        Some(connect.await)
    }
}

/// A URL of a Redis Cluster split into one URL a seed node, with the same scheme (without
/// `+cluster`) and credentials; `None` for a URL of one Redis.
pub(super) fn cluster_seeds(url: &str) -> Option<Vec<String>> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.strip_suffix("+cluster")?;
    let (credentials, hosts) = match rest.rsplit_once('@') {
        Some((credentials, hosts)) => (format!("{credentials}@"), hosts),
        None => (String::new(), rest),
    };
    let hosts = hosts.trim_end_matches('/');
    Some(
        hosts
            .split(',')
            .map(|host| format!("{scheme}://{credentials}{}", host.trim()))
            .collect(),
    )
}

/// How long a command may take, and how long to wait for a connection.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Connects to the one Redis at `client`.
pub(super) async fn single(client: redis::Client) -> redis::RedisResult<(Link, Arc<Seeds>)> {
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(TIMEOUT))
        .set_response_timeout(Some(TIMEOUT))
        .set_number_of_retries(2);
    let redis = ConnectionManager::new_with_config(client.clone(), config).await?;
    Ok((Link::Single(redis), seeds(vec![client])))
}

/// Connects to the Redis Cluster of which `seeds` are nodes (each a URL of one node), checking
/// certificates against `certificates` if given. A command is tried again for a few seconds
/// while a shard fails over, a little sooner each time than the crate's default (which waits
/// over a second before the first retry, too long beside a lease).
pub(super) async fn sharded(
    urls: &[String],
    certificates: Option<redis::TlsCertificates>,
) -> redis::RedisResult<(Link, Arc<Seeds>)> {
    let clients = urls
        .iter()
        .map(|url| match &certificates {
            None => redis::Client::open(url.as_str()),
            Some(certificates) => redis::Client::build_with_tls(url.as_str(), certificates.clone()),
        })
        .collect::<redis::RedisResult<Vec<_>>>()?;
    let redis = cluster_builder(urls, certificates.clone())
        .build()?
        .get_async_connection()
        .await?;
    let mut seeds = seeds(clients);
    if let Some(seeds) = Arc::get_mut(&mut seeds) {
        seeds.sharded = Some(Sharded {
            urls: urls.to_vec(),
            certificates,
        });
    }
    Ok((Link::Sharded(redis), seeds))
}

/// A Redis Cluster's client: commands tried again for a few seconds while a shard fails over.
fn cluster_builder(
    urls: &[String],
    certificates: Option<redis::TlsCertificates>,
) -> ClusterClientBuilder {
    let mut builder = ClusterClientBuilder::new(urls.iter().map(String::as_str))
        .connection_timeout(TIMEOUT)
        .response_timeout(TIMEOUT)
        .retries(8)
        .min_retry_wait(50)
        .max_retry_wait(800);
    if let Some(certificates) = certificates {
        builder = builder.certs(certificates);
    }
    builder
}

fn seeds(clients: Vec<redis::Client>) -> Arc<Seeds> {
    Arc::new(Seeds {
        clients,
        next: AtomicUsize::new(0),
        sharded: None,
    })
}

/// The slot of Redis Cluster `key` falls in (by its hash tag, if it has one).
pub(super) fn slot_of(key: &str) -> redis::cluster_routing::Slot {
    redis::cluster_routing::Slot::for_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_url_names_its_seeds() {
        assert_eq!(cluster_seeds("redis://a:1"), None);
        assert_eq!(
            cluster_seeds("rediss+cluster://u:p@a:1,b:2").unwrap(),
            ["rediss://u:p@a:1", "rediss://u:p@b:2"]
        );
        assert_eq!(
            cluster_seeds("redis+cluster://a:1/").unwrap(),
            ["redis://a:1"]
        );
    }

    #[test]
    fn a_game_keeps_its_keys_in_one_slot() {
        assert_eq!(slot_of("{g42}:owner"), slot_of("{g42}:state"));
        assert_ne!(slot_of("{g42}:owner"), slot_of("{g43}:owner"));
    }
}
