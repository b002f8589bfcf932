//! The lobby as the client holds it (seeks, rooms, the shown games, the totals and our own live
//! games, the arenas) kept current by the server's `lobby` and `lobby_update`, and how a listed
//! game or arena reads in one row.

use noughts_protocol::{
    ArenaInfo, ArenaStatus, GameId, GameInfo, GameKind, LobbyUpdate, RoomInfo, SeatInfo, SeekInfo,
    Totals,
};

use super::widgets::{cols, fit, truncate};

/// The lobby lists, kept current by the server's lobby messages while the lobby is on show.
#[derive(Debug, Clone, Default)]
pub struct Lobby {
    /// The newest quick-match seeks waiting for an opponent, oldest first.
    pub seeks: Vec<SeekInfo>,
    /// How many seeks wait in all (more than [`Lobby::seeks`] holds on a busy site).
    pub seeks_total: u32,
    /// The newest public rooms waiting for an opponent.
    pub rooms: Vec<RoomInfo>,
    /// How many public rooms are open in all.
    pub rooms_total: u32,
    /// The games the lobby shows: the war games and the featured games.
    pub games: Vec<GameInfo>,
    /// Our own live games, known from their game states (the lobby lists only a few games).
    pub mine: Vec<GameInfo>,
    /// People online and games in play on the whole site.
    pub totals: Totals,
    /// The highlighted row in [`Lobby::entries`].
    pub selected: usize,
    /// Whether the first snapshot has arrived.
    pub loaded: bool,
    /// The public arenas running or starting within the hour, soonest first.
    pub arenas: Vec<ArenaInfo>,
}

/// A `lobby` snapshot, which replaces everything the lobby held.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub seeks: Vec<SeekInfo>,
    pub seeks_total: u32,
    pub rooms: Vec<RoomInfo>,
    pub rooms_total: u32,
    pub games: Vec<GameInfo>,
    pub totals: Totals,
    pub arenas: Vec<ArenaInfo>,
}

/// One row of the lobby list.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    Seek(&'a SeekInfo),
    Room(&'a RoomInfo),
    /// One of our own live games.
    Mine(&'a GameInfo),
    /// A featured game: one of the few the lobby shows.
    Featured(&'a GameInfo),
    War(&'a GameInfo),
    /// An arena running or starting soon: its standings open on `⏎`.
    Arena(&'a ArenaInfo),
}

impl Lobby {
    /// The rows in the order shown: seeks, rooms, our own games, the featured games, the war
    /// games, then the arenas.
    pub fn entries(&self) -> Vec<Entry<'_>> {
        let mine = |g: &GameInfo| self.mine.iter().any(|m| m.game == g.game);
        let mut entries: Vec<Entry<'_>> = self.seeks.iter().map(Entry::Seek).collect();
        entries.extend(self.rooms.iter().map(Entry::Room));
        entries.extend(self.mine.iter().map(Entry::Mine));
        entries.extend(
            self.games
                .iter()
                .filter(|g| g.kind != GameKind::War && !mine(g))
                .map(Entry::Featured),
        );
        entries.extend(
            self.games
                .iter()
                .filter(|g| g.kind == GameKind::War)
                .map(Entry::War),
        );
        entries.extend(self.arenas.iter().map(Entry::Arena));
        entries
    }

    /// The war game to watch after `current`: the next one listed, else the first; `None` when no
    /// war game is running.
    pub fn next_war(&self, current: Option<GameId>) -> Option<GameId> {
        let wars: Vec<GameId> = self
            .games
            .iter()
            .filter(|g| g.kind == GameKind::War)
            .map(|g| g.game)
            .collect();
        wars.iter()
            .find(|&&id| current.is_some_and(|c| id > c))
            .or(wars.first())
            .copied()
    }

    /// The whole listing, as a `lobby` snapshot gives it: it replaces everything held.
    pub fn replace(&mut self, snapshot: Snapshot) {
        let Snapshot {
            seeks,
            seeks_total,
            rooms,
            rooms_total,
            games,
            totals,
            arenas,
        } = snapshot;
        self.arenas = arenas;
        self.seeks = seeks;
        self.seeks_total = seeks_total;
        self.rooms.clear();
        self.rooms_total = rooms_total;
        self.games.clear();
        self.totals = totals;
        for room in rooms {
            self.upsert_room(room);
        }
        for game in games {
            self.upsert_game(game);
        }
        self.loaded = true;
        self.clamp();
    }

    /// A `lobby_update`: removals first, then the rest.
    pub fn apply(&mut self, update: LobbyUpdate) {
        for seek in update.seeks_removed {
            self.seeks.retain(|s| s.seek != seek);
        }
        for code in &update.rooms_removed {
            self.rooms.retain(|r| &r.code != code);
        }
        for game in update.games_removed {
            self.games.retain(|g| g.game != game);
        }
        update
            .seeks
            .into_iter()
            .for_each(|seek| self.add_seek(seek));
        update.rooms.into_iter().for_each(|r| self.upsert_room(r));
        update.games.into_iter().for_each(|g| self.upsert_game(g));
        self.seeks_total = update.seeks_total.unwrap_or(self.seeks_total);
        self.rooms_total = update.rooms_total.unwrap_or(self.rooms_total);
        self.totals = update.totals.unwrap_or(self.totals);
        if let Some(arenas) = update.arenas {
            self.arenas = arenas;
        }
        self.clamp();
    }

    /// A seek that started waiting.
    pub fn add_seek(&mut self, seek: SeekInfo) {
        self.seeks.retain(|s| s.seek != seek.seek);
        self.seeks.push(seek);
        self.seeks.sort_by_key(|s| s.seek);
    }

    /// How many rows the list has.
    pub fn rows(&self) -> usize {
        self.entries().len()
    }

    /// Seeks waiting that the lobby does not hold.
    pub fn more_seeks(&self) -> usize {
        (self.seeks_total as usize).saturating_sub(self.seeks.len())
    }

    /// Public rooms open that the lobby does not hold.
    pub fn more_rooms(&self) -> usize {
        (self.rooms_total as usize).saturating_sub(self.rooms.len())
    }

    pub fn clamp(&mut self) {
        self.selected = self.selected.min(self.rows().saturating_sub(1));
    }

    pub fn upsert_game(&mut self, game: GameInfo) {
        match self.games.iter_mut().find(|g| g.game == game.game) {
            Some(slot) => *slot = game,
            None => {
                self.games.push(game);
                self.games.sort_by_key(|g| g.game);
            }
        }
    }

    pub fn upsert_room(&mut self, room: RoomInfo) {
        match self.rooms.iter_mut().find(|r| r.code == room.code) {
            Some(slot) => *slot = room,
            None => self.rooms.push(room),
        }
    }
}

/// Width of the players column of a game row.
const PLAYERS: usize = 26;

pub fn game_row(game: &GameInfo) -> String {
    let rated = if game.rated { "*" } else { " " };
    format!(
        "#{:<4}{rated}{:<8}{}{:>3}{:>5}",
        game.game.0,
        game.variant.name(),
        fit(&players_text(game, PLAYERS - 1), PLAYERS),
        game.moves,
        game.watchers
    )
}

/// "ada 1562 vs bob 1474" in at most `width` characters: the names are cut first, never the
/// ratings.
fn players_text(game: &GameInfo, width: usize) -> String {
    let war = game.kind == GameKind::War;
    let rating = |seat: &SeatInfo| seat.rating.map(|r| format!(" {r}")).unwrap_or_default();
    let fixed = " vs ".len() + rating(&game.x).len() + rating(&game.o).len() + 2;
    let room = width.saturating_sub(fixed);
    let (x, o) = (seat_name(&game.x, war), seat_name(&game.o, war));
    let (x_len, o_len) = (cols(&x), cols(&o));
    // Share the room; a short name leaves the rest to the other.
    let x_room = x_len.min(room.saturating_sub(o_len.min(room / 2)));
    let o_room = room.saturating_sub(x_room);
    let seat_text = |seat: &SeatInfo, name: &str, max: usize| {
        let away = if seat.connected { "" } else { "?" };
        format!("{}{away}{}", truncate(name, max.max(1)), rating(seat))
    };
    let text = format!(
        "{} vs {}",
        seat_text(&game.x, &x, x_room),
        seat_text(&game.o, &o, o_room)
    );
    truncate(&text, width)
}

/// A seat as the lobby shows it: AI seats by their level ("perfect" in a war game, "hard AI"
/// against a person).
fn seat_name(seat: &SeatInfo, war: bool) -> String {
    match seat.level {
        Some(level) if war => level.name().to_owned(),
        Some(level) => format!("{level} AI"),
        None => crate::names::shown(&seat.name, seat.guest, seat.bot),
    }
}

/// An arena as the lobby lists it: name, variant, clock, when it starts or ends (from `now_ms`,
/// milliseconds since the Unix epoch) and its players.
pub fn arena_row(arena: &ArenaInfo, now_ms: u64) -> String {
    let clock = super::arena::clock(arena);
    let minutes = |at: u64| at.saturating_sub(now_ms).div_ceil(60_000);
    let when = match arena.status {
        ArenaStatus::Upcoming => format!("starts in {}m", minutes(arena.start_ms)),
        ArenaStatus::Running => format!("ends in {}m", minutes(arena.end_ms)),
        ArenaStatus::Ending => "ending".to_owned(),
        ArenaStatus::Finished => "finished".to_owned(),
    };
    format!(
        "{}{:<8}{:<6}{:<15}{:>3} players",
        fit(&truncate(&arena.name, 19), 20),
        arena.variant.name(),
        clock,
        when,
        arena.players
    )
}
