//! Rooms by invite code: opened, joined (taken), closed, and what the lobby lists of them.

use std::sync::Arc;

use dashmap::mapref::entry::Entry;
use noughts_protocol::{ClockSpec, PlayerId, RoomInfo, Variant};

use crate::lobby::invite_code;
use crate::net::network::Slot;
use crate::session::Session;
use dashmap::DashMap;

/// A room waiting for its second player.
#[derive(Debug, Clone)]
pub(crate) struct Room {
    /// The canonical invite code (no dashes).
    pub code: String,
    /// Who opened it; they take a seat when someone joins.
    pub host: Arc<Session>,
    /// The game the room plays.
    pub variant: Variant,
    /// The room's time control, if any.
    pub clock: Option<ClockSpec>,
    /// Private rooms are never listed; only the code leads to them.
    pub private: bool,
    /// Whether the room's game counts for ratings.
    pub rated: bool,
    /// The room's place in its network's count of open rooms, given back when the last copy of
    /// the room is dropped (it was joined, closed, or expired with its host).
    #[expect(dead_code, reason = "held for what its drop does")]
    pub slot: Option<Arc<Slot>>,
}

impl Room {
    /// The room as the lobby lists it.
    pub(crate) fn info(&self) -> RoomInfo {
        RoomInfo {
            code: invite_code::display(&self.code),
            variant: self.variant,
            clock: self.clock,
            host: self.host.name(),
            player: Some(self.host.player),
            rated: self.rated,
            guest: !self.host.is_account(),
            bot: self.host.is_bot(),
        }
    }
}

/// Why a room could not be joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinRoomError {
    NoSuchRoom,
    OwnRoom,
    /// The host and the joiner: one of them blocks the other.
    Blocked,
}

/// Open rooms by canonical invite code.
#[derive(Debug, Default)]
pub(crate) struct Rooms {
    by_code: DashMap<String, Room>,
}

impl Rooms {
    /// Opens a room under a fresh code; returns the canonical code. `slot` is the room's place in
    /// its network's count, held for as long as the room is open.
    pub(crate) fn open(
        &self,
        host: Arc<Session>,
        variant: Variant,
        clock: Option<ClockSpec>,
        private: bool,
        rated: bool,
        slot: Option<Slot>,
    ) -> Room {
        let slot = slot.map(Arc::new);
        loop {
            let code = invite_code::generate();
            if let Entry::Vacant(entry) = self.by_code.entry(code.clone()) {
                let room = Room {
                    code,
                    host,
                    variant,
                    clock,
                    private,
                    rated,
                    slot: slot.clone(),
                };
                entry.insert(room.clone());
                return room;
            }
        }
    }

    /// Takes the room with `code` for `joiner`; it is gone from the index afterwards. A room
    /// whose host `blocked` says is blocked stays.
    pub(crate) fn take(
        &self,
        code: &str,
        joiner: PlayerId,
        blocked: &dyn Fn(PlayerId) -> bool,
    ) -> Result<Room, JoinRoomError> {
        match self.by_code.entry(code.to_owned()) {
            Entry::Vacant(_) => Err(JoinRoomError::NoSuchRoom),
            Entry::Occupied(room) if room.get().host.player == joiner => {
                Err(JoinRoomError::OwnRoom)
            }
            Entry::Occupied(room) if blocked(room.get().host.player) => Err(JoinRoomError::Blocked),
            Entry::Occupied(room) => Ok(room.remove()),
        }
    }

    /// Whether the room with canonical code `code` is rated; `None` if it is not open here.
    pub(crate) fn rated(&self, code: &str) -> Option<bool> {
        self.by_code.get(code).map(|room| room.rated)
    }

    /// Closes `host`'s room with `code`; `None` if there is no such room of theirs.
    pub(crate) fn close(&self, code: &str, host: PlayerId) -> Option<Room> {
        self.by_code
            .remove_if(code, |_, room| room.host.player == host)
            .map(|(_, room)| room)
    }
}
