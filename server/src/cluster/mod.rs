//! The coordination several nodes share through Redis: the connection (with a clear error when
//! Redis cannot be reached), the nodes that are alive ([`nodes`]), ids no two nodes give twice
//! ([`ids`]), one lobby for all of them ([`lobby`]), work one node does for all ([`slot`]: the
//! war games), watching games other nodes hold ([`games`]), mail between nodes, which lets a
//! player on one node play a game another node holds ([`mail`], [`links`]), and the ownership of live games by leases with fencing epochs ([`lease`]), the
//! rule that lets exactly one node advance a game at a time; and the per-address caps on rooms
//! and seeks, counted across nodes ([`limits`]). What nodes send each other is signed under the
//! cluster's secret ([`seal`]). All but the seal's secret and [`redacted`] come with the
//! `cluster` feature: a server built without it runs alone.

#[cfg(feature = "cluster")]
pub(crate) mod channels;
#[cfg(feature = "cluster")]
pub(crate) mod games;
#[cfg(feature = "cluster")]
pub mod ids;
#[cfg(feature = "cluster")]
pub mod lease;
#[cfg(feature = "cluster")]
pub mod leases;
#[cfg(feature = "cluster")]
pub(crate) mod limits;
#[cfg(feature = "cluster")]
mod link;
#[cfg(feature = "cluster")]
pub(crate) mod links;
#[cfg(feature = "cluster")]
pub(crate) mod lobby;
#[cfg(feature = "cluster")]
pub(crate) mod mail;
#[cfg(feature = "cluster")]
pub mod nodes;
#[cfg(feature = "cluster")]
pub(crate) mod remote_game;
pub mod seal;
#[cfg(feature = "cluster")]
pub mod slot;
#[cfg(all(test, feature = "cluster"))]
mod tests;
#[cfg(feature = "cluster")]
pub(crate) mod wing;

#[cfg(feature = "cluster")]
use std::time::Duration;

#[cfg(feature = "cluster")]
use std::sync::Arc;

#[cfg(feature = "cluster")]
/// One node's link to the cluster's Redis.
#[derive(Clone)]
pub struct Cluster {
    /// This node's name, unique in the cluster; it names the owner in every lease it holds.
    node: String,
    /// This process's number, random: a node restarted under the same name has a new one, by
    /// which the others tell that what they set up with the old process (stand-ins, followers)
    /// is gone, however soon it came back (see the `nodes` module).
    incarnation: u64,
    /// Commands, to one Redis or a Redis Cluster; reconnects by itself after Redis comes back.
    redis: link::Link,
    /// For connections of their own: pub/sub needs one each.
    seeds: Arc<link::Seeds>,
    /// How long a lease lasts without renewal: a node that dies loses its games this long after.
    pub(super) lease: Duration,
    /// Signs what this node sends the others and checks what they send (off until
    /// [`Cluster::with_secret`]).
    seal: seal::Seal,
}

#[cfg(feature = "cluster")]
impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("node", &self.node)
            .field("lease", &self.lease)
            .field("seal", &self.seal)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "cluster")]
/// Why a node could not join the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("the Redis URL is not valid: {0}")]
    BadUrl(redis::RedisError),
    #[error("cannot reach Redis at {url}: {cause}")]
    Unreachable {
        url: String,
        cause: redis::RedisError,
    },
    #[error("Redis: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("Redis: {0}")]
    Broken(&'static str),
    #[error("cannot read Redis's certificate authorities from {path}: {cause}")]
    CaFile { path: String, cause: std::io::Error },
    #[error(
        "Redis at {url} lets in anyone who reaches it, without a password: give it one (an ACL \
         user, or requirepass) and the nodes the URL with it (redis://USER:PASSWORD@HOST:PORT, \
         by --redis-url-file), or pass --insecure-redis"
    )]
    Open { url: String },
}

#[cfg(feature = "cluster")]
impl Cluster {
    /// Joins the cluster at `url` as `node`: connects, and checks Redis answers, so a node that
    /// cannot reach it says so at start rather than at its first game. A `rediss://` URL is
    /// reached over TLS, its certificate checked against the system's authorities; a
    /// `redis+cluster://` URL (`rediss+cluster://`) names a Redis Cluster by one or more of its
    /// nodes, `HOST:PORT` separated by commas ([`link`]).
    pub async fn join(url: &str, node: &str, lease: Duration) -> Result<Cluster, ClusterError> {
        Cluster::join_trusting(url, None, node, lease).await
    }

    /// [`Cluster::join`], with a `rediss://` URL's certificate checked against the authorities
    /// in the PEM file `ca` (when given) rather than the system's.
    pub async fn join_trusting(
        url: &str,
        ca: Option<&std::path::Path>,
        node: &str,
        lease: Duration,
    ) -> Result<Cluster, ClusterError> {
        let certificates = match ca {
            None => None,
            Some(ca) => Some(redis::TlsCertificates {
                client_tls: None,
                root_cert: Some(std::fs::read(ca).map_err(|cause| ClusterError::CaFile {
                    path: ca.display().to_string(),
                    cause,
                })?),
            }),
        };
        let unreachable = |cause| ClusterError::Unreachable {
            url: redacted(url),
            cause,
        };
        let (mut redis, seeds) = match link::cluster_seeds(url) {
            Some(urls) => {
                // A bad URL is told apart from a cluster out of reach before connecting.
                for url in &urls {
                    redis::IntoConnectionInfo::into_connection_info(url.as_str())
                        .map_err(ClusterError::BadUrl)?;
                }
                link::sharded(&urls, certificates)
                    .await
                    .map_err(unreachable)?
            }
            None => {
                let client = match certificates {
                    None => redis::Client::open(url),
                    Some(certificates) => redis::Client::build_with_tls(url, certificates),
                }
                .map_err(ClusterError::BadUrl)?;
                link::single(client).await.map_err(unreachable)?
            }
        };
        let _: String = redis::cmd("PING")
            .query_async(&mut redis)
            .await
            .map_err(unreachable)?;
        Ok(Cluster {
            node: node.to_owned(),
            incarnation: new_incarnation(),
            redis,
            seeds,
            lease,
            seal: seal::Seal::default(),
        })
    }

    /// Refuses a Redis that answers a client which gives no credentials: it opens a second
    /// connection to the same place (over TLS too, if the URL says so) without the URL's user
    /// and password, and sends `PING`. A Redis that asks for a password answers `NOAUTH`. Of a
    /// Redis Cluster, each node the URL names is asked.
    pub async fn refuse_open_redis(&self) -> Result<(), ClusterError> {
        for seed in self.seeds.all() {
            refuse_open(seed).await?;
        }
        Ok(())
    }

    /// This node signs what it sends with `secret` and takes from the others only what is
    /// signed with it; refused for a node whose name holds a control character.
    pub fn with_secret(mut self, secret: &seal::ClusterSecret) -> Result<Cluster, ClusterError> {
        self.seal = seal::Seal::new(&self.node, secret).ok_or(ClusterError::Broken(
            "a node's name may hold no control character",
        ))?;
        Ok(self)
    }

    /// Counts the messages this node drops for failing the cluster's check in `metric` too.
    pub(crate) fn count_forged_in(&self, metric: prometheus_client::metrics::counter::Counter) {
        self.seal.count_in(metric);
    }

    /// Messages this node dropped for failing the cluster's check.
    pub fn forged(&self) -> u64 {
        self.seal.dropped()
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// How long a lease lasts without renewal.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Whether this node's Redis is a Redis Cluster.
    pub(crate) fn is_sharded(&self) -> bool {
        matches!(self.redis, link::Link::Sharded(_))
    }

    /// Whether Redis answers (for the readiness check).
    pub(crate) async fn ping(&self) -> Result<(), ClusterError> {
        let _: String = redis::cmd("PING")
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }
}

#[cfg(feature = "cluster")]
/// Refuses the Redis `client` reaches if it answers a client which gives no credentials.
async fn refuse_open(client: &redis::Client) -> Result<(), ClusterError> {
    let info = client.get_connection_info();
    let url = info.addr().to_string();
    let anonymous = info.clone().set_redis_settings(
        redis::RedisConnectionInfo::default()
            .set_protocol(info.redis_settings().protocol())
            .set_skip_set_lib_name(),
    );
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(2)))
        .set_response_timeout(Some(Duration::from_secs(2)));
    let unreachable = |cause| ClusterError::Unreachable {
        url: url.clone(),
        cause,
    };
    let mut stranger = redis::Client::open(anonymous)
        .map_err(ClusterError::BadUrl)?
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(unreachable)?;
    match redis::cmd("PING")
        .query_async::<String>(&mut stranger)
        .await
    {
        Ok(_) => Err(ClusterError::Open { url }),
        // Refused by Redis itself (NOAUTH, or NOPERM for a default user that may do
        // nothing): it lets no stranger in.
        Err(refused) if refused.code().is_some() => Ok(()),
        Err(cause) => Err(unreachable(cause)),
    }
}

/// The cluster's parts of a server built without the `cluster` feature: there are none, so an
/// `Option<Wing>` is always `None`.
#[cfg(not(feature = "cluster"))]
#[derive(Debug)]
pub(crate) enum Wing {}

/// The methods the rest of the server calls on a wing, for a wing that cannot be.
#[cfg(not(feature = "cluster"))]
impl Wing {
    pub(crate) fn lease(&self) -> std::time::Duration {
        match *self {}
    }

    pub(crate) fn publish(&self, _: GameId, _: Frame, _: Option<Frame>) {
        match *self {}
    }

    pub(crate) fn started(&self, _: GameId, _: Vec<u64>) {
        match *self {}
    }

    pub(crate) fn closed(&self, _: GameId) {
        match *self {}
    }

    pub(crate) fn holds(&self, _: GameId) -> bool {
        match *self {}
    }

    pub(crate) fn is_paused(&self, _: GameId) -> bool {
        match *self {}
    }

    pub(crate) fn forget_room(&self, _: &str) {
        match *self {}
    }

    pub(crate) async fn hold_room(&self, _: &str) {
        match *self {}
    }

    pub(crate) async fn take_place(
        &self,
        _: &'static str,
        _: Network,
        _: usize,
    ) -> Result<Option<Slot>, String> {
        match *self {}
    }

    pub(crate) async fn watch_remote(
        &self,
        _: GameId,
        _: PlayerId,
        _: Outbound,
        _: Option<RequestId>,
    ) -> bool {
        match *self {}
    }

    pub(crate) async fn publishes(&self, _: GameId) -> bool {
        match *self {}
    }

    pub(crate) fn watches_remote(&self, _: GameId, _: ConnId) -> bool {
        match *self {}
    }

    pub(crate) async fn unwatch_remote(&self, _: GameId, _: ConnId) {
        match *self {}
    }
}

#[cfg(not(feature = "cluster"))]
use crate::net::network::{Network, Slot};
#[cfg(not(feature = "cluster"))]
use crate::net::outbound::{ConnId, Frame, Outbound};
#[cfg(not(feature = "cluster"))]
use noughts_protocol::{GameId, PlayerId, RequestId};

/// `url` without its password, for messages and logs.
pub(crate) fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://…@{host}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// A new process's incarnation: random, never 0.
#[cfg(feature = "cluster")]
fn new_incarnation() -> u64 {
    let mut bytes = [0u8; 8];
    crate::lobby::invite_code::fill_random(&mut bytes);
    u64::from_le_bytes(bytes).max(1)
}
