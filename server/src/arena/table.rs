//! An arena's standings kept in order as they change. Every player's line is held in the order
//! they joined, with their rating, and the order of the standings is a sorted list of keys: a
//! changed line (a game counted, a rating seen, a join) moves by a binary search and a shift of
//! the keys between its old and new place, not by ranking every line again. Answers (the top, a
//! player's line and rank, a page, the podium) read it without ranking anything, so a change
//! costs the same in an arena of ten players as in one of ten thousand.

use std::cmp::Reverse;
use std::collections::HashMap;

use noughts_protocol::{ArenaLine, GameId, PlayerId};

use crate::store::{ArenaGame, Entrant, on_fire};

/// The rating of a player whose rating has not been seen.
pub(crate) const UNSEEN_RATING: u32 = 1500;

/// Where a line stands: by score, then rating, then who joined first (the player's id last, so
/// that no two keys are equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    score: Reverse<u32>,
    rating: Reverse<u32>,
    joined_ms: u64,
    player: PlayerId,
}

/// A game being played, with what makes it worth watching: its players' ratings together, as
/// they were when it was paired.
#[derive(Debug, Clone, Copy)]
struct Playing {
    game: ArenaGame,
    strength: u32,
}

/// The standings of one arena, and the games it is playing.
#[derive(Debug, Default)]
pub(crate) struct Table {
    /// Every player's line, in the order they joined.
    lines: Vec<Entrant>,
    /// Each player's rating in the arena's variant, beside their line.
    ratings: Vec<u32>,
    /// Where each player's line is in `lines`.
    at: HashMap<PlayerId, usize>,
    /// The standings: every line's key, in order.
    order: Vec<Key>,
    /// The games being played, not counted yet.
    playing: HashMap<GameId, Playing>,
    /// The game each player is playing now.
    games: HashMap<PlayerId, GameId>,
}

impl Table {
    /// The standings of `lines` (in the order they joined), each player rated as `rating` says,
    /// with `playing` being played.
    pub(crate) fn new(
        lines: Vec<Entrant>,
        rating: impl Fn(PlayerId) -> Option<u32>,
        playing: impl IntoIterator<Item = ArenaGame>,
    ) -> Table {
        let mut table = Table::default();
        for line in lines {
            let player = line.player;
            table.put(line);
            if let Some(rating) = rating(player) {
                table.rate(player, rating);
            }
        }
        for game in playing {
            table.start(game);
        }
        table
    }

    /// Players joined.
    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Every line, in the order the players joined.
    pub(crate) fn lines(&self) -> &[Entrant] {
        &self.lines
    }

    /// `player`'s line, if they joined.
    pub(crate) fn entrant(&self, player: PlayerId) -> Option<&Entrant> {
        self.at.get(&player).map(|&i| &self.lines[i])
    }

    /// Whether `player` has joined (withdrawn or not).
    pub(crate) fn joined(&self, player: PlayerId) -> bool {
        self.at.contains_key(&player)
    }

    /// `player`'s rating as last seen.
    pub(crate) fn rating(&self, player: PlayerId) -> u32 {
        self.at
            .get(&player)
            .map_or(UNSEEN_RATING, |&i| self.ratings[i])
    }

    fn key(&self, i: usize) -> Key {
        let line = &self.lines[i];
        Key {
            score: Reverse(line.score),
            rating: Reverse(self.ratings[i]),
            joined_ms: line.joined_ms,
            player: line.player,
        }
    }

    /// Moves a line's key from `old` to `new` in the order.
    fn reorder(&mut self, old: Key, new: Key) {
        if old == new {
            return;
        }
        if let Ok(from) = self.order.binary_search(&old) {
            self.order.remove(from);
        }
        let to = self.order.binary_search(&new).unwrap_or_else(|to| to);
        self.order.insert(to, new);
    }

    /// Keeps `line` as a player's line now: a new player's is added (rated as unseen until
    /// [`Table::rate`]), a known one's replaced, and either takes its place in the order.
    pub(crate) fn put(&mut self, line: Entrant) {
        match self.at.get(&line.player) {
            Some(&i) => {
                let old = self.key(i);
                self.lines[i] = line;
                self.reorder(old, self.key(i));
            }
            None => {
                let i = self.lines.len();
                self.at.insert(line.player, i);
                self.lines.push(line);
                self.ratings.push(UNSEEN_RATING);
                let key = self.key(i);
                let to = self.order.binary_search(&key).unwrap_or_else(|to| to);
                self.order.insert(to, key);
            }
        }
    }

    /// Keeps `rating` as `player`'s rating now, and their line's place with it.
    pub(crate) fn rate(&mut self, player: PlayerId, rating: u32) {
        let Some(&i) = self.at.get(&player) else {
            return;
        };
        let old = self.key(i);
        self.ratings[i] = rating;
        self.reorder(old, self.key(i));
    }

    /// Notes each player's last opponent, as a game between them starts.
    pub(crate) fn met(&mut self, [x, o]: [PlayerId; 2]) {
        for (me, them) in [(x, o), (o, x)] {
            if let Some(&i) = self.at.get(&me) {
                self.lines[i].last_opponent = Some(them);
            }
        }
    }

    /// Notes `game` as being played.
    pub(crate) fn start(&mut self, game: ArenaGame) {
        let strength = self.rating(game.x) + self.rating(game.o);
        self.games.insert(game.x, game.game);
        self.games.insert(game.o, game.game);
        self.playing.insert(game.game, Playing { game, strength });
    }

    /// Notes that `game` is no longer being played; what it was, if it was.
    pub(crate) fn stop(&mut self, game: GameId) -> Option<ArenaGame> {
        let Playing { game, .. } = self.playing.remove(&game)?;
        for player in [game.x, game.o] {
            if self.games.get(&player) == Some(&game.game) {
                self.games.remove(&player);
            }
        }
        Some(game)
    }

    /// The games being played.
    pub(crate) fn playing(&self) -> impl Iterator<Item = &ArenaGame> {
        self.playing.values().map(|p| &p.game)
    }

    /// How many games are being played.
    pub(crate) fn playing_count(&self) -> usize {
        self.playing.len()
    }

    /// The game `player` is playing now.
    pub(crate) fn game_of(&self, player: PlayerId) -> Option<GameId> {
        self.games.get(&player).copied()
    }

    /// The game being played between the strongest pair (the earlier of two as strong).
    pub(crate) fn best_game(&self) -> Option<GameId> {
        self.playing
            .values()
            .max_by_key(|p| (p.strength, Reverse(p.game.game)))
            .map(|p| p.game.game)
    }

    /// The line shown at `rank` (from 1) for the key there.
    fn shown(&self, rank: usize, key: &Key) -> ArenaLine {
        let i = self.at[&key.player];
        let e = &self.lines[i];
        ArenaLine {
            rank: u32::try_from(rank).unwrap_or(u32::MAX),
            player: e.player,
            name: e.name.clone(),
            rating: self.ratings[i],
            score: e.score,
            games: e.games,
            wins: e.wins,
            fire: on_fire(e),
            playing: self.games.contains_key(&e.player),
            withdrawn: e.withdrawn,
        }
    }

    /// `player`'s line with their rank, if they joined.
    pub(crate) fn line(&self, player: PlayerId) -> Option<ArenaLine> {
        let key = self.key(*self.at.get(&player)?);
        let place = self.order.binary_search(&key).ok()?;
        Some(self.shown(place + 1, &key))
    }

    /// Up to `count` lines from the `offset`th (from 0), in order.
    pub(crate) fn page(&self, offset: usize, count: usize) -> Vec<ArenaLine> {
        let keys = self.order.iter().enumerate().skip(offset).take(count);
        keys.map(|(place, key)| self.shown(place + 1, key))
            .collect()
    }

    /// The podium: the first three who played at least one game.
    pub(crate) fn podium(&self) -> Vec<ArenaLine> {
        let placed = self.order.iter().enumerate();
        let played = placed.filter(|(_, key)| self.lines[self.at[&key.player]].games > 0);
        played
            .take(3)
            .map(|(place, key)| self.shown(place + 1, key))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use noughts_engine::Rng;

    use super::*;

    fn entrant(player: u64, score: u32) -> Entrant {
        Entrant {
            player: PlayerId(player),
            name: format!("p{player}"),
            score,
            streak: 0,
            games: u32::from(score > 0),
            wins: 0,
            draws: 0,
            withdrawn: false,
            joined_ms: 1000 + player % 7,
            last_opponent: None,
        }
    }

    /// The standings as a sort of every line makes them.
    fn sorted(table: &Table) -> Vec<(u64, u32)> {
        let mut lines: Vec<(Key, u64)> = (0..table.len())
            .map(|i| (table.key(i), table.lines[i].player.0))
            .collect();
        lines.sort();
        lines
            .into_iter()
            .zip(1..)
            .map(|((_, player), rank)| (player, rank))
            .collect()
    }

    fn shown(table: &Table) -> Vec<(u64, u32)> {
        let page = table.page(0, usize::MAX);
        page.iter().map(|l| (l.player.0, l.rank)).collect()
    }

    #[test]
    fn lines_moved_one_at_a_time_stand_as_a_sort_of_them_all_would_put_them() {
        let mut rng = Rng::with_seed(7);
        let mut table = Table::new(
            (1..=200).map(|p| entrant(p, 0)).collect(),
            |p| Some(1400 + u32::try_from(p.0 % 13).unwrap() * 10),
            [],
        );
        assert_eq!(shown(&table), sorted(&table));
        for step in 0..2000 {
            let player = PlayerId(rng.u64(1..=220));
            match rng.u32(0..3) {
                0 => table.rate(player, rng.u32(1200..1800)),
                1 => {
                    let mut line = table.lines().iter().find(|e| e.player == player).cloned();
                    let line = line.get_or_insert_with(|| entrant(player.0, 0));
                    line.score += rng.u32(0..5);
                    line.games += 1;
                    table.put(line.clone());
                }
                _ => table.put(entrant(player.0, rng.u32(0..40))),
            }
            assert_eq!(shown(&table), sorted(&table), "after step {step}");
        }
        for (player, rank) in sorted(&table) {
            let line = table
                .line(PlayerId(player))
                .expect("a joined player's line");
            assert_eq!(line.rank, rank);
        }
        assert!(table.line(PlayerId(999)).is_none());
        let page = table.page(10, 5);
        assert_eq!(
            page.iter().map(|l| l.rank).collect::<Vec<_>>(),
            [11, 12, 13, 14, 15]
        );
    }

    #[test]
    fn the_playing_are_marked_and_the_best_game_is_the_strongest_pair() {
        let mut table = Table::new(
            (1..=6).map(|p| entrant(p, 0)).collect(),
            |p| Some(1500 + u32::try_from(p.0).unwrap() * 100),
            [],
        );
        let game = |id, x, o| ArenaGame {
            game: GameId(id),
            x: PlayerId(x),
            o: PlayerId(o),
            counted: false,
        };
        table.start(game(10, 1, 2));
        table.start(game(11, 5, 6));
        table.start(game(12, 3, 4));
        assert_eq!(table.best_game(), Some(GameId(11)));
        assert_eq!(table.game_of(PlayerId(6)), Some(GameId(11)));
        assert!(table.line(PlayerId(6)).unwrap().playing);
        assert_eq!(table.stop(GameId(11)).map(|g| g.x), Some(PlayerId(5)));
        assert_eq!(table.stop(GameId(11)), None, "stopped once");
        assert!(!table.line(PlayerId(6)).unwrap().playing);
        assert_eq!(table.best_game(), Some(GameId(12)));
        assert_eq!(table.playing_count(), 2);
    }

    #[test]
    fn the_podium_is_the_first_three_who_played() {
        let mut lines: Vec<Entrant> = (1..=5).map(|p| entrant(p, 0)).collect();
        lines[3].score = 4;
        lines[3].games = 2;
        lines[1].games = 1;
        let table = Table::new(lines, |_| None, []);
        let podium: Vec<u64> = table.podium().iter().map(|l| l.player.0).collect();
        assert_eq!(podium, [4, 2], "only two played");
        assert_eq!(table.podium()[0].rank, 1);
    }
}
