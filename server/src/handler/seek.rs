//! Quick match: `seek` and `cancel_seek`. A seek meets a waiting one of the same variant, clock and
//! rating, or waits in its queue; two that meet start a game at once.

use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameKind, RequestId, ServerMessage};

use super::client::{Client, Reply, coin_toss, refuse};
use super::limits::check_clock;
use crate::game::{self, Setup};
use crate::game_handle::Requester;
use crate::session::{SeekKey, Session};
use crate::sitter::Sitter;

impl Client {
    pub(super) fn cancel_seek(&mut self, session: &Arc<Session>, id: Option<RequestId>) -> Reply {
        let Some(key) = session.seek() else {
            return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
        };
        if !session.end_seek(key) {
            return refuse(ErrorCode::NotSeeking, "there is no seek to cancel");
        }
        self.shared.registry.cancel_seek(session.player, key);
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
        if !session.start_seek(key, slot) {
            return refuse(ErrorCode::AlreadySeeking, "you already have a seek open");
        }
        let seeking = ServerMessage::Seeking { variant, clock };
        if may_wait {
            // Before joining the queue, so a match made at once is told after it.
            self.out.reply(from.id.clone(), seeking.clone());
        }
        let Some(opponent) = self.shared.registry.seek(session, key, may_wait) else {
            if may_wait {
                return Ok(());
            }
            session.end_seek(key);
            return refuse(
                ErrorCode::LimitReached,
                format!("at most {per_ip} seeks may wait from one address; try again soon"),
            );
        };
        if !may_wait {
            self.out.reply(from.id.clone(), seeking);
        }
        session.end_seek(key);
        self.shared.registry.cancel_seek(session.player, key);
        let mut seats = [
            Sitter::Human(opponent.clone()),
            Sitter::Human(session.clone()),
        ];
        if coin_toss() {
            seats.swap(0, 1);
        }
        let started = game::start(
            &self.shared,
            Setup {
                variant,
                kind: GameKind::Human,
                seats,
                clock,
                owner: None,
                rated,
                listed: true,
                rematch_of: None,
                requester: None,
                watcher: None,
                on_end: None,
            },
        );
        if let Err(refusal) = started {
            // Both seekers hear why; the reply to the seek was already sent.
            for out in opponent.outbounds().into_iter().chain(session.outbounds()) {
                out.error(None, refusal.code, refusal.message.clone());
            }
        }
        Ok(())
    }
}
