//! Which handler answers which request: one arm per message, each a call into the file for its
//! concern. Before `hello`, only `hello` is answered.

use std::sync::Arc;

use noughts_protocol::{ClientMessage, ErrorCode, RequestId, ServerMessage};

use super::client::{Client, Reply, refuse};
use super::moderation::Relation;
use super::room::RoomRequest;
use crate::registry::game_handle::{Ask, Requester};
use crate::session::Session;

impl Client {
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
            ClientMessage::ListGames {
                variant,
                after,
                limit,
            } => {
                self.list_games(variant, after, limit, id);
                Ok(())
            }
            ClientMessage::Seek {
                variant,
                clock,
                rated,
            } => self.seek(&session, from, variant, clock, rated).await,
            ClientMessage::CancelSeek => self.cancel_seek(&session, id),
            ClientMessage::AcceptSeek { seek } => self.accept_seek(&session, from, seek).await,
            ClientMessage::CreateRoom {
                variant,
                clock,
                private,
                rated,
            } => {
                let request = RoomRequest {
                    variant,
                    clock,
                    private,
                    rated,
                };
                self.create_room(&session, id, request).await
            }
            ClientMessage::CloseRoom { code } => self.close_room(&session, id, code).await,
            ClientMessage::JoinRoom { code } => self.join_room(&session, from, code).await,
            ClientMessage::PlayAi {
                variant,
                level,
                side,
                clock,
            } => self.play_ai(&session, from, (variant, level, side, clock)),
            ClientMessage::StartWar {
                variant,
                x_level,
                o_level,
            } => self.start_war(&session, from, (variant, x_level, o_level)),
            ClientMessage::Watch { game, code } => self.watch(&session, from, game, code).await,
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
            ClientMessage::Leaderboard {
                variant,
                offset,
                limit,
            } => {
                self.leaderboard(id, variant, offset, limit);
                Ok(())
            }
            ClientMessage::History {
                player,
                before,
                limit,
            } => {
                let player = player.unwrap_or(session.player);
                self.history(id, player, before, limit, session.player);
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
                self.relate(session, id, (Relation::Mute, player)).await
            }
            ClientMessage::Unmute { player } => {
                self.relate(session, id, (Relation::Unmute, player)).await
            }
            ClientMessage::Block { player } => {
                self.relate(session, id, (Relation::Block, player)).await
            }
            ClientMessage::Unblock { player } => {
                self.relate(session, id, (Relation::Unblock, player)).await
            }
            ClientMessage::ModerationList => self.moderation_list(session, id).await,
            ClientMessage::Report {
                player,
                category,
                reason,
                game,
            } => {
                self.report(session, id, (player, category, reason, game))
                    .await
            }
            ClientMessage::Register(credentials) => self.register(session, id, credentials).await,
            ClientMessage::Sessions => self.sessions(session, id).await,
            ClientMessage::RevokeSession { session: device } => {
                self.revoke_session(session, id, device).await
            }
            ClientMessage::ChangePassword {
                password,
                new_password,
            } => {
                self.change_password(session, id, password, new_password)
                    .await
            }
            ClientMessage::CloseAccount { password } => {
                self.close_account(session, id, password).await
            }
            _ => refuse(ErrorCode::BadRequest, "not a request the server knows"),
        }
    }
}
