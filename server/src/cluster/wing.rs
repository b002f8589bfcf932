//! The cluster's parts one node holds, as one [`Wing`]: the rest of the server holds an
//! `Option<Wing>`, `None` on a lone server, and knows nothing else of the cluster.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{GameId, PlayerId, RequestId};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::games::{self, Publication, RemoteWatches};
use super::leases::{Judge, Leases};
use super::links::{Links, StandIns};
use super::mail::Marks;
use super::{Cluster, ClusterError};
use crate::moderation::Moderation;
use crate::net::network::{Network, Slot};
use crate::net::outbound::{ConnId, Frame, Outbound};

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

    /// How long a lease lasts without renewal.
    pub(crate) fn lease(&self) -> Duration {
        self.cluster.lease()
    }

    /// Publishes what listed game `game`'s watchers get (`update`, if any) and their `snapshot`
    /// after it, for the other nodes' watchers.
    pub(crate) fn publish(&self, game: GameId, snapshot: Frame, update: Option<Frame>) {
        let _ = self.publications.send(Publication {
            game,
            snapshot,
            update,
        });
    }

    /// A game started here, held from now on under a lease, and where its `players` can find it.
    pub(crate) fn started(&self, game: GameId, players: Vec<u64>) {
        self.cluster.tell_seated(game, players);
        self.leases.take_new(game);
    }

    /// A game here closed: its lease goes back.
    pub(crate) fn closed(&self, game: GameId) {
        self.leases.give_back(game);
    }

    /// Whether this node still holds `game`'s lease.
    pub(crate) fn holds(&self, game: GameId) -> bool {
        self.leases.holds(game)
    }

    /// Whether `game` stepped down here (its lease lapsed) and waits for a node to take it.
    pub(crate) fn is_paused(&self, game: GameId) -> bool {
        self.leases.is_paused(game)
    }

    /// Stops leading other nodes to the room with canonical code `code` here.
    pub(crate) fn forget_room(&self, code: &str) {
        let (cluster, code) = (self.cluster.clone(), code.to_owned());
        tokio::spawn(async move {
            if let Err(err) = cluster.drop_room(&code).await {
                tracing::warn!(cause = %err, "cannot tell the cluster a room has gone");
            }
        });
    }

    /// Notes that this node holds the room with canonical code `code`, so that other nodes lead
    /// its guests here; a cluster that cannot be reached leaves the room to this node's players.
    pub(crate) async fn hold_room(&self, code: &str) {
        if let Err(err) = self.cluster.hold_room(code).await {
            tracing::warn!(cause = %err, "cannot tell the cluster of a room; only this node finds it");
        }
    }

    /// A place for one more `kind` (`room` or `seek`) from `network` in the whole cluster's
    /// count, unless it holds `cap` already (`Ok(None)`); an error when it cannot be counted.
    pub(crate) async fn take_place(
        &self,
        kind: &'static str,
        network: Network,
        cap: usize,
    ) -> Result<Option<Slot>, String> {
        let taken = self.cluster.take_place(kind, network, cap).await;
        taken.map_err(|err| err.to_string())
    }

    /// Starts sending `game`, held by another node, to `out` of `player` (the reply echoes `id`);
    /// false if no node publishes it.
    pub(crate) async fn watch_remote(
        &self,
        game: GameId,
        player: PlayerId,
        out: Outbound,
        id: Option<RequestId>,
    ) -> bool {
        self.remote_watches.watch(game, player, out, id).await
    }

    /// Whether the node that plays `game` publishes it for other nodes' watchers (it is listed).
    pub(crate) async fn publishes(&self, game: GameId) -> bool {
        self.remote_watches.published(game).await
    }

    /// Whether connection `conn` watches `game` as another node publishes it.
    pub(crate) fn watches_remote(&self, game: GameId, conn: ConnId) -> bool {
        self.remote_watches.watches(game, conn)
    }

    /// Stops sending `game`, held by another node, to `conn`.
    pub(crate) async fn unwatch_remote(&self, game: GameId, conn: ConnId) {
        self.remote_watches.unwatch(game, conn).await;
    }
}
