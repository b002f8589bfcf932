//! Records worked on in the callers' tasks rather than handed to the store thread: the memory
//! store's, and a SQLite file's when commits are answered once written (`interval`), whose store
//! thread then only answers queries and syncs the log.
//!
//! A commit answered once written is a few statements on a database this process holds alone:
//! less work than handing it to a thread and taking the answer back, which on a paced load costs
//! two thread switches a move. What waits for the disk stays on the store thread: the log's sync,
//! through a handle of its own that needs no lock on the database, and the checkpoints (SQLite's
//! own are turned off), which hold the database while callers wait for it without holding up
//! the runtime, as do long queries (a backup).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::error;

use super::backend::{Backend, LogSync};
use super::durability::FlushSeries;
use super::job::{Batch, Db, Job, commit_together, guarded};
use super::records::StoreError;

/// What is given a store's records when the last handle is dropped.
pub(super) type Closer = Box<dyn FnOnce(Box<dyn Backend>) + Send>;

/// Records worked on in the caller's task: a job there is a few map operations (the memory
/// store) or statements (SQLite answering once written), far less than a hand-over to a thread
/// and back.
pub(super) struct Inline {
    /// The records; `None` only once handed to `close`.
    db: Mutex<Option<Box<dyn Backend>>>,
    /// Given the records when the last handle is dropped.
    close: Mutex<Option<Closer>>,
}

impl Inline {
    pub(super) fn new(db: Box<dyn Backend>, close: Closer) -> Inline {
        Inline {
            db: Mutex::new(Some(db)),
            close: Mutex::new(Some(close)),
        }
    }

    /// Runs `work` as a batch of one write: in a transaction, committed before it answers.
    pub(super) fn write<T: Send>(
        &self,
        work: impl FnOnce(Db<'_>) -> Result<T, StoreError> + Send,
    ) -> Result<T, StoreError> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let db = db.as_deref_mut().ok_or(StoreError::Stopped)?;
        write_one(db, work)
    }

    /// Runs a query.
    pub(super) fn read<T>(
        &self,
        work: impl FnOnce(Db<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let db = db.as_deref_mut().ok_or(StoreError::Stopped)?;
        guarded(|| work(db))
    }
}

impl Drop for Inline {
    fn drop(&mut self) {
        let db = self.db.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        let close = self
            .close
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let (Some(db), Some(close)) = (db, close) {
            close(db);
        }
    }
}

impl std::fmt::Debug for Inline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inline").finish_non_exhaustive()
    }
}

/// When the oldest commit not yet on disk was answered, shared by the writers and the store
/// thread that syncs the log.
#[derive(Debug, Default)]
pub(super) struct Unflushed {
    oldest: Mutex<Option<Instant>>,
    /// Commits since the log was last checkpointed.
    commits: AtomicU64,
}

impl Unflushed {
    /// A commit was answered just now; true if it is the first since the last sync (the store
    /// thread is then to be woken, to sync an interval later).
    pub(super) fn committed(&self) -> bool {
        self.commits.fetch_add(1, Ordering::Relaxed);
        let mut oldest = self.oldest.lock().unwrap_or_else(|p| p.into_inner());
        if oldest.is_some() {
            return false;
        }
        *oldest = Some(Instant::now());
        true
    }

    fn oldest(&self) -> Option<Instant> {
        *self.oldest.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self) -> Option<Instant> {
        self.oldest.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn commits_since_checkpoint(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// The log was checkpointed: the commits counted so far are in the database.
    fn checkpointed(&self) {
        self.commits.store(0, Ordering::Relaxed);
    }

    /// A sync failed: the commits since `oldest` are still to be synced.
    fn restore(&self, oldest: Instant) {
        let mut held = self.oldest.lock().unwrap_or_else(|p| p.into_inner());
        *held = Some(held.map_or(oldest, |later| later.min(oldest)));
    }
}

/// A database written in the callers' tasks, each waiting its turn without holding up the
/// runtime's thread, and read on the store thread.
pub(super) struct Beside(tokio::sync::Mutex<Box<dyn Backend>>);

impl Beside {
    pub(super) fn new(db: Box<dyn Backend>) -> Beside {
        Beside(tokio::sync::Mutex::new(db))
    }

    /// Runs `work` as a batch of one write: in a transaction, committed before it answers.
    pub(super) async fn write<T: Send>(
        &self,
        work: impl FnOnce(Db<'_>) -> Result<T, StoreError> + Send,
    ) -> Result<T, StoreError> {
        let mut db = self.0.lock().await;
        write_one(&mut **db, work)
    }

    /// [`Beside::write`] for a caller that does not wait for it: at once if the database is
    /// free, else in a task of its own; `done` is given the outcome.
    pub(super) fn write_later<T, W, D>(self: &Arc<Self>, work: W, done: D)
    where
        T: Send + 'static,
        W: FnOnce(Db<'_>) -> Result<T, StoreError> + Send + 'static,
        D: FnOnce(Result<T, StoreError>) + Send + 'static,
    {
        if let Ok(mut db) = self.0.try_lock() {
            return done(write_one(&mut **db, work));
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let beside = Arc::clone(self);
                drop(runtime.spawn(async move { done(beside.write(work).await) }));
            }
            Err(_) => {
                let mut db = self.0.blocking_lock();
                done(write_one(&mut **db, work));
            }
        }
    }
}

impl std::fmt::Debug for Beside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Beside").finish_non_exhaustive()
    }
}

/// Runs `work` as a batch of one write: in a transaction of its own, committed before it
/// answers, or rolled back whole if it fails (alone in it, it needs no savepoint of its own).
fn write_one<T: Send>(
    db: Db<'_>,
    work: impl FnOnce(Db<'_>) -> Result<T, StoreError> + Send,
) -> Result<T, StoreError> {
    db.begin()?;
    let done = guarded(|| work(&mut *db)).and_then(|value| {
        db.commit()
            .map(|()| value)
            .map_err(|err| StoreError::Commit(err.to_string()))
    });
    if done.is_err() {
        db.rollback();
    }
    done
}

/// After this many commits (each a page of the log or more: SQLite's own checkpoint is at 1,000
/// pages), the log is checkpointed into the database after its next sync.
const CHECKPOINT_AFTER: u64 = 1_000;

/// The store thread of a database written in the callers' tasks: answers the queries handed to
/// it (in the order they came), syncs the log within `every` of the oldest commit not yet on
/// disk, and checkpoints the log when it has grown. Ends, synced, when every handle has been
/// dropped (the queue is closed).
pub(super) struct Syncing {
    pub(super) records: Arc<Beside>,
    pub(super) unflushed: Arc<Unflushed>,
    pub(super) sync: LogSync,
    pub(super) every: Duration,
    pub(super) series: FlushSeries,
}

impl Syncing {
    pub(super) fn work(mut self, queue: &mpsc::Receiver<Batch>) {
        // After a failed sync, when to try again.
        let mut retry: Option<Instant> = None;
        loop {
            let due = retry.or_else(|| Some(self.unflushed.oldest()? + self.every));
            let next = match due {
                None => queue
                    .recv()
                    .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                Some(due) => queue.recv_timeout(due.saturating_duration_since(Instant::now())),
            };
            match next {
                Ok(batch) => self.run(batch),
                Err(mpsc::RecvTimeoutError::Timeout) => retry = self.sync(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        self.sync();
    }

    /// Runs a batch's jobs: queries (writes are done in the callers' tasks, but one handed over
    /// is committed here all the same); an empty batch only wakes the thread.
    fn run(&self, batch: Batch) {
        for job in batch.jobs {
            let mut db = self.records.0.blocking_lock();
            match job {
                Job::Read(read) => {
                    // A query that panics drops its answer; its caller hears that the store
                    // failed.
                    let _ = guarded(|| {
                        read(&mut **db);
                        Ok(())
                    });
                }
                Job::Write(mut write) | Job::Alone(mut write) => {
                    let committed = commit_together(&mut **db, [&mut *write]);
                    drop(db);
                    self.unflushed.committed();
                    write.finish(committed.as_ref().map(|_| ()));
                }
            }
        }
    }

    /// Syncs the log if a commit is not yet on disk, then checkpoints it if it has grown; after
    /// a failure, returns when to try again.
    fn sync(&mut self) -> Option<Instant> {
        let oldest = self.unflushed.take()?;
        match (self.sync)() {
            Ok(()) => {
                self.series.flushes.inc();
                self.series.lag.observe(oldest.elapsed().as_secs_f64());
                if self.unflushed.commits_since_checkpoint() >= CHECKPOINT_AFTER {
                    let mut db = self.records.0.blocking_lock();
                    match db.checkpoint() {
                        Ok(()) => self.unflushed.checkpointed(),
                        Err(err) => error!(cause = %err, "cannot checkpoint the store's log"),
                    }
                }
                None
            }
            Err(err) => {
                error!(cause = %err, "cannot flush the store's writes to disk");
                self.unflushed.restore(oldest);
                Some(Instant::now() + self.every)
            }
        }
    }
}
