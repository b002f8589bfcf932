//! One connection's view of its player ([`Client`]): the session once `hello` is answered, the
//! rate limits, and what every handler shares (refusing, replying `ok`, reaching a game). Each
//! request's own handling lives in the file named for its concern.

use std::sync::Arc;
use std::time::Duration;

use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameId, RequestId, ServerMessage, close, decode_client,
};
use tokio::time::Instant;
use tracing::{debug, info};

use crate::error::Refusal;
use crate::net::network::{Network, Slot};
use crate::net::outbound::{Close, Outbound};
use crate::registry::game_handle::GameHandle;
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

    /// A ping or pong from the client: it counts against the request rate, and a flood of them
    /// closes the connection as a flood of requests does.
    pub(crate) fn control_frame(&mut self) -> Option<Close> {
        self.take_request().err().flatten()
    }

    /// Takes one request's place in the rate. Refused: `Err`, with the close for a connection
    /// that keeps flooding (more refusals in a row than the burst).
    fn take_request(&mut self) -> Result<(), Option<Close>> {
        if self.requests.take(Instant::now()) {
            self.refused = 0;
            return Ok(());
        }
        self.refused += 1;
        if self.refused > self.shared.config.message_burst {
            info!("closing a connection that keeps flooding");
            return Err(Some(Close {
                code: close::POLICY_VIOLATION,
                reason: "rate limit exceeded",
            }));
        }
        Err(None)
    }

    /// Handles one text frame. Returns a close when the client has to go (persistent flooding).
    pub(crate) async fn receive(&mut self, text: &str) -> Option<Close> {
        // Every frame counts against the limit, malformed ones too.
        let allowed = self.take_request();
        let decoded = decode_client(text);
        if let Err(close) = allowed {
            if close.is_some() {
                return close;
            }
            let id = match decoded {
                Ok(frame) => frame.id,
                Err(err) => err.id,
            };
            self.out
                .error(id, ErrorCode::RateLimited, "too many messages; slow down");
            return None;
        }
        match decoded {
            Ok(frame) => self.serve(frame).await,
            Err(err) => self.out.error(err.id, err.code, err.message),
        }
        None
    }

    /// Handles one request another node read for its connection, which this client stands in
    /// for; it counts against this connection's rate as a text frame does. Returns a close when
    /// the client has to go (persistent flooding).
    #[cfg(feature = "cluster")]
    pub(crate) async fn receive_frame(&mut self, frame: ClientFrame) -> Option<Close> {
        if let Err(close) = self.take_request() {
            if close.is_some() {
                return close;
            }
            self.out.error(
                frame.id,
                ErrorCode::RateLimited,
                "too many messages; slow down",
            );
            return None;
        }
        self.serve(frame).await;
        None
    }

    /// Serves one request (its handler hands it on when what it is about is held elsewhere).
    async fn serve(&mut self, frame: ClientFrame) {
        let id = frame.id.clone();
        let game = played_game(&frame.message);
        if let Err(refusal) = self.dispatch(frame.id, frame.message).await {
            if let Some(game) = game.filter(|_| refusal.code == ErrorCode::NoSuchGame)
                && self.handing_over()
            {
                // Not refused: the game lives on, on the node that takes it over.
                info!(
                    game = game.0,
                    "a request about a game handed over is left to its next node"
                );
                self.handed_over = Some(game);
                return;
            }
            debug!(code = %refusal.code, "refused");
            self.out.error(id, refusal.code, refusal.message);
        }
    }

    /// Whether this node is stopping and has handed its games over (to be taken over from the
    /// shared store by the node each player comes back to). A request about one of them is not
    /// refused (the game is not over, it is between nodes): a connection of this node is left
    /// unanswered, since it is told to come back elsewhere a moment later, and finds the game
    /// there; a stand-in hands the request back to its connection's node (see `stand_in`).
    pub(super) fn handing_over(&self) -> bool {
        self.shared.wing.is_some()
            && self.shared.stop_games.is_cancelled()
            && self.shared.store.is_persistent()
    }

    /// The game `id`: played here, or in a cluster on the node that plays it (see `remote`).
    pub(super) async fn game(&mut self, id: GameId) -> Result<GameHandle, Refusal> {
        if let Some(game) = self.shared.registry.games.get(id) {
            return Ok(GameHandle::Local(game));
        }
        #[cfg(feature = "cluster")]
        if let Some(found) = self.game_elsewhere(id).await {
            return found;
        }
        Err(match &self.shared.wing {
            // It stepped down here, its lease lapsed: it is between nodes, not over.
            Some(wing) if wing.is_paused(id) => Refusal::new(ErrorCode::GamePaused, PAUSED),
            _ => no_such_game(id),
        })
    }

    /// Whether this connection watches `game` as another node publishes it (a line it says
    /// there is a spectator's).
    pub(super) fn watches_remote(&self, game: GameId) -> bool {
        let wing = self.shared.wing.as_ref();
        wing.is_some_and(|wing| wing.watches_remote(game, self.out.conn))
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
        if self.shared.stop_games.is_cancelled() {
            return refuse(ErrorCode::ShuttingDown, "the server is shutting down");
        }
        Ok(())
    }
}

/// The game a player's request in it is about (a move, a resignation, an offer, chat).
fn played_game(message: &ClientMessage) -> Option<GameId> {
    match message {
        ClientMessage::Move { game, .. }
        | ClientMessage::Resign { game }
        | ClientMessage::Rematch { game }
        | ClientMessage::OfferDraw { game }
        | ClientMessage::Takeback { game }
        | ClientMessage::Decline { game }
        | ClientMessage::CancelOffer { game }
        | ClientMessage::Claim { game, .. }
        | ClientMessage::Abort { game }
        | ClientMessage::Chat { game, .. } => Some(*game),
        _ => None,
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
