//! The leases of the games this node plays: taken when a game starts here (or is restored or
//! taken over here), renewed together three times a lease time, and given back when the game
//! closes, which includes a node stopping politely: its games are then free for another node at
//! once, without waiting for their leases to run out.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use noughts_protocol::GameId;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, warn};

use super::Cluster;
use super::lease::{Lease, RENEW_AT_ONCE};

/// This node's leases.
pub struct Leases {
    cluster: Cluster,
    held: Mutex<HashMap<GameId, Lease>>,
    /// Games that closed before their new lease was taken: given back as soon as it is.
    closed_early: Mutex<HashSet<GameId>>,
    /// Runs the takings and givings back, so that a node stopping waits for them.
    tasks: TaskTracker,
    /// Told each lease taken (`Some(epoch)`) and given back (`None`): the store fences the
    /// game's writes with it.
    fence: Fence,
}

/// What is told of a game's lease: its epoch once taken, `None` once given back.
pub type Fence = Box<dyn Fn(GameId, Option<u64>) + Send + Sync>;

impl std::fmt::Debug for Leases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leases")
            .field("cluster", &self.cluster)
            .field("held", &self.held().len())
            .finish_non_exhaustive()
    }
}

impl Leases {
    pub fn new(cluster: Cluster, tasks: TaskTracker, fence: Fence) -> Arc<Leases> {
        Arc::new(Leases {
            cluster,
            held: Mutex::default(),
            closed_early: Mutex::default(),
            tasks,
            fence,
        })
    }

    fn held(&self) -> MutexGuard<'_, HashMap<GameId, Lease>> {
        self.held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The cluster these leases are held in.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Takes `game`'s lease unless another node holds it: true if this node holds it now.
    pub async fn take(&self, game: GameId) -> bool {
        match self.cluster.acquire(game).await {
            Ok(Some(lease)) => {
                self.held().insert(game, lease);
                (self.fence)(game, Some(lease.epoch));
                true
            }
            Ok(None) => false,
            Err(err) => {
                warn!(cause = %err, game = game.0, "cannot take a game's lease");
                false
            }
        }
    }

    /// Takes the lease of a game that has just started here, in the background (its id is new,
    /// so no other node can hold it).
    pub fn take_new(self: &Arc<Self>, game: GameId) {
        let leases = self.clone();
        self.tasks.spawn(async move {
            if !leases.take(game).await {
                error!(game = game.0, "a new game's lease is held elsewhere");
                return;
            }
            let closed = leases
                .closed_early
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .remove(&game);
            if closed {
                leases.give_back(game);
            }
        });
    }

    /// Gives back `game`'s lease, in the background: it closed here.
    pub fn give_back(self: &Arc<Self>, game: GameId) {
        let held = self.held().remove(&game);
        (self.fence)(game, None);
        let Some(lease) = held else {
            // Its lease is still being taken (the game closed at once): give it back then.
            self.closed_early
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .insert(game);
            return;
        };
        let cluster = self.cluster.clone();
        self.tasks.spawn(async move {
            if let Err(err) = cluster.release(lease).await {
                warn!(cause = %err, game = game.0, "cannot give back a game's lease");
            }
        });
    }

    /// Forgets `lease` if it is still the one held for its game: false if it was given back
    /// (or taken again, under a new epoch) meanwhile.
    fn forget(&self, lease: Lease) -> bool {
        let mut held = self.held();
        if held.get(&lease.game) != Some(&lease) {
            return false;
        }
        held.remove(&lease.game);
        true
    }

    /// Whether this node holds `game`'s lease.
    pub fn holds(&self, game: GameId) -> bool {
        self.held().contains_key(&game)
    }

    /// Renews every lease three times a lease time until `stop`. A lease found gone (Redis lost
    /// its keys, say by a restart) is taken again if nobody else took it meanwhile; one another
    /// node holds is lost: it is dropped, and the game is no longer this node's to advance.
    pub async fn keep(self: Arc<Self>, stop: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(self.cluster.lease() / 3) => {}
                () = stop.cancelled() => return,
            }
            self.renew(self.held_now()).await;
        }
    }

    /// The leases held now.
    pub(super) fn held_now(&self) -> Vec<Lease> {
        self.held().values().copied().collect()
    }

    /// Renews `leases`, taken from those held a moment ago, [`RENEW_AT_ONCE`] to a call: one
    /// given back since is left alone.
    pub(super) async fn renew(&self, leases: Vec<Lease>) {
        for leases in leases.chunks(RENEW_AT_ONCE) {
            let renewed = match self.cluster.renew_all(leases).await {
                Ok(renewed) => renewed,
                Err(err) => {
                    warn!(cause = %err, leases = leases.len(), "cannot renew leases");
                    continue;
                }
            };
            for (lease, renewed) in leases.iter().zip(renewed) {
                if renewed {
                    continue;
                }
                // Given back meanwhile (its game closed here, or the node is stopping and
                // handed it over): it is not this node's to take again, and another node may
                // be taking it over right now.
                if !self.forget(*lease) {
                    continue;
                }
                if !self.take(lease.game).await {
                    error!(game = lease.game.0, "lost a game's lease to another node");
                }
            }
        }
    }
}
