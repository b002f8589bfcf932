//! A node's moderation: the log as folded so far (see [`State`]), and the lock that lets one
//! reader at a time move it on. (The limits on reports are `crate::account::Quotas`.)

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use tokio::sync::MutexGuard;

use super::state::State;

/// How far back each read of the log starts before the last fact applied: in PostgreSQL, a fact
/// may commit after one with a larger id that was already read, and is picked up this way.
pub(crate) const OVERLAP: u64 = 64;

/// A node's moderation: the folded log.
#[derive(Debug, Default)]
pub(crate) struct Moderation {
    /// The log as folded so far.
    state: RwLock<State>,
    /// Held while the log is read and folded, so that one reader at a time moves it on.
    reading: tokio::sync::Mutex<()>,
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
}
