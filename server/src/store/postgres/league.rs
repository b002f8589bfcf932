//! The engines' league in PostgreSQL: the same rows as SQLite's, a game counted once by its id
//! whichever node ends it.

use noughts_protocol::{GameId, PlayerId, Variant};

use super::Postgres;
use crate::store::league::{LeagueBackend, LeagueBot, LeagueGame};
use crate::store::records::StoreError;
use crate::store::rows::{int, parse, text, uint};

impl LeagueBackend for Postgres {
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<bool, StoreError> {
        let added = self.conn.execute(
            "INSERT INTO league_games (game, variant, x, o, winner, ended_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game) DO NOTHING",
            &[
                &int(game.game.0),
                &text(game.variant),
                &game.x,
                &game.o,
                &game.winner.map(text),
                &int(game.ended_ms),
            ],
        )?;
        Ok(added == 1)
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
}
