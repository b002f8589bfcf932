//! Requests inside a game: `move`, `resign`, `rematch`, `offer_draw`, `takeback`, `decline`,
//! `cancel_offer`, `claim`, `abort` and `chat`, forwarded to the game's actor, which answers
//! them. Chat is checked and rate-limited here first.

use std::sync::Arc;

use noughts_protocol::{ChatError, ClaimOutcome, ErrorCode, GameId, MAX_CHAT_CHARS, clean_chat};
use tokio::time::Instant;

use super::client::{Client, Reply, refuse};
use crate::registry::game_handle::Requester;
use crate::rules::Speaker;
use crate::session::Session;

impl Client {
    pub(super) async fn play(&mut self, from: Requester, game: GameId, cell: usize) -> Reply {
        let handle = self.game(game)?;
        self.forwarded(handle.play(from, cell).await)
    }

    pub(super) async fn resign(&mut self, from: Requester, game: GameId) -> Reply {
        let handle = self.game(game)?;
        self.forwarded(handle.resign(from).await)
    }

    pub(super) async fn rematch(&mut self, from: Requester, game: GameId) -> Reply {
        let handle = self.game(game)?;
        self.forwarded(handle.rematch(from).await)
    }

    /// `offer_draw`, `takeback`, `decline`, `cancel_offer`, `claim` and `abort`.
    pub(super) async fn agree(&mut self, from: Requester, request: Agreement) -> Reply {
        let (game, kind) = request;
        let handle = self.game(game)?;
        let sent = match kind {
            AgreementKind::Draw => handle.offer_draw(from).await,
            AgreementKind::Takeback => handle.takeback(from).await,
            AgreementKind::Decline => handle.decline(from).await,
            AgreementKind::Cancel => handle.cancel_offer(from).await,
            AgreementKind::Claim(outcome) => handle.claim(from, outcome).await,
            AgreementKind::Abort => handle.abort(from).await,
        };
        self.forwarded(sent)
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
        let handle = self.game(game)?;
        if !self.chat.take(Instant::now()) {
            return refuse(ErrorCode::RateLimited, "too many chat lines; slow down");
        }
        let speaker = Speaker {
            name: session.name(),
            guest: !session.is_account(),
        };
        let watching = self.watching_elsewhere;
        self.forwarded(handle.chat(from, speaker, text, watching).await)
    }
}

/// What the players may agree on, and the game it is about.
pub(super) type Agreement = (GameId, AgreementKind);

/// The requests about agreements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AgreementKind {
    Draw,
    Takeback,
    Decline,
    Cancel,
    Claim(ClaimOutcome),
    Abort,
}
