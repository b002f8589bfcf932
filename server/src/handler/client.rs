//! One connection's view of its player ([`Client`]): the session once `hello` is answered, the
//! rate limits, and what every handler shares (refusing, replying `ok`, the per-address places).
//! A request comes in through `dispatch`; its own handling lives in the file named for its
//! concern.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{ErrorCode, GameId, RequestId, ServerMessage};

use crate::error::Refusal;
use crate::net::network::{Network, Slot};
use crate::net::outbound::Outbound;
use crate::session::Session;
use crate::session::token_bucket::Bucket;
use crate::shared::Shared;
use crate::store::TokenHash;

/// One connection's view of its player.
#[derive(Debug)]
pub(crate) struct Client {
    pub(super) shared: Arc<Shared>,
    /// Where replies to this connection go.
    pub(super) out: Outbound,
    /// The player, once `hello` has been answered.
    pub(super) session: Option<Arc<Session>>,
    /// Limits requests of every kind.
    pub(super) requests: Bucket,
    /// Limits chat lines.
    pub(super) chat: Bucket,
    /// Requests refused by the rate limit since the last one accepted; too many closes the
    /// connection.
    pub(super) refused: u32,
    /// The client's network, which the per-address caps on rooms and seeks count under.
    pub(super) network: Network,
    /// Whether this stands in here for a connection of another node (which forwards only what
    /// this node holds, so nothing is forwarded on from here).
    pub(super) stands_in: bool,
    /// For a stand-in, while it handles a request: whether the connection watches the game the
    /// request is about from its own node.
    pub(super) watching_elsewhere: bool,
    /// The game of the last request left unanswered because this node, stopping, has just
    /// handed that game over (see [`Client::handing_over`]).
    pub(super) handed_over: Option<GameId>,
    /// The hash of the token this connection was welcomed with: it counts as used until the
    /// connection closes.
    pub(super) token: Option<TokenHash>,
    /// Whether this connection may carry passwords: encrypted (here or by a TLS proxy the
    /// operator declared), or from loopback.
    pub(super) credentials_allowed: bool,
    /// The device as the WebSocket upgrade's `User-Agent` names it, made safe to show: the label
    /// of a session opened here by a sign-in or `register` that names no device.
    pub(super) user_agent: Option<Box<str>>,
    /// The game whose analysis is being pushed to this connection as it fills in.
    pub(super) following: Option<crate::analysis::Following>,
}

/// What handling a request comes to: done (its reply sent), or refused with a reason.
pub(super) type Reply = Result<(), Refusal>;

pub(super) fn refuse(code: ErrorCode, message: impl Into<String>) -> Reply {
    Err(Refusal::new(code, message))
}

impl Client {
    /// Lets this connection carry passwords (see [`Client::credentials_allowed`]).
    pub(crate) fn allow_credentials(&mut self) {
        self.credentials_allowed = true;
    }

    pub(crate) fn new(shared: Arc<Shared>, out: Outbound, network: Network) -> Client {
        let config = &shared.config;
        let requests = Bucket::new(
            config.message_burst,
            Duration::from_secs(1) / config.messages_per_second.max(1),
        );
        let chat = Bucket::new(
            config.chat_burst,
            Duration::from_secs(60) / config.chat_per_minute.max(1),
        );
        Client {
            shared,
            out,
            session: None,
            requests,
            chat,
            refused: 0,
            network,
            stands_in: false,
            watching_elsewhere: false,
            handed_over: None,
            token: None,
            credentials_allowed: false,
            user_agent: None,
            following: None,
        }
    }

    /// Whether `hello` has been answered on this connection.
    pub(crate) fn welcomed(&self) -> bool {
        self.session.is_some()
    }

    /// Whether the player sits in a live game: its connections are pinged more often, so that a
    /// pong lost or late does not let the idle timeout drop a player mid-game (a dead connection
    /// is found by that timeout either way).
    pub(crate) fn seated(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|session| session.seated())
    }

    /// Whether this node is stopping and has handed its games over (to be taken over from the
    /// shared store by the node each player comes back to). A request about one of them is not
    /// refused (the game is not over, it is between nodes): a connection of this node is left
    /// unanswered, since it is told to come back elsewhere a moment later, and finds the game
    /// there; a stand-in hands the request back to its connection's node (see `stand_in`).
    pub(super) fn handing_over(&self) -> bool {
        self.shared.wing.is_some()
            && self.shared.lifecycle.stop_games.is_cancelled()
            && self.shared.store.is_persistent()
    }

    pub(super) fn ok(&self, id: Option<RequestId>) {
        if id.is_some() {
            self.out.reply(id, ServerMessage::Ok);
        }
    }

    /// A place for one more `kind` (`room` or `seek`) from this client's network, given `local`,
    /// its place in this node's count (if there was one): in a cluster, the whole cluster's
    /// count must have room too. A cluster count that cannot be reached leaves this node's.
    pub(super) async fn place(
        &self,
        kind: &'static str,
        local: Option<Slot>,
        cap: usize,
    ) -> Option<Slot> {
        let local = local?;
        let Some(wing) = &self.shared.wing else {
            return Some(local);
        };
        match wing.take_place(kind, self.network, cap).await {
            Ok(Some(place)) => Some(Slot::both(local, place)),
            Ok(None) => None,
            Err(err) => {
                tracing::warn!(cause = %err, kind, "cannot count across the cluster; counting here");
                Some(local)
            }
        }
    }

    pub(super) fn check_not_stopping(&self) -> Reply {
        if self.shared.lifecycle.stop_games.is_cancelled() {
            return refuse(ErrorCode::ShuttingDown, "the server is shutting down");
        }
        Ok(())
    }
}

/// What a request about a paused game is answered (`game_paused`).
pub(super) const PAUSED: &str =
    "the site is reconnecting; the game is paused and resumes in a moment";

pub(super) fn no_such_game(id: GameId) -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, format!("no live game has id {id}"))
}

/// A coin toss for sides.
pub(super) fn coin_toss() -> bool {
    noughts_engine::Rng::new().bool()
}
