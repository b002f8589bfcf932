//! The lobby: what people choose from (waiting seeks, public rooms, the war games and a few
//! featured games, the site's totals), and the connections that follow it.
//!
//! Every listed game is kept here, so that `list_games` can page through them all, but followers
//! are told only of the games the lobby shows, and only in gathered frames: seek and room changes
//! go out at once when the last frame that carried any is at least [`URGENT_SPACING`] old (else
//! when it is), with whatever else waits; the shown games and the totals at most once every
//! [`GAMES_EVERY`], riding with seeks and rooms when those are waiting, else on their own at
//! least [`SPACING`] after the last frame. A move in a game that is not shown costs a map insert
//! and nothing else, however many people follow the lobby.
//!
//! The lobby's cost is bounded too, whatever the number of followers: a frame is a send (a
//! system call) to each of them, so frames come no closer than the followers divided by the
//! node's budget of lobby sends a second ([`DEFAULT_SENDS_PER_SEC`], `--lobby-sends`). Up to a
//! few dozen followers (for seeks and rooms) or some 800 (for games) the spacings above rule;
//! beyond, the lobby refreshes more slowly as more people look at it, and its share of the node's
//! CPU stays the same. A frame is also sent at
//! that pace, a few dozen followers at a time, so that a frame to thousands does not hold up the
//! moves beside it (a follower may get it up to one spacing after the first).
//!
//! Followers are told what changed between two views: the view they were last sent (kept here,
//! and what a new follower's snapshot is made of) and the listings as they stand. One lock orders
//! everything, so a follower gets its snapshot and then exactly the changes after it. Every
//! listing changes through one [`Change`]; on a node of a cluster, the changes made here are also
//! handed to a relay (which publishes them to the other nodes), and the other nodes' changes come
//! in through [`Lobby::apply_remote`], so every node's lobby lists the whole cluster.

pub(crate) mod invite_code;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use noughts_protocol::{
    ArenaInfo, GameId, GameInfo, GameKind, LOBBY_FEATURED, LOBBY_ROOMS, LOBBY_SEEKS, LobbyUpdate,
    RequestId, RoomInfo, SeekId, SeekInfo, ServerMessage, Totals, Variant,
};
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::net::outbound::{ConnId, Frame, Outbound, fan_out, frame};

/// The least time between two frames that carry seek or room changes.
pub(crate) const URGENT_SPACING: Duration = Duration::from_millis(50);
/// The least time between a frame and one that carries only games and totals.
pub(crate) const SPACING: Duration = Duration::from_millis(500);
/// How often the shown games and the totals are worked out again and sent if they changed.
pub(crate) const GAMES_EVERY: Duration = Duration::from_secs(1);
/// How many lobby sends (one frame to one follower) a node makes a second at most, unless told
/// otherwise: some 10 µs of CPU each with its system call, so about 1% of a core.
pub const DEFAULT_SENDS_PER_SEC: u32 = 800;
/// How many followers a frame goes to at once; the next slice waits its share of the budget.
const PACED_SLICE: usize = 32;
/// How many times faster than the budget's average pace a frame goes out to its followers; the
/// next frame then waits out the rest of its spacing, so the average holds, and the last
/// follower hears of a seek a quarter of the spacing after the first rather than a whole one.
const DELIVERY_PACE: u32 = 4;
/// How long another node's totals count after it last sent them.
const TOTALS_FRESH: Duration = Duration::from_secs(5);

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
    /// Whether followers should hear of it at once (seeks and rooms change at people's pace; games
    /// change with every move and are gathered).
    pub(crate) fn is_urgent(&self) -> bool {
        !matches!(self, Change::Game { .. } | Change::GameRemoved { .. })
    }
}

/// The lobby's listings and followers.
#[derive(Debug)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    /// The most lobby sends a second (see the module's words on cost).
    sends_per_sec: u32,
    /// Where this node's own changes go to reach the other nodes; unset on a lone server.
    relay: OnceLock<mpsc::UnboundedSender<Change>>,
    /// Wakes the sender when a seek or room change waits to go out.
    urgent: Notify,
}

/// Public rooms in the order they opened, so the newest can be shown.
#[derive(Debug, Default, Clone)]
struct Rooms {
    by_code: HashMap<String, (u64, RoomInfo)>,
    order: BTreeMap<u64, String>,
    next: u64,
}

impl Rooms {
    fn get(&self, code: &str) -> Option<&RoomInfo> {
        self.by_code.get(code).map(|(_, room)| room)
    }

    /// Lists `room`; false if it was listed just so.
    fn insert(&mut self, room: RoomInfo) -> bool {
        if self.get(&room.code) == Some(&room) {
            return false;
        }
        self.remove(&room.code);
        self.next += 1;
        self.order.insert(self.next, room.code.clone());
        self.by_code.insert(room.code.clone(), (self.next, room));
        true
    }

    fn remove(&mut self, code: &str) -> bool {
        match self.by_code.remove(code) {
            Some((at, _)) => {
                self.order.remove(&at);
                true
            }
            None => false,
        }
    }

    /// The newest `count`, oldest first.
    fn newest(&self, count: usize) -> Vec<RoomInfo> {
        let mut newest: Vec<RoomInfo> = (self.order.values().rev())
            .take(count)
            .filter_map(|code| self.get(code).cloned())
            .collect();
        newest.reverse();
        newest
    }
}

/// What the followers were last sent (a new follower's snapshot takes its games and totals).
#[derive(Debug, Default)]
struct View {
    seeks: BTreeMap<SeekId, SeekInfo>,
    rooms: Rooms,
    /// The games shown: the war games, then the featured games.
    games: Vec<GameInfo>,
    totals: Totals,
    /// The arenas listed.
    arenas: Vec<ArenaInfo>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Every listed live game (private-room games are not listed).
    games: BTreeMap<GameId, GameInfo>,
    /// Those of `games` this node plays: other nodes' changes about them are not applied.
    own_games: HashSet<GameId>,
    /// Public rooms waiting for an opponent.
    rooms: Rooms,
    /// Quick-match seeks waiting, oldest first (ids only grow).
    seeks: BTreeMap<SeekId, SeekInfo>,
    /// Who gets the changes: connections, since a player may follow the lobby from several.
    subscribers: HashMap<ConnId, Outbound>,
    /// What the followers know.
    view: View,
    /// Seeks and rooms changed since the last frame.
    touched_seeks: BTreeSet<SeekId>,
    touched_rooms: BTreeSet<String>,
    /// Whether a listed game changed since the shown games were last worked out.
    games_changed: bool,
    /// Whether the shown games and totals are due to be worked out and sent.
    games_owed: bool,
    /// When the last frame went to the followers, and the last that carried seeks or rooms.
    last_frame: Option<Instant>,
    last_urgent: Option<Instant>,
    /// The other nodes' totals, with when each last came.
    remote_totals: HashMap<String, (Totals, Instant)>,
    /// The arenas to list, as their directors last said.
    arenas: Vec<ArenaInfo>,
}

/// How the featured games are chosen: most watchers, then the best-rated player, then the newest.
fn rank(game: &GameInfo) -> (u32, u32, GameId) {
    let rating = [&game.x, &game.o]
        .iter()
        .filter_map(|seat| seat.rating)
        .max()
        .unwrap_or(0);
    (game.watchers, rating, game.game)
}

impl Inner {
    /// Makes `change`; true if it changed anything.
    fn apply(&mut self, change: &Change) -> bool {
        match change {
            Change::Game { game } => {
                let changed = self.games.insert(game.game, game.clone()).as_ref() != Some(game);
                self.games_changed |= changed;
                changed
            }
            Change::GameRemoved { game } => {
                let changed = self.games.remove(game).is_some();
                self.games_changed |= changed;
                changed
            }
            Change::Room { room } => {
                self.touched_rooms.insert(room.code.clone());
                self.rooms.insert(room.clone())
            }
            Change::RoomRemoved { code } => {
                self.touched_rooms.insert(code.clone());
                self.rooms.remove(code)
            }
            Change::Seek { seek } => {
                self.touched_seeks.insert(seek.seek);
                self.seeks.insert(seek.seek, seek.clone()).as_ref() != Some(seek)
            }
            Change::SeekRemoved { seek } => {
                self.touched_seeks.insert(*seek);
                self.seeks.remove(seek).is_some()
            }
        }
    }

    /// The games the lobby shows now: a war game of each variant (the oldest: the one the server
    /// keeps running, unless it is between two), by variant, then the featured games by rank,
    /// chosen among all the others (war games players started included), so that however many
    /// war games players start, the lobby shows at most one per variant besides the featured.
    fn shown_games(&self) -> Vec<GameInfo> {
        let mut war: BTreeMap<Variant, &GameInfo> = BTreeMap::new();
        let mut others: Vec<&GameInfo> = Vec::new();
        // In order of id, so the first war game of a variant is its oldest.
        for game in self.games.values() {
            if game.kind == GameKind::War && !war.contains_key(&game.variant) {
                war.insert(game.variant, game);
            } else {
                others.push(game);
            }
        }
        if others.len() > LOBBY_FEATURED {
            others.select_nth_unstable_by_key(LOBBY_FEATURED, |game| Reverse(rank(game)));
            others.truncate(LOBBY_FEATURED);
        }
        others.sort_by_key(|game| Reverse(rank(game)));
        war.into_values().chain(others).cloned().collect()
    }

    /// Whether seek or room changes wait to go out.
    fn urgent_pending(&self) -> bool {
        !self.touched_seeks.is_empty() || !self.touched_rooms.is_empty()
    }

    /// When the next frame may go out, if anything waits: seeks and rooms once their spacing
    /// allows; games and totals alone (when no seek or room waits to carry them) a little after
    /// the last frame; and never sooner after the last frame than `sends_per_sec` allows for
    /// this many followers.
    fn next_send(&self, now: Instant, sends_per_sec: u32) -> Option<Instant> {
        let after = |last: Option<Instant>, gap| last.map_or(now, |last| (last + gap).max(now));
        let budget = budget_spacing(self.subscribers.len(), sends_per_sec);
        if self.urgent_pending() {
            let at = after(self.last_urgent, URGENT_SPACING);
            Some(at.max(after(self.last_frame, budget)))
        } else if self.games_owed {
            Some(after(self.last_frame, SPACING.max(budget)))
        } else {
            None
        }
    }

    /// Brings the view up to date with what changed and returns the difference: the seeks and
    /// rooms, and the shown games and totals if they are owed.
    fn take_update(&mut self, totals: Totals) -> LobbyUpdate {
        let mut update = LobbyUpdate::default();
        self.take_urgent(&mut update);
        if std::mem::take(&mut self.games_owed) {
            self.take_games(&mut update, totals);
        }
        update
    }

    fn take_urgent(&mut self, update: &mut LobbyUpdate) {
        for id in std::mem::take(&mut self.touched_seeks) {
            match (self.seeks.get(&id), self.view.seeks.get(&id)) {
                (Some(now), before) if before != Some(now) => {
                    update.seeks.push(now.clone());
                    self.view.seeks.insert(id, now.clone());
                }
                (None, Some(_)) => {
                    update.seeks_removed.push(id);
                    self.view.seeks.remove(&id);
                }
                _ => {}
            }
        }
        if !(update.seeks.is_empty() && update.seeks_removed.is_empty()) {
            update.seeks_total = Some(count(self.seeks.len()));
        }
        for code in std::mem::take(&mut self.touched_rooms) {
            match (self.rooms.get(&code), self.view.rooms.get(&code)) {
                (Some(now), before) if before != Some(now) => {
                    update.rooms.push(now.clone());
                    self.view.rooms.insert(now.clone());
                }
                (None, Some(_)) => {
                    self.view.rooms.remove(&code);
                    update.rooms_removed.push(code);
                }
                _ => {}
            }
        }
        if !(update.rooms.is_empty() && update.rooms_removed.is_empty()) {
            update.rooms_total = Some(count(self.rooms.by_code.len()));
        }
    }

    fn take_games(&mut self, update: &mut LobbyUpdate, totals: Totals) {
        if std::mem::take(&mut self.games_changed) {
            let shown = self.shown_games();
            let before: HashMap<GameId, &GameInfo> = self
                .view
                .games
                .iter()
                .map(|game| (game.game, game))
                .collect();
            update.games = (shown.iter())
                .filter(|game| before.get(&game.game) != Some(game))
                .cloned()
                .collect();
            let now: BTreeSet<GameId> = shown.iter().map(|game| game.game).collect();
            update.games_removed = (self.view.games.iter())
                .map(|game| game.game)
                .filter(|id| !now.contains(id))
                .collect();
            self.view.games = shown;
        }
        if totals != self.view.totals {
            self.view.totals = totals;
            update.totals = Some(totals);
        }
        if self.arenas != self.view.arenas {
            self.view.arenas = self.arenas.clone();
            update.arenas = Some(self.arenas.clone());
        }
    }

    /// This node's totals with the other nodes' that are fresh.
    fn site_totals(&mut self, local: Totals, now: Instant) -> Totals {
        self.remote_totals
            .retain(|_, (_, at)| now.duration_since(*at) < TOTALS_FRESH);
        self.remote_totals
            .values()
            .fold(local, |sum, (totals, _)| Totals {
                online: sum.online.saturating_add(totals.online),
                games: sum.games.saturating_add(totals.games),
            })
    }
}

/// The least time between two frames to `followers` that keeps within `sends_per_sec`.
fn budget_spacing(followers: usize, sends_per_sec: u32) -> Duration {
    Duration::from_secs_f64(followers as f64 / f64::from(sends_per_sec.max(1)))
}

fn count(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

impl Default for Lobby {
    fn default() -> Self {
        Lobby::new(DEFAULT_SENDS_PER_SEC)
    }
}

impl Lobby {
    /// An empty lobby that makes at most `sends_per_sec` sends a second to its followers.
    pub(crate) fn new(sends_per_sec: u32) -> Self {
        Lobby {
            inner: Mutex::default(),
            sends_per_sec: sends_per_sec.max(1),
            relay: OnceLock::new(),
            urgent: Notify::new(),
        }
    }

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
    /// Seeks and rooms are as they stand (a frame on its way may then tell of one again, or of the
    /// removal of one it never had: both harmless). The games are those the others were last
    /// sent, so that the next frame's difference is right for everyone, but each as it stands,
    /// and without those that ended since: a newcomer is never offered a finished game to watch
    /// (the next frame may then tell it of a game again, or of the removal of one it never had).
    /// The first follower gets the games as they stand.
    pub(crate) fn subscribe(&self, out: Outbound, id: Option<RequestId>) {
        let mut inner = self.inner();
        // The first follower need not wait for the next second: nobody else holds the view.
        if inner.subscribers.is_empty() && std::mem::take(&mut inner.games_changed) {
            inner.view.games = inner.shown_games();
        }
        let newest_seeks = inner.seeks.values().rev().take(LOBBY_SEEKS);
        let mut seeks: Vec<SeekInfo> = newest_seeks.cloned().collect();
        seeks.reverse();
        let snapshot = ServerMessage::Lobby {
            seeks,
            seeks_total: count(inner.seeks.len()),
            rooms: inner.rooms.newest(LOBBY_ROOMS),
            rooms_total: count(inner.rooms.by_code.len()),
            games: (inner.view.games.iter())
                .filter_map(|game| inner.games.get(&game.game).cloned())
                .collect(),
            totals: inner.view.totals,
            arenas: inner.view.arenas.clone(),
        };
        if out.reply(id, snapshot) {
            inner.subscribers.insert(out.conn, out);
        }
    }

    pub(crate) fn unsubscribe(&self, conn: ConnId) {
        self.inner().subscribers.remove(&conn);
    }

    /// One page of the listed games: those after `after` (of `variant`, if given), by id, at most
    /// `limit`; with the `after` of the next page if there is one.
    pub(crate) fn page(
        &self,
        variant: Option<Variant>,
        after: Option<GameId>,
        limit: usize,
    ) -> (Vec<GameInfo>, Option<GameId>) {
        let inner = self.inner();
        let from = after.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
        let mut games: Vec<GameInfo> = (inner.games.range((from, std::ops::Bound::Unbounded)))
            .map(|(_, game)| game)
            .filter(|game| variant.is_none_or(|variant| game.variant == variant))
            .take(limit + 1)
            .cloned()
            .collect();
        let next = (games.len() > limit).then(|| {
            games.truncate(limit);
            games.last().map(|game| game.game)
        });
        (games, next.flatten())
    }

    /// Sends what changed to the followers, gathered as the module says, until `stop`. `local`
    /// counts this node's connections and live games.
    pub(crate) async fn keep_sending(
        &self,
        local: impl Fn() -> Totals + Send,
        stop: CancellationToken,
    ) {
        let mut next_games = Instant::now() + GAMES_EVERY;
        loop {
            let wake = (self.inner().next_send(Instant::now(), self.sends_per_sec))
                .map_or(next_games, |at| at.min(next_games));
            tokio::select! {
                () = tokio::time::sleep_until(wake) => {}
                () = self.urgent.notified() => {}
                () = stop.cancelled() => return,
            }
            let now = Instant::now();
            if now >= next_games {
                next_games = now + GAMES_EVERY;
                self.inner().games_owed = true;
            }
            self.send_now(local(), now, &stop).await;
        }
    }

    /// Sends the followers what changed, if its time has come.
    async fn send_now(&self, local: Totals, now: Instant, stop: &CancellationToken) {
        let (update, followers) = {
            let mut inner = self.inner();
            let followed = !inner.subscribers.is_empty();
            let due = (inner.next_send(now, self.sends_per_sec)).is_some_and(|at| at <= now);
            if followed && !due {
                return;
            }
            let urgent = inner.urgent_pending();
            let totals = inner.site_totals(local, now);
            let update = inner.take_update(totals);
            if update.is_empty() || !followed {
                return;
            }
            inner.last_frame = Some(now);
            if urgent {
                inner.last_urgent = Some(now);
            }
            let followers: Vec<(ConnId, Outbound)> = (inner.subscribers.iter())
                .map(|(conn, out)| (*conn, out.clone()))
                .collect();
            (update, followers)
        };
        let frame = frame(None, ServerMessage::LobbyUpdate(Box::new(update)));
        self.deliver(&followers, &frame, stop).await;
    }

    /// Sends `frame` to `followers` at [`DELIVERY_PACE`] times the budget's pace, [`PACED_SLICE`]
    /// at a time, so that a frame to thousands is spread over a part of the time it is allowed
    /// instead of holding up the moves beside it; those who stopped following meanwhile are
    /// skipped.
    async fn deliver(
        &self,
        followers: &[(ConnId, Outbound)],
        frame: &Frame,
        stop: &CancellationToken,
    ) {
        let mut slices = followers.chunks(PACED_SLICE).peekable();
        while let Some(slice) = slices.next() {
            let recipients: Vec<(ConnId, &Outbound)> = {
                let inner = self.inner();
                (slice.iter())
                    .filter(|(conn, _)| inner.subscribers.contains_key(conn))
                    .map(|(conn, out)| (*conn, out))
                    .collect()
            };
            let gone = fan_out(recipients, frame).await;
            if !gone.is_empty() {
                let mut inner = self.inner();
                for conn in gone {
                    inner.subscribers.remove(&conn);
                }
            }
            if slices.peek().is_some() {
                tokio::select! {
                    () = tokio::time::sleep(budget_spacing(
                        slice.len(),
                        self.sends_per_sec.saturating_mul(DELIVERY_PACE),
                    )) => {}
                    () = stop.cancelled() => return,
                }
            }
        }
    }

    /// A change made on this node: applied, and relayed to the cluster if it changed anything.
    fn local(&self, change: Change) {
        let mut inner = self.inner();
        match &change {
            Change::Game { game } => {
                inner.own_games.insert(game.game);
            }
            Change::GameRemoved { game } => {
                inner.own_games.remove(game);
            }
            _ => {}
        }
        if inner.apply(&change) {
            if change.is_urgent() {
                self.urgent.notify_one();
            }
            if let Some(relay) = self.relay.get() {
                // Sent under the lock, so the relay sees this node's changes in their order.
                let _ = relay.send(change);
            }
        }
    }

    /// A change another node made. One about a game this node plays now is left out: it is an
    /// earlier holder's (the removal of a dead node's listing, swept as this node carries the
    /// game on, say), and applying it would drop this node's listing, whose own removal would
    /// then never reach the cluster when the game ends here.
    pub(crate) fn apply_remote(&self, change: &Change) {
        let mut inner = self.inner();
        if let Change::Game {
            game: GameInfo { game, .. },
        }
        | Change::GameRemoved { game } = change
            && inner.own_games.contains(game)
        {
            return;
        }
        if inner.apply(change) && change.is_urgent() {
            self.urgent.notify_one();
        }
    }

    /// The arenas to list (at most [`noughts_protocol::LOBBY_ARENAS`]), sent with the next
    /// games and totals if they changed.
    pub(crate) fn set_arenas(&self, arenas: Vec<ArenaInfo>) {
        let mut inner = self.inner();
        if inner.arenas != arenas {
            inner.arenas = arenas;
            inner.games_owed = true;
        }
    }

    /// Another node's totals, as it last sent them.
    pub(crate) fn remote_totals(&self, node: &str, totals: Totals) {
        (self.inner().remote_totals).insert(node.to_owned(), (totals, Instant::now()));
    }

    /// A listed game started or changed.
    pub(crate) fn update_game(&self, game: GameInfo) {
        self.local(Change::Game { game });
    }

    /// A listed game ended.
    pub(crate) fn remove_game(&self, game: GameId) {
        self.local(Change::GameRemoved { game });
    }

    /// A listed game this node stopped playing without its ending (it stepped down, and another
    /// node carries it on): it is no longer this node's, so the holder's changes about it apply
    /// here again, and the cluster is told nothing. A removal would reach the other nodes after
    /// the holder's listing and take the game out of their lobbies until its next change.
    pub(crate) fn disown(&self, game: GameId) {
        self.inner().own_games.remove(&game);
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
mod tests;
