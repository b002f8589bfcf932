//! Every shared index of the server: sessions by token, games by id, rooms by invite code and the
//! quick-match queues, and the per-address counts of connections, rooms and seeks. Only this module
//! touches the maps.

pub(crate) mod arenas;
mod counts;
pub(crate) mod games;
pub(crate) mod ids;
mod rooms;
mod seeks;

use std::sync::Arc;

use dashmap::DashMap;
use noughts_protocol::PlayerId;

use crate::registry::ids::Ids;
use crate::rules::rating::Ratings;
use crate::session::{Session, new_token};
use crate::store::StoredPlayer;
pub(crate) use counts::PerNetwork;
pub(crate) use games::Games;
pub(crate) use rooms::{JoinRoomError, Rooms};
pub(crate) use seeks::{AcceptSeekError, Seeks, Waiting};

/// The server's indexes, each its own type.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    /// Sessions by player, for `hello` with one of the player's tokens.
    sessions: DashMap<PlayerId, Arc<Session>>,
    /// Player ids.
    player_ids: Ids,
    /// Games by id, and the count of those being played.
    pub games: Games,
    /// The arenas this node directs.
    pub arenas: arenas::Arenas,
    /// Open rooms by invite code.
    pub rooms: Rooms,
    /// Quick-match seeks waiting.
    pub seeks: Seeks,
    /// Connections, rooms and seeks counted per network.
    pub per_network: PerNetwork,
}

impl Registry {
    /// Continues the player and game ids after those the store has given out, so none is reused.
    pub(crate) fn continue_ids(&self, last_player: u64, last_game: u64) {
        self.player_ids.continue_after(last_player);
        self.games.ids.continue_after(last_game);
    }

    /// The ids of `kind`: `player`, `game` or `seek`.
    pub(crate) fn ids(&self, kind: &str) -> &Ids {
        match kind {
            "player" => &self.player_ids,
            "game" => &self.games.ids,
            _ => &self.seeks.ids,
        }
    }

    /// A new player's session with a fresh token, returned beside it; `None` if no player id
    /// can be had (see [`Ids::next`]).
    pub(crate) fn new_session(&self, name: &str) -> Option<(Arc<Session>, String)> {
        let player = PlayerId(self.player_ids.next()?);
        let session = Arc::new(Session::new(player, name.to_owned(), Ratings::default()));
        self.sessions.insert(player, session.clone());
        Some((session, new_token()))
    }

    /// The session of a stored player, made if it has none: for a player coming back with a
    /// token, and for the players of games restored at start.
    pub(crate) fn stored_session(&self, stored: &StoredPlayer) -> Arc<Session> {
        self.sessions
            .entry(stored.player)
            .or_insert_with(|| {
                let session = Session::new(stored.player, stored.name.clone(), stored.ratings);
                if stored.account {
                    session.set_account(stored.name.clone());
                }
                if stored.bot {
                    session.set_bot();
                }
                Arc::new(session)
            })
            .clone()
    }

    /// The live session of `player`, if it has one.
    pub(crate) fn session(&self, player: PlayerId) -> Option<Arc<Session>> {
        self.sessions.get(&player).map(|s| s.clone())
    }

    /// Forgets a session that never started (its player could not be stored), or one whose
    /// player logged out.
    pub(crate) fn forget_session(&self, session: &Session) {
        self.sessions.remove(&session.player);
    }

    /// Forgets a session whose player stayed away past the grace period, unless it has
    /// reconnected meanwhile (or a connection saying hello holds a place in it). Returns whether
    /// it was removed.
    pub(crate) fn expire_session(&self, session: &Session) -> bool {
        self.sessions
            .remove_if(&session.player, |_, s| !s.is_held())
            .is_some()
    }
}

#[cfg(test)]
mod tests;
