//! `chat` in a game: the line is cleaned, checked against the speaker's mutes and bans and
//! rate-limited here, then handed to the game wherever it is played, as a move is (see
//! `dispatch`), a watcher's from another node marked as a spectator's.

use std::sync::Arc;

use noughts_protocol::{ChatError, ErrorCode, GameId, MAX_CHAT_CHARS, clean_chat};
use tokio::time::Instant;

use super::client::{Client, Reply, refuse};
use crate::registry::games::{Ask, Requester};
use crate::rules::Speaker;
use crate::session::Session;

impl Client {
    /// Whether this connection watches `game` as another node publishes it (a line it says
    /// there is a spectator's).
    pub(super) fn watches_remote(&self, game: GameId) -> bool {
        let wing = self.shared.wing.as_ref();
        wing.is_some_and(|wing| wing.watches_remote(game, self.out.conn))
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
            bot: session.is_bot(),
        };
        let chat = Ask::Chat {
            speaker,
            text,
            watching,
        };
        self.ask_through(handle, from, game, chat).await
    }
}
