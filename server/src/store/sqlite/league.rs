//! The engines' league in SQLite: a game counted once by its id, the games read back in the
//! order they were counted, and each variant's running table.

use noughts_protocol::{GameId, PlayerId, Variant};
use rusqlite::{OptionalExtension, Row as SqlRow, params};

use super::Sqlite;
use crate::rules::league_table::Row;
use crate::store::league::{LeagueBackend, LeagueBot, LeagueGame, LeagueLine, LeagueState};
use crate::store::records::StoreError;
use crate::store::rows::{count, int, parse, text, uint};

/// A line's columns, in [`line`]'s order.
const LINE_COLUMNS: &str = "entrant, played, wins, draws, losses, rating, deviation, volatility";

impl LeagueBackend for Sqlite {
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<Option<u64>, StoreError> {
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
        Ok((added == 1).then(|| uint(self.db.last_insert_rowid())))
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

    fn league_state(&mut self, variant: Variant) -> Result<Option<LeagueState>, StoreError> {
        let state = self
            .db
            .prepare_cached(
                "SELECT round_games, counted, rated_through, last_n, last_x, last_o \
                 FROM league_tables WHERE variant = ?1",
            )?
            .query_row(params![text(variant)], |row| {
                let last_x: Option<String> = row.get(4)?;
                let last_o: Option<String> = row.get(5)?;
                Ok(LeagueState {
                    round_games: count(row.get(0)?),
                    counted: count(row.get(1)?),
                    rated_through: uint(row.get(2)?),
                    last_n: uint(row.get(3)?),
                    last_pair: last_x.zip(last_o),
                })
            })
            .optional()?;
        Ok(state)
    }

    fn save_league_state(
        &mut self,
        variant: Variant,
        state: &LeagueState,
    ) -> Result<(), StoreError> {
        let (x, o) = state.last_pair.clone().unzip();
        self.db
            .prepare_cached(
                "INSERT INTO league_tables \
                 (variant, round_games, counted, rated_through, last_n, last_x, last_o) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (variant) DO UPDATE SET \
                 round_games = excluded.round_games, counted = excluded.counted, \
                 rated_through = excluded.rated_through, last_n = excluded.last_n, \
                 last_x = excluded.last_x, last_o = excluded.last_o",
            )?
            .execute(params![
                text(variant),
                i64::from(state.round_games),
                i64::from(state.counted),
                int(state.rated_through),
                int(state.last_n),
                x,
                o,
            ])?;
        Ok(())
    }

    fn league_lines(&mut self, variant: Variant) -> Result<Vec<LeagueLine>, StoreError> {
        let mut query = self.db.prepare_cached(&format!(
            "SELECT {LINE_COLUMNS} FROM league_lines WHERE variant = ?1 ORDER BY entrant"
        ))?;
        let rows = query.query_map(params![text(variant)], line)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn league_line(
        &mut self,
        variant: Variant,
        entrant: &str,
    ) -> Result<Option<LeagueLine>, StoreError> {
        let line = self
            .db
            .prepare_cached(&format!(
                "SELECT {LINE_COLUMNS} FROM league_lines WHERE variant = ?1 AND entrant = ?2"
            ))?
            .query_row(params![text(variant), entrant], line)
            .optional()?;
        Ok(line)
    }

    fn save_league_line(&mut self, variant: Variant, line: &LeagueLine) -> Result<(), StoreError> {
        let row = &line.row;
        self.db
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO league_lines (variant, {LINE_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            ))?
            .execute(params![
                text(variant),
                line.entrant,
                i64::from(row.played),
                i64::from(row.wins),
                i64::from(row.draws),
                i64::from(row.losses),
                row.rating,
                row.deviation,
                line.volatility,
            ])?;
        Ok(())
    }

    fn clear_league_lines(&mut self, variant: Variant) -> Result<(), StoreError> {
        self.db
            .prepare_cached("DELETE FROM league_lines WHERE variant = ?1")?
            .execute(params![text(variant)])?;
        Ok(())
    }
}

/// A line from its row ([`LINE_COLUMNS`]).
fn line(row: &SqlRow<'_>) -> rusqlite::Result<LeagueLine> {
    Ok(LeagueLine {
        entrant: row.get(0)?,
        row: Row {
            played: count(row.get(1)?),
            wins: count(row.get(2)?),
            draws: count(row.get(3)?),
            losses: count(row.get(4)?),
            rating: row.get(5)?,
            deviation: row.get(6)?,
        },
        volatility: row.get(7)?,
    })
}
