//! The store: players, games, moves and ratings, kept in SQLite (a file, or memory for tests and
//! the embedded server).
//!
//! [`Store`] is the whole interface the rest of the server sees: record a player, a game's start,
//! each move, its end and the rating change; load the live games at start; answer the history,
//! record, profile and leaderboard queries. Behind it, one thread owns the database connection and
//! works through a queue, so no database call ever runs on a reactor thread. Writes that are queued
//! together commit in one transaction; a caller that must know its write is durable (a game
//! waiting to broadcast a move) awaits it, everyone else moves on.

mod sqlite;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use noughts_protocol::{
    ClockSpec, EndReason, GameId, GameKind, GameRecord, GameSummary, LeaderboardEntry, Level, Mark,
    PlayerId, Profile, Variant,
};
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::oneshot;
use tracing::error;

use crate::rating::{Glicko, Ratings};

/// Where the server keeps its records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StoreConfig {
    /// In memory: gone when the server stops. The default for the library, so tests and a server
    /// embedded in a client never write to disk.
    #[default]
    Memory,
    /// A SQLite database file, created if missing; games survive restarts and crashes.
    File(PathBuf),
}

impl StoreConfig {
    /// Whether what is stored outlives the process.
    pub fn is_persistent(&self) -> bool {
        matches!(self, StoreConfig::File(_))
    }
}

/// Why the store could not do something.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("cannot create the database's directory: {0}")]
    Directory(#[from] std::io::Error),
    #[error("the database has schema version {found}, newer than this server's {known}")]
    TooNew { found: u32, known: u32 },
    #[error("a stored game is inconsistent: {0}")]
    Corrupt(String),
    #[error("the transaction could not commit: {0}")]
    Commit(String),
    #[error("another server is using the database")]
    InUse,
    #[error("the store has stopped")]
    Stopped,
}

/// The SHA-256 of a session token: what the store and the session index keep instead of it.
///
/// Two hashes compare in constant time (this is the comparison the session index makes when a
/// token is looked up), so how long a lookup takes says nothing about how close a guess came.
#[derive(Clone, Copy, Eq)]
pub(crate) struct TokenHash(pub [u8; 32]);

impl PartialEq for TokenHash {
    fn eq(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl std::hash::Hash for TokenHash {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl TokenHash {
    pub(crate) fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }
}

/// Never shows the hash either: it is as good as a password to someone with the database.
impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenHash(..)")
    }
}

/// Milliseconds since the Unix epoch, as the store and the protocol keep time.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A player as stored.
#[derive(Debug, Clone)]
pub(crate) struct StoredPlayer {
    /// The public id, the same in every session.
    pub player: PlayerId,
    /// The name given at the first `hello`; the player keeps it.
    pub name: String,
    /// What a returning player's token must hash to.
    pub token: TokenHash,
    /// Ratings in every variant, for `welcome` and the lobby.
    pub ratings: Ratings,
}

/// A seat of a stored game.
#[derive(Debug, Clone)]
pub(crate) enum StoredSeat {
    Human(StoredPlayer),
    Ai(Level),
}

/// What is recorded when a game starts: everything needed to show it later or to restore it.
#[derive(Debug, Clone)]
pub(crate) struct GameStart {
    /// The game's id, never reused.
    pub game: GameId,
    /// The board it is played on.
    pub variant: Variant,
    /// Human, AI or war, as the lobby shows it.
    pub kind: GameKind,
    /// X's seat, then O's: a player or an AI level.
    pub seats: [Result<PlayerId, Level>; 2],
    /// The time control, if timed.
    pub clock: Option<ClockSpec>,
    /// Whether the end updates ratings.
    pub rated: bool,
    /// Whether the lobby lists it (games from private rooms are not listed).
    pub listed: bool,
    /// The game it is a rematch of, for snapshots.
    pub rematch_of: Option<GameId>,
    /// The player whose `play_ai` or `start_war` started it.
    pub owner: Option<PlayerId>,
    /// When it started, in milliseconds since the Unix epoch; moves are timed from it.
    pub started_ms: u64,
}

/// One move as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredMove {
    /// The cell played; the mark follows from the order.
    pub cell: usize,
    /// Milliseconds since the game started.
    pub at_ms: u64,
    /// In a timed game, the mover's time left after the move.
    pub clock_ms: Option<u64>,
}

/// How a game ended, as stored.
#[derive(Debug, Clone)]
pub(crate) struct Ending {
    /// The `seq` of the `game_over` update.
    pub seq: u64,
    /// Absent for a draw or an aborted game.
    pub winner: Option<Mark>,
    /// Why it ended; `aborted` games are never rated.
    pub reason: EndReason,
    /// The winning line's cells, if a line ended it.
    pub cells: Vec<usize>,
    /// When, in milliseconds since the Unix epoch.
    pub ended_ms: u64,
}

/// Both players' ratings after a rated game, for their sessions to show.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rerated {
    /// X's new rating.
    pub x: Glicko,
    /// O's new rating.
    pub o: Glicko,
}

/// A game that was being played when the server stopped, with everything needed to go on.
#[derive(Debug, Clone)]
pub(crate) struct LiveGame {
    /// How it started.
    pub start: GameStart,
    /// Who sits in it, with what a player's session needs.
    pub seats: [StoredSeat; 2],
    /// The latest `seq` stored: the restored game goes on from it.
    pub seq: u64,
    /// Every move so far, in order.
    pub moves: Vec<StoredMove>,
}

/// What the server needs from the store when it starts.
#[derive(Debug, Default)]
pub(crate) struct Startup {
    /// The largest player id ever given out.
    pub last_player: u64,
    /// The largest game id ever given out.
    pub last_game: u64,
    /// Games to restore.
    pub live: Vec<LiveGame>,
}

/// A write's work, run on the store thread inside the batch's transaction; its answer is sent
/// only once that transaction has committed.
trait Write: Send {
    fn run(&mut self, db: &Connection);
    fn finish(self: Box<Self>, committed: Result<(), &rusqlite::Error>);
}

/// A write as a closure, its outcome until the commit, and whoever waits for it.
struct WriteJob<T, F> {
    /// The work, taken when it runs.
    work: Option<F>,
    /// What the work gave, held until the transaction commits.
    outcome: Option<Result<T, StoreError>>,
    /// Told once the transaction has committed (or failed); absent when nobody waits.
    reply: Option<oneshot::Sender<Result<T, StoreError>>>,
    /// What to call it in a log line when nobody waits for the answer.
    what: &'static str,
}

impl<T, F> Write for WriteJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> rusqlite::Result<T> + Send,
{
    fn run(&mut self, db: &Connection) {
        if let Some(work) = self.work.take() {
            // A savepoint per write, so one failing write leaves the rest of the batch alone.
            let outcome = db
                .execute_batch("SAVEPOINT write")
                .and_then(|()| guarded(|| work(db)))
                .map_err(StoreError::Database);
            let cleanup = if outcome.is_ok() {
                "RELEASE write"
            } else {
                "ROLLBACK TO write; RELEASE write"
            };
            if let Err(err) = db.execute_batch(cleanup) {
                error!(cause = %err, "cannot end a savepoint");
            }
            self.outcome = Some(outcome);
        }
    }

    fn finish(self: Box<Self>, committed: Result<(), &rusqlite::Error>) {
        let result = match (committed, self.outcome) {
            (Ok(()), Some(Ok(value))) => Ok(value),
            (Ok(()), Some(Err(err))) => Err(err),
            (Err(err), _) => Err(StoreError::Commit(err.to_string())),
            (Ok(()), None) => Err(StoreError::Stopped),
        };
        match self.reply {
            Some(reply) => {
                let _ = reply.send(result);
            }
            None => {
                if let Err(err) = result {
                    error!(what = self.what, cause = %err, "a write failed");
                }
            }
        }
    }
}

/// What the store thread is asked to do.
enum Job {
    /// A change, committed with the others queued beside it.
    Write(Box<dyn Write>),
    /// A query, run after the writes queued before it have committed; it answers by itself.
    Read(Box<dyn FnOnce(&Connection) + Send>),
}

/// Writes committed in one transaction at most; more wait for the next.
const BATCH: usize = 512;

/// A handle to the store; cheap to clone, every clone talks to the same thread.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    /// The store thread's queue; the thread ends when every handle is gone.
    jobs: mpsc::Sender<Job>,
    /// Whether the database is a file, so games outlive the process.
    persistent: bool,
}

impl Store {
    /// Opens (creating and migrating as needed) the store and reads what the server needs to
    /// start. The database work happens on the store's own thread.
    pub(crate) async fn open(config: &StoreConfig) -> Result<(Store, Startup), StoreError> {
        let persistent = config.is_persistent();
        let config = config.clone();
        let (ready_tx, ready) = oneshot::channel();
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("noughts-store".into())
            .spawn(move || {
                let opened = sqlite::open(&config).and_then(|db| {
                    let startup = sqlite::startup(&db)?;
                    Ok((db, startup))
                });
                match opened {
                    Ok((db, startup)) => {
                        let _ = ready_tx.send(Ok(startup));
                        work(&db, &queue);
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                    }
                }
            })?;
        let startup = ready.await.map_err(|_| StoreError::Stopped)??;
        Ok((Store { jobs, persistent }, startup))
    }

    /// Whether what is stored outlives the process (a file rather than memory).
    pub(crate) fn is_persistent(&self) -> bool {
        self.persistent
    }

    fn submit<T, F>(
        &self,
        what: &'static str,
        work: F,
        reply: Option<oneshot::Sender<Result<T, StoreError>>>,
    ) where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let job = WriteJob {
            work: Some(work),
            outcome: None,
            reply,
            what,
        };
        if self.jobs.send(Job::Write(Box::new(job))).is_err() {
            error!(what, "the store has stopped; a write was lost");
        }
    }

    /// Queues a write and moves on; a failure is logged.
    fn write_later<F>(&self, what: &'static str, work: F)
    where
        F: FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static,
    {
        self.submit::<(), F>(what, work, None);
    }

    /// Queues a write and waits until it has committed.
    async fn write<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.submit(what, work, Some(reply));
        answer.await.map_err(|_| StoreError::Stopped)?
    }

    /// Runs a query on the store thread, after every write queued before it has committed.
    async fn read<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job = Job::Read(Box::new(move |db: &Connection| {
            let _ = reply.send(work(db));
        }));
        self.jobs.send(job).map_err(|_| StoreError::Stopped)?;
        answer.await.map_err(|_| StoreError::Stopped)?
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
            sqlite::add_player(db, player, &name, token, now)
        })
        .await
    }

    /// The player came (or went) just now.
    pub(crate) fn seen(&self, player: PlayerId) {
        let now = now_ms();
        self.write_later("player seen", move |db| sqlite::seen(db, player, now));
    }

    /// The player a token belongs to, if any.
    pub(crate) async fn player_by_token(
        &self,
        token: TokenHash,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        self.read(move |db| sqlite::player_by_token(db, token))
            .await
    }

    /// A game started; returns once it is durable.
    pub(crate) async fn start_game(&self, start: GameStart) -> Result<(), StoreError> {
        self.write("start game", move |db| sqlite::start_game(db, &start))
            .await
    }

    /// A move was made (and maybe ended the game); returns once it is durable, with both
    /// players' new ratings if it ended a rated game.
    pub(crate) async fn record_move(
        &self,
        game: GameId,
        ply: u32,
        seq: u64,
        played: StoredMove,
        ending: Option<Ending>,
    ) -> Result<Option<Rerated>, StoreError> {
        self.write("record move", move |db| {
            sqlite::record_move(db, game, ply, seq, played)?;
            match ending {
                Some(ending) => sqlite::end_game(db, game, &ending),
                None => Ok(None),
            }
        })
        .await
    }

    /// A game ended without a move (resignation, time, abandonment, shutdown); returns once it
    /// is durable, with both players' new ratings if it was rated.
    pub(crate) async fn end_game(
        &self,
        game: GameId,
        ending: Ending,
    ) -> Result<Option<Rerated>, StoreError> {
        self.write("end game", move |db| sqlite::end_game(db, game, &ending))
            .await
    }

    /// A live game's latest `seq`, for updates that are not moves (presence, chat, watchers).
    pub(crate) fn set_seq(&self, game: GameId, seq: u64) {
        self.write_later("game seq", move |db| sqlite::set_seq(db, game, seq));
    }

    pub(crate) async fn leaderboard(
        &self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError> {
        self.read(move |db| sqlite::leaderboard(db, variant, offset, limit))
            .await
    }

    /// A player's finished games, newest first, below `before`, as `viewer` may see them (games
    /// from private rooms only if `viewer` played in them); `None` if there is no such player.
    /// The flag says whether older games follow.
    pub(crate) async fn history(
        &self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Option<(Vec<GameSummary>, bool)>, StoreError> {
        self.read(move |db| sqlite::history(db, player, before, limit, viewer))
            .await
    }

    /// A game's record, if `viewer` may see it: any listed game, and a game from a private room
    /// only to its players (to anyone else it does not exist).
    pub(crate) async fn record(
        &self,
        game: GameId,
        viewer: PlayerId,
    ) -> Result<Option<GameRecord>, StoreError> {
        self.read(move |db| sqlite::record(db, game, viewer)).await
    }

    pub(crate) async fn profile(&self, player: PlayerId) -> Result<Option<Profile>, StoreError> {
        self.read(move |db| sqlite::profile(db, player)).await
    }
}

/// Runs `work`, turning a panic into an error so that one bad job cannot end the store thread.
fn guarded<T>(work: impl FnOnce() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|_| {
        error!("a store job panicked");
        Err(rusqlite::Error::InvalidQuery)
    })
}

/// The store thread: takes every queued job, commits the writes among them in one transaction,
/// answers them, then runs the reads. Ends when every handle has been dropped.
fn work(db: &Connection, queue: &mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        let mut writes: Vec<Box<dyn Write>> = Vec::new();
        let mut reads = Vec::new();
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Write(write) => writes.push(write),
                Job::Read(read) => reads.push(read),
            }
            if writes.len() + reads.len() < BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !writes.is_empty() {
            let committed = db.execute_batch("BEGIN IMMEDIATE").and_then(|()| {
                for write in &mut writes {
                    write.run(db);
                }
                db.execute_batch("COMMIT")
            });
            if committed.is_err() {
                let _ = db.execute_batch("ROLLBACK");
            }
            for write in writes {
                write.finish(committed.as_ref().map(|_| ()));
            }
        }
        for read in reads {
            // A query that panics drops its answer; its caller hears that the store failed.
            let _ = guarded(|| {
                read(db);
                Ok(())
            });
        }
    }
}

#[cfg(test)]
mod tests;
