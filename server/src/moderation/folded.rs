//! A node's moderation: the log as folded so far (see [`State`]), the lock that lets one reader
//! at a time move it on, and each player's recent reports, for the hourly limit.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use noughts_protocol::PlayerId;

use tokio::sync::MutexGuard;

use super::state::State;

/// How far back each read of the log starts before the last fact applied: in PostgreSQL, a fact
/// may commit after one with a larger id that was already read, and is picked up this way.
pub(crate) const OVERLAP: u64 = 64;

/// A node's moderation: the folded log, and the limit on reports.
#[derive(Debug, Default)]
pub(crate) struct Moderation {
    /// The log as folded so far.
    state: RwLock<State>,
    /// Held while the log is read and folded, so that one reader at a time moves it on.
    reading: tokio::sync::Mutex<()>,
    /// Each player's recent reports on this node, for the hourly limit.
    reports: std::sync::Mutex<HashMap<PlayerId, VecDeque<Instant>>>,
}

impl Moderation {
    pub(crate) fn new() -> Arc<Moderation> {
        Arc::new(Moderation::default())
    }

    /// The folded log, to ask.
    pub(crate) fn state(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The folded log, to fold more facts into (while [`Moderation::reading`] is held).
    pub(crate) fn state_mut(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Held while the log is read and folded.
    pub(crate) async fn reading(&self) -> MutexGuard<'_, ()> {
        self.reading.lock().await
    }

    /// Whether `player` may send another report now (at most `per_hour` an hour); counts it if so.
    pub(crate) fn may_report(&self, player: PlayerId, per_hour: u32) -> bool {
        let now = Instant::now();
        let hour = Duration::from_secs(3600);
        let mut reports = self.reports.lock().unwrap_or_else(|p| p.into_inner());
        let recent = reports.entry(player).or_default();
        while recent
            .front()
            .is_some_and(|sent| now.duration_since(*sent) >= hour)
        {
            recent.pop_front();
        }
        if recent.len() >= per_hour as usize {
            return false;
        }
        recent.push_back(now);
        true
    }
}
