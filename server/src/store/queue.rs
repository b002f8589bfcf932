//! [`Store`], the handle the rest of the server holds, and the one thread behind it that owns the
//! records (a [`Backend`]: memory, SQLite or PostgreSQL) and works through a queue of jobs, committing
//! the writes it finds queued together in one transaction.
//!
//! Jobs cross between the runtime and the store thread in batches, one wake-up each way a batch:
//! the jobs that the runtime's tasks queue while they run are handed over together once those
//! tasks have had their turn, and the answers to a committed batch go back in one task. Waking the
//! other thread for every job would, on a server held to one core, switch threads twice a move.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use noughts_protocol::{GameId, PlayerId};
use prometheus_client::metrics::counter::Counter;
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tracing::error;

use super::backend::{self, Backend, Settled};
use super::durability::{Durability, FlushSeries, Flusher};
use super::inline::{Beside, Inline, Syncing, Unflushed};
use super::job::{Batch, Db, Job, WriteJob, work};
use super::memory::Memory;
#[cfg(feature = "cluster")]
use super::postgres::Postgres;
use super::records::{
    Ending, GameStart, Startup, StoreConfig, StoreError, StoredMove, StoredPlayer, TokenHash,
    TokenRules, now_ms,
};
use super::sqlite::Sqlite;

/// The jobs queued since the last hand-over to the store thread, and the way to it.
struct Feed {
    /// Jobs in the order they were queued; not empty only while a hand-over is due.
    queued: Mutex<Vec<Job>>,
    /// The store thread's queue: each batch with the runtime that handed it over, where its
    /// answers go; the thread ends when the feed is gone.
    thread: mpsc::Sender<Batch>,
}

impl Feed {
    /// Queues `job`. The first job of a batch arranges its hand-over: on a runtime, by a task
    /// that runs once the tasks ready now have run (and queued their jobs too); elsewhere at once.
    fn push(self: &Arc<Self>, job: Job) {
        let first = {
            let mut queued = self.queued.lock().unwrap_or_else(|p| p.into_inner());
            queued.push(job);
            queued.len() == 1
        };
        if !first {
            return;
        }
        match Handle::try_current() {
            Ok(runtime) => {
                let due = HandOver(Arc::clone(self));
                runtime.spawn(async move {
                    tokio::task::yield_now().await;
                    drop(due);
                });
            }
            Err(_) => self.hand_over(),
        }
    }

    /// Wakes the store thread with nothing to do but look at the time.
    fn wake(&self) {
        let _ = self.thread.send(Batch {
            jobs: Vec::new(),
            runtime: None,
        });
    }

    /// Sends what is queued to the store thread. The queue stays locked until the batch is
    /// sent, so that batches reach the thread in the order their jobs were queued.
    fn hand_over(&self) {
        let mut queued = self.queued.lock().unwrap_or_else(|p| p.into_inner());
        if queued.is_empty() {
            return;
        }
        let batch = Batch {
            jobs: std::mem::take(&mut *queued),
            runtime: Handle::try_current().ok(),
        };
        if self.thread.send(batch).is_err() {
            error!("the store has stopped; jobs were lost");
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.hand_over();
    }
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed").finish_non_exhaustive()
    }
}

/// A hand-over that is due: done when dropped, so that a runtime shutting down before the task
/// holding it ran still hands the jobs over.
struct HandOver(Arc<Feed>);

impl Drop for HandOver {
    fn drop(&mut self) {
        self.0.hand_over();
    }
}

/// Where a handle's jobs go.
#[derive(Debug, Clone)]
enum Records {
    /// To the store thread, which owns the database.
    Thread(Arc<Feed>),
    /// Nowhere: they are done in the caller's task.
    Inline(Arc<Inline>),
    /// Writes in the caller's task, queries to the store thread, which syncs the log too.
    Written(Arc<Written>),
}

/// SQLite answering commits once written: the records written in the callers' tasks, and the
/// store thread that answers queries and syncs the log.
#[derive(Debug)]
struct Written {
    records: Arc<Beside>,
    unflushed: Arc<Unflushed>,
    feed: Arc<Feed>,
}

impl Written {
    async fn write<T: Send>(
        &self,
        work: impl FnOnce(Db<'_>) -> Result<T, StoreError> + Send,
    ) -> Result<T, StoreError> {
        let result = self.records.write(work).await;
        self.committed();
        result
    }

    /// A commit was answered: the store thread is woken to sync it if it is the first since
    /// the last sync.
    fn committed(&self) {
        if self.unflushed.committed() {
            self.feed.wake();
        }
    }
}

/// A handle to the store; cheap to clone, every clone talks to the same records.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    /// Where the jobs go; the store thread, if any, ends when every handle is gone.
    records: Records,
    /// Whether the database outlives the process (a file or PostgreSQL, not memory).
    persistent: bool,
    /// In a cluster, the lease epoch under which this node plays each game: every write of the
    /// game carries it, and the database refuses it if the game was written under a higher one.
    fences: Arc<Mutex<HashMap<GameId, u64>>>,
    /// Jobs that failed (a write refused or not committed, a read not answered), counted for
    /// `noughts_store_errors_total`; shared by every handle.
    pub(crate) errors: Counter,
    /// How the database's commits reach the disk, for `/metrics`; shared with the store thread.
    pub(crate) flush: FlushSeries,
}

impl Store {
    /// Opens (creating and migrating as needed) the store and reads what the server needs to
    /// start. A database's work happens on the store's own thread; the memory store's in the
    /// callers' tasks.
    #[cfg(test)]
    pub(crate) async fn open(config: &StoreConfig) -> Result<(Store, Startup), StoreError> {
        Store::open_keeping(config, usize::MAX, Durability::Move).await
    }

    /// [`Store::open`], the memory store keeping the records of the newest `finished` finished
    /// games only (a database keeps every game), a database's commits reaching the disk as
    /// `durability` says.
    pub(crate) async fn open_keeping(
        config: &StoreConfig,
        finished: usize,
        durability: Durability,
    ) -> Result<(Store, Startup), StoreError> {
        let persistent = config.is_persistent();
        if let StoreConfig::Memory = config {
            return Store::inline(Box::new(Memory::new(finished)), drop);
        }
        if let (StoreConfig::File(_), Durability::Interval(every)) = (config, durability) {
            let config = config.clone();
            return Store::start_written(move || open(&config), every).await;
        }
        let config = config.clone();
        let open = move || {
            let mut db = open(&config)?;
            db.answer_when_written(durability != Durability::Move)?;
            // A database from before the league's table was kept gets it built once.
            db.begin()?;
            match super::league_table::fill(&mut *db) {
                Ok(()) => db.commit()?,
                Err(err) => {
                    db.rollback();
                    return Err(err);
                }
            }
            Ok(db)
        };
        Store::start(persistent, open, durability, drop).await
    }

    /// A store of records kept in this process (`db`), worked on in the callers' tasks; `close`
    /// is given them when the last handle is dropped (the tests keep a memory store's records so
    /// to open them again).
    pub(super) fn inline(
        mut db: Box<dyn Backend>,
        close: impl FnOnce(Box<dyn Backend>) + Send + 'static,
    ) -> Result<(Store, Startup), StoreError> {
        let startup = backend::startup(&mut *db);
        let inline = Inline::new(db, Box::new(close));
        let store = Store {
            records: Records::Inline(Arc::new(inline)),
            persistent: false,
            fences: Arc::default(),
            errors: Counter::default(),
            flush: FlushSeries::default(),
        };
        Ok((store, startup?))
    }

    /// Starts the store's thread on the database `open` gives, which is handed to `close` when
    /// the thread ends; its commits reach the disk as `durability` says.
    async fn start(
        persistent: bool,
        open: impl FnOnce() -> Result<Box<dyn Backend>, StoreError> + Send + 'static,
        durability: Durability,
        close: impl FnOnce(Box<dyn Backend>) + Send + 'static,
    ) -> Result<(Store, Startup), StoreError> {
        let (ready_tx, ready) = oneshot::channel();
        let (thread, queue) = mpsc::channel::<Batch>();
        let flush = FlushSeries::default();
        let mut flusher = Flusher::new(durability, flush.clone());
        std::thread::Builder::new()
            .name("noughts-store".into())
            .spawn(move || {
                let opened = open().map(|mut db| {
                    let startup = backend::startup(&mut *db);
                    (db, startup)
                });
                match opened {
                    Ok((mut db, Ok(startup))) => {
                        let _ = ready_tx.send(Ok(startup));
                        work(&mut *db, &queue, &mut flusher);
                        close(db);
                    }
                    Ok((db, Err(err))) => {
                        let _ = ready_tx.send(Err(err));
                        close(db);
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                    }
                }
            })?;
        let startup = ready.await.map_err(|_| StoreError::Stopped)??;
        let store = Store {
            records: Records::Thread(Arc::new(Feed {
                queued: Mutex::new(Vec::new()),
                thread,
            })),
            persistent,
            fences: Arc::default(),
            errors: Counter::default(),
            flush,
        };
        Ok((store, startup))
    }

    /// Starts the store thread of a database whose commits are answered once written (`open`
    /// gives it), written in the callers' tasks; the thread answers its queries and syncs its log
    /// within `every` of a commit.
    async fn start_written(
        open: impl FnOnce() -> Result<Box<dyn Backend>, StoreError> + Send + 'static,
        every: std::time::Duration,
    ) -> Result<(Store, Startup), StoreError> {
        let (ready_tx, ready) = oneshot::channel();
        let (thread, queue) = mpsc::channel::<Batch>();
        let flush = FlushSeries::default();
        flush.interval.set(every.as_secs_f64());
        let series = flush.clone();
        let unflushed = Arc::new(Unflushed::default());
        let for_thread = Arc::clone(&unflushed);
        std::thread::Builder::new()
            .name("noughts-store".into())
            .spawn(move || {
                let opened = open().and_then(|mut db| {
                    let sync = db.sync_beside()?.ok_or(StoreError::Unbuilt)?;
                    let startup = backend::startup(&mut *db);
                    Ok((db, sync, startup))
                });
                let (db, sync, startup) = match opened {
                    Ok(opened) => opened,
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                        return;
                    }
                };
                let records = Arc::new(Beside::new(db));
                let startup = startup.map(|startup| (startup, Arc::clone(&records)));
                let failed = startup.is_err();
                let _ = ready_tx.send(startup);
                if failed {
                    return;
                }
                let syncing = Syncing {
                    records,
                    unflushed: for_thread,
                    sync,
                    every,
                    series,
                };
                syncing.work(&queue);
            })?;
        let (startup, records) = ready.await.map_err(|_| StoreError::Stopped)??;
        let written = Written {
            records,
            unflushed,
            feed: Arc::new(Feed {
                queued: Mutex::new(Vec::new()),
                thread,
            }),
        };
        let store = Store {
            records: Records::Written(Arc::new(written)),
            persistent: true,
            fences: Arc::default(),
            errors: Counter::default(),
            flush,
        };
        Ok((store, startup))
    }

    /// Whether what is stored outlives the process (a file or PostgreSQL rather than memory).
    pub(crate) fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// From now on, this node's writes of `game` carry `epoch` (`Some`, its lease was taken;
    /// never lowered, as a lease taken again after Redis lost its keys starts over at 1) or
    /// nothing (`None`, the game closed here).
    pub(crate) fn fence(&self, game: GameId, epoch: Option<u64>) {
        let mut fences = self.fences.lock().unwrap_or_else(|p| p.into_inner());
        match epoch {
            Some(epoch) => {
                let held = fences.entry(game).or_insert(epoch);
                *held = (*held).max(epoch);
            }
            None => {
                fences.remove(&game);
            }
        }
    }

    /// `result`, counted in [`Store::errors`] if it is an error.
    fn counted<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if result.is_err() {
            self.errors.inc();
        }
        result
    }

    fn epoch(&self, game: GameId) -> Option<u64> {
        self.fences
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&game)
            .copied()
    }

    /// Queues a write and moves on; a failure is logged.
    pub(super) fn write_later<F>(&self, what: &'static str, work: F)
    where
        F: FnOnce(Db<'_>) -> Result<(), StoreError> + Send + 'static,
    {
        match &self.records {
            Records::Inline(inline) => {
                if let Err(err) = self.counted(inline.write(work)) {
                    error!(what, cause = %err, "a write failed");
                }
            }
            Records::Written(written) => {
                let errors = self.errors.clone();
                let after = Arc::clone(written);
                written.records.write_later(work, move |result| {
                    after.committed();
                    if let Err(err) = result {
                        errors.inc();
                        error!(what, cause = %err, "a write failed");
                    }
                });
            }
            Records::Thread(feed) => {
                let errors = self.errors.clone();
                let work = move |db: Db<'_>| {
                    work(db).inspect_err(|_| {
                        errors.inc();
                    })
                };
                feed.push(Job::Write(Box::new(WriteJob {
                    work: Some(work),
                    outcome: None,
                    reply: None,
                    what,
                })));
            }
        }
    }

    /// Queues a write and waits until it has committed.
    pub(super) async fn write<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Db<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let feed = match &self.records {
            Records::Inline(inline) => return self.counted(inline.write(work)),
            Records::Written(written) => return self.counted(written.write(work).await),
            Records::Thread(feed) => feed,
        };
        let (reply, answer) = oneshot::channel();
        feed.push(Job::Write(Box::new(WriteJob {
            work: Some(work),
            outcome: None,
            reply: Some(reply),
            what,
        })));
        self.counted(answer.await.map_err(|_| StoreError::Stopped)?)
    }

    /// Queues a write that commits in a transaction of its own (see [`Job::Alone`]) and waits
    /// until it has.
    pub(super) async fn write_alone<T, F>(
        &self,
        what: &'static str,
        work: F,
    ) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Db<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let feed = match &self.records {
            Records::Inline(inline) => return self.counted(inline.write(work)),
            Records::Written(written) => return self.counted(written.write(work).await),
            Records::Thread(feed) => feed,
        };
        let (reply, answer) = oneshot::channel();
        feed.push(Job::Alone(Box::new(WriteJob {
            work: Some(work),
            outcome: None,
            reply: Some(reply),
            what,
        })));
        self.counted(answer.await.map_err(|_| StoreError::Stopped)?)
    }

    /// Runs a query on the store thread, after every write queued before it has committed.
    pub(super) async fn read<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Db<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let feed = match &self.records {
            Records::Inline(inline) => return self.counted(inline.read(work)),
            Records::Thread(feed) => feed,
            Records::Written(written) => &written.feed,
        };
        let (reply, answer) = oneshot::channel();
        feed.push(Job::Read(Box::new(move |db: Db<'_>| {
            let _ = reply.send(work(db));
        })));
        self.counted(answer.await.map_err(|_| StoreError::Stopped)?)
    }

    /// Whether the database answers a question (for the readiness check): a read behind the
    /// writes queued so far.
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.read(|db| db.last_ids().map(drop)).await
    }

    /// Copies the database, with every write queued so far, into the new file `to` (SQLite only).
    pub(crate) async fn backup_into(&self, to: std::path::PathBuf) -> Result<(), StoreError> {
        self.read(move |db| db.backup_into(&to)).await
    }

    /// Waits until every write queued so far has committed.
    pub(crate) async fn flush(&self) -> Result<(), StoreError> {
        self.write("flush", |_| Ok(())).await
    }

    /// A new player; returns once it is durable, so a token given out always works again.
    pub(crate) async fn add_player(
        &self,
        player: PlayerId,
        name: &str,
        token: TokenHash,
    ) -> Result<(), StoreError> {
        let name = name.to_owned();
        let now = now_ms();
        self.write("add player", move |db| {
            db.add_player(player, &name, token, now)
        })
        .await
    }

    /// The player's new name, stored before the player hears of it.
    pub(crate) async fn rename_player(
        &self,
        player: PlayerId,
        name: &str,
    ) -> Result<(), StoreError> {
        let name = name.to_owned();
        self.write("rename player", move |db| db.rename_player(player, &name))
            .await
    }

    /// The player came (or went) just now.
    pub(crate) fn seen(&self, player: PlayerId) {
        let now = now_ms();
        self.write_later("player seen", move |db| db.seen(player, now));
    }

    /// The player whose token `presented` still works, changing nothing; `None` if it does not
    /// work. A `hello` checks its token so before it may be refused for other reasons.
    pub(crate) async fn token_player(
        &self,
        presented: TokenHash,
        rules: TokenRules,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        let now = now_ms();
        self.read(move |db| match db.token_owner(presented, rules, now)? {
            Some(player) => backend::player(db, player),
            None => Ok(None),
        })
        .await
    }

    /// Trades a token that still works for `fresh` (see [`TokenRules`]); returns its player once
    /// the trade is durable, or `None` if the token does not work.
    pub(crate) async fn rotate_token(
        &self,
        presented: TokenHash,
        fresh: TokenHash,
        rules: TokenRules,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        let now = now_ms();
        let player = self
            .write("rotate token", move |db| {
                db.rotate_token(presented, fresh, rules, now)
            })
            .await?;
        match player {
            Some(player) => self.read(move |db| backend::player(db, player)).await,
            None => Ok(None),
        }
    }

    /// A connection welcomed with token `hash` has closed: the token's unused time counts from
    /// now.
    pub(crate) fn touch_token(&self, hash: TokenHash) {
        let now = now_ms();
        self.write_later("token used", move |db| db.touch_token(hash, now));
    }

    /// Revokes every token of `player`; returns once that is durable.
    pub(crate) async fn revoke_tokens(&self, player: PlayerId) -> Result<(), StoreError> {
        self.write("revoke tokens", move |db| {
            db.revoke_tokens(player).map(drop)
        })
        .await
    }

    /// Deletes the tokens that no longer work.
    pub(crate) fn prune_tokens(&self, rules: TokenRules) {
        let now = now_ms();
        self.write_later("prune tokens", move |db| {
            db.prune_tokens(rules, now).map(drop)
        });
    }

    /// Moves were taken back by agreement: all but the first `keep` are dropped, and the game's
    /// `seq` covers the `taken_back` update's; returns once that is durable.
    pub(crate) async fn take_back(
        &self,
        game: GameId,
        keep: u32,
        seq: u64,
    ) -> Result<(), StoreError> {
        let epoch = self.epoch(game);
        self.write("take back", move |db| {
            backend::check_fence(db, game, epoch)?;
            backend::take_back(db, game, keep, seq)
        })
        .await
    }

    /// A game started; returns once it is durable.
    pub(crate) async fn start_game(&self, start: GameStart) -> Result<(), StoreError> {
        self.write("start game", move |db| db.start_game(&start))
            .await
    }

    /// A move was made (and maybe ended the game); returns once it is durable, with what the
    /// end gave (both players' new ratings, their arena lines) if it ended the game. `seq_mark`, if any, raises the `seq` the
    /// game would continue from after a restart, as [`Store::reserve_seq`] does.
    pub(crate) async fn record_move(
        &self,
        game: GameId,
        ply: u32,
        seq_mark: Option<u64>,
        played: StoredMove,
        ending: Option<Ending>,
    ) -> Result<Settled, StoreError> {
        let epoch = self.epoch(game);
        self.write("record move", move |db| {
            backend::check_fence(db, game, epoch)?;
            backend::record_move(&mut *db, game, ply, seq_mark, &played)?;
            match ending {
                Some(ending) => backend::end_game(db, game, &ending),
                None => Ok(Settled::default()),
            }
        })
        .await
    }

    /// A game ended without a move (resignation, time, abandonment, shutdown); returns once it
    /// is durable, with what the end gave (both players' new ratings if it was rated, their
    /// arena lines if it counted in an arena).
    pub(crate) async fn end_game(
        &self,
        game: GameId,
        ending: Ending,
    ) -> Result<Settled, StoreError> {
        let epoch = self.epoch(game);
        self.write("end game", move |db| {
            backend::check_fence(db, game, epoch)?;
            backend::end_game(db, game, &ending)
        })
        .await
    }

    /// Raises the `seq` a live game will continue from after a restart to at least `seq`, durably:
    /// an update that is not a move (presence, chat, watchers) may go out only below it.
    pub(crate) async fn reserve_seq(&self, game: GameId, seq: u64) -> Result<(), StoreError> {
        let epoch = self.epoch(game);
        self.write("game seq", move |db| {
            backend::check_fence(db, game, epoch)?;
            db.raise_seq(game, seq)
        })
        .await
    }
}

/// Opens the database `config` names.
fn open(config: &StoreConfig) -> Result<Box<dyn Backend>, StoreError> {
    Ok(match config {
        #[cfg(feature = "cluster")]
        StoreConfig::Postgres(url) => Box::new(Postgres::connect(url)?),
        #[cfg(not(feature = "cluster"))]
        StoreConfig::Postgres(_) => return Err(StoreError::Unbuilt),
        StoreConfig::Memory => Box::new(Memory::new(usize::MAX)),
        StoreConfig::File(path) => Box::new(Sqlite::open(path)?),
    })
}
