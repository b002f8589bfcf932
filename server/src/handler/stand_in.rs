//! Other nodes' connections, served here. A node whose player plays a game held here mails their
//! requests about it; a stand-in for that connection answers them as a connection of this node
//! would be answered (the same handlers, the same session, the same game actor) and mails back
//! whatever the connection is sent. Mail for this node's own connections comes in here too.

use std::sync::Arc;

use noughts_protocol::{ClientFrame, ErrorCode, GameId, PlayerId, SeekId, close};
use tokio::sync::mpsc;
use tracing::warn;

use super::client::Client;
use super::remote::{attach_elsewhere, retry};
use crate::cluster::Cluster;
use crate::cluster::mail::{Mail, Who};
use crate::net::network::Network;
use crate::net::outbound::{self, Close, ConnId, Frame};
use crate::registry::games::Requester;
use crate::rules::rating::Ratings;
use crate::shared::Shared;
use crate::store::StoredPlayer;

/// Mail queued for one stand-in, at most; the sending node's rate limits keep it far below.
const QUEUE: usize = 1024;

/// Handles one message mailed to this node.
pub(crate) fn receive_mail(shared: &Arc<Shared>, mail: Mail) {
    let Some(wing) = &shared.wing else {
        return;
    };
    match mail {
        Mail::Deliver { conn, frames } => {
            if let Some(out) = wing.links.out(ConnId(conn)) {
                for text in frames {
                    out.send(Frame::new(text));
                }
            }
        }
        Mail::Standings { frame, followers } => {
            // The standings' shared frame, each copy with its follower's own members spliced
            // in, as the director's node does for its own followers.
            let shared = Frame::new(frame);
            for (conn, members) in followers {
                if let Some(out) = wing.links.out(ConnId(conn))
                    && (members.is_empty() || members.starts_with(','))
                {
                    out.send(outbound::with_members(&shared, &members));
                }
            }
        }
        Mail::Close { conn, code } => {
            if let Some(out) = wing.links.out(ConnId(conn)) {
                out.close(match code {
                    close::LOGGED_OUT => Close::LOGGED_OUT,
                    code => Close {
                        code,
                        reason: "closed by the node that plays the game",
                    },
                });
            }
        }
        Mail::Watching { from, game, count } => {
            if let Some(handle) = shared.registry.games.get(game) {
                tokio::spawn(async move { handle.remote_watchers(from, count).await });
            }
        }
        Mail::Alive { from, conns } => {
            for stand_in in wing.stand_ins.missing(&from, &conns) {
                let _ = stand_in.try_send(Mail::Gone {
                    from: from.clone(),
                    conn: 0,
                });
            }
        }
        Mail::Seated { from, player, game } => {
            tokio::spawn(seated_elsewhere(
                shared.clone(),
                from,
                PlayerId(player),
                game,
            ));
        }
        Mail::Marked { mark } => wing.marks.answer(mark, true),
        Mail::Refused { mark } => wing.marks.answer(mark, false),
        Mail::Retry {
            from,
            conn,
            game,
            frame,
        } => {
            tokio::spawn(retry(shared.clone(), from, ConnId(conn), game, frame));
        }
        Mail::Gone { ref from, conn } => {
            if let Some(stand_in) = wing.stand_ins.get(from, conn) {
                let _ = stand_in.try_send(mail);
            }
        }
        Mail::Request {
            ref from,
            conn,
            ref who,
            ..
        }
        | Mail::Attach {
            ref from,
            conn,
            ref who,
            ..
        }
        | Mail::TakeSeek {
            ref from,
            conn,
            ref who,
            ..
        } => {
            let stand_in = wing.stand_ins.route(from, conn, || {
                let (tx, rx) = mpsc::channel(QUEUE);
                let caller = Caller {
                    node: from.clone(),
                    conn,
                };
                tokio::spawn(stand_in(shared.clone(), caller, who.clone(), rx));
                tx
            });
            if stand_in.try_send(mail).is_err() {
                warn!("a stand-in's mail is full; a request is dropped");
            }
        }
    }
}

/// `player` has a seat in `game` on node `from`, new there or taken over there: their connections
/// here are attached to their games there. One that has a stand-in there already is attached
/// too: the node may have restarted under the same name since that stand-in was made, and the
/// stand-in it has now (if any) attaches to whatever games it is not attached to yet.
async fn seated_elsewhere(shared: Arc<Shared>, from: String, player: PlayerId, game: GameId) {
    let Some(session) = shared.registry.session(player) else {
        return;
    };
    for out in session.outbounds() {
        if out.is_stand_in() {
            continue;
        }
        tracing::debug!(
            game = game.0,
            "a player here has a seat in a game on another node"
        );
        let network = (shared.wing.as_ref())
            .and_then(|wing| wing.links.network_of(out.conn))
            .unwrap_or(Network::of(std::net::Ipv4Addr::UNSPECIFIED.into()));
        attach_elsewhere(&shared, &session, &out, network, vec![from.clone()]).await;
    }
}

/// A connection of another node, which a stand-in here serves.
#[derive(Debug, Clone)]
struct Caller {
    /// The node's name.
    node: String,
    /// The connection's number on that node.
    conn: u64,
}

/// Serves `caller`, a connection of another node, speaking for `who`, until that node says it
/// has gone.
async fn stand_in(shared: Arc<Shared>, caller: Caller, who: Who, mut mail: mpsc::Receiver<Mail>) {
    let Caller { node: from, conn } = caller.clone();
    let Some(cluster) = shared.wing.as_ref().map(|wing| wing.cluster.clone()) else {
        return;
    };
    let config = &shared.config;
    let remote = outbound::Remote {
        node: from.clone(),
        conn,
    };
    let metrics = shared.operator.metrics.clone();
    let (out, inbox) = outbound::stand_in_channel(config.outbound_queue, metrics, remote);
    tokio::spawn(cluster.clone().mail_frames(from.clone(), conn, inbox));
    let player = PlayerId(who.player);
    let session = shared.registry.session(player).unwrap_or_else(|| {
        shared.registry.stored_session(&StoredPlayer {
            player,
            name: who.name.clone(),
            ratings: Ratings::from_parts(who.ratings),
            account: who.account,
            bot: who.bot,
        })
    });
    let mut client = Client::new(shared.clone(), out.clone(), Network::of(who.network));
    client.stands_in = true;
    match session.attach(out.clone()) {
        Some(attached) => {
            client.session = Some(session.clone());
            for game in attached.games {
                if let Some(handle) = shared.registry.games.get(game) {
                    handle.attach(player, out.clone()).await;
                }
            }
        }
        None => out.error(
            None,
            ErrorCode::LimitReached,
            "this player has too many connections open",
        ),
    }
    while let Some(mail) = mail.recv().await {
        match mail {
            Mail::Request {
                frame, watching, ..
            } if client.welcomed() => {
                client.watching_elsewhere = watching;
                if let Some(why) = client.receive_frame(frame.clone()).await {
                    out.close(why);
                }
                client.watching_elsewhere = false;
                if let Some(game) = client.handed_over.take() {
                    hand_back(&cluster, &caller, game, frame).await;
                }
            }
            Mail::Attach { mark, .. } => {
                // The games it sits in here now, some perhaps taken over since it was made.
                let games = client
                    .session
                    .as_ref()
                    .map(|s| s.games())
                    .unwrap_or_default();
                for game in games {
                    if let Some(handle) = shared.registry.games.get(game) {
                        handle.attach(player, out.clone()).await;
                    }
                }
                out.mark(mark);
            }
            Mail::TakeSeek { seek, mark, .. } => {
                if client.take_seek(seek).await {
                    out.mark(mark);
                } else if let Err(err) = cluster.mail(&from, &Mail::Refused { mark }).await {
                    warn!(cause = %err, "cannot answer another node");
                }
            }
            Mail::Gone { .. } => break,
            _ => {}
        }
    }
    if let Some(wing) = &shared.wing {
        wing.stand_ins.remove(&from, conn);
    }
    client.disconnected().await;
}

/// Hands request `frame` about `game`, which this node (stopping) has just handed over, back to
/// `caller`'s node, for that node to serve again.
async fn hand_back(cluster: &Cluster, caller: &Caller, game: GameId, frame: ClientFrame) {
    tracing::info!(
        game = game.0,
        node = caller.node,
        "handing a request back to its connection's node"
    );
    let retry = Mail::Retry {
        from: cluster.node().to_owned(),
        conn: caller.conn,
        game,
        frame,
    };
    if let Err(err) = cluster.mail(&caller.node, &retry).await {
        warn!(cause = %err, "cannot hand a request back to another node");
    }
}

impl Client {
    /// Takes waiting seek `seek` for this stand-in's player; false if it is no longer waiting.
    async fn take_seek(&mut self, seek: SeekId) -> bool {
        let Some(session) = self.session.clone() else {
            return false;
        };
        let from = Requester {
            player: session.player,
            out: self.out.clone(),
            id: None,
        };
        self.accept_seek(&session, from, seek).await.is_ok()
    }
}
