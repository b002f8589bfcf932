//! The [`Store`]'s calls for the engines' league: its running table read back, with the bots
//! entered and the war game being played.

use noughts_protocol::{PlayerId, Variant};

use super::league::{KeptTable, LeagueBot, LeagueNews};
use super::queue::Store;
use super::records::StoreError;

impl Store {
    /// `variant`'s running table, unless the last game it counted is the `seen`th (by `n`: the
    /// reader has that table), the bots entered, and the war game of the server's own being
    /// played on it.
    pub(crate) async fn league_news(
        &self,
        variant: Variant,
        seen: u64,
    ) -> Result<LeagueNews, StoreError> {
        self.read(move |db| {
            let state = db.league_state(variant)?.unwrap_or_default();
            let table = if state.last_n == seen {
                None
            } else {
                let lines = db.league_lines(variant)?;
                Some(KeptTable { state, lines })
            };
            let mut playing = None;
            if let Some(&id) = db.live_war_games(variant)?.first()
                && let Some(row) = db.game(id)?
                && row.start.owner.is_none()
            {
                playing = Some((id, row.start.seats));
            }
            let bots = db.league_bots(variant)?;
            Ok(LeagueNews {
                table,
                playing,
                bots,
            })
        })
        .await
    }

    /// Enters the bot `player` (named `name`) into `variant`'s league; false if it is in
    /// already.
    pub(crate) async fn enter_league(
        &self,
        variant: Variant,
        player: PlayerId,
        name: String,
    ) -> Result<bool, StoreError> {
        let bot = LeagueBot {
            player,
            name,
            entered_ms: super::records::now_ms(),
            entered: true,
        };
        self.write("enter league", move |db| db.enter_league(variant, &bot))
            .await
    }

    /// Takes the bot `player` out of `variant`'s league; false if it was not in.
    pub(crate) async fn leave_league(
        &self,
        variant: Variant,
        player: PlayerId,
    ) -> Result<bool, StoreError> {
        self.write("leave league", move |db| db.leave_league(variant, player))
            .await
    }

    /// Keeps `variant`'s table as a league whose rating period is `round_games` games does:
    /// built anew from the counted games if it was kept with another round (true then).
    pub(crate) async fn settle_league(
        &self,
        variant: Variant,
        round_games: u32,
    ) -> Result<bool, StoreError> {
        self.write("settle league", move |db| {
            super::league_table::settle(db, variant, round_games)
        })
        .await
    }
}
