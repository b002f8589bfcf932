//! Arenas over a cluster: one node directs each arena at a time, the holder of its slot
//! (`arena:ID`, as war games have). Its director renews the slot as it ticks and steps down
//! before the slot can have lapsed anywhere ([`SlotLease`]); it notes, sealed, what lists show
//! of the arena for the other nodes. Every node keeps up with the arenas the store holds unfinished
//! ([`keep_arenas`]): it lists those directed elsewhere, takes the slot of one no node holds and
//! carries it on from the store, and when an arena's director changes (or is started again under
//! its name: a new incarnation), asks the new one for the standings again for each of its own
//! connections that follows it, so that they go on hearing them (and a player's connection stands
//! in on the director's node, to be paired there).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{
    ArenaId, ArenaInfo, ClientFrame, ClientMessage, LOBBY_ARENAS, ServerMessage,
};
use tokio::sync::oneshot;
use tracing::{info, warn};

use super::director;
use crate::cluster::Cluster;
use crate::cluster::mail::{Mail, Who};
use crate::cluster::nodes::Sighting;
use crate::cluster::slot::SlotLease;
use crate::registry::arenas::{ArenaAsk, ArenaRequest, Follower};
use crate::registry::games::Requester;
use crate::shared::Shared;
use crate::store::{StoredArena, now_ms};

/// The name of `arena`'s slot.
pub(crate) fn slot_name(arena: ArenaId) -> String {
    format!("arena:{}", arena.0)
}

/// Takes `arena`'s slot if no node holds it and directs the arena here from the store; true if
/// this node directs it now.
pub(super) async fn direct(shared: &Arc<Shared>, arena: StoredArena) -> bool {
    let Some(wing) = &shared.wing else {
        return false;
    };
    // One at a time: the slot's claim answers yes to this node again while it holds it.
    let _taking = shared.registry.arenas.taking.lock().await;
    if shared.registry.arenas.queue(arena.id).is_some() {
        return true;
    }
    let cluster = wing.cluster.clone();
    if !cluster
        .claim_slot(&slot_name(arena.id))
        .await
        .unwrap_or(false)
    {
        return false;
    }
    let lease = SlotLease::new(cluster, slot_name(arena.id));
    // Taken in the store under a new fencing epoch, which shuts out any last director that
    // still thinks it holds the slot, and read under it: whatever it stored is in it.
    match shared.store.take_arena(arena.id).await {
        Ok(Some((epoch, lines, games))) => {
            info!(arena = arena.id.0, epoch, "directing an arena");
            let id = arena.id;
            director::open(shared, arena, lines, games, Some((lease, epoch)));
            refollow(shared, id, None);
            true
        }
        Ok(None) => {
            lease.give_back().await;
            false
        }
        Err(err) => {
            warn!(arena = arena.id.0, cause = %err, "cannot read an arena to direct");
            lease.give_back().await;
            false
        }
    }
}

/// Directs `arena` here if it is unfinished and no node directs it; true if this node does now.
pub(crate) async fn direct_if_orphaned(shared: &Arc<Shared>, arena: ArenaId) -> bool {
    match shared.store.unfinished_arenas().await {
        Ok(arenas) => match arenas.into_iter().find(|a| a.id == arena) {
            Some(stored) => direct(shared, stored).await,
            None => false,
        },
        Err(err) => {
            warn!(cause = %err, "cannot read the arenas");
            false
        }
    }
}

/// What lists show of `arena` before its director says more.
pub(super) fn bare_info(arena: &StoredArena) -> ArenaInfo {
    super::standings::info_of(arena, 0, now_ms())
}

/// Keeps up with the cluster's arenas every third of a lease until the server stops.
pub(crate) async fn keep_arenas(shared: Arc<Shared>) {
    let Some(cluster) = shared.wing.as_ref().map(|wing| wing.cluster.clone()) else {
        return;
    };
    let stop = shared.lifecycle.stop_games.clone();
    let every = (cluster.lease() / 3).max(Duration::from_millis(100));
    let mut sightings = HashMap::new();
    loop {
        round(&shared, &cluster, &mut sightings).await;
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(every) => {}
        }
    }
}

/// Which node (and which process of it) each arena was seen directed by, and in how many looks
/// in a row.
type Sightings = HashMap<ArenaId, (Sighting, u32)>;

/// One look at the cluster's arenas.
async fn round(shared: &Arc<Shared>, cluster: &Cluster, sightings: &mut Sightings) {
    let arenas = match shared.store.unfinished_arenas().await {
        Ok(arenas) => arenas,
        Err(err) => {
            warn!(cause = %err, "cannot read the arenas");
            return;
        }
    };
    let registry = &shared.registry.arenas;
    let mut changed = false;
    let unfinished: Vec<ArenaId> = arenas.iter().map(|a| a.id).collect();
    for arena in arenas {
        if registry.queue(arena.id).is_some() {
            sightings.remove(&arena.id);
            continue;
        }
        let holder = match cluster.slot_holder(&slot_name(arena.id)).await {
            Ok(holder) => holder.filter(|node| node != cluster.node()),
            Err(err) => {
                warn!(cause = %err, "cannot ask who directs an arena");
                continue;
            }
        };
        let Some(node) = holder else {
            changed |= direct(shared, arena).await;
            continue;
        };
        changed |= seen_elsewhere(shared, cluster, &arena, node, sightings).await;
    }
    // Finished arenas still answer for a while on their director's node, while it holds them.
    for id in registry.not_here() {
        if unfinished.contains(&id) {
            continue;
        }
        if let Ok(None) = cluster.slot_holder(&slot_name(id)).await {
            registry.remove(id);
            changed = true;
        }
    }
    if changed {
        let listed = registry.for_lobby(now_ms(), LOBBY_ARENAS);
        shared.lobby.set_arenas(listed);
    }
}

/// Notes that `node` directs `arena` (as its note shows it), and the second time in a row it is
/// seen there (by then its director has read the arena and takes asks), has this node's followers
/// of the arena follow it there; true if what lists show changed.
async fn seen_elsewhere(
    shared: &Arc<Shared>,
    cluster: &Cluster,
    arena: &StoredArena,
    node: String,
    sightings: &mut Sightings,
) -> bool {
    let registry = &shared.registry.arenas;
    let info = match cluster.slot_note(&slot_name(arena.id)).await {
        Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_else(|_| bare_info(arena)),
        _ => bare_info(arena),
    };
    let creator = arena.creator.as_ref().map(|(player, _)| *player);
    let changed = registry.elsewhere(info, creator, Some(node.clone()));
    // A director restarted under the same name has none of the old process's followers.
    let incarnation = cluster.incarnation_of(&node).await;
    let seen = sightings.entry(arena.id).or_default();
    if seen.0.see(&node, incarnation) {
        seen.1 = 0;
    }
    seen.1 += 1;
    if seen.1 == 2 {
        info!(arena = arena.id.0, %node, "an arena is directed by another node");
        refollow(shared, arena.id, Some(&node));
    }
    changed
}

/// Asks `arena`'s director (on `node`, or here) for the standings again for each of this node's
/// connections that follow it, as each connection would: the answers, and the pushes after them,
/// reach the connections without a request id.
fn refollow(shared: &Arc<Shared>, arena: ArenaId, node: Option<&str>) {
    let Some(wing) = &shared.wing else {
        return;
    };
    let followers = shared.registry.arenas.followers(arena);
    if followers.is_empty() {
        return;
    }
    let request = |f: &Follower| ArenaRequest::View {
        code: f.code.clone(),
    };
    let Some(node) = node else {
        let Some(queue) = shared.registry.arenas.queue(arena) else {
            return;
        };
        for follower in followers {
            let (reply, answer) = oneshot::channel();
            let ask = ArenaAsk {
                from: Requester {
                    player: follower.session.player,
                    out: follower.out.clone(),
                    id: None,
                },
                account: follower.session.is_account(),
                bot: follower.session.is_bot(),
                request: request(&follower),
                reply,
            };
            if queue.try_send(ask).is_ok() {
                tokio::spawn(async move {
                    if let Ok(Ok(message @ ServerMessage::Arena(_))) = answer.await {
                        follower.out.reply(None, message);
                    }
                });
            }
        }
        return;
    };
    let cluster = wing.cluster.clone();
    let mut mails = Vec::new();
    for follower in followers {
        let session = &follower.session;
        wing.links
            .link(&follower.out, session.player, follower.network, node);
        mails.push(Mail::Request {
            from: cluster.node().to_owned(),
            conn: follower.out.conn.0,
            who: Who::of(session, follower.network),
            frame: ClientFrame {
                id: None,
                message: ClientMessage::Arena {
                    arena,
                    code: follower.code.clone(),
                },
            },
            watching: false,
        });
    }
    let node = node.to_owned();
    tokio::spawn(async move {
        if let Err(err) = cluster.mail_all(&node, &mails).await {
            warn!(cause = %err, %node, "cannot follow an arena on another node");
        }
    });
}
