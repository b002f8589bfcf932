//! Quick-match seeks: waiting in queues of those that may be paired, oldest first, accepted or
//! cancelled.

use std::collections::VecDeque;
use std::sync::Arc;

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use noughts_protocol::{PlayerId, SeekId};

use super::ids::Ids;
use crate::session::{OpenSeek, Pool, SeekTerms, Session};

/// Why a seek could not be accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AcceptSeekError {
    NoSuchSeek,
    OwnSeek,
    /// The seeker and the taker: one of them blocks the other.
    Blocked,
}

/// Quick-match seeks waiting, and their ids.
#[derive(Debug, Default)]
pub(crate) struct Seeks {
    /// Seeks waiting, oldest first, with their terms, per set of seeks that may be paired.
    queues: DashMap<Pool, VecDeque<(SeekId, Arc<Session>, SeekTerms)>>,
    /// The terms of each waiting seek, for `accept_seek`.
    keys: DashMap<SeekId, SeekTerms>,
    /// Seek ids.
    pub(super) ids: Ids,
}

impl Seeks {
    /// The terms of seek `seek`; `None` if it does not wait here.
    pub(crate) fn terms(&self, seek: SeekId) -> Option<SeekTerms> {
        self.keys.get(&seek).map(|key| *key)
    }

    /// The seeks waiting here that could be paired with `key` and are newer than `than`, each
    /// with its seeker.
    pub(crate) fn newer(&self, key: SeekTerms, than: SeekId) -> Vec<(Arc<Session>, OpenSeek)> {
        self.queues
            .get(&key.pool())
            .map(|queue| {
                queue
                    .iter()
                    .filter(|(id, _, _)| *id > than)
                    .map(|(id, session, key)| (session.clone(), OpenSeek { id: *id, key: *key }))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A new seek's id, if one can be had (see [`Ids::next`]).
    pub(crate) fn next_id(&self) -> Option<SeekId> {
        self.ids.next().map(SeekId)
    }

    /// Pairs `seek` with the oldest waiting compatible seek (the same variant and rating, and a
    /// clock of the same speed, or both untimed); any two compatible seeks are paired as soon as
    /// both exist, so at most one waits per set of compatible terms. Returns that seek's id,
    /// seeker and terms (the game is played on the waiting seek's terms). If there is none, `seek` waits in the queue (and `waits` runs,
    /// under the queue's lock, so that whatever it lists comes before any pairing or withdrawal
    /// can take it off), unless `may_wait` is false.
    pub(crate) fn pair_or_wait(
        &self,
        seeker: &Arc<Session>,
        seek: OpenSeek,
        may_wait: bool,
        (blocked, waits): (&dyn Fn(PlayerId) -> bool, impl FnOnce()),
    ) -> Option<(SeekId, Arc<Session>, SeekTerms)> {
        let bucket = seek.key.pool();
        let mut queue = self.queues.entry(bucket).or_default();
        // Seeks of players the seeker blocks, or who block the seeker, are passed over and wait on.
        let mut at = 0;
        while at < queue.len() {
            let other = &queue[at].1;
            if other.player != seeker.player && blocked(other.player) {
                at += 1;
                continue;
            }
            let Some((id, other, key)) = queue.remove(at) else {
                break;
            };
            self.keys.remove(&id);
            if other.player == seeker.player {
                continue;
            }
            // A seeker that withdrew or went away meanwhile no longer counts.
            if other.end_seek(id) {
                return Some((id, other, key));
            }
        }
        if may_wait {
            queue.push_back((seek.id, seeker.clone(), seek.key));
            self.keys.insert(seek.id, seek.key);
            waits();
        } else {
            drop(queue);
            // Leave no empty queue behind for a kind of game nobody waits for.
            self.queues.remove_if(&bucket, |_, queue| queue.is_empty());
        }
        None
    }

    /// Takes waiting seek `seek` for `taker`, who means to play its seeker: returns the seek's
    /// terms and its seeker, whose seek is over.
    pub(crate) fn accept(
        &self,
        seek: SeekId,
        taker: PlayerId,
        blocked: &dyn Fn(PlayerId) -> bool,
    ) -> Result<(SeekTerms, Arc<Session>), AcceptSeekError> {
        let key = self
            .keys
            .get(&seek)
            .map(|key| *key)
            .ok_or(AcceptSeekError::NoSuchSeek)?;
        let Entry::Occupied(mut queue) = self.queues.entry(key.pool()) else {
            return Err(AcceptSeekError::NoSuchSeek);
        };
        let at = queue
            .get()
            .iter()
            .position(|(id, _, _)| *id == seek)
            .ok_or(AcceptSeekError::NoSuchSeek)?;
        if queue.get()[at].1.player == taker {
            return Err(AcceptSeekError::OwnSeek);
        }
        if blocked(queue.get()[at].1.player) {
            return Err(AcceptSeekError::Blocked);
        }
        let (_, seeker, _) = queue.get_mut().remove(at).expect("found just now");
        if queue.get().is_empty() {
            queue.remove();
        }
        self.keys.remove(&seek);
        if seeker.end_seek(seek) {
            Ok((key, seeker))
        } else {
            Err(AcceptSeekError::NoSuchSeek)
        }
    }

    /// Takes `seek` out of its queue.
    pub(crate) fn cancel(&self, seek: OpenSeek) {
        if let Entry::Occupied(mut queue) = self.queues.entry(seek.key.pool()) {
            queue.get_mut().retain(|(id, _, _)| *id != seek.id);
            if queue.get().is_empty() {
                queue.remove();
            }
        }
        self.keys.remove(&seek.id);
    }
}
