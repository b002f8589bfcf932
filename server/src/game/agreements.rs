//! What the players agree on, as the actor carries it out: a draw, a takeback (stored before
//! anyone is told, like a move), a declined or withdrawn offer, an abort, and a claim against an
//! absent opponent. Against an AI seat, a takeback
//! is granted at once and a draw offer declined.

use tracing::error;

use noughts_protocol::{ClaimOutcome, ErrorCode};

use super::actor::{Game, now, refuse};
use crate::registry::games::Requester;
use crate::rules::{Offered, PendingTakeback};

impl Game {
    pub(super) async fn on_offer_draw(&mut self, from: Requester) {
        match self.rules.offer_draw(from.player) {
            Err(refusal) => refuse(&from, refusal),
            Ok(Offered::Draw(end)) => self.end(end, Some(from)).await,
            Ok(Offered::Offer(update)) => {
                let mark = self.rules.mark_of(from.player);
                self.broadcast(update, Some(from.clone())).await;
                // An AI seat plays on: it declines at once.
                if let Some(mark) = mark
                    && self.rules.opponent_is_ai(mark)
                    && let Ok(declined) = self.rules.decline_for(mark.opponent())
                {
                    self.broadcast(declined, None).await;
                }
            }
            Ok(Offered::Takeback(_)) => unreachable_offer(&from),
        }
    }

    pub(super) async fn on_takeback(&mut self, from: Requester) {
        match self.rules.ask_takeback(from.player) {
            Err(refusal) => refuse(&from, refusal),
            Ok(Offered::Takeback(pending)) => self.take_back(pending, Some(from)).await,
            Ok(Offered::Offer(update)) => {
                let mark = self.rules.mark_of(from.player);
                self.broadcast(update, Some(from)).await;
                // An AI seat agrees at once.
                if let Some(mark) = mark
                    && self.rules.opponent_is_ai(mark)
                    && let Ok(Offered::Takeback(pending)) = self.rules.takeback_for(mark.opponent())
                {
                    self.take_back(pending, None).await;
                }
            }
            Ok(Offered::Draw(_)) => unreachable_offer(&from),
        }
    }

    pub(super) async fn on_decline(&mut self, from: Requester) {
        match self.rules.decline(from.player) {
            Err(refusal) => refuse(&from, refusal),
            Ok(update) => self.broadcast(update, Some(from)).await,
        }
    }

    pub(super) async fn on_cancel_offer(&mut self, from: Requester) {
        match self.rules.cancel_offer(from.player) {
            Err(refusal) => refuse(&from, refusal),
            Ok(update) => self.broadcast(update, Some(from)).await,
        }
    }

    /// The player left behind claims the game while the opponent is away.
    pub(super) async fn on_claim(&mut self, from: Requester, outcome: ClaimOutcome) {
        match self.rules.claim(from.player, outcome, now()) {
            Err(refusal) => refuse(&from, refusal),
            Ok(end) => self.end(end, Some(from)).await,
        }
    }

    pub(super) async fn on_abort(&mut self, from: Requester) {
        match self.rules.ask_abort(from.player) {
            Err(refusal) => refuse(&from, refusal),
            Ok(end) => self.end(end, Some(from)).await,
        }
    }

    /// Stores the takeback, then tells everyone; the AI thinks again if it is its move.
    async fn take_back(&mut self, pending: PendingTakeback, from: Option<Requester>) {
        let keep = u32::try_from(pending.keep).unwrap_or(u32::MAX);
        let stored = self
            .shared
            .store
            .take_back(self.rules.id(), keep, pending.seq)
            .await;
        if let Err(failed) = self.persisted(stored) {
            let Some(err) = failed else { return };
            error!(cause = %err, "the takeback could not be stored; the moves stay");
            if let Some(from) = from {
                from.out.error(
                    from.id,
                    ErrorCode::Internal,
                    "the server could not save the takeback; try again",
                );
            }
            return;
        }
        if let Some(update) = self.rules.commit_takeback(pending, now()) {
            self.takebacks += 1;
            self.broadcast(update, from).await;
            self.list_entry();
            self.think();
        }
    }
}

/// A draw offer answered as a takeback, or the reverse: the rules never do that.
fn unreachable_offer(from: &Requester) {
    from.out
        .error(from.id.clone(), ErrorCode::Internal, "unexpected answer");
}
