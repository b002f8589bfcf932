//! The lobby: the listed rooms and games, and the players who follow them.
//!
//! One lock orders everything: a subscriber gets the snapshot and then exactly the changes made
//! after it, each serialised once for all subscribers.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use noughts_protocol::{GameId, GameInfo, RequestId, RoomInfo, SeekId, SeekInfo, ServerMessage};

use crate::outbound::{ConnId, Outbound, frame};

/// The lobby's listings and subscribers.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Listed live games (private-room games are not listed).
    games: BTreeMap<GameId, GameInfo>,
    /// Public rooms waiting for an opponent, by their displayed code.
    rooms: BTreeMap<String, RoomInfo>,
    /// Quick-match seeks waiting, oldest first (ids only grow).
    seeks: BTreeMap<SeekId, SeekInfo>,
    /// Who gets the changes: connections, since a player may follow the lobby from several.
    subscribers: HashMap<ConnId, Outbound>,
}

impl Inner {
    fn broadcast(&mut self, message: ServerMessage) {
        let frame = frame(None, message);
        self.subscribers.retain(|_, out| out.send(frame.clone()));
    }
}

impl Lobby {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Sends the snapshot to `out` (echoing `id`), then every change until [`Lobby::unsubscribe`].
    pub(crate) fn subscribe(&self, out: Outbound, id: Option<RequestId>) {
        let mut inner = self.inner();
        let snapshot = ServerMessage::Lobby {
            rooms: inner.rooms.values().cloned().collect(),
            games: inner.games.values().cloned().collect(),
            seeks: inner.seeks.values().cloned().collect(),
        };
        if out.reply(id, snapshot) {
            inner.subscribers.insert(out.conn, out);
        }
    }

    pub(crate) fn unsubscribe(&self, conn: ConnId) {
        self.inner().subscribers.remove(&conn);
    }

    /// A listed game started or changed.
    pub(crate) fn update_game(&self, info: GameInfo) {
        let mut inner = self.inner();
        inner.games.insert(info.game, info.clone());
        inner.broadcast(ServerMessage::LobbyGame { game: info });
    }

    /// A listed game ended.
    pub(crate) fn remove_game(&self, game: GameId) {
        let mut inner = self.inner();
        if inner.games.remove(&game).is_some() {
            inner.broadcast(ServerMessage::LobbyGameRemoved { game });
        }
    }

    /// A public room opened.
    pub(crate) fn add_room(&self, room: RoomInfo) {
        let mut inner = self.inner();
        inner.rooms.insert(room.code.clone(), room.clone());
        inner.broadcast(ServerMessage::LobbyRoom { room });
    }

    /// A public room was joined or closed; `code` is the displayed code.
    pub(crate) fn remove_room(&self, code: &str) {
        let mut inner = self.inner();
        if inner.rooms.remove(code).is_some() {
            inner.broadcast(ServerMessage::LobbyRoomRemoved {
                code: code.to_owned(),
            });
        }
    }

    /// A quick-match seek started waiting.
    pub(crate) fn add_seek(&self, seek: SeekInfo) {
        let mut inner = self.inner();
        inner.seeks.insert(seek.seek, seek.clone());
        inner.broadcast(ServerMessage::LobbySeek { seek });
    }

    /// A seek stopped waiting.
    pub(crate) fn remove_seek(&self, seek: SeekId) {
        let mut inner = self.inner();
        if inner.seeks.remove(&seek).is_some() {
            inner.broadcast(ServerMessage::LobbySeekRemoved { seek });
        }
    }
}

#[cfg(test)]
mod tests {
    use noughts_protocol::{ServerFrame, Variant};

    use super::*;
    use crate::outbound::{Queued, channel};

    fn room(code: &str) -> RoomInfo {
        RoomInfo {
            code: code.to_owned(),
            variant: Variant::Classic,
            clock: None,
            host: "ada".to_owned(),
            rated: false,
        }
    }

    fn next(inbox: &mut crate::outbound::Inbox) -> ServerMessage {
        let Ok(Queued::Frame(frame)) = inbox.frames.try_recv() else {
            panic!("a frame");
        };
        serde_json::from_str::<ServerFrame>(frame.as_str())
            .unwrap()
            .message
    }

    #[test]
    fn a_subscriber_gets_the_snapshot_then_every_change() {
        let lobby = Lobby::default();
        lobby.add_room(room("AAAA-AAAA-AA"));
        let (out, mut inbox) = channel(8, Default::default(), None);
        lobby.subscribe(out.clone(), Some(RequestId::Number(3)));
        let ServerMessage::Lobby { rooms, games, .. } = next(&mut inbox) else {
            panic!("snapshot first");
        };
        assert_eq!((rooms.len(), games.len()), (1, 0));
        lobby.add_room(room("BBBB-BBBB-BB"));
        assert!(matches!(next(&mut inbox), ServerMessage::LobbyRoom { .. }));
        lobby.remove_room("AAAA-AAAA-AA");
        lobby.remove_room("AAAA-AAAA-AA");
        assert!(matches!(
            next(&mut inbox),
            ServerMessage::LobbyRoomRemoved { .. }
        ));
        assert!(
            inbox.frames.try_recv().is_err(),
            "removing twice tells once"
        );
        lobby.unsubscribe(out.conn);
        lobby.add_room(room("CCCC-CCCC-CC"));
        assert!(
            inbox.frames.try_recv().is_err(),
            "nothing after unsubscribing"
        );
    }
}
