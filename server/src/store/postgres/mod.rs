//! The store in PostgreSQL: each fact written, in the same tables as SQLite's; `client.rs` holds
//! the connection and the schema, `reads.rs` the questions. Everything here runs on the store
//! thread.

mod accounts;
mod arenas;
mod client;
mod league;
mod moderation;
mod reads;
mod tls;

use noughts_protocol::{GameId, GameKind, PlayerId, Variant};

use super::backend::{Backend, Closed, PlayerRow};
use super::records::ModerationEntry;
use super::records::{
    Ending, GameStart, Results, StoreError, StoredMove, StoredStanding, TokenHash, TokenRules,
};
use super::rows::{GameRow, SeatRating, cells_text, int, text, uint};
use crate::rules::rating::{Glicko, Ratings, Score};
use crate::rules::sitter::Sitter;
use client::Conn;

/// A PostgreSQL database, as the store thread drives it.
#[derive(Debug)]
pub(super) struct Postgres {
    /// The one connection; the store thread is its only user.
    conn: Conn,
}

impl Postgres {
    /// Connects to `url` (a clear error when PostgreSQL cannot be reached) and brings the schema
    /// up to date.
    pub(super) fn connect(url: &str) -> Result<Postgres, StoreError> {
        Ok(Postgres {
            conn: Conn::connect(url)?,
        })
    }
}

/// The migrations, for tests.
#[cfg(test)]
pub(super) const MIGRATIONS: &[&str] = client::MIGRATIONS;

impl Backend for Postgres {
    fn begin(&mut self) -> Result<(), StoreError> {
        self.conn.begin()
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.conn.commit()
    }

    fn rollback(&mut self) {
        self.conn.rollback();
    }

    fn savepoint(&mut self) -> Result<(), StoreError> {
        self.conn.batch("SAVEPOINT write")
    }

    fn answer_when_written(&mut self, written: bool) -> Result<(), StoreError> {
        self.conn.answer_when_written(written)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.conn.flush()
    }

    fn end_savepoint(&mut self, keep: bool) -> Result<(), StoreError> {
        self.conn.batch(if keep {
            "RELEASE write"
        } else {
            "ROLLBACK TO write; RELEASE write"
        })
    }

    fn last_ids(&mut self) -> Result<(u64, u64), StoreError> {
        let row = self.conn.query_one(
            "SELECT (SELECT COALESCE(MAX(id), 0) FROM players), \
             (SELECT COALESCE(MAX(id), 0) FROM games)",
            &[],
        )?;
        Ok((uint(row.try_get(0)?), uint(row.try_get(1)?)))
    }

    fn live_ids(&mut self) -> Result<Vec<GameId>, StoreError> {
        self.conn
            .query(
                "SELECT id FROM games WHERE ended_ms IS NULL ORDER BY id",
                &[],
            )?
            .iter()
            .map(|row| Ok(GameId(uint(row.try_get(0)?))))
            .collect()
    }

    fn live_ids_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        self.conn
            .query(
                "SELECT id FROM games WHERE ended_ms IS NULL AND (x_player = $1 OR o_player = $1) \
                 ORDER BY id",
                &[&int(player.0)],
            )?
            .iter()
            .map(|row| Ok(GameId(uint(row.try_get(0)?))))
            .collect()
    }

    fn add_player(
        &mut self,
        player: PlayerId,
        name: &str,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO players (id, name, created_ms, last_seen_ms) VALUES ($1, $2, $3, $3)",
            &[&int(player.0), &name, &int(now)],
        )?;
        self.conn.execute(
            "INSERT INTO tokens (hash, player, used_ms) VALUES ($1, $2, $3)",
            &[&&token.0[..], &int(player.0), &int(now)],
        )?;
        Ok(())
    }

    fn seen(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        // Several nodes may note the same players at once, each inside a batch that holds the
        // rows it has written: a row another transaction holds is skipped rather than waited
        // for (that transaction is noting the player too), so these writes never deadlock.
        self.conn.execute(
            "UPDATE players SET last_seen_ms = GREATEST(last_seen_ms, $2) \
             WHERE id = (SELECT id FROM players WHERE id = $1 FOR UPDATE SKIP LOCKED)",
            &[&int(player.0), &int(now)],
        )?;
        Ok(())
    }

    fn rename_player(&mut self, player: PlayerId, name: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE players SET name = $2 WHERE id = $1",
            &[&int(player.0), &name],
        )?;
        Ok(())
    }

    fn token_owner(
        &mut self,
        presented: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError> {
        let unused_since = int(now.saturating_sub(rules.idle_ms));
        let found = self.conn.query_opt(
            "SELECT player FROM tokens WHERE hash = $1 \
             AND (expires_ms IS NULL OR expires_ms > $2) AND used_ms > $3",
            &[&&presented.0[..], &int(now), &unused_since],
        )?;
        let Some(row) = found else {
            return Ok(None);
        };
        let player: i64 = row.try_get(0)?;
        Ok(Some(PlayerId(uint(player))))
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
        let player = int(player.0);
        let unused_since = int(now.saturating_sub(rules.idle_ms));
        self.conn.execute(
            "DELETE FROM tokens WHERE player = $1 AND (expires_ms <= $2 OR used_ms <= $3)",
            &[&player, &int(now), &unused_since],
        )?;
        self.conn.execute(
            "UPDATE tokens SET expires_ms = LEAST(COALESCE(expires_ms, $2), $2) WHERE hash = $1",
            &[
                &&presented.0[..],
                &int(now.saturating_add(rules.overlap_ms)),
            ],
        )?;
        self.conn.execute(
            "INSERT INTO tokens (hash, player, used_ms) VALUES ($1, $2, $3)",
            &[&&fresh.0[..], &player, &int(now)],
        )?;
        let player = PlayerId(uint(player));
        self.seen(player, now)?;
        Ok(Some(player))
    }

    fn touch_token(&mut self, hash: TokenHash, now: u64) -> Result<(), StoreError> {
        // A node whose connections close together notes their tokens used in one batch, while
        // their players come back on other nodes and trade those tokens in batches of their own:
        // waiting for a row another transaction holds would let two such batches deadlock. That
        // transaction is trading the token (it expires, so its last use no longer counts) or
        // noting it used too, so the row is skipped rather than waited for.
        self.conn.execute(
            "UPDATE tokens SET used_ms = GREATEST(used_ms, $2) \
             WHERE hash = (SELECT hash FROM tokens WHERE hash = $1 AND expires_ms IS NULL \
             FOR UPDATE SKIP LOCKED)",
            &[&&hash.0[..], &int(now)],
        )?;
        Ok(())
    }

    fn revoke_tokens(&mut self, player: PlayerId) -> Result<usize, StoreError> {
        let gone = self
            .conn
            .execute("DELETE FROM tokens WHERE player = $1", &[&int(player.0)])?;
        Ok(usize::try_from(gone).unwrap_or(usize::MAX))
    }

    fn prune_tokens(&mut self, rules: TokenRules, now: u64) -> Result<usize, StoreError> {
        let gone = self.conn.execute(
            "DELETE FROM tokens WHERE expires_ms <= $1 OR used_ms <= $2",
            &[&int(now), &int(now.saturating_sub(rules.idle_ms))],
        )?;
        Ok(usize::try_from(gone).unwrap_or(usize::MAX))
    }

    fn start_game(&mut self, start: &GameStart) -> Result<(), StoreError> {
        let seat = |seat: &Sitter| match seat {
            Sitter::Human(player) => (Some(int(player.0)), None),
            Sitter::Ai(level) => (None, Some(text(level))),
        };
        let (x_player, x_level) = seat(&start.seats[0]);
        let (o_player, o_level) = seat(&start.seats[1]);
        self.conn.execute(
            "INSERT INTO games (id, variant, kind, x_player, x_level, o_player, o_level, \
             clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, \
             started_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            &[
                &int(start.game.0),
                &text(start.variant),
                &text(start.kind),
                &x_player,
                &x_level,
                &o_player,
                &o_level,
                &start.clock.map(|c| int(c.initial_ms)),
                &start.clock.map(|c| int(c.increment_ms)),
                &start.rated,
                &start.listed,
                &start.rematch_of.map(|g| int(g.0)),
                &start.owner.map(|p| int(p.0)),
                &int(start.started_ms),
            ],
        )?;
        Ok(())
    }

    fn add_move(
        &mut self,
        game: GameId,
        ply: u32,
        played: &StoredMove,
    ) -> Result<Option<usize>, StoreError> {
        let added = self.conn.execute(
            "INSERT INTO moves (game, ply, cell, at_ms, clock_ms) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (game, ply) DO NOTHING",
            &[
                &int(game.0),
                &i64::from(ply),
                &i64::try_from(played.cell).unwrap_or(i64::MAX),
                &int(played.at_ms),
                &played.clock_ms.map(int),
            ],
        )?;
        if added == 1 {
            return Ok(None);
        }
        let row = self.conn.query_opt(
            "SELECT cell FROM moves WHERE game = $1 AND ply = $2",
            &[&int(game.0), &i64::from(ply)],
        )?;
        Ok(row
            .map(|row| row.try_get::<_, i64>(0))
            .transpose()?
            .map(|cell| usize::try_from(cell).unwrap_or(usize::MAX)))
    }

    fn drop_moves(&mut self, game: GameId, keep: u32) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM moves WHERE game = $1 AND ply >= $2",
            &[&int(game.0), &i64::from(keep)],
        )?;
        Ok(())
    }

    fn fence(&mut self, game: GameId, epoch: u64) -> Result<bool, StoreError> {
        let kept = self.conn.execute(
            "UPDATE games SET owner_epoch = $2 WHERE id = $1 AND owner_epoch <= $2",
            &[&int(game.0), &int(epoch)],
        )?;
        Ok(kept == 1)
    }

    fn claim(&mut self, game: GameId, held: Option<u64>) -> Result<Option<u64>, StoreError> {
        // Both take the row's lock, so a write of the game under way commits before (and is
        // read by the new holder) or is refused after.
        let row = match held {
            None => self.conn.query_opt(
                "UPDATE games SET owner_epoch = owner_epoch + 1 \
                 WHERE id = $1 AND ended_ms IS NULL RETURNING owner_epoch",
                &[&int(game.0)],
            )?,
            Some(epoch) => self.conn.query_opt(
                "SELECT owner_epoch FROM games \
                 WHERE id = $1 AND ended_ms IS NULL AND owner_epoch = $2 FOR UPDATE",
                &[&int(game.0), &int(epoch)],
            )?,
        };
        row.map(|row| Ok(uint(row.try_get(0)?))).transpose()
    }

    fn live_war_games(&mut self, variant: Variant) -> Result<Vec<GameId>, StoreError> {
        self.conn
            .query(
                "SELECT id FROM games WHERE ended_ms IS NULL AND kind = $1 \
                 AND started_by IS NULL AND variant = $2 ORDER BY id DESC",
                &[&text(GameKind::War), &text(variant)],
            )?
            .iter()
            .map(|row| Ok(GameId(uint(row.try_get(0)?))))
            .collect()
    }

    fn reserve_ids(&mut self, kind: &str, size: u64, floor: u64) -> Result<u64, StoreError> {
        let row = self.conn.query_one(
            "INSERT INTO id_blocks (kind, last) VALUES ($1, $2::BIGINT + $3::BIGINT) \
             ON CONFLICT (kind) DO UPDATE \
             SET last = GREATEST(id_blocks.last, $2::BIGINT) + $3::BIGINT RETURNING last",
            &[&kind, &int(floor), &int(size)],
        )?;
        Ok(uint(row.try_get(0)?))
    }

    fn raise_seq(&mut self, game: GameId, seq: u64) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE games SET seq = GREATEST(seq, $2) WHERE id = $1",
            &[&int(game.0), &int(seq)],
        )?;
        Ok(())
    }

    fn close_game(&mut self, game: GameId, ending: &Ending) -> Result<Option<Closed>, StoreError> {
        let row = self.conn.query_opt(
            "UPDATE games SET ended_ms = $2, winner = $3, reason = $4, cells = $5, \
             seq = GREATEST(seq, $6) WHERE id = $1 AND ended_ms IS NULL \
             RETURNING rated, variant, x_player, o_player",
            &[
                &int(game.0),
                &int(ending.ended_ms),
                &ending.winner.map(text),
                &text(ending.reason),
                &cells_text(&ending.cells),
                &int(ending.seq),
            ],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let player = |id: Option<i64>| id.map(|id| PlayerId(uint(id)));
        Ok(Some(Closed {
            rated: row.try_get(0)?,
            variant: row.try_get(1)?,
            x: player(row.try_get(2)?),
            o: player(row.try_get(3)?),
        }))
    }

    fn rating(&mut self, player: PlayerId, variant: &str) -> Result<Option<Glicko>, StoreError> {
        let row = self.conn.query_opt(
            // Locked until the rating is saved: two nodes rating one player at once take turns.
            "SELECT rating, deviation, volatility FROM ratings WHERE player = $1 AND variant = $2 \
             FOR UPDATE",
            &[&int(player.0), &variant],
        )?;
        row.map(|row| {
            Ok(Glicko {
                rating: row.try_get(0)?,
                deviation: row.try_get(1)?,
                volatility: row.try_get(2)?,
            })
        })
        .transpose()
    }

    fn save_rating(
        &mut self,
        player: PlayerId,
        variant: &str,
        after: Glicko,
        score: Score,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO ratings (player, variant, rating, deviation, volatility, games, wins, \
             draws, losses) VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8) \
             ON CONFLICT (player, variant) DO UPDATE SET rating = $3, deviation = $4, \
             volatility = $5, games = ratings.games + 1, wins = ratings.wins + $6, \
             draws = ratings.draws + $7, losses = ratings.losses + $8",
            &[
                &int(player.0),
                &variant,
                &after.rating,
                &after.deviation,
                &after.volatility,
                &i64::from(score == Score::Win),
                &i64::from(score == Score::Draw),
                &i64::from(score == Score::Loss),
            ],
        )?;
        Ok(())
    }

    fn set_game_ratings(
        &mut self,
        game: GameId,
        [x, o]: [SeatRating; 2],
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE games SET x_rating = $2, x_rating_change = $3, o_rating = $4, \
             o_rating_change = $5 WHERE id = $1",
            &[&int(game.0), &x.before, &x.change, &o.before, &o.change],
        )?;
        Ok(())
    }

    fn game(&mut self, game: GameId) -> Result<Option<GameRow>, StoreError> {
        reads::game(&mut self.conn, game)
    }

    fn moves(&mut self, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
        reads::moves(&mut self.conn, game)
    }

    fn add_moderation(&mut self, entry: &ModerationEntry) -> Result<u64, StoreError> {
        moderation::add(&mut self.conn, entry)
    }

    fn moderation_since(
        &mut self,
        after: u64,
        limit: u32,
    ) -> Result<Vec<ModerationEntry>, StoreError> {
        moderation::since(&mut self.conn, after, limit)
    }

    fn player_row(&mut self, player: PlayerId) -> Result<Option<PlayerRow>, StoreError> {
        reads::player_row(&mut self.conn, player)
    }

    fn ratings(&mut self, player: PlayerId) -> Result<Ratings, StoreError> {
        reads::ratings(&mut self.conn, player)
    }

    fn results(&mut self, player: PlayerId) -> Result<Vec<(Variant, Results)>, StoreError> {
        reads::results(&mut self.conn, player)
    }

    fn leaderboard(
        &mut self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<StoredStanding>, StoreError> {
        reads::leaderboard(&mut self.conn, variant, offset, limit)
    }

    fn finished_games(
        &mut self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Vec<(GameRow, u32)>, StoreError> {
        reads::finished_games(&mut self.conn, player, before, limit, viewer)
    }

    fn token_used_ms(&mut self, hash: TokenHash) -> Result<Option<u64>, StoreError> {
        reads::token_used_ms(&mut self.conn, hash)
    }

    fn ended_since(
        &mut self,
        player: PlayerId,
        since_ms: u64,
        recent: u32,
        limit: u32,
    ) -> Result<Vec<GameRow>, StoreError> {
        reads::ended_since(&mut self.conn, player, since_ms, recent, limit)
    }

    /// An unknown variant: the row no longer decodes.
    #[cfg(test)]
    fn spoil(&mut self, game: GameId) -> Result<(), StoreError> {
        self.execute(&format!(
            "UPDATE games SET variant = 'chess' WHERE id = {}",
            game.0
        ))
    }
}

impl Postgres {
    /// Runs SQL as it is, for tests that spoil a database on purpose.
    #[cfg(test)]
    pub(super) fn execute(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn.batch(sql)
    }
}
