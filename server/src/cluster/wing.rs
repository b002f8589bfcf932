//! The cluster's parts one node holds, as one [`Wing`]: the rest of the server holds an
//! `Option<Wing>`, `None` on a lone server, and knows nothing else of the cluster.

use std::sync::Arc;

use noughts_protocol::GameId;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::games::{self, Publication, RemoteWatches};
use super::leases::{Judge, Leases};
use super::links::{Links, StandIns};
use super::mail::Marks;
use super::{Cluster, ClusterError};
use crate::moderation::Moderation;

/// What a node of a cluster holds of it.
#[derive(Debug)]
pub(crate) struct Wing {
    /// This node's link to the cluster's Redis.
    pub cluster: Cluster,
    /// The leases of the games this node plays.
    pub leases: Arc<Leases>,
    /// Where this node's listed games publish what their watchers get, for other nodes' watchers.
    pub publications: mpsc::UnboundedSender<Publication>,
    /// This node's watchers of games other nodes hold.
    pub remote_watches: Arc<RemoteWatches>,
    /// This node's connections that reach games on other nodes.
    pub links: Links,
    /// The stand-ins this node runs for other nodes' connections.
    pub stand_ins: StandIns,
    /// Requests to other nodes waiting for their answer.
    pub marks: Marks,
}

impl Wing {
    /// The wing of a node that joined `cluster`, its leases fenced by `judge`; its publishing and
    /// its watching of other nodes' games run on `tasks` until `stop`. The receiver hears of
    /// each game whose lease lapsed or was lost, which must step down.
    pub(crate) async fn start(
        cluster: Cluster,
        judge: Box<dyn Judge>,
        moderation: Arc<Moderation>,
        tasks: &TaskTracker,
        stop: &CancellationToken,
    ) -> Result<(Wing, mpsc::UnboundedReceiver<GameId>), ClusterError> {
        let (leases, lapsed) = Leases::new(cluster.clone(), tasks.clone(), judge);
        let (publications, published) = mpsc::unbounded_channel();
        tasks.spawn(games::publish(cluster.clone(), published, stop.clone()));
        let remote_watches =
            RemoteWatches::start(cluster.clone(), moderation, stop.clone()).await?;
        tasks.spawn(remote_watches.clone().keep_reporting(stop.clone()));
        let wing = Wing {
            cluster,
            leases,
            publications,
            remote_watches,
            links: Links::default(),
            stand_ins: StandIns::default(),
            marks: Marks::default(),
        };
        Ok((wing, lapsed))
    }
}
