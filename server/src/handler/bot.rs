//! `become_bot`: an account turns itself into a bot account, for good (as lichess's BOT
//! accounts). A bot is marked as one wherever its name shows, and quick match pairs it only
//! with players who chose to play bots; the rule that it has played no rated game is checked by
//! the store, in the same transaction as the change. `enter_league` and `leave_league`: a bot
//! enters a variant's engines' league, or leaves it; in a cluster, entering also makes the bot's
//! connection known to the node that pairs the league (see `league_bots`).

use std::sync::Arc;

use noughts_protocol::{ErrorCode, RequestId, Variant};
use tracing::{error, info};

use super::client::{Client, Reply, refuse};
use super::seek::withdraw_seek;
use crate::error::Refusal;
use crate::session::Session;
use crate::store::BecameBot;

impl Client {
    /// `become_bot`: refused to a guest (`not_an_account`), to an account that has played rated
    /// games or is playing one (`has_rated_games`: one ending after the change would break the
    /// rule) and to a bot (`already_bot`). A seek the player had open ends, since it was made on a person's terms.
    pub(super) async fn become_bot(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        match self.shared.store.become_bot(session.player).await {
            Ok(BecameBot::Made) => {}
            Ok(BecameBot::AlreadyBot) => {
                session.set_bot();
                return refuse(
                    ErrorCode::AlreadyBot,
                    "this account is a bot account already",
                );
            }
            Ok(BecameBot::HasRatedGames) => {
                return refuse(
                    ErrorCode::HasRatedGames,
                    "an account that has played rated games cannot become a bot; register \
                     another account for the bot",
                );
            }
            Ok(BecameBot::NoAccount) => {
                return refuse(
                    ErrorCode::NotAnAccount,
                    "only an account can become a bot; register first",
                );
            }
            Err(err) => {
                error!(cause = %err, "cannot make an account a bot");
                return Err(Refusal::new(
                    ErrorCode::Internal,
                    "the server cannot do that now; try again",
                ));
            }
        }
        info!(player = session.player.0, "became a bot account");
        session.set_bot();
        if let Some(open) = session.seek().filter(|open| session.end_seek(open.id)) {
            withdraw_seek(&self.shared, open);
        }
        self.ok(id);
        Ok(())
    }

    /// `enter_league` (`entered`) or `leave_league`: refused to a person (`not_a_bot`) and for a
    /// variant without a league (`no_league`); entering twice, or leaving a league one is not
    /// in, is no error. Answered `ok` once stored; the league's followers get its table.
    pub(super) async fn enter_league(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        variant: Variant,
        entered: bool,
    ) -> Reply {
        if !session.is_bot() {
            return refuse(
                ErrorCode::NotABot,
                "only a bot account plays in the engines' league; see become_bot",
            );
        }
        let leagues = &self.shared.leagues;
        match leagues
            .enter(
                &self.shared.store,
                variant,
                session.player,
                session.name(),
                entered,
            )
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                return refuse(
                    ErrorCode::NoLeague,
                    format!("this server runs no league on {variant}"),
                );
            }
            Err(err) => {
                error!(cause = %err, "cannot enter a bot in the league");
                return Err(Refusal::new(
                    ErrorCode::Internal,
                    "the server cannot do that now; try again",
                ));
            }
        }
        info!(player = session.player.0, %variant, entered, "a bot entered or left the league");
        #[cfg(feature = "cluster")]
        if entered && !self.stands_in {
            let network = self.network;
            super::league_bots::entered_here(&self.shared, session, &self.out, network, variant);
        }
        self.ok(id);
        Ok(())
    }
}
