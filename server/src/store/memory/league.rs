//! The engines' league in memory: the counted games in order, each game once, and each
//! variant's running table.

use noughts_protocol::{PlayerId, Variant};

use super::Memory;
use super::tables::Change;
use crate::store::league::{LeagueBackend, LeagueBot, LeagueGame, LeagueLine, LeagueState};
use crate::store::records::StoreError;

impl LeagueBackend for Memory {
    fn add_league_game(&mut self, game: &LeagueGame) -> Result<Option<u64>, StoreError> {
        let league = &self.tables.league;
        if league.iter().any(|counted| counted.game == game.game) {
            return Ok(None);
        }
        let n = league.last().map_or(0, |last| last.n) + 1;
        let game = LeagueGame { n, ..game.clone() };
        self.tables.change(Change::AddLeague(game));
        Ok(Some(n))
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

    fn enter_league(&mut self, variant: Variant, bot: &LeagueBot) -> Result<bool, StoreError> {
        let key = (variant, bot.player);
        let row = match self.tables.league_bots.get(&key) {
            Some(kept) if kept.entered => return Ok(false),
            Some(kept) => LeagueBot {
                name: bot.name.clone(),
                entered: true,
                ..kept.clone()
            },
            None => LeagueBot {
                entered: true,
                ..bot.clone()
            },
        };
        self.tables.change(Change::LeagueBot(key, Some(row)));
        Ok(true)
    }

    fn leave_league(&mut self, variant: Variant, player: PlayerId) -> Result<bool, StoreError> {
        let key = (variant, player);
        let Some(kept) = self.tables.league_bots.get(&key).filter(|b| b.entered) else {
            return Ok(false);
        };
        let row = LeagueBot {
            entered: false,
            ..kept.clone()
        };
        self.tables.change(Change::LeagueBot(key, Some(row)));
        Ok(true)
    }

    fn league_bots(&mut self, variant: Variant) -> Result<Vec<LeagueBot>, StoreError> {
        let mut bots: Vec<LeagueBot> = self
            .tables
            .league_bots
            .iter()
            .filter(|((v, _), _)| *v == variant)
            .map(|(_, bot)| bot.clone())
            .collect();
        bots.sort_by_key(|bot| (bot.entered_ms, bot.player.0));
        Ok(bots)
    }

    fn league_state(&mut self, variant: Variant) -> Result<Option<LeagueState>, StoreError> {
        Ok(self.tables.league_states.get(&variant).cloned())
    }

    fn save_league_state(
        &mut self,
        variant: Variant,
        state: &LeagueState,
    ) -> Result<(), StoreError> {
        let change = Change::LeagueState(variant, Some(state.clone()));
        self.tables.change(change);
        Ok(())
    }

    fn league_lines(&mut self, variant: Variant) -> Result<Vec<LeagueLine>, StoreError> {
        Ok(self
            .tables
            .league_lines
            .range((variant, String::new())..)
            .take_while(|((v, _), _)| *v == variant)
            .map(|(_, line)| line.clone())
            .collect())
    }

    fn league_line(
        &mut self,
        variant: Variant,
        entrant: &str,
    ) -> Result<Option<LeagueLine>, StoreError> {
        let key = (variant, entrant.to_owned());
        Ok(self.tables.league_lines.get(&key).cloned())
    }

    fn save_league_line(&mut self, variant: Variant, line: &LeagueLine) -> Result<(), StoreError> {
        let key = (variant, line.entrant.clone());
        self.tables
            .change(Change::LeagueLine(key, Some(line.clone())));
        Ok(())
    }

    fn clear_league_lines(&mut self, variant: Variant) -> Result<(), StoreError> {
        for line in self.league_lines(variant)? {
            self.tables
                .change(Change::LeagueLine((variant, line.entrant), None));
        }
        Ok(())
    }
}
