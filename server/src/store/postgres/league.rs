//! The engines' league in PostgreSQL: the same rows as SQLite's, a game counted once by its id
//! whichever node ends it, and a variant's table updated by one end at a time (an advisory lock
//! of the variant's, taken before the game is numbered).

use noughts_protocol::{GameId, PlayerId, Variant};

use super::Postgres;
use crate::rules::league_table::Row;
use crate::store::league::{LeagueBackend, LeagueBot, LeagueGame, LeagueLine, LeagueState};
use crate::store::records::StoreError;
use crate::store::rows::{count, int, parse, text, uint};

/// The advisory lock of the first variant's league; the others' follow it.
const LEAGUE_LOCK: i64 = 0x006c_6561_6775_6500;

/// A line's columns, in [`line`]'s order.
const LINE_COLUMNS: &str = "entrant, played, wins, draws, losses, rating, deviation, volatility";

impl LeagueBackend for Postgres {
    fn lock_league(&mut self, variant: Variant) -> Result<(), StoreError> {
        let key = LEAGUE_LOCK + variant as i64;
        self.conn
            .execute("SELECT pg_advisory_xact_lock($1)", &[&key])?;
        Ok(())
    }

    fn add_league_game(&mut self, game: &LeagueGame) -> Result<Option<u64>, StoreError> {
        let added = self.conn.query_opt(
            "INSERT INTO league_games (game, variant, x, o, winner, ended_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game) DO NOTHING RETURNING n",
            &[
                &int(game.game.0),
                &text(game.variant),
                &game.x,
                &game.o,
                &game.winner.map(text),
                &int(game.ended_ms),
            ],
        )?;
        Ok(added.map(|row| row.try_get(0).map(uint)).transpose()?)
    }

    fn league_games(
        &mut self,
        variant: Variant,
        after: u64,
        limit: u32,
    ) -> Result<Vec<LeagueGame>, StoreError> {
        let rows = self.conn.query(
            "SELECT n, game, x, o, winner, ended_ms FROM league_games \
             WHERE variant = $1 AND n > $2 ORDER BY n LIMIT $3",
            &[&text(variant), &int(after), &i64::from(limit)],
        )?;
        rows.into_iter()
            .map(|row| {
                Ok(LeagueGame {
                    n: uint(row.try_get(0)?),
                    game: GameId(uint(row.try_get(1)?)),
                    variant,
                    x: row.try_get(2)?,
                    o: row.try_get(3)?,
                    winner: row
                        .try_get::<_, Option<String>>(4)?
                        .as_deref()
                        .map(parse)
                        .transpose()?,
                    ended_ms: uint(row.try_get(5)?),
                })
            })
            .collect()
    }

    fn enter_league(&mut self, variant: Variant, bot: &LeagueBot) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "INSERT INTO league_bots (variant, player, name, entered_ms, entered) \
             VALUES ($1, $2, $3, $4, 1) ON CONFLICT (variant, player) DO UPDATE \
             SET entered = 1, name = excluded.name WHERE league_bots.entered = 0",
            &[
                &text(variant),
                &int(bot.player.0),
                &bot.name,
                &int(bot.entered_ms),
            ],
        )?;
        Ok(changed == 1)
    }

    fn leave_league(&mut self, variant: Variant, player: PlayerId) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE league_bots SET entered = 0 \
             WHERE variant = $1 AND player = $2 AND entered = 1",
            &[&text(variant), &int(player.0)],
        )?;
        Ok(changed == 1)
    }

    fn league_bots(&mut self, variant: Variant) -> Result<Vec<LeagueBot>, StoreError> {
        let rows = self.conn.query(
            "SELECT player, name, entered_ms, entered FROM league_bots \
             WHERE variant = $1 ORDER BY entered_ms, player",
            &[&text(variant)],
        )?;
        rows.into_iter()
            .map(|row| {
                Ok(LeagueBot {
                    player: PlayerId(uint(row.try_get(0)?)),
                    name: row.try_get(1)?,
                    entered_ms: uint(row.try_get(2)?),
                    entered: row.try_get::<_, i64>(3)? != 0,
                })
            })
            .collect()
    }

    fn league_state(&mut self, variant: Variant) -> Result<Option<LeagueState>, StoreError> {
        let row = self.conn.query_opt(
            "SELECT round_games, counted, rated_through, last_n, last_x, last_o \
             FROM league_tables WHERE variant = $1",
            &[&text(variant)],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let last_x: Option<String> = row.try_get(4)?;
        let last_o: Option<String> = row.try_get(5)?;
        Ok(Some(LeagueState {
            round_games: count(row.try_get(0)?),
            counted: count(row.try_get(1)?),
            rated_through: uint(row.try_get(2)?),
            last_n: uint(row.try_get(3)?),
            last_pair: last_x.zip(last_o),
        }))
    }

    fn save_league_state(
        &mut self,
        variant: Variant,
        state: &LeagueState,
    ) -> Result<(), StoreError> {
        let (x, o) = state.last_pair.clone().unzip();
        self.conn.execute(
            "INSERT INTO league_tables \
             (variant, round_games, counted, rated_through, last_n, last_x, last_o) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (variant) DO UPDATE SET \
             round_games = excluded.round_games, counted = excluded.counted, \
             rated_through = excluded.rated_through, last_n = excluded.last_n, \
             last_x = excluded.last_x, last_o = excluded.last_o",
            &[
                &text(variant),
                &i64::from(state.round_games),
                &i64::from(state.counted),
                &int(state.rated_through),
                &int(state.last_n),
                &x,
                &o,
            ],
        )?;
        Ok(())
    }

    fn league_lines(&mut self, variant: Variant) -> Result<Vec<LeagueLine>, StoreError> {
        let rows = self.conn.query(
            &format!("SELECT {LINE_COLUMNS} FROM league_lines WHERE variant = $1 ORDER BY entrant"),
            &[&text(variant)],
        )?;
        rows.iter().map(line).collect()
    }

    fn league_line(
        &mut self,
        variant: Variant,
        entrant: &str,
    ) -> Result<Option<LeagueLine>, StoreError> {
        let row = self.conn.query_opt(
            &format!("SELECT {LINE_COLUMNS} FROM league_lines WHERE variant = $1 AND entrant = $2"),
            &[&text(variant), &entrant],
        )?;
        row.as_ref().map(line).transpose()
    }

    fn save_league_line(&mut self, variant: Variant, line: &LeagueLine) -> Result<(), StoreError> {
        let row = &line.row;
        self.conn.execute(
            &format!(
                "INSERT INTO league_lines (variant, {LINE_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (variant, entrant) DO UPDATE SET played = excluded.played, \
                 wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, \
                 rating = excluded.rating, deviation = excluded.deviation, \
                 volatility = excluded.volatility"
            ),
            &[
                &text(variant),
                &line.entrant,
                &i64::from(row.played),
                &i64::from(row.wins),
                &i64::from(row.draws),
                &i64::from(row.losses),
                &row.rating,
                &row.deviation,
                &line.volatility,
            ],
        )?;
        Ok(())
    }

    fn clear_league_lines(&mut self, variant: Variant) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM league_lines WHERE variant = $1",
            &[&text(variant)],
        )?;
        Ok(())
    }
}

/// A line from its row ([`LINE_COLUMNS`]).
fn line(row: &::postgres::Row) -> Result<LeagueLine, StoreError> {
    Ok(LeagueLine {
        entrant: row.try_get(0)?,
        row: Row {
            played: count(row.try_get(1)?),
            wins: count(row.try_get(2)?),
            draws: count(row.try_get(3)?),
            losses: count(row.try_get(4)?),
            rating: row.try_get(5)?,
            deviation: row.try_get(6)?,
        },
        volatility: row.try_get(7)?,
    })
}
