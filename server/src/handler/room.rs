//! Rooms: `create_room`, `close_room` and `join_room`. Joining a room starts its game.

use std::sync::Arc;

use noughts_protocol::{CreateRoom, ErrorCode, GameKind, RequestId, ServerMessage};

use super::client::{Client, Reply, coin_toss, refuse};
use super::limits::{MAX_OPEN_ROOMS, check_clock};
use crate::game::expiry::forget_room;
use crate::game::{self, Setup};
use crate::lobby::invite_code;
use crate::registry::JoinRoomError;
use crate::registry::games::Requester;
use crate::rules::sitter::Sitter;
use crate::session::Session;

impl Client {
    pub(super) async fn create_room(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        request: CreateRoom,
    ) -> Reply {
        let CreateRoom {
            variant,
            clock,
            private,
            rated,
        } = request;
        check_clock(clock)?;
        self.check_not_stopping()?;
        if rated {
            self.check_rated_allowed(session).await?;
        }
        if session.room_count() >= MAX_OPEN_ROOMS {
            return refuse(
                ErrorCode::LimitReached,
                format!("you may have at most {MAX_OPEN_ROOMS} open rooms; close one first"),
            );
        }
        let per_ip = self.shared.config.max_rooms_per_ip;
        let local = self.shared.registry.per_network.room(self.network, per_ip);
        let Some(slot) = self.place("room", local, per_ip).await else {
            return refuse(
                ErrorCode::LimitReached,
                format!(
                    "at most {per_ip} rooms may be open from one address; wait for one to \
                         be joined or closed"
                ),
            );
        };
        let room = self.shared.registry.rooms.open(
            session.clone(),
            variant,
            clock,
            private,
            rated,
            Some(slot),
        );
        session.add_room(&room.code);
        if let Some(wing) = &self.shared.wing {
            wing.hold_room(&room.code).await;
        }
        let shown = invite_code::display(&room.code);
        self.out.reply(
            id,
            ServerMessage::RoomCreated {
                code: shown,
                variant,
                clock,
                private,
            },
        );
        if !private {
            self.shared.lobby.add_room(room.info());
        }
        Ok(())
    }

    pub(super) async fn close_room(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        code: String,
    ) -> Reply {
        #[cfg(feature = "cluster")]
        {
            let found = self.room_node(&code).await;
            let message = noughts_protocol::ClientMessage::CloseRoom { code: code.clone() };
            if let Some(reply) = self.hand_to(found, id.clone(), message).await {
                return reply;
            }
        }
        let room = invite_code::parse(&code)
            .and_then(|code| self.shared.registry.rooms.close(&code, session.player));
        let Some(room) = room else {
            return refuse(
                ErrorCode::NoSuchRoom,
                "you have no open room with that code",
            );
        };
        session.remove_room(&room.code);
        forget_room(&self.shared, &room.code);
        if !room.private {
            self.shared
                .lobby
                .remove_room(&invite_code::display(&room.code));
        }
        self.ok(id);
        Ok(())
    }

    /// `join_room`: starts the room's game (a rated room's only for an account).
    pub(super) async fn join_room(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        code: String,
    ) -> Reply {
        #[cfg(feature = "cluster")]
        {
            let found = self.room_node(&code).await;
            let message = noughts_protocol::ClientMessage::JoinRoom { code: code.clone() };
            if let Some(reply) = self.hand_to(found, from.id.clone(), message).await {
                return reply;
            }
        }
        let Some(code) = invite_code::parse(&code) else {
            return refuse(ErrorCode::NoSuchRoom, "no open room has that code");
        };
        self.check_not_stopping()?;
        if self.shared.registry.rooms.rated(&code) == Some(true) {
            self.check_rated_allowed(session).await?;
        }
        let taken = {
            let moderation = self.shared.accounts.moderation.state();
            let blocked = |host| moderation.blocked(session.player, host);
            self.shared
                .registry
                .rooms
                .take(&code, session.player, &blocked)
        };
        let room = match taken {
            Ok(room) => room,
            Err(JoinRoomError::Blocked) => {
                return refuse(ErrorCode::Blocked, "one of you blocks the other");
            }
            Err(JoinRoomError::NoSuchRoom) => {
                return refuse(ErrorCode::NoSuchRoom, "no open room has that code");
            }
            Err(JoinRoomError::OwnRoom) => {
                return refuse(ErrorCode::OwnRoom, "you cannot join your own room");
            }
        };
        room.host.remove_room(&room.code);
        forget_room(&self.shared, &room.code);
        if !room.private {
            self.shared
                .lobby
                .remove_room(&invite_code::display(&room.code));
        }
        let mut seats = [
            Sitter::Human(room.host.clone()),
            Sitter::Human(session.clone()),
        ];
        if coin_toss() {
            seats.swap(0, 1);
        }
        let game = game::start(
            &self.shared,
            Setup {
                variant: room.variant,
                kind: GameKind::Human,
                seats,
                clock: room.clock,
                owner: None,
                rated: room.rated,
                listed: !room.private,
                rematch_of: None,
                requester: Some(from),
                watcher: None,
                on_end: None,
            },
        )?;
        if room.private {
            self.shared.registry.games.set_code(game, &room.code);
        }
        Ok(())
    }
}
