//! A player's identity across connections: the token, the games it sits in, what it watches and
//! subscribes to, and the connection it is on right now (if any).

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use noughts_protocol::{ClockSpec, GameId, PlayerId, Variant};
use tokio::time::Instant;

use crate::network::Slot;
use crate::outbound::{ConnId, Outbound};
use crate::rating::{Glicko, Ratings};
use crate::store::TokenHash;

/// What a quick-match seek asks for (variant, clock, rated); two seeks match when these are equal.
pub(crate) type SeekKey = (Variant, Option<ClockSpec>, bool);

/// One player, from its first `hello` until it has been gone longer than the grace period.
pub(crate) struct Session {
    /// The public id others see; stays the same when the session resumes.
    pub player: PlayerId,
    /// The display name given at the first `hello`.
    pub name: String,
    /// The hash of the secret token that resumes this session; the token itself is kept nowhere
    /// on the server.
    pub key: TokenHash,
    /// Everything that changes; the lock is held only for quick bookkeeping, never across awaits.
    state: Mutex<State>,
}

/// Leaves the token's hash out, so that no log line can ever carry it.
impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("player", &self.player)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct State {
    /// The connection currently speaking for this player.
    conn: Option<Outbound>,
    /// Games this player sits in (live, or finished but still open for a rematch).
    games: BTreeSet<GameId>,
    /// Games this player watches; restored on resume.
    watching: BTreeSet<GameId>,
    /// Whether the player wants lobby updates; restored on resume.
    lobby: bool,
    /// The open quick-match seek, with its place in its network's count of seeks (given back
    /// when the seek ends, however it ends).
    seek: Option<(SeekKey, Option<Slot>)>,
    /// Canonical codes of the rooms this player opened and nobody has joined yet.
    rooms: BTreeSet<String>,
    /// When the last connection went away, while none has replaced it.
    away_since: Option<Instant>,
    /// Live games this player started with `play_ai` or `start_war`.
    started: usize,
    /// The player's ratings, as of its last rated game.
    ratings: Ratings,
}

/// What a connection must restore when it takes over a session.
#[derive(Debug)]
pub(crate) struct Attached {
    /// The connection it replaced, to be closed.
    pub previous: Option<Outbound>,
    /// Games to send a snapshot of.
    pub games: Vec<GameId>,
    /// Games to watch again.
    pub watching: Vec<GameId>,
    /// Whether to subscribe to the lobby again.
    pub lobby: bool,
}

/// What must be told when a session's connection goes away.
#[derive(Debug)]
pub(crate) struct Detached {
    /// Games whose players and watchers hear that this player left.
    pub games: Vec<GameId>,
    /// Games that lose a watcher.
    pub watching: Vec<GameId>,
    /// The seek to take out of the queue.
    pub seek: Option<SeekKey>,
}

impl Session {
    pub(crate) fn new(player: PlayerId, name: String, key: TokenHash, ratings: Ratings) -> Session {
        Session {
            player,
            name,
            key,
            state: Mutex::new(State {
                ratings,
                ..State::default()
            }),
        }
    }

    /// The player's ratings in every variant.
    pub(crate) fn ratings(&self) -> Ratings {
        self.state().ratings
    }

    /// The player's rating in `variant` after a rated game.
    pub(crate) fn rated_game(&self, variant: Variant, rating: Glicko) {
        self.state().ratings.record_game(variant, rating);
    }

    /// Counts the player as away from now (a session restored at start, before anyone connects).
    pub(crate) fn mark_away(&self) {
        let mut state = self.state();
        if state.conn.is_none() {
            state.away_since = Some(Instant::now());
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding this lock, but a poisoned one still holds valid data.
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The connection currently speaking for this player, if it is connected.
    pub(crate) fn outbound(&self) -> Option<Outbound> {
        self.state().conn.clone()
    }

    /// Makes `out` this session's connection.
    pub(crate) fn attach(&self, out: Outbound) -> Attached {
        let mut state = self.state();
        let previous = state.conn.replace(out);
        state.away_since = None;
        Attached {
            previous,
            games: state.games.iter().copied().collect(),
            watching: state.watching.iter().copied().collect(),
            lobby: state.lobby,
        }
    }

    /// Forgets connection `conn`, unless another one has already taken over. The seek is
    /// withdrawn; games, watching and the lobby flag stay for a resume.
    pub(crate) fn detach(&self, conn: ConnId) -> Option<Detached> {
        let mut state = self.state();
        if state.conn.as_ref().map(|out| out.conn) != Some(conn) {
            return None;
        }
        state.conn = None;
        state.away_since = Some(Instant::now());
        Some(Detached {
            games: state.games.iter().copied().collect(),
            watching: state.watching.iter().copied().collect(),
            seek: state.seek.take().map(|(key, _)| key),
        })
    }

    /// Whether a connection speaks for this player now.
    pub(crate) fn is_connected(&self) -> bool {
        self.state().conn.is_some()
    }

    /// Whether the player has been without a connection for at least `grace`.
    pub(crate) fn away_for(&self, grace: std::time::Duration, now: Instant) -> bool {
        self.state()
            .away_since
            .is_some_and(|since| now.saturating_duration_since(since) >= grace)
    }

    /// Records a seat in `game`; returns the connection to send its updates to.
    pub(crate) fn join_game(&self, game: GameId) -> Option<Outbound> {
        let mut state = self.state();
        state.games.insert(game);
        state.conn.clone()
    }

    /// Forgets the seat in `game` (the game has closed).
    pub(crate) fn leave_game(&self, game: GameId) {
        self.state().games.remove(&game);
    }

    pub(crate) fn set_watching(&self, game: GameId, watching: bool) {
        let mut state = self.state();
        if watching {
            state.watching.insert(game);
        } else {
            state.watching.remove(&game);
        }
    }

    pub(crate) fn set_lobby(&self, subscribed: bool) {
        self.state().lobby = subscribed;
    }

    /// The open seek, if any.
    pub(crate) fn seek(&self) -> Option<SeekKey> {
        self.state().seek.as_ref().map(|(key, _)| *key)
    }

    /// Opens a seek unless one is open already; false if one was. `slot`, the seek's place in its
    /// network's count, is held until the seek ends.
    pub(crate) fn start_seek(&self, key: SeekKey, slot: Option<Slot>) -> bool {
        let mut state = self.state();
        if state.seek.is_some() {
            return false;
        }
        state.seek = Some((key, slot));
        true
    }

    /// Withdraws the seek if it is still `key` (it may have been matched meanwhile).
    pub(crate) fn end_seek(&self, key: SeekKey) -> bool {
        let mut state = self.state();
        if state.seek.as_ref().is_some_and(|(open, _)| *open == key) {
            state.seek = None;
            true
        } else {
            false
        }
    }

    pub(crate) fn add_room(&self, code: &str) {
        self.state().rooms.insert(code.to_owned());
    }

    /// Counts a game this player starts, unless it already has `limit` of them live.
    pub(crate) fn start_game(&self, limit: usize) -> bool {
        let mut state = self.state();
        if state.started >= limit {
            return false;
        }
        state.started += 1;
        true
    }

    /// One of the games this player started has ended.
    pub(crate) fn game_ended(&self) {
        let mut state = self.state();
        state.started = state.started.saturating_sub(1);
    }

    /// How many rooms this player has open.
    pub(crate) fn room_count(&self) -> usize {
        self.state().rooms.len()
    }

    pub(crate) fn remove_room(&self, code: &str) {
        self.state().rooms.remove(code);
    }

    /// Every room this player still has open, forgetting them.
    pub(crate) fn take_rooms(&self) -> Vec<String> {
        std::mem::take(&mut self.state().rooms)
            .into_iter()
            .collect()
    }
}
