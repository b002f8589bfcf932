//! Watching: `watch` and `unwatch`. A private game answers as if it did not exist, so ids cannot be
//! probed. In a cluster, a listed game another node holds is watched through what that node
//! publishes.

use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameId, ServerMessage, Watch};

use super::client::{Client, Reply, no_such_game, refuse};
use crate::registry::games::{Requester, Sent};
use crate::session::Session;

impl Client {
    pub(super) async fn watch(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        request: Watch,
    ) -> Reply {
        let Watch { game, code } = request;
        // A private game answers as if it did not exist, so ids cannot be probed.
        if !self
            .shared
            .registry
            .games
            .may_watch(game, session.player, code.as_deref())
        {
            return Err(no_such_game(game));
        }
        // A listed game another node plays is watched through what that node publishes.
        if self.shared.registry.games.get(game).is_none()
            && let Some(wing) = &self.shared.wing
            && wing.publishes(game).await
        {
            return if wing
                .watch_remote(game, from.player, from.out, from.id)
                .await
            {
                session.set_watching(game, true);
                Ok(())
            } else {
                Err(no_such_game(game))
            };
        }
        // Here, or (a private game) on the node that plays it.
        let handle = self.game(game).await?;
        session.set_watching(game, true);
        match handle.watch(session.clone(), from, code).await {
            Sent::Done => Ok(()),
            _ => {
                session.set_watching(game, false);
                refuse(ErrorCode::NoSuchGame, "no live game has that id")
            }
        }
    }

    pub(super) async fn unwatch(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        game: GameId,
    ) -> Reply {
        session.set_watching(game, false);
        let conn = self.out.conn;
        if let Some(wing) = &self.shared.wing
            && wing.watches_remote(game, conn)
        {
            wing.unwatch_remote(game, conn).await;
            from.out.reply(from.id, ServerMessage::Ok);
            return Ok(());
        }
        let handle = self.game(game).await?;
        match handle.unwatch(from).await {
            Sent::Done => Ok(()),
            _ => refuse(ErrorCode::NoSuchGame, "that game has just closed"),
        }
    }
}
