//! The store in memory: the same records as the databases keep, in plain maps owned by the
//! process and gone with it, held to the same rules (a key given twice or a row referred to that
//! is not there is refused; a write inside a batch is undone alone when it fails). `tables.rs`
//! holds the maps and their undo log, `reads.rs` the questions.

mod accounts;
mod arenas;
mod league;
mod reads;
mod tables;

use noughts_protocol::{GameId, GameKind, GameResult, PlayerId, Variant};

use super::backend::{Backend, Closed, PlayerRow};
use super::records::ModerationEntry;
use super::records::{
    Ending, GameStart, Results, StoreError, StoredMove, StoredStanding, TokenHash, TokenRules,
};
use super::rows::{GameRow, SeatRating, parse, text};
use crate::rules::rating::{Glicko, Ratings, Score};
use crate::rules::sitter::Sitter;
use tables::{Change, Game, Player, Rating, Tables, Token, refused};

/// Every record, in memory.
#[derive(Debug)]
pub(super) struct Memory {
    tables: Tables,
    /// How many finished games keep their records; older ones are forgotten as more end.
    keep_finished: usize,
    /// Accounts and their devices.
    accounts: tables::Accounts,
    /// Arenas, their players, games and podiums.
    arenas: tables::Arenas,
    /// The last id of the newest block of each kind taken. Never undone: an id given out in a
    /// batch that failed is only skipped, never given again.
    id_blocks: std::collections::HashMap<String, u64>,
}

impl Memory {
    /// Records that keep the newest `keep_finished` finished games.
    pub(super) fn new(keep_finished: usize) -> Memory {
        Memory {
            tables: Tables::default(),
            keep_finished,
            accounts: tables::Accounts::default(),
            arenas: tables::Arenas::default(),
            id_blocks: std::collections::HashMap::new(),
        }
    }

    /// A new token of `player`'s, as `hash`; refused if that hash is stored already.
    fn issue(&mut self, hash: TokenHash, player: PlayerId, now: u64) -> Result<(), StoreError> {
        if self.tables.tokens.contains_key(&hash) {
            return Err(refused("a token is stored already".into()));
        }
        let row = Token {
            player,
            used_ms: now,
            expires_ms: None,
        };
        self.tables.change(Change::Token(hash, Some(row)));
        Ok(())
    }
}

/// Whether a token no longer works: replaced longer than the overlap ago, or unused too long.
fn dead(token: &Token, now: u64, unused_since: u64) -> bool {
    token.expires_ms.is_some_and(|at| at <= now) || token.used_ms <= unused_since
}

impl Backend for Memory {
    fn begin(&mut self) -> Result<(), StoreError> {
        self.tables.begin();
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.tables.commit();
        self.tables.forget_finished(self.keep_finished);
        Ok(())
    }

    fn rollback(&mut self) {
        self.tables.rollback();
    }

    fn savepoint(&mut self) -> Result<(), StoreError> {
        self.tables.savepoint();
        Ok(())
    }

    fn end_savepoint(&mut self, keep: bool) -> Result<(), StoreError> {
        self.tables.end_savepoint(keep);
        Ok(())
    }

    fn last_ids(&mut self) -> Result<(u64, u64), StoreError> {
        let t = &self.tables;
        let player = t.players.last_key_value().map_or(0, |(id, _)| id.0);
        let game = t.games.last_key_value().map_or(0, |(id, _)| id.0);
        Ok((player, game))
    }

    fn live_ids(&mut self) -> Result<Vec<GameId>, StoreError> {
        Ok(self.tables.live.iter().copied().collect())
    }

    fn live_ids_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        let t = &self.tables;
        Ok(t.games_of.get(&player).map_or_else(Vec::new, |games| {
            games
                .iter()
                .filter(|id| t.live.contains(id))
                .copied()
                .collect()
        }))
    }

    fn add_player(
        &mut self,
        player: PlayerId,
        name: &str,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        if self.tables.players.contains_key(&player) {
            return Err(refused(format!("player {player} is stored already")));
        }
        let row = Player {
            name: name.to_owned(),
            created_ms: now,
            last_seen_ms: now,
        };
        self.tables.change(Change::Player(player, Some(row)));
        self.issue(token, player, now)
    }

    fn seen(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        if let Some(row) = self.tables.players.get(&player) {
            let row = Player {
                last_seen_ms: now,
                ..row.clone()
            };
            self.tables.change(Change::Player(player, Some(row)));
        }
        Ok(())
    }

    fn rename_player(&mut self, player: PlayerId, name: &str) -> Result<(), StoreError> {
        if let Some(row) = self.tables.players.get(&player) {
            let row = Player {
                name: name.to_owned(),
                ..row.clone()
            };
            self.tables.change(Change::Player(player, Some(row)));
        }
        Ok(())
    }

    fn token_owner(
        &mut self,
        presented: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError> {
        let unused_since = now.saturating_sub(rules.idle_ms);
        Ok(self
            .tables
            .tokens
            .get(&presented)
            .filter(|t| !dead(t, now, unused_since))
            .map(|t| t.player))
    }

    fn rotate_token(
        &mut self,
        presented: TokenHash,
        fresh: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError> {
        let Some(player) = self.token_owner(presented, rules, now)? else {
            return Ok(None);
        };
        let token = self.tables.tokens[&presented];
        let unused_since = now.saturating_sub(rules.idle_ms);
        let held = self.tables.tokens_of(player);
        for hash in held {
            if self
                .tables
                .tokens
                .get(&hash)
                .is_some_and(|t| dead(t, now, unused_since))
            {
                self.tables.change(Change::Token(hash, None));
            }
        }
        let overlap_ends = now.saturating_add(rules.overlap_ms);
        let replaced = Token {
            expires_ms: Some(
                token
                    .expires_ms
                    .map_or(overlap_ends, |at| at.min(overlap_ends)),
            ),
            ..token
        };
        self.tables.change(Change::Token(presented, Some(replaced)));
        self.issue(fresh, player, now)?;
        self.seen(player, now)?;
        Ok(Some(player))
    }

    fn touch_token(&mut self, hash: TokenHash, now: u64) -> Result<(), StoreError> {
        if let Some(token) = self.tables.tokens.get(&hash).copied()
            && token.expires_ms.is_none()
            && token.used_ms < now
        {
            let used = Token {
                used_ms: now,
                ..token
            };
            self.tables.change(Change::Token(hash, Some(used)));
        }
        Ok(())
    }

    fn revoke_tokens(&mut self, player: PlayerId) -> Result<usize, StoreError> {
        let held = self.tables.tokens_of(player);
        for hash in &held {
            self.tables.change(Change::Token(*hash, None));
        }
        Ok(held.len())
    }

    fn prune_tokens(&mut self, rules: TokenRules, now: u64) -> Result<usize, StoreError> {
        let unused_since = now.saturating_sub(rules.idle_ms);
        let gone: Vec<TokenHash> = (self.tables.tokens.iter())
            .filter(|(_, token)| dead(token, now, unused_since))
            .map(|(hash, _)| *hash)
            .collect();
        for hash in &gone {
            self.tables.change(Change::Token(*hash, None));
        }
        Ok(gone.len())
    }

    fn start_game(&mut self, start: &GameStart) -> Result<(), StoreError> {
        if self.tables.games.contains_key(&start.game) {
            return Err(refused(format!("game {} is stored already", start.game)));
        }
        let people = start.seats.iter().filter_map(Sitter::human);
        for player in people.chain(start.owner.as_ref()) {
            self.tables.player(*player)?;
        }
        let row = Game {
            row: GameRow {
                start: start.clone(),
                seq: 0,
                ended_ms: None,
                result: None,
                ratings: [(None, None); 2],
            },
            owner_epoch: 0,
        };
        self.tables.change(Change::Game(start.game, Some(row)));
        Ok(())
    }

    fn add_move(
        &mut self,
        game: GameId,
        ply: u32,
        played: &StoredMove,
    ) -> Result<Option<usize>, StoreError> {
        self.tables.game(game)?;
        let moves = self.tables.moves.get(&game).map_or(&[][..], Vec::as_slice);
        if let Some((_, stored)) = moves.iter().find(|(p, _)| *p == ply) {
            return Ok(Some(stored.cell));
        }
        self.tables.change(Change::AddMove(game, ply, *played));
        Ok(None)
    }

    fn drop_moves(&mut self, game: GameId, keep: u32) -> Result<(), StoreError> {
        if self.tables.moves.contains_key(&game) {
            self.tables.change(Change::DropMoves(game, keep));
        }
        Ok(())
    }

    fn fence(&mut self, game: GameId, epoch: u64) -> Result<bool, StoreError> {
        match self.tables.games.get(&game).map(|g| g.owner_epoch) {
            None => Ok(false),
            Some(held) if held > epoch => Ok(false),
            Some(held) if held == epoch => Ok(true),
            Some(_) => {
                self.tables.edit_game(game, |g| g.owner_epoch = epoch)?;
                Ok(true)
            }
        }
    }

    fn claim(&mut self, game: GameId, held: Option<u64>) -> Result<Option<u64>, StoreError> {
        let Some(epoch) = self
            .tables
            .games
            .get(&game)
            .filter(|g| g.row.ended_ms.is_none())
            .map(|g| g.owner_epoch)
        else {
            return Ok(None);
        };
        match held {
            Some(held) => Ok((held == epoch).then_some(epoch)),
            None => {
                self.tables.edit_game(game, |g| g.owner_epoch = epoch + 1)?;
                Ok(Some(epoch + 1))
            }
        }
    }

    fn live_war_games(&mut self, variant: Variant) -> Result<Vec<GameId>, StoreError> {
        Ok(self
            .tables
            .games
            .iter()
            .rev()
            .filter(|(_, game)| {
                let start = &game.row.start;
                game.row.ended_ms.is_none()
                    && start.kind == GameKind::War
                    && start.owner.is_none()
                    && start.variant == variant
            })
            .map(|(&id, _)| id)
            .collect())
    }

    fn reserve_ids(&mut self, kind: &str, size: u64, floor: u64) -> Result<u64, StoreError> {
        let last = self.id_blocks.entry(kind.to_owned()).or_insert(0);
        *last = (*last).max(floor) + size;
        Ok(*last)
    }

    fn raise_seq(&mut self, game: GameId, seq: u64) -> Result<(), StoreError> {
        if self
            .tables
            .games
            .get(&game)
            .is_some_and(|g| g.row.seq < seq)
        {
            self.tables.edit_game(game, |g| g.row.seq = seq)?;
        }
        Ok(())
    }

    fn close_game(&mut self, game: GameId, ending: &Ending) -> Result<Option<Closed>, StoreError> {
        let Some(kept) = self
            .tables
            .games
            .get(&game)
            .filter(|g| g.row.ended_ms.is_none())
        else {
            return Ok(None);
        };
        let [x, o] = kept.row.start.seats.map(|seat| seat.human().copied());
        let closed = Closed {
            rated: kept.row.start.rated,
            variant: text(kept.row.start.variant),
            x,
            o,
        };
        self.tables.edit_game(game, |g| {
            g.row.ended_ms = Some(ending.ended_ms);
            g.row.result = Some(GameResult {
                winner: ending.winner,
                reason: ending.reason,
                cells: ending.cells.clone(),
            });
            g.row.seq = g.row.seq.max(ending.seq);
        })?;
        Ok(Some(closed))
    }

    fn rating(&mut self, player: PlayerId, variant: &str) -> Result<Option<Glicko>, StoreError> {
        let variant: Variant = parse(variant)?;
        Ok(self
            .tables
            .ratings
            .get(&(player, variant))
            .map(|r| r.glicko))
    }

    fn save_rating(
        &mut self,
        player: PlayerId,
        variant: &str,
        after: Glicko,
        score: Score,
    ) -> Result<(), StoreError> {
        let variant: Variant = parse(variant)?;
        self.tables.player(player)?;
        let before = self.tables.ratings.get(&(player, variant));
        let mut results = before.map(|r| r.results).unwrap_or_default();
        results.games += 1;
        match score {
            Score::Win => results.wins += 1,
            Score::Draw => results.draws += 1,
            Score::Loss => results.losses += 1,
        }
        let row = Rating {
            glicko: after,
            results,
        };
        self.tables
            .change(Change::Rating(player, variant, Some(row)));
        Ok(())
    }

    fn set_game_ratings(
        &mut self,
        game: GameId,
        [x, o]: [SeatRating; 2],
    ) -> Result<(), StoreError> {
        if self.tables.games.contains_key(&game) {
            self.tables.edit_game(game, |g| {
                g.row.ratings = [
                    (Some(x.before), Some(x.change)),
                    (Some(o.before), Some(o.change)),
                ];
            })?;
        }
        Ok(())
    }

    fn game(&mut self, game: GameId) -> Result<Option<GameRow>, StoreError> {
        Ok(reads::game(&self.tables, game))
    }

    fn moves(&mut self, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
        Ok(reads::moves(&self.tables, game))
    }

    fn player_row(&mut self, player: PlayerId) -> Result<Option<PlayerRow>, StoreError> {
        Ok(reads::player_row(&self.tables, player))
    }

    fn add_moderation(&mut self, entry: &ModerationEntry) -> Result<u64, StoreError> {
        let id = self.tables.moderation.last().map_or(0, |last| last.id) + 1;
        let entry = ModerationEntry {
            id,
            ..entry.clone()
        };
        self.tables.change(Change::AddModeration(entry));
        Ok(id)
    }

    fn moderation_since(
        &mut self,
        after: u64,
        limit: u32,
    ) -> Result<Vec<ModerationEntry>, StoreError> {
        let log = &self.tables.moderation;
        let from = log.partition_point(|entry| entry.id <= after);
        Ok(log[from..].iter().take(limit as usize).cloned().collect())
    }

    fn ratings(&mut self, player: PlayerId) -> Result<Ratings, StoreError> {
        Ok(reads::ratings(&self.tables, player))
    }

    fn results(&mut self, player: PlayerId) -> Result<Vec<(Variant, Results)>, StoreError> {
        Ok(reads::results(&self.tables, player))
    }

    fn leaderboard(
        &mut self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<StoredStanding>, StoreError> {
        Ok(reads::leaderboard(
            &self.tables,
            &self.accounts,
            variant,
            offset,
            limit,
        ))
    }

    fn finished_games(
        &mut self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Vec<(GameRow, u32)>, StoreError> {
        Ok(reads::finished_games(
            &self.tables,
            player,
            before,
            limit,
            viewer,
        ))
    }

    fn token_used_ms(&mut self, hash: TokenHash) -> Result<Option<u64>, StoreError> {
        Ok(reads::token_used_ms(&self.tables, hash))
    }

    fn ended_since(
        &mut self,
        player: PlayerId,
        since_ms: u64,
        recent: u32,
        limit: u32,
    ) -> Result<Vec<GameRow>, StoreError> {
        Ok(reads::ended_since(
            &self.tables,
            player,
            since_ms,
            recent,
            limit,
        ))
    }

    /// A game whose X is a person who is not stored: the one way a game in memory can be
    /// unreadable, since nothing here is decoded.
    #[cfg(test)]
    fn spoil(&mut self, game: GameId) -> Result<(), StoreError> {
        self.tables.edit_game(game, |g| {
            g.row.start.seats[0] = Sitter::Human(PlayerId(u64::MAX));
        })
    }
}
