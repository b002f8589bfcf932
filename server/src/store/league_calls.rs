//! The [`Store`]'s calls for the engines' league: its games read back in order, with the war
//! game being played.

use noughts_protocol::Variant;

use super::league::{LEAGUE_PAGE, LeagueNews};
use super::queue::Store;
use super::records::StoreError;
use crate::rules::sitter::Sitter;

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
                && let [Sitter::Ai(x), Sitter::Ai(o)] = row.start.seats
            {
                playing = Some((id, [x, o]));
            }
            Ok(LeagueNews { games, playing })
        })
        .await
    }
}
