//! A connection here playing games another node holds. A game another node plays is reached
//! through a `GameHandle::Remote`, found here: its requests go to that node as the protocol's
//! typed messages, which it serves through a stand-in (see `stand_in`), mailing the frames back;
//! a room or seek another node holds gets its request the same way. When the connection comes
//! back with a token it is attached to its games wherever they are; when it goes, those nodes
//! are told; and when one of those nodes dies, its games are taken over here and the connection
//! attached to them again.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameId, PlayerId, RequestId, SeekId,
};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::client::{Client, PAUSED, Reply, refuse};
use crate::cluster::ClusterError;
use crate::cluster::mail::{Mail, Who};
use crate::cluster::remote_game::RemoteGame;
use crate::error::Refusal;
use crate::lobby::invite_code;
use crate::net::network::Network;
use crate::net::outbound::{ConnId, Outbound};
use crate::registry::games::GameHandle;
use crate::session::Session;
use crate::shared::Shared;

/// Where what a request is about is held.
pub(super) enum Where {
    /// This node answers it.
    Here,
    /// The node named holds it.
    There(String),
    /// The cluster's Redis cannot be reached to say.
    Unreachable,
}

/// How long a connection waits for another node to attach it to its games.
const ATTACH_WAIT: Duration = Duration::from_secs(2);

/// What a request is answered when the cluster cannot be reached to carry it.
const UNREACHABLE: &str = "the cluster cannot be reached just now; try again in a moment";

/// Where the cluster's answer puts a request: on the node named, or here when none is.
fn placed(found: Result<Option<String>, ClusterError>) -> Where {
    match found {
        Ok(Some(node)) => Where::There(node),
        Ok(None) => Where::Here,
        Err(err) => {
            warn!(cause = %err, "cannot ask the cluster where a request belongs");
            Where::Unreachable
        }
    }
}

impl Client {
    /// Game `id`, not played here, on the node that plays it; or, when no node does and it is
    /// one of the player's live games (its node has just handed it over or died), taken over
    /// here first. `None` when it is this node's to answer (it has no such game); a refusal
    /// when the cluster cannot be reached. A stand-in looks no further than its own node.
    pub(super) async fn game_elsewhere(
        &mut self,
        id: GameId,
    ) -> Option<Result<GameHandle, Refusal>> {
        if self.stands_in {
            return None;
        }
        let session = self.session.clone()?;
        let cluster = self.shared.wing.as_ref()?.cluster.clone();
        // A node that is stopping takes no game over: its players find theirs on other nodes.
        let mut found_again = self.handing_over();
        loop {
            match placed(cluster.player_node(id).await) {
                Where::There(node) => {
                    self.link(&session, &node);
                    let who = Who::of(&session, self.network);
                    let game = RemoteGame::new(cluster, node, id, who);
                    return Some(Ok(GameHandle::Remote(Box::new(game))));
                }
                Where::Here if !found_again && self.orphaned(id, &session).await => {
                    info!("a player's game has no node; taking it over here");
                    self.find_games_again().await;
                    found_again = true;
                    if let Some(game) = self.shared.registry.games.get(id) {
                        return Some(Ok(GameHandle::Local(game)));
                    }
                }
                Where::Here => return None,
                Where::Unreachable => {
                    return Some(Err(Refusal::new(ErrorCode::GamePaused, PAUSED)));
                }
            }
        }
    }

    /// Where the room with invite code `code` is held, when that could be another node.
    pub(super) async fn room_node(&self, code: &str) -> Where {
        let Some(wing) = self.shared.wing.as_ref().filter(|_| !self.stands_in) else {
            return Where::Here;
        };
        match invite_code::parse(code) {
            Some(code) if self.shared.registry.rooms.rated(&code).is_none() => {
                placed(wing.cluster.room_node(&code).await)
            }
            _ => Where::Here,
        }
    }

    /// Where the waiting seek `seek` is held, when that could be another node.
    pub(super) async fn seek_node(&self, seek: SeekId) -> Where {
        let Some(wing) = self.shared.wing.as_ref().filter(|_| !self.stands_in) else {
            return Where::Here;
        };
        if self.shared.registry.seeks.terms(seek).is_some() {
            return Where::Here;
        }
        placed(wing.cluster.seek_node(seek).await)
    }

    /// Hands `message` (answered under `id`) to the node `found`, which holds the room or seek
    /// it is about: `Some` with the reply when handed (or when the cluster cannot be reached);
    /// `None` when this node answers, as when that node has gone with what it held.
    pub(super) async fn hand_to(
        &mut self,
        found: Where,
        id: Option<RequestId>,
        message: ClientMessage,
    ) -> Option<Reply> {
        let node = match found {
            Where::Here => return None,
            Where::Unreachable => return Some(refuse(ErrorCode::Internal, UNREACHABLE)),
            Where::There(node) => node,
        };
        match self.mail_request(&node, ClientFrame { id, message }).await {
            Ok(true) => Some(Ok(())),
            Ok(false) => None,
            Err(err) => {
                warn!(cause = %err, %node, "cannot hand a request to another node");
                Some(refuse(ErrorCode::Internal, UNREACHABLE))
            }
        }
    }

    /// Notes that this connection, of `session`'s player, has a stand-in on `node`, so that
    /// what `node` mails back for it finds it.
    fn link(&self, session: &Session, node: &str) {
        if let Some(wing) = &self.shared.wing {
            wing.links
                .link(&self.out, session.player, self.network, node);
        }
    }

    /// Mails this connection's request `frame` to `node`: true; false if no node listens under
    /// that name (it is gone); an error if Redis cannot be reached.
    async fn mail_request(&self, node: &str, frame: ClientFrame) -> Result<bool, ClusterError> {
        let (Some(wing), Some(session)) = (&self.shared.wing, &self.session) else {
            return Ok(false);
        };
        self.link(session, node);
        let mail = Mail::Request {
            from: wing.cluster.node().to_owned(),
            conn: self.out.conn.0,
            who: Who::of(session, self.network),
            frame,
            watching: false,
        };
        wing.cluster.mail(node, &mail).await
    }

    /// Whether `game`, not here (and, since it was asked, held by no other node), is one of
    /// `session`'s player's live games: the store says which games are the player's.
    async fn orphaned(&self, game: GameId, session: &Session) -> bool {
        if self.shared.registry.games.get(game).is_some() {
            return false;
        }
        let live = self.shared.store.live_ids_of(session.player).await;
        live.is_ok_and(|games| games.contains(&game))
    }

    /// Takes over the player's games whose node is gone, and attaches this connection to them
    /// here and to those another node took.
    pub(super) async fn find_games_again(&mut self) {
        let Some(session) = self.session.clone() else {
            return;
        };
        let elsewhere =
            crate::game::takeover::take_over_games_of(&self.shared, session.player).await;
        for game in session.games() {
            if let Some(handle) = self.shared.registry.games.get(game) {
                handle.attach(session.player, self.out.clone()).await;
            }
        }
        attach_elsewhere(&self.shared, &session, &self.out, self.network, elsewhere).await;
    }

    /// In a cluster, notes that `player` is connected here (`here`) or no longer is, so that a
    /// game another node starts for them reaches this connection.
    pub(super) fn note_presence(&self, player: PlayerId, here: bool) {
        let Some(cluster) = self.shared.wing.as_ref().map(|wing| wing.cluster.clone()) else {
            return;
        };
        if self.stands_in {
            return;
        }
        tokio::spawn(async move {
            let noted = if here {
                cluster.here(player.0).await
            } else {
                cluster.gone_from_here(player.0).await
            };
            if let Err(err) = noted {
                warn!(cause = %err, "cannot tell the cluster where a player is");
            }
        });
    }

    /// Tells every node with a stand-in for this connection that it has gone.
    pub(super) async fn unlink(&self) {
        let Some(wing) = &self.shared.wing else {
            return;
        };
        let cluster = &wing.cluster;
        let Some(link) = wing.links.unlink(self.out.conn) else {
            return;
        };
        let gone = Mail::Gone {
            from: cluster.node().to_owned(),
            conn: self.out.conn.0,
        };
        for node in link.nodes {
            if let Err(err) = cluster.mail(&node, &gone).await {
                warn!(cause = %err, %node, "cannot tell another node a connection went");
            }
        }
    }

    /// Tells the nodes with a stand-in for this connection that its player logged out.
    pub(super) async fn logout_elsewhere(&self) {
        let Some(wing) = &self.shared.wing else {
            return;
        };
        for node in wing.links.nodes_of(self.out.conn) {
            let logout = ClientFrame {
                id: None,
                message: ClientMessage::Logout,
            };
            if let Err(err) = self.mail_request(&node, logout).await {
                warn!(cause = %err, %node, "cannot tell another node of a logout");
            }
        }
    }
}

/// Attaches `out`, a connection of `session`'s player, to the player's games on `nodes`, and
/// waits (a little) until their snapshots have been sent.
pub(super) async fn attach_elsewhere(
    shared: &Shared,
    session: &Session,
    out: &Outbound,
    network: Network,
    nodes: Vec<String>,
) {
    let Some(wing) = &shared.wing else {
        return;
    };
    let cluster = &wing.cluster;
    let mut waits = Vec::new();
    for node in nodes {
        wing.links.link(out, session.player, network, &node);
        let (mark, answer) = wing.marks.wait();
        let attach = Mail::Attach {
            from: cluster.node().to_owned(),
            conn: out.conn.0,
            who: Who::of(session, network),
            mark,
        };
        match cluster.mail(&node, &attach).await {
            Ok(true) => waits.push((mark, answer)),
            _ => wing.marks.forget(mark),
        }
    }
    for (mark, answer) in waits {
        if tokio::time::timeout(ATTACH_WAIT, answer).await.is_err() {
            warn!("another node did not attach a connection to its games in time");
            wing.marks.forget(mark);
        }
    }
}

/// Serves again request `frame` of this node's connection `conn`, which node `from` (stopping)
/// could not serve because it has just handed `game` over: once `from` no longer holds the game
/// (it gives its lease back as the game stops there), the request goes where the game is now,
/// or the game is taken over here first, as for any request about a game without a node.
pub(super) async fn retry(
    shared: Arc<Shared>,
    from: String,
    conn: ConnId,
    game: GameId,
    frame: ClientFrame,
) {
    let Some(wing) = &shared.wing else {
        return;
    };
    let cluster = &wing.cluster;
    let Some(link) = wing.links.get(conn) else {
        return;
    };
    let Some(session) = shared.registry.session(link.player) else {
        return;
    };
    let deadline = tokio::time::Instant::now() + cluster.lease();
    while tokio::time::Instant::now() < deadline {
        match cluster.player_node(game).await {
            Ok(Some(node)) if node == from => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => break,
        }
    }
    info!(game = game.0, %from, "serving again a request another node handed back");
    let mut client = Client::new(shared.clone(), link.out.clone(), link.network);
    client.session = Some(session);
    if let Some(why) = client.receive_frame(frame).await {
        link.out.close(why);
    }
}

/// Finds `player`'s games again for `out` after the node that held some of them went: takes over
/// those no node holds (waiting out the gone node's leases), sends the snapshots of those here,
/// and attaches `out` to those another node took.
async fn rejoin(shared: Arc<Shared>, player: PlayerId, out: Outbound, network: Network) {
    let Some(session) = shared.registry.session(player) else {
        return;
    };
    let elsewhere = crate::game::takeover::take_over_games_of(&shared, player).await;
    for game in session.games() {
        if let Some(handle) = shared.registry.games.get(game) {
            handle.attach(player, out.clone()).await;
        }
    }
    attach_elsewhere(&shared, &session, &out, network, elsewhere).await;
}

/// Every half lease time until `stop`: tells each node this node's connections reach which of
/// them live, and finds the nodes they reach, and the nodes whose connections it stands in for,
/// that have died. Connections that played games on a dead node find them again; stand-ins for
/// a dead node's connections end. A node counts as dead only when found so twice in a row: a
/// Redis that restarted empty, or stalled past the heartbeats' time, shows every node dead until
/// their next heartbeat, and ending stand-ins then would start their players' grace for nothing.
/// A node seen with a new incarnation has died too, whether or not it was ever seen gone: it was
/// started again under the same name, with none of the stand-ins the old process ran. (Its old
/// connections' stand-ins here end as they miss its lists of the connections that live.)
pub(crate) async fn keep_links(shared: Arc<Shared>, stop: CancellationToken) {
    let Some(wing) = &shared.wing else {
        return;
    };
    let cluster = &wing.cluster;
    let mut suspects = std::collections::HashSet::new();
    let mut incarnations = std::collections::HashMap::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(cluster.lease() / 2) => {}
            () = stop.cancelled() => return,
        }
        // Every node hears which of this node's connections it should stand in for, even none.
        for node in cluster.others().await.unwrap_or_default() {
            let alive = Mail::Alive {
                from: cluster.node().to_owned(),
                conns: wing.links.conns_to(&node),
            };
            if let Err(err) = cluster.mail(&node, &alive).await {
                warn!(cause = %err, %node, "cannot tell another node which connections live");
            }
        }
        let suspected = std::mem::take(&mut suspects);
        let linked = wing.links.nodes();
        incarnations.retain(|node, _| linked.contains(node));
        for node in linked {
            if restarted(cluster, &node, &mut incarnations).await {
                info!(%node, "a node this node's players play on has restarted; finding their games");
                for link in wing.links.cut(&node) {
                    tokio::spawn(rejoin(shared.clone(), link.player, link.out, link.network));
                }
                continue;
            }
            if cluster.is_serving(&node).await {
                continue;
            }
            if !suspected.contains(&node) {
                suspects.insert(node);
                continue;
            }
            info!(%node, "a node this node's players play on is gone; finding their games");
            for link in wing.links.cut(&node) {
                tokio::spawn(rejoin(shared.clone(), link.player, link.out, link.network));
            }
        }
        for node in wing.stand_ins.nodes() {
            if cluster.is_alive(&node).await {
                continue;
            }
            if !suspected.contains(&node) {
                suspects.insert(node);
                continue;
            }
            for stand_in in wing.stand_ins.of_node(&node) {
                let _ = stand_in.try_send(Mail::Gone {
                    from: node.clone(),
                    conn: 0,
                });
            }
        }
    }
}

/// Whether `node` has a new incarnation since it was last looked at here (`incarnations` holds
/// what was seen); a node first seen, or not seen now, has not.
async fn restarted(
    cluster: &crate::cluster::Cluster,
    node: &str,
    incarnations: &mut std::collections::HashMap<String, u64>,
) -> bool {
    let Some(now) = cluster.incarnation_of(node).await else {
        return false;
    };
    incarnations
        .insert(node.to_owned(), now)
        .is_some_and(|before| before != now)
}
