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

/// A seek waiting in its queue.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub(crate) seek: SeekId,
    /// Who waits, and plays when it is taken.
    pub(crate) seeker: Arc<Session>,
    /// What game it asks for; a game it pairs into is played on these terms.
    pub(crate) terms: SeekTerms,
}

/// Quick-match seeks waiting, and their ids.
#[derive(Debug, Default)]
pub(crate) struct Seeks {
    /// Seeks waiting, oldest first, with their terms, per set of seeks that may be paired.
    queues: DashMap<Pool, VecDeque<Waiting>>,
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
                    .filter(|waiting| waiting.seek > than && waiting.terms.meets(key))
                    .map(|waiting| {
                        let open = OpenSeek {
                            id: waiting.seek,
                            key: waiting.terms,
                        };
                        (waiting.seeker.clone(), open)
                    })
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
    /// both exist; seeks of players `blocked` for the seeker, and seeks whose players may not
    /// meet (a bot and a person who did not choose to play bots), are passed over. Returns that seek (the game is played on its terms). If
    /// there is none, `seek` waits in the queue (and `waits` runs, under the queue's lock, so
    /// that whatever it lists comes before any pairing or withdrawal can take it off), unless
    /// `may_wait` is false.
    pub(crate) fn pair_or_wait(
        &self,
        seeker: &Arc<Session>,
        seek: OpenSeek,
        may_wait: bool,
        blocked: &dyn Fn(PlayerId) -> bool,
        waits: impl FnOnce(),
    ) -> Option<Waiting> {
        let bucket = seek.key.pool();
        let mut queue = self.queues.entry(bucket).or_default();
        // Seeks of players the seeker blocks, or who block the seeker, are passed over and wait on.
        let mut at = 0;
        while at < queue.len() {
            let other = &queue[at].seeker;
            let apart = !queue[at].terms.meets(seek.key);
            if other.player != seeker.player && (apart || blocked(other.player)) {
                at += 1;
                continue;
            }
            let Some(waiting) = queue.remove(at) else {
                break;
            };
            self.keys.remove(&waiting.seek);
            if waiting.seeker.player == seeker.player {
                continue;
            }
            // A seeker that withdrew or went away meanwhile no longer counts.
            if waiting.seeker.end_seek(waiting.seek) {
                return Some(waiting);
            }
        }
        if may_wait {
            queue.push_back(Waiting {
                seek: seek.id,
                seeker: seeker.clone(),
                terms: seek.key,
            });
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
            .position(|waiting| waiting.seek == seek)
            .ok_or(AcceptSeekError::NoSuchSeek)?;
        if queue.get()[at].seeker.player == taker {
            return Err(AcceptSeekError::OwnSeek);
        }
        if blocked(queue.get()[at].seeker.player) {
            return Err(AcceptSeekError::Blocked);
        }
        let seeker = queue.get_mut().remove(at).expect("found just now").seeker;
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
            queue.get_mut().retain(|waiting| waiting.seek != seek.id);
            if queue.get().is_empty() {
                queue.remove();
            }
        }
        self.keys.remove(&seek.id);
    }
}
