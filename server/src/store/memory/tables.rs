//! The memory store's tables: players, tokens, games with their moves, and ratings, in plain maps
//! with the indexes the questions need (live games, each player's games and tokens, each
//! variant's leaderboard). Every change is one [`Change`], whose application gives back the change
//! that undoes it: inside a transaction those are logged, so that one write (a savepoint) or the
//! whole batch can be undone as SQLite would roll it back. Accounts and devices ([`Accounts`])
//! and arenas ([`Arenas`]) are plain maps outside that log: each of their writes checks
//! everything before it changes anything.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use noughts_protocol::{ArenaId, GameId, Mark, PlayerId, Variant};

use super::super::accounts::{StoredAccount, StoredDevice};
use super::super::arenas::{ArenaGame, Entrant, Place, StoredArena};
use super::super::league::{LeagueBot, LeagueGame, LeagueLine, LeagueState};
use super::super::records::ModerationEntry;
use super::super::records::{Results, StoreError, StoredMove, TokenHash};
use super::super::rows::GameRow;
use crate::rules::rating::{Glicko, Ratings};
use crate::rules::sitter::Sitter;

/// A player as kept.
#[derive(Debug, Clone)]
pub(super) struct Player {
    pub(super) name: String,
    pub(super) created_ms: u64,
    pub(super) last_seen_ms: u64,
}

/// A session token's hash and what it is good for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token {
    pub(super) player: PlayerId,
    /// When it was issued.
    pub(super) used_ms: u64,
    /// Set when a newer token replaced it: it stops working then.
    pub(super) expires_ms: Option<u64>,
}

/// A game as kept, without its moves.
#[derive(Debug, Clone)]
pub(super) struct Game {
    /// What the databases' `games` rows read as.
    pub(super) row: GameRow,
    /// The lease epoch it was last written under (0: never fenced).
    pub(super) owner_epoch: u64,
}

/// A player's rating in one variant and the rated games behind it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rating {
    pub(super) glicko: Glicko,
    pub(super) results: Results,
}

/// A rating as the leaderboard orders it (by `f64::total_cmp`, which never fails).
#[derive(Debug, Clone, Copy)]
pub(super) struct Points(pub(super) f64);

impl PartialEq for Points {
    fn eq(&self, other: &Points) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Points {}

impl PartialOrd for Points {
    fn partial_cmp(&self, other: &Points) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Points {
    fn cmp(&self, other: &Points) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One variant's leaderboard: the best rating first, then by player.
pub(super) type Board = BTreeSet<(Reverse<Points>, PlayerId)>;

/// One change to the tables. Applying it returns the change that undoes it.
#[derive(Debug)]
pub(super) enum Change {
    /// A player's row set (`Some`) or removed (`None`).
    Player(PlayerId, Option<Player>),
    Token(TokenHash, Option<Token>),
    /// A game's row, moves aside.
    Game(GameId, Option<Game>),
    /// A move added at its ply.
    AddMove(GameId, u32, StoredMove),
    /// The move at a ply removed.
    RemoveMove(GameId, u32),
    /// Every move from a ply on dropped.
    DropMoves(GameId, u32),
    /// Moves put back (after their ply's predecessors).
    RestoreMoves(GameId, Vec<(u32, StoredMove)>),
    Rating(PlayerId, Variant, Option<Rating>),
    /// A fact appended to the moderation log.
    AddModeration(ModerationEntry),
    /// The moderation log's last fact taken off.
    PopModeration,
    /// A game counted in the league.
    AddLeague(LeagueGame),
    /// The league's last counted game taken off.
    PopLeague,
    /// A bot's entry in a variant's league set (or, `None`, taken off).
    LeagueBot((Variant, PlayerId), Option<LeagueBot>),
    /// What a variant's running table stands on, set (or taken off).
    LeagueState(Variant, Option<LeagueState>),
    /// An entrant's line of a variant's table set (or taken off).
    LeagueLine((Variant, String), Option<LeagueLine>),
}

/// Everything the memory store keeps.
#[derive(Debug, Default)]
pub(super) struct Tables {
    pub(super) players: BTreeMap<PlayerId, Player>,
    pub(super) tokens: HashMap<TokenHash, Token>,
    /// Each player's tokens.
    pub(super) tokens_of: HashMap<PlayerId, Vec<TokenHash>>,
    pub(super) games: BTreeMap<GameId, Game>,
    /// Each game's moves, by ply in order.
    pub(super) moves: HashMap<GameId, Vec<(u32, StoredMove)>>,
    /// The games without an end.
    pub(super) live: BTreeSet<GameId>,
    /// The games each player sits in.
    pub(super) games_of: HashMap<PlayerId, BTreeSet<GameId>>,
    pub(super) ratings: HashMap<(PlayerId, Variant), Rating>,
    /// Per variant, in [`Ratings::slot`]'s order.
    pub(super) boards: [Board; 4],
    /// The finished games, oldest end first: the first ones go when too many are kept.
    pub(super) finished: BTreeSet<(u64, GameId)>,
    /// Per player and variant, the results of the finished games no longer kept, so that a
    /// profile still counts them.
    pub(super) carried: HashMap<(PlayerId, Variant), Results>,
    /// The moderation log, oldest first (kept whole: it is small beside the games).
    pub(super) moderation: Vec<ModerationEntry>,
    /// The league's counted games, in the order counted (kept whole, as the log is).
    pub(super) league: Vec<LeagueGame>,
    /// The bots that entered each variant's league.
    pub(super) league_bots: HashMap<(Variant, PlayerId), LeagueBot>,
    /// What each variant's running table stands on.
    pub(super) league_states: HashMap<Variant, LeagueState>,
    /// Each variant's lines, by entrant.
    pub(super) league_lines: BTreeMap<(Variant, String), LeagueLine>,
    /// While a transaction is open, the changes that undo it, oldest first.
    undo: Option<Vec<Change>>,
    /// Where the open savepoint's undo starts.
    savepoint: usize,
}

impl Tables {
    /// Opens a transaction: changes are logged from now on.
    pub(super) fn begin(&mut self) {
        self.undo = Some(Vec::new());
        self.savepoint = 0;
    }

    /// Keeps every change of the transaction.
    pub(super) fn commit(&mut self) {
        self.undo = None;
    }

    /// Undoes every change of the transaction, if one is open.
    pub(super) fn rollback(&mut self) {
        if let Some(undo) = self.undo.take() {
            self.undo_all(undo);
        }
    }

    pub(super) fn savepoint(&mut self) {
        self.savepoint = self.undo.as_ref().map_or(0, Vec::len);
    }

    /// Keeps, or undoes, the changes since the savepoint.
    pub(super) fn end_savepoint(&mut self, keep: bool) {
        if keep {
            return;
        }
        if let Some(undo) = self.undo.as_mut() {
            let since = undo.split_off(self.savepoint.min(undo.len()));
            let kept = self.undo.take();
            self.undo_all(since);
            self.undo = kept;
        }
    }

    fn undo_all(&mut self, undo: Vec<Change>) {
        for change in undo.into_iter().rev() {
            self.apply(change);
        }
    }

    /// Applies `change` and logs what undoes it.
    pub(super) fn change(&mut self, change: Change) {
        let inverse = self.apply(change);
        if let Some(undo) = self.undo.as_mut() {
            undo.push(inverse);
        }
    }

    /// Applies `change`, keeping the indexes, and returns what undoes it.
    fn apply(&mut self, change: Change) -> Change {
        match change {
            Change::Player(id, row) => Change::Player(id, set(&mut self.players, id, row)),
            Change::AddModeration(entry) => {
                self.moderation.push(entry);
                Change::PopModeration
            }
            Change::PopModeration => match self.moderation.pop() {
                Some(entry) => Change::AddModeration(entry),
                None => Change::PopModeration,
            },
            Change::AddLeague(game) => {
                self.league.push(game);
                Change::PopLeague
            }
            Change::PopLeague => match self.league.pop() {
                Some(game) => Change::AddLeague(game),
                None => Change::PopLeague,
            },
            Change::LeagueBot(key, row) => {
                Change::LeagueBot(key, set(&mut self.league_bots, key, row))
            }
            Change::LeagueState(variant, row) => {
                Change::LeagueState(variant, set(&mut self.league_states, variant, row))
            }
            Change::LeagueLine(key, row) => {
                let old = set(&mut self.league_lines, key.clone(), row);
                Change::LeagueLine(key, old)
            }
            Change::Token(hash, row) => {
                let old = set(&mut self.tokens, hash, row);
                if let Some(old) = &old {
                    self.unindex_token(old.player, hash);
                }
                if let Some(new) = &row {
                    self.tokens_of.entry(new.player).or_default().push(hash);
                }
                Change::Token(hash, old)
            }
            Change::Game(id, row) => {
                let old = self.games.remove(&id);
                // A row whose seats and end stay as they were keeps its place in the indexes.
                let same = matches!((&old, &row), (Some(a), Some(b))
                    if a.row.start.seats == b.row.start.seats
                        && a.row.ended_ms.is_some() == b.row.ended_ms.is_some());
                if let Some(old) = old.as_ref().filter(|_| !same) {
                    self.index_game(id, old, false);
                }
                if let Some(new) = row {
                    if !same {
                        self.index_game(id, &new, true);
                    }
                    self.games.insert(id, new);
                }
                Change::Game(id, old)
            }
            Change::AddMove(game, ply, played) => {
                let moves = self.moves.entry(game).or_default();
                let at = moves.partition_point(|(p, _)| *p < ply);
                moves.insert(at, (ply, played));
                Change::RemoveMove(game, ply)
            }
            Change::RemoveMove(game, ply) => {
                let moves = self.moves.entry(game).or_default();
                match moves.iter().position(|(p, _)| *p == ply) {
                    Some(at) => {
                        let (_, played) = moves.remove(at);
                        Change::AddMove(game, ply, played)
                    }
                    None => Change::RestoreMoves(game, Vec::new()),
                }
            }
            Change::DropMoves(game, keep) => {
                let moves = self.moves.entry(game).or_default();
                let at = moves.partition_point(|(p, _)| *p < keep);
                Change::RestoreMoves(game, moves.split_off(at))
            }
            Change::RestoreMoves(game, dropped) => {
                let from = dropped.first().map_or(u32::MAX, |(ply, _)| *ply);
                let moves = self.moves.entry(game).or_default();
                moves.extend(dropped);
                moves.sort_by_key(|(ply, _)| *ply);
                Change::DropMoves(game, from)
            }
            Change::Rating(player, variant, row) => {
                let old = set(&mut self.ratings, (player, variant), row);
                let board = &mut self.boards[Ratings::slot(variant)];
                if let Some(old) = &old {
                    board.remove(&(Reverse(Points(old.glicko.rating)), player));
                }
                if let Some(new) = row.filter(|r| r.results.games > 0) {
                    board.insert((Reverse(Points(new.glicko.rating)), player));
                }
                Change::Rating(player, variant, old)
            }
        }
    }

    fn unindex_token(&mut self, player: PlayerId, hash: TokenHash) {
        if let Some(held) = self.tokens_of.get_mut(&player) {
            held.retain(|h| *h != hash);
            if held.is_empty() {
                self.tokens_of.remove(&player);
            }
        }
    }

    /// Adds a game to (or takes it out of) the live set and its players' lists.
    fn index_game(&mut self, id: GameId, game: &Game, add: bool) {
        match (add, game.row.ended_ms) {
            (true, None) => {
                self.live.insert(id);
            }
            (true, Some(ended)) => {
                self.finished.insert((ended, id));
            }
            (false, ended) => {
                self.live.remove(&id);
                if let Some(ended) = ended {
                    self.finished.remove(&(ended, id));
                }
            }
        }
        for player in game.row.start.seats.iter().filter_map(Sitter::human) {
            let games = self.games_of.entry(*player).or_default();
            if add {
                games.insert(id);
            } else {
                games.remove(&id);
                if games.is_empty() {
                    self.games_of.remove(player);
                }
            }
        }
    }

    /// Forgets the oldest finished games (their rows and moves) past the newest `keep`, adding
    /// their results to what their players carry. Outside a transaction: nothing undoes it.
    pub(super) fn forget_finished(&mut self, keep: usize) {
        while self.undo.is_none() && self.finished.len() > keep {
            let Some((_, id)) = self.finished.pop_first() else {
                return;
            };
            let Some(game) = self.games.get(&id).cloned() else {
                continue;
            };
            self.apply(Change::Game(id, None));
            self.moves.remove(&id);
            let Some(result) = game.row.result.as_ref() else {
                continue;
            };
            if result.reason == noughts_protocol::EndReason::Aborted {
                continue;
            }
            for (seat, mark) in game.row.start.seats.iter().zip([Mark::X, Mark::O]) {
                if let Some(player) = seat.human() {
                    let tally = (self.carried)
                        .entry((*player, game.row.start.variant))
                        .or_default();
                    tally.count(result.winner.map(|winner| winner == mark));
                }
            }
        }
    }

    /// The hashes of `player`'s tokens.
    pub(super) fn tokens_of(&self, player: PlayerId) -> Vec<TokenHash> {
        self.tokens_of.get(&player).cloned().unwrap_or_default()
    }

    /// A stored game's row, or the error a write to a game that is not stored gets.
    pub(super) fn game(&self, id: GameId) -> Result<&Game, StoreError> {
        self.games
            .get(&id)
            .ok_or_else(|| refused(format!("there is no game {id}")))
    }

    /// The error a write that refers to a player who is not stored gets.
    pub(super) fn player(&self, id: PlayerId) -> Result<&Player, StoreError> {
        self.players
            .get(&id)
            .ok_or_else(|| refused(format!("there is no player {id}")))
    }

    /// A game's row with one field changed, as a change.
    pub(super) fn edit_game(
        &mut self,
        id: GameId,
        edit: impl FnOnce(&mut Game),
    ) -> Result<(), StoreError> {
        let mut row = self.game(id)?.clone();
        edit(&mut row);
        self.change(Change::Game(id, Some(row)));
        Ok(())
    }
}

/// Sets (or removes) `key`'s value, returning the one it had.
fn set<K, V, M: Map<K, V>>(map: &mut M, key: K, value: Option<V>) -> Option<V> {
    match value {
        Some(value) => map.put(key, value),
        None => map.take(&key),
    }
}

/// What [`set`] needs of a map, so that one function serves the hash and the ordered ones.
trait Map<K, V> {
    fn put(&mut self, key: K, value: V) -> Option<V>;
    fn take(&mut self, key: &K) -> Option<V>;
}

impl<K: Ord, V> Map<K, V> for BTreeMap<K, V> {
    fn put(&mut self, key: K, value: V) -> Option<V> {
        self.insert(key, value)
    }
    fn take(&mut self, key: &K) -> Option<V> {
        self.remove(key)
    }
}

impl<K: Eq + std::hash::Hash, V> Map<K, V> for HashMap<K, V> {
    fn put(&mut self, key: K, value: V) -> Option<V> {
        self.insert(key, value)
    }
    fn take(&mut self, key: &K) -> Option<V> {
        self.remove(key)
    }
}

/// A write the records' rules refuse (a key given twice, a row referred to that is not there),
/// as a database's constraint would refuse it.
pub(super) fn refused(why: String) -> StoreError {
    StoreError::Refused(why)
}

/// Every account and device.
#[derive(Debug, Default)]
pub(super) struct Accounts {
    /// Each account by its player, with its username key (gone once a closed account's name is
    /// freed).
    pub(super) accounts: HashMap<PlayerId, (StoredAccount, Option<String>)>,
    /// Which player holds each username key.
    pub(super) by_key: HashMap<String, PlayerId>,
    /// Which player holds each username skeleton.
    pub(super) by_skeleton: HashMap<String, PlayerId>,
    /// Each device by id, with its player.
    pub(super) devices: HashMap<u64, (PlayerId, StoredDevice)>,
    /// Each device cookie's hash, with its player and when it was given.
    pub(super) cookies: HashMap<TokenHash, (PlayerId, u64)>,
}

/// Every arena and what belongs to it.
#[derive(Debug, Default)]
pub(super) struct Arenas {
    pub(super) arenas: BTreeMap<ArenaId, StoredArena>,
    /// The schedule's slots taken.
    pub(super) slots: std::collections::HashSet<String>,
    /// Each arena's players, in the order they joined.
    pub(super) entrants: BTreeMap<ArenaId, Vec<Entrant>>,
    /// Each game an arena started, with the arena.
    pub(super) games: BTreeMap<GameId, (ArenaId, ArenaGame)>,
    /// Each podium place, in the order kept.
    pub(super) podiums: Vec<(ArenaId, Place)>,
    /// Each arena's director fencing epoch, once it has one.
    pub(super) epochs: BTreeMap<ArenaId, u64>,
}
