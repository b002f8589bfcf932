//! Watching: `watch` and `unwatch`. A private game answers as if it did not exist, so ids cannot be
//! probed.

use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameId};

use super::client::{Client, Reply, no_such_game, refuse};
use crate::game_handle::Requester;
use crate::session::Session;

impl Client {
    pub(super) async fn watch(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        game: GameId,
        code: Option<String>,
    ) -> Reply {
        // A private game answers as if it did not exist, so ids cannot be probed.
        if !self
            .shared
            .registry
            .may_watch(game, session.player, code.as_deref())
        {
            return Err(no_such_game(game));
        }
        let handle = self.game(game)?;
        session.set_watching(game, true);
        if !handle.watch(session.clone(), from).await {
            session.set_watching(game, false);
            return refuse(ErrorCode::NoSuchGame, "no live game has that id");
        }
        Ok(())
    }

    pub(super) async fn unwatch(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        game: GameId,
    ) -> Reply {
        session.set_watching(game, false);
        let handle = self.game(game)?;
        let conn = self.out.conn;
        self.forwarded(handle.unwatch(conn, Some(from)).await)
    }
}
