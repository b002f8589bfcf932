//! A store job: a write (its work, its outcome until the commit, and whoever waits for it) or a
//! read; how writes are committed together, whether on the store thread or in the caller's
//! task; and the store thread that works through the jobs handed to it.

use std::sync::Arc;
use std::sync::mpsc;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tracing::error;

use super::backend::Backend;
use super::durability::Flusher;
use super::records::StoreError;

/// The database a job works on.
pub(super) type Db<'a> = &'a mut dyn Backend;

/// A write's work, run inside its batch's transaction (on the store thread, or in the caller's
/// task for the memory store); its answer is given only once that transaction has committed.
pub(super) trait Write: Send {
    fn run(&mut self, db: Db<'_>);
    fn finish(self: Box<Self>, committed: Result<(), &StoreError>);
}

/// A write as a closure, its outcome until the commit, and whoever waits for it.
pub(super) struct WriteJob<T, F> {
    /// The work, taken when it runs.
    pub(super) work: Option<F>,
    /// What the work gave, held until the transaction commits.
    pub(super) outcome: Option<Result<T, StoreError>>,
    /// Told once the transaction has committed (or failed); absent when nobody waits.
    pub(super) reply: Option<oneshot::Sender<Result<T, StoreError>>>,
    /// What to call it in a log line when nobody waits for the answer.
    pub(super) what: &'static str,
}

impl<T, F> Write for WriteJob<T, F>
where
    T: Send,
    F: FnOnce(Db<'_>) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, db: Db<'_>) {
        if let Some(work) = self.work.take() {
            // A savepoint per write, so one failing write leaves the rest of the batch alone.
            let outcome = db.savepoint().and_then(|()| guarded(|| work(&mut *db)));
            if let Err(err) = db.end_savepoint(outcome.is_ok()) {
                error!(cause = %err, "cannot end a savepoint");
            }
            self.outcome = Some(outcome);
        }
    }

    fn finish(mut self: Box<Self>, committed: Result<(), &StoreError>) {
        let reply = self.reply.take();
        let what = self.what;
        let result = self.answer(committed);
        match reply {
            Some(reply) => {
                let _ = reply.send(result);
            }
            None => {
                if let Err(err) = result {
                    error!(what, cause = %err, "a write failed");
                }
            }
        }
    }
}

impl<T, F> WriteJob<T, F> {
    /// What the write gave, once its transaction has committed (or failed to).
    pub(super) fn answer(self, committed: Result<(), &StoreError>) -> Result<T, StoreError> {
        match (committed, self.outcome) {
            (Ok(()), Some(Ok(value))) => Ok(value),
            (Ok(()), Some(Err(err))) => Err(err),
            (Err(err), _) => Err(StoreError::Commit(err.to_string())),
            (Ok(()), None) => Err(StoreError::Stopped),
        }
    }
}

/// Runs `writes` in one transaction, each in a savepoint of its own, and commits it; rolls it
/// back if it cannot.
pub(super) fn commit_together<'w, W>(
    db: Db<'_>,
    writes: impl IntoIterator<Item = &'w mut W>,
) -> Result<(), StoreError>
where
    W: Write + ?Sized + 'w,
{
    let committed = db.begin().and_then(|()| {
        for write in writes {
            write.run(&mut *db);
        }
        db.commit()
    });
    if committed.is_err() {
        db.rollback();
    }
    committed
}

/// Writes of one batch.
pub(super) type Writes = Vec<Box<dyn Write>>;

/// What the store thread is asked to do.
pub(super) enum Job {
    /// A change, committed with the others queued beside it.
    Write(Box<dyn Write>),
    /// A change to rows every node's store may change at once (id blocks, a game's fencing
    /// epoch), committed in a transaction of its own after the batch: holding such a row inside
    /// a batch while another node's batch holds the next one is how PostgreSQL deadlocks.
    Alone(Box<dyn Write>),
    /// A query, run after the writes queued before it have committed; it answers by itself.
    Read(Box<dyn FnOnce(Db<'_>) + Send>),
}

/// Runs `work`, turning a panic into an error so that one bad job cannot end the store thread.
pub(super) fn guarded<T>(work: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|_| {
        error!("a store job panicked");
        Err(StoreError::Panicked)
    })
}

/// Jobs handed to the store thread together.
pub(super) struct Batch {
    /// The jobs, in the order they were queued.
    pub(super) jobs: Vec<Job>,
    /// The runtime that handed them over, where the writes are answered in one task; answered
    /// from the store thread itself when there is none.
    pub(super) runtime: Option<Handle>,
}

/// Writes committed in one transaction at most; more wait for the next.
const BATCH: usize = 512;

/// The store thread: takes every queued job, commits the writes among them in one transaction,
/// answers them (a batch's in one task on the runtime that handed it over, if any), commits each
/// write that stands alone in a transaction of its own, then runs the reads. Between batches,
/// `flusher` makes the writes durable when they are answered before that. Ends, flushed, when
/// every handle has been dropped.
pub(super) fn work(db: Db<'_>, queue: &mpsc::Receiver<Batch>, flusher: &mut Flusher) {
    loop {
        let first = match flusher.patience() {
            None => queue.recv().ok(),
            Some(patience) => match queue.recv_timeout(patience) {
                Ok(batch) => Some(batch),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    flusher.flush_if_due(&mut *db);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => None,
            },
        };
        let Some(first) = first else {
            break;
        };
        run_batch(&mut *db, queue, first, flusher);
        flusher.flush_if_due(&mut *db);
    }
    flusher.flush(db);
}

/// Runs `first` and the batches queued behind it, up to [`BATCH`] jobs.
fn run_batch(db: Db<'_>, queue: &mpsc::Receiver<Batch>, first: Batch, flusher: &mut Flusher) {
    // Each batch's writes, with the runtime that answers them.
    let mut writes: Vec<(Option<Handle>, Writes)> = Vec::new();
    let mut reads = Vec::new();
    let mut alone = Vec::new();
    let mut taken = 0;
    let mut next = Some(first);
    while let Some(batch) = next.take() {
        let mut written = Vec::new();
        for job in batch.jobs {
            match job {
                Job::Write(write) => written.push(write),
                Job::Read(read) => reads.push(read),
                Job::Alone(write) => alone.push(write),
            }
            taken += 1;
        }
        if !written.is_empty() {
            writes.push((batch.runtime, written));
        }
        if taken < BATCH {
            next = queue.try_recv().ok();
        }
    }
    if !writes.is_empty() {
        let batches = writes.iter_mut().flat_map(|(_, batch)| batch.iter_mut());
        let committed = Arc::new(commit_together(db, batches.map(|write| &mut **write)));
        flusher.committed();
        for (runtime, batch) in writes {
            let committed = Arc::clone(&committed);
            let answer = move || {
                for write in batch {
                    write.finish(committed.as_ref().as_ref().map(|_| ()));
                }
            };
            match runtime {
                Some(runtime) => drop(runtime.spawn(async move { answer() })),
                None => answer(),
            }
        }
    }
    for mut write in alone {
        let committed = commit_together(db, [&mut *write]);
        flusher.committed();
        write.finish(committed.as_ref().map(|_| ()));
    }
    for read in reads {
        // A query that panics drops its answer; its caller hears that the store failed.
        let _ = guarded(|| {
            read(&mut *db);
            Ok(())
        });
    }
}
