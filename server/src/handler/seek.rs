//! Quick match: `seek`, `cancel_seek` and `accept_seek`. A seek meets a waiting compatible one
//! (the same variant and rating, a clock of the same speed) or waits in its queue, listed in the
//! lobby, where any other player may accept it; two that meet start a game at once.

use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameKind, RequestId, SeekId, SeekInfo, ServerMessage};

use super::client::{Client, Reply, coin_toss, refuse};
use super::limits::check_clock;
use crate::game::{self, Setup};
use crate::game_handle::Requester;
use crate::rating;
use crate::registry::AcceptSeekError;
use crate::session::{OpenSeek, SeekKey, Session};
use crate::shared::Shared;
use crate::sitter::Sitter;

/// Takes an open seek out of the queue and off the lobby (its seeker has already ended it).
pub(crate) fn withdraw_seek(shared: &Shared, seek: OpenSeek) {
    shared.registry.cancel_seek(seek);
    shared.lobby.remove_seek(seek.id);
}

impl Client {
    pub(super) fn cancel_seek(&mut self, session: &Arc<Session>, id: Option<RequestId>) -> Reply {
        let Some(open) = session.seek().filter(|open| session.end_seek(open.id)) else {
            return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
        };
        withdraw_seek(&self.shared, open);
        self.ok(id);
        Ok(())
    }

    pub(super) fn seek(&mut self, session: &Arc<Session>, from: Requester, key: SeekKey) -> Reply {
        let (variant, clock, rated) = key;
        check_clock(clock)?;
        self.check_not_stopping()?;
        if session.seek().is_some() {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        // Over its address's cap, a seek may still meet one that waits, but may not wait itself.
        let per_ip = self.shared.config.max_seeks_per_ip;
        let slot = self.shared.registry.seek_slot(self.network, per_ip);
        let may_wait = slot.is_some();
        let Some(id) = self.shared.registry.next_seek_id() else {
            return refuse(
                ErrorCode::ServerFull,
                "the server cannot take seeks just now",
            );
        };
        let open = OpenSeek { id, key };
        if !session.start_seek(open, slot) {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        let seeking = ServerMessage::Seeking {
            seek: open.id,
            variant,
            clock,
        };
        if may_wait {
            // Before joining the queue, so a match made at once is told after it.
            self.out.reply(from.id.clone(), seeking.clone());
        }
        let listing = SeekInfo {
            seek: open.id,
            player: session.player,
            name: session.name.clone(),
            rating: rating::points(session.ratings().get(variant).rating),
            variant,
            clock,
            rated,
        };
        let lobby = &self.shared.lobby;
        let paired = self
            .shared
            .registry
            .seek(session, open, may_wait, || lobby.add_seek(listing));
        let Some((their_seek, opponent, their_terms)) = paired else {
            if may_wait {
                return Ok(());
            }
            session.end_seek(open.id);
            return refuse(
                ErrorCode::LimitReached,
                format!("at most {per_ip} seeks may wait from one address; try again soon"),
            );
        };
        if !may_wait {
            self.out.reply(from.id.clone(), seeking);
        }
        self.shared.lobby.remove_seek(their_seek);
        if session.end_seek(open.id) {
            withdraw_seek(&self.shared, open);
        }
        // The waiting seek's terms: its clock, where the two differed in speed alone.
        start_pair(&self.shared, [opponent, session.clone()], their_terms, None);
        Ok(())
    }

    /// `accept_seek`: plays the seeker at once, on the seek's terms.
    pub(super) fn accept_seek(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        seek: SeekId,
    ) -> Reply {
        self.check_not_stopping()?;
        let (key, seeker) = match self.shared.registry.accept_seek(seek, session.player) {
            Ok(taken) => taken,
            Err(AcceptSeekError::NoSuchSeek) => {
                return refuse(ErrorCode::NoSuchSeek, "that seek is no longer waiting");
            }
            Err(AcceptSeekError::OwnSeek) => {
                return refuse(ErrorCode::OwnSeek, "that is your own seek");
            }
        };
        self.shared.lobby.remove_seek(seek);
        // The taker's own seek, if it had one, is over: it has a game now.
        if let Some(own) = session.seek().filter(|own| session.end_seek(own.id)) {
            withdraw_seek(&self.shared, own);
        }
        start_pair(&self.shared, [seeker, session.clone()], key, Some(from));
        Ok(())
    }
}

/// Starts the game of two players paired by quick match, sides drawn at random. `from` (the one
/// who accepted a seek) gets the snapshot as the reply to its request.
fn start_pair(
    shared: &Arc<Shared>,
    players: [Arc<Session>; 2],
    (variant, clock, rated): SeekKey,
    from: Option<Requester>,
) {
    let mut seats = players.clone().map(Sitter::Human);
    if coin_toss() {
        seats.swap(0, 1);
    }
    let started = game::start(
        shared,
        Setup {
            variant,
            kind: GameKind::Human,
            seats,
            clock,
            owner: None,
            rated,
            listed: true,
            rematch_of: None,
            requester: from,
            watcher: None,
            on_end: None,
        },
    );
    if let Err(refusal) = started {
        // Both players hear why; the reply to the seek was already sent.
        for out in players.iter().flat_map(|player| player.outbounds()) {
            out.error(None, refusal.code, refusal.message.clone());
        }
    }
}
