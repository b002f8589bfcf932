//! The lobby: the listed rooms, seeks and games, and the connections that follow them.
//!
//! One lock orders everything: a subscriber gets the snapshot and then exactly the changes made
//! after it, each serialised once for all subscribers. Every listing changes through one
//! [`Change`]; on a node of a cluster, the changes made here are also handed to a relay (which
//! publishes them to the other nodes), and the other nodes' changes come in through
//! [`Lobby::apply_remote`], so every node's lobby lists the whole cluster.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard, OnceLock};

use noughts_protocol::{GameId, GameInfo, RequestId, RoomInfo, SeekId, SeekInfo, ServerMessage};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::outbound::{ConnId, Outbound, frame};

/// One change to the listings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Change {
    /// A listed game started or changed.
    Game { game: GameInfo },
    /// A listed game ended (or its node is gone).
    GameRemoved { game: GameId },
    /// A public room opened.
    Room { room: RoomInfo },
    /// A public room was joined or closed; `code` is the displayed code.
    RoomRemoved { code: String },
    /// A quick-match seek started waiting.
    Seek { seek: SeekInfo },
    /// A seek stopped waiting.
    SeekRemoved { seek: SeekId },
}

impl Change {
    /// What subscribers are told of it.
    fn message(&self) -> ServerMessage {
        match self.clone() {
            Change::Game { game } => ServerMessage::LobbyGame { game },
            Change::GameRemoved { game } => ServerMessage::LobbyGameRemoved { game },
            Change::Room { room } => ServerMessage::LobbyRoom { room },
            Change::RoomRemoved { code } => ServerMessage::LobbyRoomRemoved { code },
            Change::Seek { seek } => ServerMessage::LobbySeek { seek },
            Change::SeekRemoved { seek } => ServerMessage::LobbySeekRemoved { seek },
        }
    }
}

/// The lobby's listings and subscribers.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    /// Where this node's own changes go to reach the other nodes; unset on a lone server.
    relay: OnceLock<mpsc::UnboundedSender<Change>>,
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
    /// Makes `change`; tells the subscribers and returns true if it changed anything.
    fn apply(&mut self, change: &Change) -> bool {
        let changed = match change {
            Change::Game { game } => {
                self.games.insert(game.game, game.clone()).as_ref() != Some(game)
            }
            Change::GameRemoved { game } => self.games.remove(game).is_some(),
            Change::Room { room } => {
                self.rooms.insert(room.code.clone(), room.clone()).as_ref() != Some(room)
            }
            Change::RoomRemoved { code } => self.rooms.remove(code).is_some(),
            Change::Seek { seek } => {
                self.seeks.insert(seek.seek, seek.clone()).as_ref() != Some(seek)
            }
            Change::SeekRemoved { seek } => self.seeks.remove(seek).is_some(),
        };
        // Serialised only when someone follows the lobby: a listed game changes with every move.
        if changed && !self.subscribers.is_empty() {
            let frame = frame(None, change.message());
            self.subscribers.retain(|_, out| out.send(frame.clone()));
        }
        changed
    }
}

impl Lobby {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// From now on, this node's changes are also sent to `relay`.
    pub(crate) fn relay_to(&self, relay: mpsc::UnboundedSender<Change>) {
        let _ = self.relay.set(relay);
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

    /// A change made on this node: applied, and relayed to the cluster if it changed anything.
    fn local(&self, change: Change) {
        let mut inner = self.inner();
        if inner.apply(&change)
            && let Some(relay) = self.relay.get()
        {
            // Sent under the lock, so the relay sees this node's changes in their order.
            let _ = relay.send(change);
        }
    }

    /// A change another node made.
    pub(crate) fn apply_remote(&self, change: &Change) {
        self.inner().apply(change);
    }

    /// A listed game started or changed.
    pub(crate) fn update_game(&self, game: GameInfo) {
        self.local(Change::Game { game });
    }

    /// A listed game ended.
    pub(crate) fn remove_game(&self, game: GameId) {
        self.local(Change::GameRemoved { game });
    }

    /// A public room opened.
    pub(crate) fn add_room(&self, room: RoomInfo) {
        self.local(Change::Room { room });
    }

    /// A public room was joined or closed; `code` is the displayed code.
    pub(crate) fn remove_room(&self, code: &str) {
        self.local(Change::RoomRemoved {
            code: code.to_owned(),
        });
    }

    /// A quick-match seek started waiting.
    pub(crate) fn add_seek(&self, seek: SeekInfo) {
        self.local(Change::Seek { seek });
    }

    /// A seek stopped waiting.
    pub(crate) fn remove_seek(&self, seek: SeekId) {
        self.local(Change::SeekRemoved { seek });
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
