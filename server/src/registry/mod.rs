//! Every shared index of the server: sessions by token, games by id, rooms by invite code and the
//! quick-match queues, and the per-address counts of connections, rooms and seeks. Only this module
//! touches the maps.

pub(crate) mod game_handle;
pub(crate) mod ids;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use noughts_protocol::{ClockSpec, GameId, PlayerId, RoomInfo, SeekId, Variant};
use subtle::ConstantTimeEq;

use crate::lobby::invite_code;
use crate::net::network::{Network, Slot};
use crate::registry::game_handle::GameHandle;
use crate::registry::ids::Ids;
use crate::rules::rating::Ratings;
use crate::session::{Bucket, OpenSeek, SeekKey, Session, bucket, new_token};
use crate::store::{GameStart, StoredPlayer};

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
        }
    }
}

/// A game from a private room: only its players, and those who give the room's code, may watch.
#[derive(Debug, Clone)]
struct Hidden {
    /// The people who play in it.
    players: Vec<PlayerId>,
    /// The canonical invite code of the room it came from (a rematch keeps it); unknown for a
    /// game restored after a restart, which then only its players may watch.
    code: Option<String>,
}

/// Why a room could not be joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinRoomError {
    NoSuchRoom,
    OwnRoom,
    /// The host and the joiner: one of them blocks the other.
    Blocked,
}

/// The server's indexes.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    /// Sessions by player, for `hello` with one of the player's tokens.
    sessions: DashMap<PlayerId, Arc<Session>>,
    /// Live and recently finished games, by id, for every request that names a game.
    games: DashMap<GameId, GameHandle>,
    /// Games from private rooms, by id: the players and code that may watch them.
    hidden: DashMap<GameId, Hidden>,
    /// Open rooms by canonical invite code.
    rooms: DashMap<String, Room>,
    /// Quick-match seeks waiting, oldest first, with their terms, per set of seeks that may be
    /// paired.
    seeks: DashMap<Bucket, VecDeque<(SeekId, Arc<Session>, SeekKey)>>,
    /// The kind of each waiting seek, for `accept_seek`.
    seek_keys: DashMap<SeekId, SeekKey>,
    /// Seek ids.
    seek_ids: Ids,
    /// Player ids.
    player_ids: Ids,
    /// Game ids; never reused.
    game_ids: Ids,
    /// Games started and not yet ended, for [`crate::Config::max_games`].
    live_games: AtomicUsize,
    /// Connections per network, for [`crate::Config::max_connections_per_ip`].
    connections_per_ip: Arc<Counts>,
    /// Open rooms per network, for [`crate::Config::max_rooms_per_ip`].
    rooms_per_ip: Arc<Counts>,
    /// Waiting seeks per network, for [`crate::Config::max_seeks_per_ip`].
    seeks_per_ip: Arc<Counts>,
}

impl Registry {
    /// Continues the player and game ids after those the store has given out, so none is reused.
    pub(crate) fn continue_ids(&self, last_player: u64, last_game: u64) {
        self.player_ids.continue_after(last_player);
        self.game_ids.continue_after(last_game);
    }

    /// The ids of `kind`: `player`, `game` or `seek`.
    pub(crate) fn ids(&self, kind: &str) -> &Ids {
        match kind {
            "player" => &self.player_ids,
            "game" => &self.game_ids,
            _ => &self.seek_ids,
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

    /// A fresh game id, if one can be had (see [`Ids::next`]).
    pub(crate) fn next_game_id(&self) -> Option<GameId> {
        self.game_ids.next().map(GameId)
    }

    pub(crate) fn add_game(&self, id: GameId, handle: GameHandle) {
        self.games.insert(id, handle);
    }

    pub(crate) fn game(&self, id: GameId) -> Option<GameHandle> {
        self.games.get(&id).map(|g| g.clone())
    }

    pub(crate) fn remove_game(&self, id: GameId) {
        self.games.remove(&id);
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
    pub(crate) fn set_game_code(&self, id: GameId, code: &str) {
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
    pub(crate) fn start_live_game(&self, limit: usize) -> bool {
        self.live_games
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
                (live < limit).then_some(live + 1)
            })
            .is_ok()
    }

    /// Games being played now.
    pub(crate) fn live_games_count(&self) -> usize {
        self.live_games.load(Ordering::Acquire)
    }

    /// A game that was being played has ended.
    pub(crate) fn end_live_game(&self) {
        self.live_games.fetch_sub(1, Ordering::AcqRel);
    }

    /// A place for one more connection from `network`, unless it holds `limit` already.
    pub(crate) fn admit_connection(&self, network: Network, limit: usize) -> Option<Slot> {
        self.connections_per_ip.take(network, limit)
    }

    /// A place for one more open room from `network`, unless it has `limit` open already.
    pub(crate) fn room_slot(&self, network: Network, limit: usize) -> Option<Slot> {
        self.rooms_per_ip.take(network, limit)
    }

    /// A place for one more waiting seek from `network`, unless it has `limit` waiting already.
    pub(crate) fn seek_slot(&self, network: Network, limit: usize) -> Option<Slot> {
        self.seeks_per_ip.take(network, limit)
    }

    /// Opens a room under a fresh code; returns the canonical code. `slot` is the room's place in
    /// its network's count, held for as long as the room is open.
    pub(crate) fn open_room(
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
            if let Entry::Vacant(entry) = self.rooms.entry(code.clone()) {
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
    pub(crate) fn take_room(
        &self,
        code: &str,
        joiner: PlayerId,
        blocked: &dyn Fn(PlayerId) -> bool,
    ) -> Result<Room, JoinRoomError> {
        match self.rooms.entry(code.to_owned()) {
            Entry::Vacant(_) => Err(JoinRoomError::NoSuchRoom),
            Entry::Occupied(room) if room.get().host.player == joiner => {
                Err(JoinRoomError::OwnRoom)
            }
            Entry::Occupied(room) if blocked(room.get().host.player) => Err(JoinRoomError::Blocked),
            Entry::Occupied(room) => Ok(room.remove()),
        }
    }

    /// Whether the room with canonical code `code` is rated; `None` if it is not open here.
    pub(crate) fn room_rated(&self, code: &str) -> Option<bool> {
        self.rooms.get(code).map(|room| room.rated)
    }

    /// The terms of seek `seek`; `None` if it does not wait here.
    pub(crate) fn seek_terms(&self, seek: SeekId) -> Option<SeekKey> {
        self.seek_keys.get(&seek).map(|key| *key)
    }

    /// The seeks waiting here that could be paired with `key` and are newer than `than`, each
    /// with its seeker.
    pub(crate) fn newer_seeks(&self, key: SeekKey, than: SeekId) -> Vec<(Arc<Session>, OpenSeek)> {
        self.seeks
            .get(&bucket(key))
            .map(|queue| {
                queue
                    .iter()
                    .filter(|(id, _, _)| *id > than)
                    .map(|(id, session, key)| (session.clone(), OpenSeek { id: *id, key: *key }))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Closes `host`'s room with `code`; `None` if there is no such room of theirs.
    pub(crate) fn close_room(&self, code: &str, host: PlayerId) -> Option<Room> {
        self.rooms
            .remove_if(code, |_, room| room.host.player == host)
            .map(|(_, room)| room)
    }

    /// A new seek's id, if one can be had (see [`Ids::next`]).
    pub(crate) fn next_seek_id(&self) -> Option<SeekId> {
        self.seek_ids.next().map(SeekId)
    }

    /// Pairs `seek` with the oldest waiting compatible seek (the same variant and rating, and a
    /// clock of the same speed, or both untimed); any two compatible seeks are paired as soon as
    /// both exist, so at most one waits per set of compatible terms. Returns that seek's id,
    /// seeker and terms (the game is played on the waiting seek's terms). If there is none, `seek` waits in the queue (and `waits` runs,
    /// under the queue's lock, so that whatever it lists comes before any pairing or withdrawal
    /// can take it off), unless `may_wait` is false.
    pub(crate) fn seek(
        &self,
        seeker: &Arc<Session>,
        seek: OpenSeek,
        may_wait: bool,
        (blocked, waits): (&dyn Fn(PlayerId) -> bool, impl FnOnce()),
    ) -> Option<(SeekId, Arc<Session>, SeekKey)> {
        let bucket = bucket(seek.key);
        let mut queue = self.seeks.entry(bucket).or_default();
        // Seeks of players the seeker blocks, or who block the seeker, are passed over and wait on.
        let mut at = 0;
        while at < queue.len() {
            let other = &queue[at].1;
            if other.player != seeker.player && blocked(other.player) {
                at += 1;
                continue;
            }
            let Some((id, other, key)) = queue.remove(at) else {
                break;
            };
            self.seek_keys.remove(&id);
            if other.player == seeker.player {
                continue;
            }
            // A seeker that withdrew or went away meanwhile no longer counts.
            if other.end_seek(id) {
                return Some((id, other, key));
            }
        }
        if may_wait {
            queue.push_back((seek.id, seeker.clone(), seek.key));
            self.seek_keys.insert(seek.id, seek.key);
            waits();
        } else {
            drop(queue);
            // Leave no empty queue behind for a kind of game nobody waits for.
            self.seeks.remove_if(&bucket, |_, queue| queue.is_empty());
        }
        None
    }

    /// Takes waiting seek `seek` for `taker`, who means to play its seeker: returns the seek's
    /// terms and its seeker, whose seek is over.
    pub(crate) fn accept_seek(
        &self,
        seek: SeekId,
        taker: PlayerId,
        blocked: &dyn Fn(PlayerId) -> bool,
    ) -> Result<(SeekKey, Arc<Session>), AcceptSeekError> {
        let key = self
            .seek_keys
            .get(&seek)
            .map(|key| *key)
            .ok_or(AcceptSeekError::NoSuchSeek)?;
        let Entry::Occupied(mut queue) = self.seeks.entry(bucket(key)) else {
            return Err(AcceptSeekError::NoSuchSeek);
        };
        let at = queue
            .get()
            .iter()
            .position(|(id, _, _)| *id == seek)
            .ok_or(AcceptSeekError::NoSuchSeek)?;
        if queue.get()[at].1.player == taker {
            return Err(AcceptSeekError::OwnSeek);
        }
        if blocked(queue.get()[at].1.player) {
            return Err(AcceptSeekError::Blocked);
        }
        let (_, seeker, _) = queue.get_mut().remove(at).expect("found just now");
        if queue.get().is_empty() {
            queue.remove();
        }
        self.seek_keys.remove(&seek);
        if seeker.end_seek(seek) {
            Ok((key, seeker))
        } else {
            Err(AcceptSeekError::NoSuchSeek)
        }
    }

    /// Takes `seek` out of its queue.
    pub(crate) fn cancel_seek(&self, seek: OpenSeek) {
        if let Entry::Occupied(mut queue) = self.seeks.entry(bucket(seek.key)) {
            queue.get_mut().retain(|(id, _, _)| *id != seek.id);
            if queue.get().is_empty() {
                queue.remove();
            }
        }
        self.seek_keys.remove(&seek.id);
    }
}

/// Why a seek could not be accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AcceptSeekError {
    NoSuchSeek,
    OwnSeek,
    /// The seeker and the taker: one of them blocks the other.
    Blocked,
}

/// How many of one thing each network holds. Entries go when their count reaches zero, so the map
/// holds only networks with something open.
#[derive(Debug, Default)]
struct Counts {
    held: DashMap<Network, usize>,
}

impl Counts {
    /// Takes one place for `network`, unless it already holds `limit`.
    fn take(self: &Arc<Self>, network: Network, limit: usize) -> Option<Slot> {
        match self.held.entry(network) {
            Entry::Occupied(mut held) => {
                if *held.get() >= limit {
                    return None;
                }
                *held.get_mut() += 1;
            }
            Entry::Vacant(slot) => {
                if limit == 0 {
                    return None;
                }
                slot.insert(1);
            }
        }
        let counts = self.clone();
        Some(Slot::new(move || counts.give_back(network)))
    }

    /// How many places `network` holds now.
    #[cfg(test)]
    fn held(&self, network: Network) -> usize {
        self.held.get(&network).map_or(0, |n| *n)
    }

    /// Networks holding anything.
    #[cfg(test)]
    fn networks(&self) -> usize {
        self.held.len()
    }

    fn give_back(&self, network: Network) {
        if let Entry::Occupied(mut held) = self.held.entry(network) {
            *held.get_mut() = held.get().saturating_sub(1);
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}

#[cfg(test)]
mod tests;
