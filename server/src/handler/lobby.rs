//! The lobby: `subscribe_lobby` and `unsubscribe_lobby` (a subscriber gets the lobby, then its
//! changes, gathered), `list_games`, every listed game a page at a time, and the engines'
//! league's table (`league`, `unfollow_league`), whose war games the lobby lists.

use std::sync::Arc;

use noughts_protocol::{
    ErrorCode, LIST_GAMES_DEFAULT, LIST_GAMES_MAX, League, ListGames, RequestId, ServerMessage,
};
use tracing::error;

use super::client::{Client, Reply};
use crate::session::Session;

impl Client {
    pub(super) fn subscribe_lobby(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        session.set_lobby(true);
        self.shared.lobby.subscribe(self.out.clone(), id);
        Ok(())
    }

    pub(super) fn unsubscribe_lobby(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        session.set_lobby(false);
        self.shared.lobby.unsubscribe(self.out.conn);
        self.ok(id);
        Ok(())
    }

    /// `league`: the variant's league table, caught up with the store; with `follow`, this
    /// connection is told the table each time a league game ends (following no other league).
    pub(super) fn league(&self, id: Option<RequestId>, request: League) {
        let League { variant, follow } = request;
        let shared = &self.shared;
        if !shared.leagues.runs(variant) {
            self.out.error(
                id,
                ErrorCode::NoLeague,
                format!("this server runs no league on {variant}"),
            );
            return;
        }
        if follow {
            shared.leagues.follow(variant, self.out.clone());
        }
        let (shared, out) = (shared.clone(), self.out.clone());
        tokio::spawn(async move {
            match shared.leagues.table(&shared.store, variant).await {
                Ok(Some(table)) => {
                    out.reply(id, ServerMessage::LeagueTable(Box::new(table)));
                }
                Ok(None) => out.error(id, ErrorCode::NoLeague, "no league on that variant"),
                Err(err) => {
                    error!(cause = %err, "cannot read the league");
                    out.error(
                        id,
                        ErrorCode::Internal,
                        "the server could not read its records",
                    );
                }
            }
        });
    }

    /// `unfollow_league`: no more league tables pushed to this connection.
    pub(super) fn unfollow_league(&self, id: Option<RequestId>) {
        self.shared.leagues.unfollow(self.out.conn);
        self.ok(id);
    }

    /// One page of the listed games; a `limit` outside 1 to 100 is taken as the nearest of them.
    pub(super) fn list_games(&self, id: Option<RequestId>, request: ListGames) {
        let ListGames {
            variant,
            after,
            limit,
        } = request;
        let limit = limit.unwrap_or(LIST_GAMES_DEFAULT).clamp(1, LIST_GAMES_MAX);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let (games, next) = self.shared.lobby.page(variant, after, limit);
        self.out.reply(id, ServerMessage::GameList { games, next });
    }
}
