//! A request's way in: each text frame counted against the connection's rate, decoded once,
//! and sent to its handler, one arm per message, each a call into the file for its concern. A
//! request inside a game (`move`, `resign`, `rematch`, the offers, `claim`, `abort`) has the game
//! itself for its concern: it is handed to the game's `GameHandle`, here or on the node that
//! plays it. Before `hello`, only `hello` is answered.

use std::sync::Arc;

use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameId, RequestId, ServerMessage, close, decode_client,
};
use tokio::time::Instant;
use tracing::{debug, info};

use super::client::{Client, PAUSED, Reply, no_such_game, refuse};
use super::moderation::Relation;
use crate::error::Refusal;
use crate::net::outbound::Close;
use crate::registry::games::{Ask, GameHandle, Requester, Sent};
use crate::session::Session;

impl Client {
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

    pub(super) async fn dispatch(
        &mut self,
        id: Option<RequestId>,
        message: ClientMessage,
    ) -> Reply {
        let Some(session) = self.session.clone() else {
            return match message {
                ClientMessage::Hello {
                    protocol,
                    name,
                    token,
                    credentials,
                } => match (credentials, token) {
                    (Some(credentials), None) => self.sign_in(id, protocol, credentials).await,
                    (Some(_), Some(_)) => refuse(
                        ErrorCode::BadRequest,
                        "hello carries a token or a username and password, not both",
                    ),
                    (None, token) => self.hello(id, protocol, &name, token).await,
                },
                _ => refuse(ErrorCode::HelloFirst, "say hello first"),
            };
        };
        let from = Requester {
            player: session.player,
            out: self.out.clone(),
            id: id.clone(),
        };
        match message {
            ClientMessage::Hello { .. } => refuse(
                ErrorCode::AlreadyWelcomed,
                "this connection has already said hello",
            ),
            ClientMessage::Ping => {
                self.out.reply(id, ServerMessage::Pong);
                Ok(())
            }
            ClientMessage::Logout => self.logout(&session, id).await,
            ClientMessage::SubscribeLobby => self.subscribe_lobby(&session, id),
            ClientMessage::UnsubscribeLobby => self.unsubscribe_lobby(&session, id),
            ClientMessage::ListGames(request) => {
                self.list_games(id, request);
                Ok(())
            }
            ClientMessage::Seek(request) => self.seek(&session, from, request).await,
            ClientMessage::CancelSeek => self.cancel_seek(&session, id),
            ClientMessage::AcceptSeek { seek } => self.accept_seek(&session, from, seek).await,
            ClientMessage::CreateRoom(request) => self.create_room(&session, id, request).await,
            ClientMessage::CloseRoom { code } => self.close_room(&session, id, code).await,
            ClientMessage::JoinRoom { code } => self.join_room(&session, from, code).await,
            ClientMessage::PlayAi(request) => self.play_ai(&session, from, request),
            ClientMessage::StartWar(request) => self.start_war(&session, from, request),
            ClientMessage::Watch(request) => self.watch(&session, from, request).await,
            ClientMessage::Unwatch { game } => self.unwatch(&session, from, game).await,
            ClientMessage::Move { game, cell } => self.ask(from, game, Ask::Move { cell }).await,
            ClientMessage::Resign { game } => self.ask(from, game, Ask::Resign).await,
            ClientMessage::Rematch { game } => self.ask(from, game, Ask::Rematch).await,
            ClientMessage::OfferDraw { game } => self.ask(from, game, Ask::OfferDraw).await,
            ClientMessage::Takeback { game } => self.ask(from, game, Ask::Takeback).await,
            ClientMessage::Decline { game } => self.ask(from, game, Ask::Decline).await,
            ClientMessage::CancelOffer { game } => self.ask(from, game, Ask::CancelOffer).await,
            ClientMessage::Claim { game, outcome } => {
                self.ask(from, game, Ask::Claim { outcome }).await
            }
            ClientMessage::Abort { game } => self.ask(from, game, Ask::Abort).await,
            ClientMessage::Chat { game, text } => self.chat(&session, from, game, text).await,
            ClientMessage::League(request) => {
                self.league(id, request);
                Ok(())
            }
            ClientMessage::UnfollowLeague => {
                self.unfollow_league(id);
                Ok(())
            }
            ClientMessage::Leaderboard(request) => {
                self.leaderboard(id, request);
                Ok(())
            }
            ClientMessage::History(request) => {
                self.history(id, request, session.player);
                Ok(())
            }
            ClientMessage::GameRecord { game } => {
                self.record(id, game, session.player);
                Ok(())
            }
            ClientMessage::AnalyseGame { game } => {
                self.analyse(id, game, session.player);
                Ok(())
            }
            ClientMessage::Rename { name } => self.rename(&session, id, &name).await,
            ClientMessage::Profile { player, username } => {
                match username {
                    Some(username) => self.profile_named(id, username),
                    None => self.profile(id, player.unwrap_or(session.player)),
                }
                Ok(())
            }
            personal => self.dispatch_personal(&session, id, personal).await,
        }
    }

    /// The requests about the player themselves: their relations to other players (mute, block,
    /// report) and their account.
    async fn dispatch_personal(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        message: ClientMessage,
    ) -> Reply {
        match message {
            ClientMessage::Mute { player } => {
                self.relate(session, id, Relation::Mute, player).await
            }
            ClientMessage::Unmute { player } => {
                self.relate(session, id, Relation::Unmute, player).await
            }
            ClientMessage::Block { player } => {
                self.relate(session, id, Relation::Block, player).await
            }
            ClientMessage::Unblock { player } => {
                self.relate(session, id, Relation::Unblock, player).await
            }
            ClientMessage::ModerationList => self.moderation_list(session, id).await,
            ClientMessage::Report(report) => self.report(session, id, report).await,
            ClientMessage::Register(credentials) => self.register(session, id, credentials).await,
            ClientMessage::Sessions => self.sessions(session, id).await,
            ClientMessage::BecomeBot => self.become_bot(session, id).await,
            ClientMessage::EnterLeague { variant } => {
                self.enter_league(session, id, variant, true).await
            }
            ClientMessage::LeaveLeague { variant } => {
                self.enter_league(session, id, variant, false).await
            }
            ClientMessage::RevokeSession { session: device } => {
                self.revoke_session(session, id, device).await
            }
            ClientMessage::ChangePassword(request) => {
                self.change_password(session, id, request).await
            }
            ClientMessage::CloseAccount(request) => self.close_account(session, id, request).await,
            arena => self.dispatch_arena(session, id, arena).await,
        }
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

    /// Hands `ask` from `from` to `game`. In a cluster, when the node that played it has gone,
    /// the player's games are found again (here, or on the node that took them) and the request
    /// goes there, once.
    pub(super) async fn ask(&mut self, from: Requester, game: GameId, ask: Ask) -> Reply {
        let handle = self.game(game).await?;
        self.ask_through(handle, from, game, ask).await
    }

    /// Hands `ask` to `game` through `handle`, found already.
    pub(super) async fn ask_through(
        &mut self,
        mut handle: GameHandle,
        from: Requester,
        game: GameId,
        ask: Ask,
    ) -> Reply {
        // A node that is stopping takes no game over: its players find theirs on other nodes.
        let mut found_again = self.handing_over();
        loop {
            match handle.ask(from.clone(), ask.clone()).await {
                Sent::Done => return Ok(()),
                Sent::Closed => return refuse(ErrorCode::NoSuchGame, "that game has just closed"),
                Sent::NodeGone if !found_again => {
                    #[cfg(feature = "cluster")]
                    {
                        tracing::info!(
                            "the node that held a player's game is gone; finding it again"
                        );
                        self.find_games_again().await;
                    }
                    found_again = true;
                    handle = self.game(game).await?;
                }
                Sent::NodeGone | Sent::Unreachable => {
                    return refuse(ErrorCode::GamePaused, PAUSED);
                }
            }
        }
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
