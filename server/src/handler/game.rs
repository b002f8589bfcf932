//! Requests inside a game: `move`, `resign`, `rematch`, `offer_draw`, `takeback`, `decline`,
//! `cancel_offer`, `claim`, `abort` and `chat`, handed to the game wherever it is played (see
//! `GameHandle`), which answers them; and where a game is found, here or (in a cluster) on the
//! node that plays it. Chat is checked and rate-limited here first.

use std::sync::Arc;

use noughts_protocol::{ChatError, ErrorCode, GameId, MAX_CHAT_CHARS, clean_chat};
use tokio::time::Instant;

use super::client::{Client, PAUSED, Reply, no_such_game, refuse};
use crate::error::Refusal;
use crate::registry::games::{Ask, GameHandle, Requester, Sent};
use crate::rules::Speaker;
use crate::session::Session;

impl Client {
    /// The game `id`: played here, or in a cluster on the node that plays it (see `remote`).
    pub(super) async fn game(&mut self, id: GameId) -> Result<GameHandle, Refusal> {
        if let Some(game) = self.shared.registry.games.get(id) {
            return Ok(GameHandle::Local(game));
        }
        #[cfg(feature = "cluster")]
        if let Some(found) = self.game_elsewhere(id).await {
            return found;
        }
        Err(match &self.shared.wing {
            // It stepped down here, its lease lapsed: it is between nodes, not over.
            Some(wing) if wing.is_paused(id) => Refusal::new(ErrorCode::GamePaused, PAUSED),
            _ => no_such_game(id),
        })
    }

    /// Whether this connection watches `game` as another node publishes it (a line it says
    /// there is a spectator's).
    pub(super) fn watches_remote(&self, game: GameId) -> bool {
        let wing = self.shared.wing.as_ref();
        wing.is_some_and(|wing| wing.watches_remote(game, self.out.conn))
    }

    /// Hands `ask` from `from` to `game`. In a cluster, when the node that played it has gone,
    /// the player's games are found again (here, or on the node that took them) and the request
    /// goes there, once.
    pub(super) async fn ask(&mut self, from: Requester, game: GameId, ask: Ask) -> Reply {
        let handle = self.game(game).await?;
        self.ask_through(handle, from, game, ask).await
    }

    /// Hands `ask` to `game` through `handle`, found already.
    async fn ask_through(
        &mut self,
        mut handle: GameHandle,
        from: Requester,
        game: GameId,
        ask: Ask,
    ) -> Reply {
        // A node that is stopping takes no game over: its players find theirs on other nodes.
        let mut found_again = self.handing_over();
        loop {
            match handle.ask(from.clone(), ask.clone()).await {
                Sent::Done => return Ok(()),
                Sent::Closed => return refuse(ErrorCode::NoSuchGame, "that game has just closed"),
                Sent::NodeGone if !found_again => {
                    #[cfg(feature = "cluster")]
                    {
                        tracing::info!(
                            "the node that held a player's game is gone; finding it again"
                        );
                        self.find_games_again().await;
                    }
                    found_again = true;
                    handle = self.game(game).await?;
                }
                Sent::NodeGone | Sent::Unreachable => {
                    return refuse(ErrorCode::GamePaused, PAUSED);
                }
            }
        }
    }

    pub(super) async fn chat(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        game: GameId,
        text: String,
    ) -> Reply {
        // The one place chat text is cleaned on its way in.
        let text = match clean_chat(&text) {
            Ok(text) => text,
            Err(ChatError::Empty) => {
                return refuse(ErrorCode::BadChat, "a chat line needs some visible text");
            }
            Err(ChatError::TooLong) => {
                return refuse(
                    ErrorCode::BadChat,
                    format!("a chat line has at most {MAX_CHAT_CHARS} characters"),
                );
            }
        };
        self.check_chat_allowed(session.player)?;
        // A watcher here of a game another node plays speaks as a spectator there.
        let watching = self.watching_elsewhere || self.watches_remote(game);
        // Only a game that exists spends a line of the allowance.
        let handle = self.game(game).await?;
        if !self.chat.take(Instant::now()) {
            return refuse(ErrorCode::RateLimited, "too many chat lines; slow down");
        }
        let speaker = Speaker {
            name: session.name(),
            guest: !session.is_account(),
        };
        let chat = Ask::Chat {
            speaker,
            text,
            watching,
        };
        self.ask_through(handle, from, game, chat).await
    }
}
