//! A player's identity across connections: the games it sits in, what it watches and subscribes
//! to, and the connections it is on right now (none, one, or several: a player may be connected
//! from several places at once, each connection getting the updates of the player's games).

pub(crate) mod token_bucket;

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use noughts_protocol::{ClockSpec, GameId, PlayerId, SeekId, Speed, Variant};
use tokio::time::Instant;

use crate::lobby::invite_code;
use crate::net::network::Slot;
use crate::net::outbound::{ConnId, Outbound};
use crate::rules::rating::{Glicko, Ratings};

/// What a quick-match seek asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeekTerms {
    pub variant: Variant,
    pub clock: Option<ClockSpec>,
    pub rated: bool,
    /// Whether the seeker accepts a bot account as its opponent.
    pub bots: bool,
    /// Whether the seeker is a bot account.
    pub bot: bool,
}

/// The seeks that may be paired with each other: the same variant and rating, and clocks of
/// the same speed (or both untimed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Pool {
    variant: Variant,
    speed: Option<Speed>,
    rated: bool,
}

impl SeekTerms {
    /// The pool of seeks these terms may be paired in.
    pub(crate) fn pool(self) -> Pool {
        Pool {
            variant: self.variant,
            speed: self.clock.map(|clock| clock.speed()),
            rated: self.rated,
        }
    }

    /// Whether a seek on these terms may be paired with one on `other`: in the same pool, and
    /// two people, two bots, or a bot and a person whose seek accepts bots.
    pub(crate) fn pairable(self, other: SeekTerms) -> bool {
        self.pool() == other.pool() && self.meets(other)
    }

    /// Whether the seekers may meet at all: a bot meets a person only when the person chose to
    /// play bots.
    pub(crate) fn meets(self, other: SeekTerms) -> bool {
        match (self.bot, other.bot) {
            (true, false) => other.bots,
            (false, true) => self.bots,
            _ => true,
        }
    }
}

/// An open seek: its id (as the lobby lists it) and what it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OpenSeek {
    pub id: SeekId,
    pub key: SeekTerms,
}

/// One player, from its first `hello` until it has been gone longer than the grace period.
pub(crate) struct Session {
    /// The public id others see; stays the same when the session resumes.
    pub player: PlayerId,
    /// Everything that changes; the lock is held only for quick bookkeeping, never across awaits.
    state: Mutex<State>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("player", &self.player)
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// Connections one session may have open at once; one more `hello` with its token is refused.
pub(crate) const MAX_CONNECTIONS: usize = 8;

/// A fresh session token: 128 random bits as 32 hex digits. It is given to the player once and
/// kept nowhere; the store keeps its hash.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 16];
    invite_code::fill_random(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Default)]
struct State {
    /// The display name: given at the first `hello`, changed by `rename`; an account's is its
    /// username.
    name: String,
    /// Whether the player has an account (else it is a guest, and shown as one).
    account: bool,
    /// Whether the account is a bot account: shown as one, and paired by quick match only with
    /// those who choose to play bots.
    bot: bool,
    /// The connections speaking for this player now, oldest first.
    conns: Vec<Outbound>,
    /// Places held for connections whose `hello` is still being answered: they count against
    /// [`MAX_CONNECTIONS`], and keep the session from expiring, until they attach or give up.
    reserved: usize,
    /// Games this player sits in (live, or finished but still open for a rematch).
    games: BTreeSet<GameId>,
    /// Games this player watches; restored when a connection comes back after all had gone.
    watching: BTreeSet<GameId>,
    /// Whether the player wants lobby updates; restored likewise.
    lobby: bool,
    /// The open quick-match seek, with its place in its network's count of seeks (given back
    /// when the seek ends, however it ends).
    seek: Option<(OpenSeek, Option<Slot>)>,
    /// Canonical codes of the rooms this player opened and nobody has joined yet.
    rooms: BTreeSet<String>,
    /// When the last connection went away, while none has come since.
    away_since: Option<Instant>,
    /// Live games this player started with `play_ai` or `start_war`.
    started: usize,
    /// The player's ratings, as of its last rated game.
    ratings: Ratings,
}

/// What a new connection of a session must be sent.
#[derive(Debug)]
pub(crate) struct Attached {
    /// Games to send a snapshot of.
    pub games: Vec<GameId>,
    /// Games to watch again: only when the session had no connection left.
    pub watching: Vec<GameId>,
    /// Whether to subscribe to the lobby again: likewise.
    pub lobby: bool,
}

/// What must be told when one of a session's connections goes away.
#[derive(Debug)]
pub(crate) struct Detached {
    /// Games whose seats lose this connection (their players and watchers hear that the player
    /// left when it was the last).
    pub games: Vec<GameId>,
    /// Games this connection may have watched.
    pub watching: Vec<GameId>,
    /// The seek to take out of the queue: the last connection's going withdraws it.
    pub seek: Option<OpenSeek>,
    /// Whether it was the session's last connection.
    pub last: bool,
}

impl Session {
    pub(crate) fn new(player: PlayerId, name: String, ratings: Ratings) -> Session {
        Session {
            player,
            state: Mutex::new(State {
                name,
                ratings,
                ..State::default()
            }),
        }
    }

    /// The name others see now: what new games, seeks, rooms and the lobby show.
    pub(crate) fn name(&self) -> String {
        self.state().name.clone()
    }

    /// The player's new name (`rename`), for what starts from now on.
    pub(crate) fn set_name(&self, name: String) {
        self.state().name = name;
    }

    /// Whether the player has an account: false for a guest.
    pub(crate) fn is_account(&self) -> bool {
        self.state().account
    }

    /// The player became an account (`register`), or is one (a stored player signing in):
    /// its name is the username from now on.
    pub(crate) fn set_account(&self, username: String) {
        let mut state = self.state();
        state.name = username;
        state.account = true;
    }

    /// Whether the player is a bot account.
    pub(crate) fn is_bot(&self) -> bool {
        self.state().bot
    }

    /// The account became a bot account (`become_bot`), or is one (a stored bot signing in).
    pub(crate) fn set_bot(&self) {
        self.state().bot = true;
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
        if state.conns.is_empty() {
            state.away_since = Some(Instant::now());
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding this lock, but a poisoned one still holds valid data.
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The connections speaking for this player now.
    pub(crate) fn outbounds(&self) -> Vec<Outbound> {
        self.state().conns.clone()
    }

    /// Adds `out` to this session's connections; `None` if it has [`MAX_CONNECTIONS`] already
    /// (places held for connections still saying hello included).
    pub(crate) fn attach(&self, out: Outbound) -> Option<Attached> {
        let mut state = self.state();
        if state.conns.len() + state.reserved >= MAX_CONNECTIONS {
            return None;
        }
        Some(Self::add(&mut state, out))
    }

    /// Holds a place for a connection whose `hello` is being answered; false if the session has
    /// [`MAX_CONNECTIONS`] already. The place is taken with [`Session::attach_reserved`] or given
    /// back with [`Session::release`].
    pub(crate) fn reserve(&self) -> bool {
        let mut state = self.state();
        if state.conns.len() + state.reserved >= MAX_CONNECTIONS {
            return false;
        }
        state.reserved += 1;
        true
    }

    /// Adds `out` in the place [`Session::reserve`] held for it.
    pub(crate) fn attach_reserved(&self, out: Outbound) -> Attached {
        let mut state = self.state();
        state.reserved = state.reserved.saturating_sub(1);
        Self::add(&mut state, out)
    }

    /// Gives back a place [`Session::reserve`] held. Returns true when that leaves the session
    /// without a connection or a place held (it then counts as away, if it did not already).
    pub(crate) fn release(&self) -> bool {
        let mut state = self.state();
        state.reserved = state.reserved.saturating_sub(1);
        let idle = state.conns.is_empty() && state.reserved == 0;
        if idle && state.away_since.is_none() {
            state.away_since = Some(Instant::now());
        }
        idle
    }

    /// Whether a connection speaks for this player, or a place is held for one.
    pub(crate) fn is_held(&self) -> bool {
        let state = self.state();
        !state.conns.is_empty() || state.reserved > 0
    }

    fn add(state: &mut State, out: Outbound) -> Attached {
        let first = state.conns.is_empty();
        state.conns.push(out);
        state.away_since = None;
        Attached {
            games: state.games.iter().copied().collect(),
            watching: if first {
                state.watching.iter().copied().collect()
            } else {
                Vec::new()
            },
            lobby: first && state.lobby,
        }
    }

    /// Forgets connection `conn`. When it was the last, the seek is withdrawn and the session
    /// counts as away; games, watching and the lobby flag stay for a resume.
    pub(crate) fn detach(&self, conn: ConnId) -> Option<Detached> {
        let mut state = self.state();
        let at = state.conns.iter().position(|out| out.conn == conn)?;
        state.conns.remove(at);
        let last = state.conns.is_empty();
        if last {
            state.away_since = Some(Instant::now());
        }
        Some(Detached {
            games: state.games.iter().copied().collect(),
            watching: state.watching.iter().copied().collect(),
            seek: if last {
                state.seek.take().map(|(open, _)| open)
            } else {
                None
            },
            last,
        })
    }

    /// Whether any connection speaks for this player now.
    pub(crate) fn is_connected(&self) -> bool {
        !self.state().conns.is_empty()
    }

    /// Whether the player has been without a connection for at least `grace`.
    pub(crate) fn away_for(&self, grace: std::time::Duration, now: Instant) -> bool {
        self.state()
            .away_since
            .is_some_and(|since| now.saturating_duration_since(since) >= grace)
    }

    /// Records a seat in `game`; returns the connections to send its updates to.
    pub(crate) fn join_game(&self, game: GameId) -> Vec<Outbound> {
        let mut state = self.state();
        state.games.insert(game);
        state.conns.clone()
    }

    /// Whether this player sits in a live game.
    pub(crate) fn seated(&self) -> bool {
        !self.state().games.is_empty()
    }

    /// The games this player sits in.
    pub(crate) fn games(&self) -> Vec<GameId> {
        self.state().games.iter().copied().collect()
    }

    /// Withdraws the open seek, if any, whatever it is.
    pub(crate) fn take_seek(&self) -> Option<OpenSeek> {
        self.state().seek.take().map(|(open, _)| open)
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
    pub(crate) fn seek(&self) -> Option<OpenSeek> {
        self.state().seek.as_ref().map(|(open, _)| *open)
    }

    /// Opens a seek unless one is open already; false if one was. `slot`, the seek's place in its
    /// network's count, is held until the seek ends.
    pub(crate) fn start_seek(&self, open: OpenSeek, slot: Option<Slot>) -> bool {
        let mut state = self.state();
        if state.seek.is_some() {
            return false;
        }
        state.seek = Some((open, slot));
        true
    }

    /// Ends the seek if it is still `seek` (it may have been paired or withdrawn meanwhile);
    /// whoever ends it owns what follows (the pairing, or taking it out of the lobby).
    pub(crate) fn end_seek(&self, seek: SeekId) -> bool {
        let mut state = self.state();
        if state.seek.as_ref().is_some_and(|(open, _)| open.id == seek) {
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
