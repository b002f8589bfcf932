//! The lobby: `subscribe_lobby` and `unsubscribe_lobby` (a subscriber gets the lobby, then its
//! changes, gathered), and `list_games`, every listed game a page at a time.

use std::sync::Arc;

use noughts_protocol::{LIST_GAMES_DEFAULT, LIST_GAMES_MAX, ListGames, RequestId, ServerMessage};

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
