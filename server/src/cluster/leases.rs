//! The leases of the games this node plays: taken when a game starts here (or is restored or
//! taken over here), renewed together three times a lease time, and given back when the game
//! closes, which includes a node stopping politely: its games are then free for another node at
//! once, without waiting for their leases to run out.
//!
//! A lease binds its holder first. Each is trusted only until [`TRUSTED`] of a lease time after
//! the moment its last confirmed renewal (or its taking) was *sent*, on this node's monotonic
//! clock: Redis started the lease's time no earlier than that, so the lease cannot have expired
//! in Redis before then, whatever Redis's clock or a stall of this process did, with a margin
//! for clock rates. A lease not confirmed in time has lapsed: this node stops serving its game
//! (the game steps down, its people told it is paused) before any other node can have taken it.
//! A lapsed game is taken again as soon as Redis answers (by this node, if no other took it
//! meanwhile), restored from the store as after a restart.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use noughts_protocol::GameId;
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info, warn};

use super::Cluster;
use super::lease::{Lease, RENEW_AT_ONCE};

/// The part of a lease time a lease is trusted for after its renewal was sent: the rest is the
/// margin for clock rates and for the game to step down.
const TRUSTED: f64 = 0.75;

/// The store's side of a lease: the fencing epoch, which the store counts (it never goes back,
/// whatever Redis forgets).
pub trait Judge: Send + Sync + 'static {
    /// Takes `game` in the store: with `held` `None`, its epoch is raised and the new one
    /// returned; with `held` `Some(epoch)`, this node's own epoch is confirmed, and returned, if
    /// no other node has raised it since. `None` if the game is not live, or is another's.
    fn claim(&self, game: GameId, held: Option<u64>) -> Claim;
    /// From now on this node's writes of `game` carry `epoch`, or (`None`) none.
    fn fence(&self, game: GameId, epoch: Option<u64>);
}

/// What [`Judge::claim`] answers: the epoch, or why the store could not say.
pub type Claim = Pin<Box<dyn Future<Output = Result<Option<u64>, String>> + Send>>;

/// A lease held, and until when it is trusted.
#[derive(Debug, Clone, Copy)]
struct Held {
    lease: Lease,
    /// Past this moment the game must not be served here unless the lease was renewed.
    trusted_until: Instant,
    /// Whether it is a new game's, not yet taken in Redis: its taking is under way, and a
    /// renewal that finds it not there yet must leave it to that taking.
    pending: bool,
}

/// This node's leases.
pub struct Leases {
    cluster: Cluster,
    held: Mutex<HashMap<GameId, Held>>,
    /// Games stepped down here because their lease lapsed or was lost, with that lease, to be
    /// taken again (by whichever node wins them) once Redis answers.
    paused: Mutex<HashMap<GameId, Lease>>,
    /// Runs the takings and givings back, so that a node stopping waits for them.
    tasks: TaskTracker,
    /// The store, which counts each game's fencing epoch.
    judge: Box<dyn Judge>,
    /// Told each game whose lease lapsed or was lost: it must step down here at once.
    lapses: mpsc::UnboundedSender<GameId>,
    /// Woken when Redis answers a renewal, so that paused games are taken again at once.
    answered: Notify,
    /// Leases lost since the node started (lapsed, or found another's).
    lost: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Leases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leases")
            .field("cluster", &self.cluster)
            .field("held", &self.held().len())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl Leases {
    /// This node's leases in `cluster`, fenced by `judge`; the receiver hears of each game whose
    /// lease lapsed or was lost, which must step down.
    pub fn new(
        cluster: Cluster,
        tasks: TaskTracker,
        judge: Box<dyn Judge>,
    ) -> (Arc<Leases>, mpsc::UnboundedReceiver<GameId>) {
        let (lapses, lapsed) = mpsc::unbounded_channel();
        let leases = Arc::new(Leases {
            cluster,
            held: Mutex::default(),
            paused: Mutex::default(),
            tasks,
            judge,
            lapses,
            answered: Notify::new(),
            lost: std::sync::atomic::AtomicU64::new(0),
        });
        (leases, lapsed)
    }

    fn held(&self) -> MutexGuard<'_, HashMap<GameId, Held>> {
        lock(&self.held)
    }

    /// The cluster these leases are held in.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// How long a lease is trusted after its renewal was sent.
    fn trusted(&self) -> Duration {
        self.cluster.lease().mul_f64(TRUSTED)
    }

    /// Takes `game` unless another node holds it: its lease in Redis, then its next fencing
    /// epoch in the store. True if this node holds it now; every write another node makes of it
    /// from now on is refused.
    pub async fn take(&self, game: GameId) -> bool {
        self.take_under(game, None).await.is_some()
    }

    /// Takes `game`'s lease in Redis and claims it in the store (`held`: see [`Judge::claim`]);
    /// the lease, once held.
    async fn take_under(&self, game: GameId, held: Option<u64>) -> Option<Lease> {
        let token = new_token();
        let sent = Instant::now();
        match self.cluster.acquire(game, token).await {
            Ok(true) => {}
            Ok(false) => return None,
            Err(err) => {
                warn!(cause = %err, game = game.0, "cannot take a game's lease");
                return None;
            }
        }
        let epoch = match self.judge.claim(game, held).await {
            Ok(Some(epoch)) => epoch,
            answer => {
                if let Err(err) = &answer {
                    warn!(cause = %err, game = game.0, "cannot take a game in the store");
                }
                // Not live, or another's by the store: the lease goes back at once.
                let lease = Lease {
                    game,
                    epoch: 0,
                    token,
                };
                if let Err(err) = self.cluster.release(lease).await {
                    warn!(cause = %err, game = game.0, "cannot give back a game's lease");
                }
                return None;
            }
        };
        let lease = Lease { game, epoch, token };
        self.held().insert(
            game,
            Held {
                lease,
                trusted_until: sent + self.trusted(),
                pending: false,
            },
        );
        lock(&self.paused).remove(&game);
        self.judge.fence(game, Some(epoch));
        Some(lease)
    }

    /// Takes the lease of a game that has just started here, in the background. Its id is new,
    /// so no other node can hold it, nor take it over for two lease times: it is held from now,
    /// under the epoch its start is stored with (0), and must be confirmed in Redis in time.
    pub fn take_new(self: &Arc<Self>, game: GameId) {
        let token = new_token();
        let lease = Lease {
            game,
            epoch: 0,
            token,
        };
        self.held().insert(
            game,
            Held {
                lease,
                trusted_until: Instant::now() + self.trusted(),
                pending: true,
            },
        );
        self.judge.fence(game, Some(0));
        let leases = self.clone();
        self.tasks.spawn(async move {
            loop {
                let sent = Instant::now();
                match leases.cluster.acquire(game, token).await {
                    Ok(true) => {
                        if !leases.confirmed(lease, sent) {
                            // The game closed (or stepped down) meanwhile: give it back.
                            if let Err(err) = leases.cluster.release(lease).await {
                                warn!(cause = %err, game = game.0, "cannot give back a game's lease");
                            }
                        }
                        return;
                    }
                    Ok(false) => {
                        error!(game = game.0, "a new game's lease is held elsewhere");
                        if leases.forget(lease) {
                            leases.lapse(lease);
                        }
                        return;
                    }
                    Err(err) => warn!(cause = %err, game = game.0, "cannot take a new game's lease"),
                }
                // Tried again until it is taken, or it lapses (and the game steps down).
                if !leases.held().get(&game).is_some_and(|h| h.lease == lease) {
                    return;
                }
                tokio::time::sleep(leases.cluster.lease() / 10).await;
            }
        });
    }

    /// `lease` was confirmed by Redis on a call sent at `sent`: trusted for longer, if it is
    /// still the one held (false if not).
    fn confirmed(&self, lease: Lease, sent: Instant) -> bool {
        let trusted = sent + self.trusted();
        match self.held().get_mut(&lease.game) {
            Some(held) if held.lease == lease => {
                held.trusted_until = held.trusted_until.max(trusted);
                held.pending = false;
                true
            }
            _ => false,
        }
    }

    /// Gives back `game`'s lease, in the background: it closed here.
    pub fn give_back(self: &Arc<Self>, game: GameId) {
        let held = self.held().remove(&game);
        self.judge.fence(game, None);
        // Nothing held: the game stepped down already (its lease lapsed), or its new lease is
        // still being taken, and is given back once it is.
        let Some(Held { lease, .. }) = held else {
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
        if held.get(&lease.game).map(|h| h.lease) != Some(lease) {
            return false;
        }
        held.remove(&lease.game);
        true
    }

    /// Whether `lease` is held, as a new game's not yet taken in Redis.
    fn is_pending(&self, lease: Lease) -> bool {
        let held = self.held();
        held.get(&lease.game)
            .is_some_and(|h| h.lease == lease && h.pending)
    }

    /// `lease` lapsed or was lost: forgotten, its game noted as paused, and told to step down.
    fn lapse(&self, lease: Lease) {
        self.held().remove(&lease.game);
        lock(&self.paused).insert(lease.game, lease);
        self.lost.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _ = self.lapses.send(lease.game);
    }

    /// Whether this node holds `game`'s lease.
    pub fn holds(&self, game: GameId) -> bool {
        self.held().contains_key(&game)
    }

    /// How many leases this node holds now.
    pub fn count(&self) -> usize {
        self.held().len()
    }

    /// How many leases this node has lost since it started.
    pub fn lost(&self) -> u64 {
        self.lost.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many games stepped down here wait to be taken again.
    pub fn paused_count(&self) -> usize {
        lock(&self.paused).len()
    }

    /// Whether any game stepped down here waits to be taken again.
    pub fn has_paused(&self) -> bool {
        !lock(&self.paused).is_empty()
    }

    /// Whether `game` stepped down here and waits to be taken again.
    pub fn is_paused(&self, game: GameId) -> bool {
        lock(&self.paused).contains_key(&game)
    }

    /// The games that stepped down here and wait to be taken again. The leases they had, if
    /// they still stand in Redis (it stalled for less than a lease time), are given back first,
    /// so that they can be taken again at once.
    pub async fn paused(&self) -> Vec<GameId> {
        let paused: Vec<Lease> = lock(&self.paused).values().copied().collect();
        for lease in &paused {
            if let Err(err) = self.cluster.release(*lease).await {
                warn!(cause = %err, game = lease.game.0, "cannot give back a lapsed lease");
            }
        }
        paused.into_iter().map(|lease| lease.game).collect()
    }

    /// `game` is not to be taken again by this node (another took it, or it ended).
    pub fn unpause(&self, game: GameId) {
        lock(&self.paused).remove(&game);
    }

    /// Waits until Redis answers a renewal: paused games may be taken again.
    pub async fn answered(&self) {
        self.answered.notified().await;
    }

    /// Renews every lease three times a lease time until `stop`, and steps down the games whose
    /// lease was not confirmed in time. A lease found gone from Redis (it lost its keys, say by a
    /// restart) is taken again if nobody else took it meanwhile and the store still has this
    /// node's epoch; one another node holds is lost, and its game steps down here.
    pub async fn keep(self: Arc<Self>, stop: CancellationToken) {
        let watch = self.clone().watch(stop.clone());
        let renew = async {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(self.cluster.lease() / 3) => {}
                    () = stop.cancelled() => return,
                }
                self.renew(self.held_now()).await;
            }
        };
        tokio::join!(watch, renew);
    }

    /// Steps down, until `stop`, each game whose lease is no longer trusted. Runs beside the
    /// renewals, so that a renewal stalled in a stalled Redis cannot hold it up.
    async fn watch(self: Arc<Self>, stop: CancellationToken) {
        let every = (self.cluster.lease() / 20).max(Duration::from_millis(10));
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = stop.cancelled() => return,
            }
            let now = Instant::now();
            let lapsed: Vec<Lease> = self
                .held()
                .values()
                .filter(|held| held.trusted_until <= now)
                .map(|held| held.lease)
                .collect();
            for lease in lapsed {
                warn!(
                    game = lease.game.0,
                    "a game's lease was not renewed in time; it pauses here"
                );
                self.lapse(lease);
            }
        }
    }

    /// The leases held now.
    pub(super) fn held_now(&self) -> Vec<Lease> {
        self.held().values().map(|held| held.lease).collect()
    }

    /// Renews `leases`, taken from those held a moment ago, [`RENEW_AT_ONCE`] to a call: one
    /// given back since is left alone.
    pub(super) async fn renew(&self, leases: Vec<Lease>) {
        for leases in leases.chunks(RENEW_AT_ONCE) {
            let sent = Instant::now();
            let renewed = match self.cluster.renew_all(leases).await {
                Ok(renewed) => renewed,
                Err(err) => {
                    warn!(cause = %err, leases = leases.len(), "cannot renew leases");
                    continue;
                }
            };
            self.answered.notify_waiters();
            for (lease, renewed) in leases.iter().zip(renewed) {
                if renewed {
                    let _ = self.confirmed(*lease, sent);
                    continue;
                }
                // Given back meanwhile (its game closed here, or the node is stopping and
                // handed it over): it is not this node's to take again, and another node may
                // be taking it over right now. A new game's lease not taken yet is left to
                // its taking: taken again here, it could outlive its game.
                if self.is_pending(*lease) || !self.forget(*lease) {
                    continue;
                }
                match self.take_under(lease.game, Some(lease.epoch)).await {
                    Some(_) => info!(game = lease.game.0, "took a game's lease again"),
                    None => {
                        error!(game = lease.game.0, "lost a game's lease to another node");
                        self.lapse(*lease);
                    }
                }
            }
        }
        // Nothing to renew: ask Redis anyway, so that paused games hear when it answers.
        let idle = leases.is_empty() && !lock(&self.paused).is_empty();
        if idle && self.cluster.ping().await.is_ok() {
            self.answered.notify_waiters();
        }
    }
}

/// A fresh token for a taking: random, so that no taking by this node or an earlier life of it
/// under the same name is ever mistaken for another.
fn new_token() -> u64 {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut bytes = [0u8; 8];
    // Without randomness, a count still tells this process's takings apart.
    if getrandom::fill(&mut bytes).is_err() {
        return COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests;
