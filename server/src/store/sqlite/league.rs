//! The engines' league in SQLite: a game counted once by its id, and the games read back in
//! the order they were counted.

use noughts_protocol::{GameId, PlayerId, Variant};
use rusqlite::params;

use super::Sqlite;
use crate::store::league::{LeagueBackend, LeagueBot, LeagueGame};
use crate::store::records::StoreError;
use crate::store::rows::{int, parse, text, uint};

impl LeagueBackend for Sqlite {
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<bool, StoreError> {
        let added = self
            .db
            .prepare_cached(
                "INSERT INTO league_games (game, variant, x, o, winner, ended_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (game) DO NOTHING",
            )?
            .execute(params![
                int(game.game.0),
                text(game.variant),
                game.x,
                game.o,
                game.winner.map(text),
                int(game.ended_ms),
            ])?;
        Ok(added == 1)
    }

    fn league_games(
        &mut self,
        variant: Variant,
        after: u64,
        limit: u32,
    ) -> Result<Vec<LeagueGame>, StoreError> {
        let mut query = self.db.prepare_cached(
            "SELECT n, game, x, o, winner, ended_ms FROM league_games \
             WHERE variant = ?1 AND n > ?2 ORDER BY n LIMIT ?3",
        )?;
        let rows = query.query_map(
            params![text(variant), int(after), i64::from(limit)],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, i64>(5)?,
                ))
            },
        )?;
        let mut games = Vec::new();
        for row in rows {
            let (n, game, x, o, winner, ended_ms) = row?;
            games.push(LeagueGame {
                n: uint(n),
                game: GameId(uint(game)),
                variant,
                x,
                o,
                winner: winner.as_deref().map(parse).transpose()?,
                ended_ms: uint(ended_ms),
            });
        }
        Ok(games)
    }

    fn enter_league(&mut self, variant: Variant, bot: &LeagueBot) -> Result<bool, StoreError> {
        let changed = self
            .db
            .prepare_cached(
                "INSERT INTO league_bots (variant, player, name, entered_ms, entered) \
                 VALUES (?1, ?2, ?3, ?4, 1) ON CONFLICT (variant, player) DO UPDATE \
                 SET entered = 1, name = excluded.name WHERE league_bots.entered = 0",
            )?
            .execute(params![
                text(variant),
                int(bot.player.0),
                bot.name,
                int(bot.entered_ms)
            ])?;
        Ok(changed == 1)
    }

    fn leave_league(&mut self, variant: Variant, player: PlayerId) -> Result<bool, StoreError> {
        let changed = self
            .db
            .prepare_cached(
                "UPDATE league_bots SET entered = 0 \
                 WHERE variant = ?1 AND player = ?2 AND entered = 1",
            )?
            .execute(params![text(variant), int(player.0)])?;
        Ok(changed == 1)
    }

    fn league_bots(&mut self, variant: Variant) -> Result<Vec<LeagueBot>, StoreError> {
        let mut query = self.db.prepare_cached(
            "SELECT player, name, entered_ms, entered FROM league_bots \
             WHERE variant = ?1 ORDER BY entered_ms, player",
        )?;
        let rows = query.query_map(params![text(variant)], |row| {
            Ok(LeagueBot {
                player: PlayerId(uint(row.get::<_, i64>(0)?)),
                name: row.get(1)?,
                entered_ms: uint(row.get::<_, i64>(2)?),
                entered: row.get::<_, i64>(3)? != 0,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
