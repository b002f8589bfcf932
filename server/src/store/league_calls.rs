//! The [`Store`]'s calls for the engines' league: its games read back in order, with the war
//! game being played.

use noughts_protocol::{PlayerId, Variant};

use super::league::{LEAGUE_PAGE, LeagueBot, LeagueNews};
use super::queue::Store;
use super::records::StoreError;

impl Store {
    /// `variant`'s league games after the `after`th (by their `n`), and the war game of the
    /// server's own being played on it.
    pub(crate) async fn league_news(
        &self,
        variant: Variant,
        after: u64,
    ) -> Result<LeagueNews, StoreError> {
        self.read(move |db| {
            let games = db.league_games(variant, after, LEAGUE_PAGE)?;
            let mut playing = None;
            if let Some(&id) = db.live_war_games(variant)?.first()
                && let Some(row) = db.game(id)?
                && row.start.owner.is_none()
            {
                playing = Some((id, row.start.seats));
            }
            let bots = db.league_bots(variant)?;
            Ok(LeagueNews {
                games,
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
}
