//! A game another node plays, as a player's requests reach it: each request goes to that node as
//! the protocol's own typed message, mailed under the cluster's seal, with who asks and from
//! which connection, and that node answers the connection through the mail it sends back.

use noughts_protocol::{ClientFrame, ClientMessage, GameId, RequestId};

use super::mail::{Mail, Who};
use super::{Cluster, ClusterError};
use crate::net::outbound::ConnId;

/// A game node `node` plays, as `who` reaches it.
#[derive(Debug, Clone)]
pub(crate) struct RemoteGame {
    cluster: Cluster,
    node: String,
    game: GameId,
    who: Who,
}

impl RemoteGame {
    /// `game`, played by `node`, for the player `who` (their connection is linked to `node`
    /// already, so what it sends back finds them).
    pub(crate) fn new(cluster: Cluster, node: String, game: GameId, who: Who) -> RemoteGame {
        RemoteGame {
            cluster,
            node,
            game,
            who,
        }
    }

    /// The game's id.
    pub(crate) fn id(&self) -> GameId {
        self.game
    }

    /// Mails `message` (answered under `id`) from this node's connection `conn` to the game's
    /// node: true; false if no node listens under that name (it is gone); an error if Redis
    /// cannot be reached. `watching`: chat from a connection that watches the game from here.
    pub(crate) async fn request(
        &self,
        conn: ConnId,
        id: Option<RequestId>,
        message: ClientMessage,
        watching: bool,
    ) -> Result<bool, ClusterError> {
        let mail = Mail::Request {
            from: self.cluster.node().to_owned(),
            conn: conn.0,
            who: self.who.clone(),
            frame: ClientFrame { id, message },
            watching,
        };
        self.cluster.mail(&self.node, &mail).await
    }
}
