//! The engines' league in memory: the counted games in order, each game once.

use noughts_protocol::Variant;

use super::Memory;
use super::tables::Change;
use crate::store::league::{LeagueBackend, LeagueGame};
use crate::store::records::StoreError;

impl LeagueBackend for Memory {
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<bool, StoreError> {
        let league = &self.tables.league;
        if league.iter().any(|counted| counted.game == game.game) {
            return Ok(false);
        }
        let n = league.last().map_or(0, |last| last.n) + 1;
        let game = LeagueGame { n, ..game.clone() };
        self.tables.change(Change::AddLeague(game));
        Ok(true)
    }

    fn league_games(
        &mut self,
        variant: Variant,
        after: u64,
        limit: u32,
    ) -> Result<Vec<LeagueGame>, StoreError> {
        let league = &self.tables.league;
        let from = league.partition_point(|game| game.n <= after);
        Ok(league[from..]
            .iter()
            .filter(|game| game.variant == variant)
            .take(limit as usize)
            .cloned()
            .collect())
    }
}
