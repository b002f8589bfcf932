//! Agreements under fuzzing: draw offers, takebacks, declines, withdrawn offers, aborts and
//! claims against an absent opponent are accepted exactly when the rules allow them, refused with the documented code otherwise, and a takeback leaves
//! the game as its remaining moves make it.

use noughts_engine::Mark;
use noughts_protocol::{ClaimOutcome, EndReason, ErrorCode, OfferKind, PlayerId};
use noughts_server::rules::{Offered, Refusal, Rules, Update};

use super::Checked;

impl Checked {
    /// A draw offer, takeback, decline or abort: accepted exactly when the rules of agreements
    /// allow it, refused with the documented code otherwise.
    pub(super) fn agree(
        &mut self,
        before: &Rules,
        player: PlayerId,
        what: u8,
        stored: bool,
    ) -> Vec<Update> {
        let Some(mark) = before.mark_of(player) else {
            let refused = self
                .ask(player, what, stored)
                .expect_err("a stranger agreed");
            return self.refused(before, &refused, ErrorCode::NotAPlayer);
        };
        if before.is_over() {
            // After the end, only a rematch offer may be declined (by the other side) or
            // withdrawn (by its maker).
            let rematch = before.rematch_offer();
            let settles = match what {
                2 => rematch == Some(mark.opponent()),
                4 => rematch == Some(mark),
                _ => false,
            };
            if settles {
                let updates = self
                    .ask(player, what, stored)
                    .expect("a rematch offer is declined or withdrawn");
                assert_eq!(self.rules.rematch_offer(), None);
                return updates;
            }
            let refused = self
                .ask(player, what, stored)
                .expect_err("agreed after the end");
            return self.refused(before, &refused, ErrorCode::GameOver);
        }
        let moves = before.moves().len();
        let theirs = before.offer().filter(|(by, _)| *by != mark).map(|(_, k)| k);
        let mine = before.offer().filter(|(by, _)| *by == mark).map(|(_, k)| k);
        let has_moved = moves > usize::from(mark == Mark::O);
        let expected = match what {
            0 if moves < 2 => Some(ErrorCode::TooEarly),
            0 if theirs != Some(OfferKind::Draw) && mine == Some(OfferKind::Draw) => {
                Some(ErrorCode::AlreadyOffered)
            }
            1 if before.rated() => Some(ErrorCode::NoTakeback),
            1 if theirs == Some(OfferKind::Takeback) => None,
            1 if !has_moved => Some(ErrorCode::NoTakeback),
            1 if mine == Some(OfferKind::Takeback) => Some(ErrorCode::AlreadyOffered),
            2 if theirs.is_none() => Some(ErrorCode::NoOffer),
            3 if moves >= 2 => Some(ErrorCode::TooLate),
            4 if mine.is_none() => Some(ErrorCode::NoOffer),
            5 => {
                let away = before.away(self.now);
                match away.iter().find(|away| away.mark == mark.opponent()) {
                    None => Some(ErrorCode::NotAway),
                    Some(away) if away.claim_ms > 0 => Some(ErrorCode::TooEarly),
                    Some(_) => None,
                }
            }
            _ => None,
        };
        match (self.ask(player, what, stored), expected) {
            (Err(refused), Some(code)) => self.refused(before, &refused, code),
            (Err(refused), None) => panic!("refused {what}: {refused:?}"),
            (Ok(_), Some(code)) => panic!("accepted {what} that should get {code:?}"),
            (Ok(updates), None) => {
                if what == 1 && theirs == Some(OfferKind::Takeback) && stored {
                    assert!(self.rules.moves().len() < moves, "a takeback took nothing");
                    assert_eq!(self.rules.board().to_move(), mark.opponent());
                }
                updates
            }
        }
    }

    /// Makes the request `what` of the rules for `player`, carrying out what it leads to.
    fn ask(&mut self, player: PlayerId, what: u8, stored: bool) -> Result<Vec<Update>, Refusal> {
        let now = self.now;
        Ok(match what {
            0 => match self.rules.offer_draw(player)? {
                Offered::Offer(update) => vec![update],
                Offered::Draw(end) => {
                    assert_eq!((end.winner, end.reason), (None, EndReason::Agreement));
                    self.conclude(&end)
                }
                Offered::Takeback(_) => panic!("a draw offer took moves back"),
            },
            1 => match self.rules.ask_takeback(player)? {
                Offered::Offer(update) => vec![update],
                Offered::Takeback(pending) if stored => {
                    let update = self.rules.commit_takeback(pending, now);
                    assert!(update.is_some(), "a stored takeback was not announced");
                    self.took_back = true;
                    assert_eq!(self.rules.moves().len(), pending.keep);
                    update.into_iter().collect()
                }
                Offered::Takeback(_) => Vec::new(),
                Offered::Draw(_) => panic!("a takeback drew the game"),
            },
            2 => vec![self.rules.decline(player)?],
            4 => vec![self.rules.cancel_offer(player)?],
            5 => {
                let outcome = if stored {
                    ClaimOutcome::Win
                } else {
                    ClaimOutcome::Draw
                };
                let end = self.rules.claim(player, outcome, now)?;
                assert_eq!(end.reason, EndReason::Abandon);
                assert_eq!(end.winner.is_some(), stored);
                self.conclude(&end)
            }
            _ => {
                let end = self.rules.ask_abort(player)?;
                assert_eq!((end.winner, end.reason), (None, EndReason::Aborted));
                self.conclude(&end)
            }
        })
    }
}
