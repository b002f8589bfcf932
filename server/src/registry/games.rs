//! The games by id: live and recently finished games' handles, the private ones and who may
//! watch them, and the count of live games against the node's cap.

use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;

use noughts_protocol::{GameId, PlayerId};
use subtle::ConstantTimeEq;

use super::ids::Ids;
use crate::lobby::invite_code;
use crate::registry::game_handle::LocalGame;
use crate::store::GameStart;

/// A game from a private room: only its players, and those who give the room's code, may watch.
#[derive(Debug, Clone)]
struct Hidden {
    /// The people who play in it.
    players: Vec<PlayerId>,
    /// The canonical invite code of the room it came from (a rematch keeps it); unknown for a
    /// game restored after a restart, which then only its players may watch.
    code: Option<String>,
}

/// The games by id, and the count of those being played.
#[derive(Debug, Default)]
pub(crate) struct Games {
    /// Live and recently finished games, by id, for every request that names a game.
    by_id: DashMap<GameId, LocalGame>,
    /// Games from private rooms, by id: the players and code that may watch them.
    hidden: DashMap<GameId, Hidden>,
    /// Game ids; never reused.
    pub(super) ids: Ids,
    /// Games started and not yet ended, for [`crate::config::Config::max_games`].
    live: AtomicUsize,
}

impl Games {
    /// A fresh game id, if one can be had (see [`Ids::next`]).
    pub(crate) fn next_id(&self) -> Option<GameId> {
        self.ids.next().map(GameId)
    }

    pub(crate) fn add(&self, id: GameId, handle: LocalGame) {
        self.by_id.insert(id, handle);
    }

    pub(crate) fn get(&self, id: GameId) -> Option<LocalGame> {
        self.by_id.get(&id).map(|g| g.clone())
    }

    pub(crate) fn remove(&self, id: GameId) {
        self.by_id.remove(&id);
        self.hidden.remove(&id);
    }

    /// Marks a game that is not listed (one from a private room) as watchable only by its
    /// players and, once known, by whoever has the room's code; a rematch keeps the code of the
    /// game it follows. Called before the game is added, so it is never watchable unchecked.
    pub(crate) fn hide_unlisted(&self, start: &GameStart) {
        if start.listed {
            return;
        }
        let players = start
            .seats
            .iter()
            .filter_map(|seat| seat.human().copied())
            .collect();
        let code = start
            .rematch_of
            .and_then(|of| self.hidden.get(&of).and_then(|h| h.code.clone()));
        self.hidden.insert(start.game, Hidden { players, code });
    }

    /// Records the invite code of a hidden game's room.
    pub(crate) fn set_code(&self, id: GameId, code: &str) {
        if let Some(mut hidden) = self.hidden.get_mut(&id) {
            hidden.code = Some(code.to_owned());
        }
    }

    /// Whether `player` may watch game `id`, giving `code` (as typed): any listed game, and a
    /// game from a private room if they play in it or give its code. Codes compare in constant
    /// time.
    pub(crate) fn may_watch(&self, id: GameId, player: PlayerId, code: Option<&str>) -> bool {
        let Some(hidden) = self.hidden.get(&id) else {
            return true;
        };
        if hidden.players.contains(&player) {
            return true;
        }
        match (code.and_then(invite_code::parse), &hidden.code) {
            (Some(given), Some(code)) => given.as_bytes().ct_eq(code.as_bytes()).into(),
            _ => false,
        }
    }

    /// Counts a game that starts, unless `limit` are being played already.
    pub(crate) fn start_live(&self, limit: usize) -> bool {
        self.live
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
                (live < limit).then_some(live + 1)
            })
            .is_ok()
    }

    /// Games being played now.
    pub(crate) fn live_count(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }

    /// A game that was being played has ended.
    pub(crate) fn end_live(&self) {
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}
