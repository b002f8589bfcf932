//! What the store keeps and gives back: where it keeps it, its errors, token hashes, and the
//! records of players, games, moves, ends and rating changes.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use noughts_protocol::{
    ArenaId, ClockSpec, EndReason, GameId, GameKind, GameResult, Mark, PlayerId, Variant,
};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::rules::rating::{Glicko, Ratings};
use crate::rules::sitter::Sitter;

/// How far ahead of the `seq` it has sent a live game keeps the `seq` it would continue from after
/// a restart: presence, chat and watcher counts are not stored, yet their `seq`s must never be
/// given out again. A move that finds less than half of this left above its `seq` raises the mark
/// to its `seq` plus this much, in the same write; any other update that would not fit below first
/// raises the mark (and waits for the store). So the mark is written about once in every half of
/// this many updates, not with every move.
pub(crate) const SEQ_RESERVE: u64 = 32;

/// Where the server keeps its records.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum StoreConfig {
    /// In memory: gone when the server stops. The default for the library, so tests and a server
    /// embedded in a client never write to disk.
    #[default]
    Memory,
    /// A SQLite database file, created if missing; games survive restarts and crashes.
    File(PathBuf),
    /// A PostgreSQL database, as a `postgres://user[:password]@host[:port]/database` URL (or
    /// libpq's `key=value` form); its schema is brought up to date at start.
    Postgres(String),
}

impl StoreConfig {
    /// Whether what is stored outlives the process.
    pub fn is_persistent(&self) -> bool {
        !matches!(self, StoreConfig::Memory)
    }

    /// `Postgres` for a `postgres://` or `postgresql://` URL, `Memory` for `:memory:`, and a
    /// SQLite file otherwise: what `--db` means.
    pub fn from_arg(arg: &str) -> StoreConfig {
        if arg == ":memory:" {
            StoreConfig::Memory
        } else if arg.starts_with("postgres://") || arg.starts_with("postgresql://") {
            StoreConfig::Postgres(arg.to_owned())
        } else {
            StoreConfig::File(PathBuf::from(arg))
        }
    }
}

/// Where the records are, fit for a log line: a PostgreSQL URL without its password.
impl std::fmt::Display for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Memory => f.write_str(":memory:"),
            StoreConfig::File(path) => write!(f, "{}", path.display()),
            StoreConfig::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

/// Never shows a PostgreSQL password.
impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Memory => f.write_str("Memory"),
            StoreConfig::File(path) => f.debug_tuple("File").field(path).finish(),
            StoreConfig::Postgres(_) => f.debug_tuple("Postgres").field(&self.to_string()).finish(),
        }
    }
}

/// `url` with any password in it replaced by `***`, for messages and logs.
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // The key=value form: hide the value of `password`.
        return url
            .split_whitespace()
            .map(|pair| match pair.split_once('=') {
                Some(("password", _)) => "password=***",
                _ => pair,
            })
            .collect::<Vec<_>>()
            .join(" ");
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    // The query may hold a password too: it is left out whole.
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:***"),
                None => user.to_owned(),
            };
            format!("{scheme}://{user}@{host}{path}")
        }
        None => format!("{scheme}://{authority}{path}"),
    }
}

/// Why the store could not do something.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[cfg(feature = "cluster")]
    #[error("PostgreSQL: {}", postgres_message(.0))]
    Postgres(#[from] postgres::Error),
    #[cfg(feature = "cluster")]
    #[error("cannot connect to PostgreSQL at {url}: {}", postgres_message(.cause))]
    Unreachable {
        /// Where, without the password.
        url: String,
        cause: postgres::Error,
    },
    #[error("cannot set up TLS to PostgreSQL at {url}: {why}")]
    Tls {
        /// Where, without the password.
        url: String,
        why: String,
    },
    #[error("cannot create the database's directory: {0}")]
    Directory(#[from] std::io::Error),
    #[error("cannot sync the database's writes to disk: {0}")]
    Flush(std::io::Error),
    #[error("the database has schema version {found}, newer than this server's {known}")]
    TooNew { found: u32, known: u32 },
    #[error("a stored game is inconsistent: {0}")]
    Corrupt(String),
    /// A move tried at a ply where another is stored already: an earlier try's, committed although
    /// its answer was lost (the database stopped as it committed).
    #[error("game {game} has move {stored} stored at ply {ply}, not {tried}")]
    Diverged {
        game: GameId,
        ply: u32,
        stored: usize,
        tried: usize,
    },
    #[error("the transaction could not commit: {0}")]
    Commit(String),
    #[error("another server is using the database")]
    InUse,
    #[error("a store job failed unexpectedly")]
    Panicked,
    #[error("game {0} is played by another node now: this node's write was refused")]
    Fenced(GameId),
    #[error("arena {0} is directed by another node now: this node's write was refused")]
    FencedArena(ArenaId),
    #[error("the records refuse the write: {0}")]
    Refused(String),
    #[error("the store has stopped")]
    Stopped,
    #[error(
        "this server was built without PostgreSQL (its `cluster` feature): keep games in a SQLite \
         file instead, or build it with the feature"
    )]
    Unbuilt,
}

#[cfg(feature = "cluster")]
/// A PostgreSQL error with what the server said, or the cause below it: the client's own
/// `Display` stops at "db error" or "error connecting to server".
fn postgres_message(err: &postgres::Error) -> String {
    if let Some(db) = err.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(err) {
        Some(cause) => format!("{err}: {cause}"),
        None => err.to_string(),
    }
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

/// How long tokens work: a token unused for `idle_ms` expires, and one that has been replaced
/// keeps working for `overlap_ms`, so that clients sharing it (several processes reading one
/// token file, several browser tabs) can each come back with it in that time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TokenRules {
    pub idle_ms: u64,
    pub overlap_ms: u64,
}

/// A player as stored.
#[derive(Debug, Clone)]
pub(crate) struct StoredPlayer {
    /// The public id, the same in every session.
    pub player: PlayerId,
    /// The name given at the first `hello` (or the last `rename`); an account's username.
    pub name: String,
    /// Ratings in every variant, for `welcome` and the lobby.
    pub ratings: Ratings,
    /// Whether the player has an open account (else it is a guest).
    pub account: bool,
    /// Whether that account is a bot account.
    pub bot: bool,
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
    pub seats: [Sitter; 2],
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
    pub seats: [Sitter<StoredPlayer>; 2],
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

/// A seat of a stored game: the person's name (none for an AI), and for a rated game their rating
/// before it and the change it made.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredSeat {
    pub name: Option<String>,
    /// Whether the person has no account: a guest.
    pub guest: bool,
    /// Whether the person is a bot account.
    pub bot: bool,
    pub rating: Option<f64>,
    pub change: Option<f64>,
}

/// A game as the store keeps it: how it started, who sat where, how and when it ended, and how
/// many moves were played.
#[derive(Debug, Clone)]
pub(crate) struct StoredGame {
    pub start: GameStart,
    pub seats: [StoredSeat; 2],
    pub ended_ms: Option<u64>,
    pub result: Option<GameResult>,
    pub moves: u32,
}

/// A game of a returning player's that ended while it was away, as its final `game_state` needs
/// it.
#[derive(Debug, Clone)]
pub(crate) struct EndedGame {
    /// The game, its seats and how it ended.
    pub game: StoredGame,
    /// Every move, in order.
    pub moves: Vec<StoredMove>,
    /// The `seq` stored for it: at least its `game_over`'s.
    pub seq: u64,
    /// X's and O's rating in the game's variant now, for a person.
    pub ratings: [Option<f64>; 2],
}

/// A player's standing in one variant's ratings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredStanding {
    pub player: PlayerId,
    pub name: String,
    pub rating: Glicko,
    pub results: Results,
    /// Whether the player is a bot account.
    pub bot: bool,
}

/// Games finished in a variant and how they went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Results {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Results {
    /// Counts one more finished game: won (`Some(true)`), lost (`Some(false)`) or drawn.
    pub(crate) fn count(&mut self, won: Option<bool>) {
        self.games += 1;
        match won {
            Some(true) => self.wins += 1,
            Some(false) => self.losses += 1,
            None => self.draws += 1,
        }
    }
}

/// A player as the store keeps them: name, when they came and were last seen, and per variant
/// their rating (with how many rated games made it) and their results.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredProfile {
    pub player: PlayerId,
    pub name: String,
    /// Whether the player has no account: a guest.
    pub guest: bool,
    /// Whether the player is a bot account.
    pub bot: bool,
    pub created_ms: u64,
    pub last_seen_ms: u64,
    /// Per variant, in [`Variant::ALL`]'s order: the rating and the rated games behind it.
    pub ratings: [(Glicko, u32); 4],
    /// Per variant, in the same order.
    pub results: [Results; 4],
    /// The player's places on arenas' podiums, the latest first.
    pub podiums: Vec<StoredPodium>,
}

/// One fact of the moderation log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationEntry {
    /// Its place in the log (0 until stored); ids only grow.
    pub id: u64,
    /// When, in milliseconds since the epoch.
    pub at_ms: u64,
    /// What: `mute`, `unmute`, `block`, `unblock`, `report` (a player's); `ban`, `unban`,
    /// `ban_range`, `unban_range`, `chat_mute`, `chat_unmute`, `reserve`, `unreserve`,
    /// `end_game` (an operator's).
    pub kind: String,
    /// The player who did it, for a player's fact.
    pub actor: Option<PlayerId>,
    /// The operator who did it, for an operator's fact.
    pub operator: Option<String>,
    /// The player it is about.
    pub target: Option<PlayerId>,
    /// The game it points at (a report's, an ended game).
    pub game: Option<GameId>,
    /// What else it needs: a report's category, a range's CIDR, a reserved name.
    pub detail: String,
    /// Why: a report's reason, an operator's `--reason`.
    pub reason: String,
    /// Until when it holds (an operator's chat mute), in milliseconds since the epoch.
    pub until_ms: Option<u64>,
}

/// The most log entries one read returns.
pub const MODERATION_PAGE: u32 = 1000;

/// A place on a finished arena's podium, as a profile shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredPodium {
    pub(crate) arena: noughts_protocol::ArenaId,
    pub(crate) name: String,
    pub(crate) variant: Variant,
    pub(crate) place: u32,
    pub(crate) score: u32,
    pub(crate) ended_ms: u64,
}
