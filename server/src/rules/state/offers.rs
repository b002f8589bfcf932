//! What the players may agree on during a game: a draw, taking a move back (in unrated games),
//! and aborting before both sides have moved. One offer is pending at a time; the other side
//! accepts it by making the same request, or declines it, and the next move lets it lapse.

use std::time::Instant;

use noughts_engine::Board;
use noughts_protocol::{
    EndReason, ErrorCode, Mark, OfferKind, PendingOffer, PlayerId, ServerMessage,
};

use super::Rules;
use crate::error::Refusal;
use crate::rules::seat::index;
use crate::rules::updates::{EndRecord, Offered, PendingTakeback, Sitter, Update, refused};

impl Rules {
    /// The offer waiting for an answer, and who made it.
    pub fn offer(&self) -> Option<(Mark, OfferKind)> {
        self.offer
    }

    /// The side whose rematch offer waits for an answer, once the game is over.
    pub fn rematch_offer(&self) -> Option<Mark> {
        self.rematch_offer.filter(|_| self.rematch.is_none())
    }

    /// The offer waiting for an answer, for snapshots: a draw or takeback while the game goes
    /// on, a rematch once it is over.
    pub(super) fn pending_offer(&self) -> Option<PendingOffer> {
        match (&self.result, self.rematch) {
            (None, _) => self.offer.map(|(by, offer)| PendingOffer { by, offer }),
            (Some(_), None) => self.rematch_offer.map(|by| PendingOffer {
                by,
                offer: OfferKind::Rematch,
            }),
            (Some(_), Some(_)) => None,
        }
    }

    /// The seat of `player` in a live game, or why it may not make offers.
    fn offering_seat(&self, player: PlayerId) -> Result<Mark, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(ErrorCode::NotAPlayer, "only the game's players may do that");
        };
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        Ok(mark)
    }

    /// Records `mark`'s offer and tells everyone, unless it already stands.
    fn make_offer(&mut self, mark: Mark, kind: OfferKind) -> Result<Offered, Refusal> {
        if self.offer == Some((mark, kind)) {
            return refused(
                ErrorCode::AlreadyOffered,
                "your offer is waiting for an answer",
            );
        }
        // A new offer replaces whatever the other side had asked for.
        self.offer = Some((mark, kind));
        self.seq += 1;
        let message = ServerMessage::Offered {
            game: self.id,
            seq: self.seq,
            by: mark,
            offer: kind,
        };
        Ok(Offered::Offer(Update::to_all(message, true)))
    }

    /// `player` offers a draw, or accepts the other side's offer.
    /// Before both sides have moved there is nothing to agree on but an abort (as on lichess):
    /// `too_early`.
    pub fn offer_draw(&mut self, player: PlayerId) -> Result<Offered, Refusal> {
        let mark = self.offering_seat(player)?;
        if self.moves.len() < 2 {
            return refused(
                ErrorCode::TooEarly,
                "no draw before both sides have moved: abort the game instead",
            );
        }
        if self.offer == Some((mark.opponent(), OfferKind::Draw)) {
            return Ok(Offered::Draw(self.end_record(
                None,
                EndReason::Agreement,
                0,
            )));
        }
        self.make_offer(mark, OfferKind::Draw)
    }

    /// `player` asks to take its last move back, or accepts the other side's request. Only in
    /// unrated games, and only once the asking side has moved.
    pub fn ask_takeback(&mut self, player: PlayerId) -> Result<Offered, Refusal> {
        let mark = self.offering_seat(player)?;
        self.takeback_for(mark)
    }

    /// [`Rules::ask_takeback`] by seat (an AI seat agrees this way).
    pub fn takeback_for(&mut self, mark: Mark) -> Result<Offered, Refusal> {
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        if self.rated {
            return refused(ErrorCode::NoTakeback, "rated games allow no takebacks");
        }
        if self.offer == Some((mark.opponent(), OfferKind::Takeback)) {
            let Some(keep) = self.keep_before(mark.opponent()) else {
                // Cannot happen (a request is recorded only with a move to take back, and a
                // move ends it), but never worth a panic.
                self.offer = None;
                return refused(ErrorCode::NoTakeback, "there is no move to take back");
            };
            return Ok(Offered::Takeback(PendingTakeback {
                keep,
                seq: self.seq + 1,
            }));
        }
        if self.keep_before(mark).is_none() {
            return refused(ErrorCode::NoTakeback, "you have no move to take back");
        }
        self.make_offer(mark, OfferKind::Takeback)
    }

    /// How many moves stay when `mark`'s last move (and the reply to it, if any) comes off;
    /// `None` if `mark` has not moved.
    fn keep_before(&self, mark: Mark) -> Option<usize> {
        let first = match mark {
            Mark::X => 0,
            Mark::O => 1,
        };
        let made = self.moves.len();
        // Moves alternate from X: `mark`'s are first, first + 2, …; its last is the latest of
        // those below `made`.
        let after_first = made.checked_sub(first + 1)?;
        Some(first + after_first / 2 * 2)
    }

    /// Whether a takeback asked of `mark`'s opponent is answered at once: an AI seat always
    /// agrees.
    pub fn opponent_is_ai(&self, mark: Mark) -> bool {
        matches!(self.seats[index(mark.opponent())], Sitter::Ai(_))
    }

    /// `player` declines the other side's pending offer: a draw or takeback while the game goes
    /// on, a rematch once it is over.
    pub fn decline(&mut self, player: PlayerId) -> Result<Update, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(ErrorCode::NotAPlayer, "only the game's players may do that");
        };
        if self.result.is_some() {
            return self.settle_rematch(mark.opponent(), Settled::Declined);
        }
        self.decline_for(mark)
    }

    /// `player` withdraws its own pending offer: a draw or takeback while the game goes on, a
    /// rematch once it is over.
    pub fn cancel_offer(&mut self, player: PlayerId) -> Result<Update, Refusal> {
        let Some(mark) = self.mark_of(player) else {
            return refused(ErrorCode::NotAPlayer, "only the game's players may do that");
        };
        if self.result.is_some() {
            return self.settle_rematch(mark, Settled::Withdrawn);
        }
        let Some((by, kind)) = self.offer.filter(|(by, _)| *by == mark) else {
            return refused(ErrorCode::NoOffer, "you have no offer waiting");
        };
        self.offer = None;
        self.seq += 1;
        let message = ServerMessage::Withdrawn {
            game: self.id,
            seq: self.seq,
            by,
            offer: kind,
        };
        Ok(Update::to_all(message, true))
    }

    /// A finished game's rematch offer by `by` ends unanswered (declined or withdrawn); with no
    /// such offer there is nothing to do in a finished game: `game_over`.
    fn settle_rematch(&mut self, by: Mark, how: Settled) -> Result<Update, Refusal> {
        if self.rematch.is_some() || self.rematch_offer != Some(by) {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        self.rematch_offer = None;
        self.seq += 1;
        let (game, seq, offer) = (self.id, self.seq, OfferKind::Rematch);
        let message = match how {
            Settled::Declined => ServerMessage::Declined {
                game,
                seq,
                by,
                offer,
            },
            Settled::Withdrawn => ServerMessage::Withdrawn {
                game,
                seq,
                by,
                offer,
            },
        };
        Ok(Update::to_all(message, true))
    }

    /// [`Rules::decline`] by seat (an AI seat declines this way).
    pub fn decline_for(&mut self, mark: Mark) -> Result<Update, Refusal> {
        if self.result.is_some() {
            return refused(ErrorCode::GameOver, "the game is over");
        }
        let Some((by, kind)) = self.offer.filter(|(by, _)| *by != mark) else {
            return refused(ErrorCode::NoOffer, "there is no offer to decline");
        };
        self.offer = None;
        self.seq += 1;
        let message = ServerMessage::Declined {
            game: self.id,
            seq: self.seq,
            by,
            offer: kind,
        };
        Ok(Update::to_all(message, true))
    }

    /// `player` aborts the game: possible until both sides have moved; nobody wins and nothing
    /// is rated. The end to store (then [`Rules::conclude`]).
    pub fn ask_abort(&self, player: PlayerId) -> Result<EndRecord, Refusal> {
        self.offering_seat(player)?;
        if self.moves.len() >= 2 {
            return refused(
                ErrorCode::TooLate,
                "both sides have moved: resign or offer a draw instead",
            );
        }
        Ok(self.end_record(None, EndReason::Aborted, 0))
    }

    /// The store has dropped the moves taken back: the board goes back to the first `keep`
    /// moves, the side to move starts its time (the clocks are not wound back), and everyone is
    /// told. A takeback decided on an older state is dropped.
    pub fn commit_takeback(&mut self, pending: PendingTakeback, now: Instant) -> Option<Update> {
        if self.result.is_some() || pending.seq != self.seq + 1 || pending.keep > self.moves.len() {
            return None;
        }
        let by = self
            .offer
            .filter(|(_, kind)| *kind == OfferKind::Takeback)
            .map(|(by, _)| by);
        self.moves.truncate(pending.keep);
        let mut board = Board::new(self.board.variant());
        for &cell in &self.moves {
            board = board.play_unchecked(cell);
        }
        self.board = board;
        self.offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
        self.start_turn(now);
        self.await_first_move(now);
        self.seq += 1;
        let message = ServerMessage::TakenBack {
            game: self.id,
            seq: self.seq,
            by,
            board: self.board.to_compact(),
            moves: self.moves.clone(),
            to_move: self.board.to_move(),
            clocks: self.clocks(now),
        };
        Some(Update::to_all(message, true))
    }
}

/// How a rematch offer ends unanswered.
enum Settled {
    Declined,
    Withdrawn,
}
