//! The SQL behind [`super::Store`]: the schema and its migrations, and one function per thing the
//! store does. Everything here runs on the store thread.

use noughts_engine::Board;
use noughts_protocol::{
    ClockSpec, GameId, GameKind, GameRecord, GameResult, GameSummary, LeaderboardEntry, Level,
    Mark, MoveRecord, PlayerId, Profile, RecordSeat, Variant, VariantStats,
};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::error;

use super::{
    Ending, GameStart, LiveGame, Rerated, Startup, StoreConfig, StoreError, StoredMove,
    StoredPlayer, StoredSeat, TokenHash,
};
use crate::rating::{self, Glicko, Ratings, Score};

/// The schema, one migration per version: version N is the first N scripts. A database records
/// its version in `PRAGMA user_version`; opening it applies the scripts it lacks, in order.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_initial.sql"),
    include_str!("migrations/002_ratings.sql"),
];

/// Opens the database, sets it up for durable concurrent use and brings its schema up to date.
pub(super) fn open(config: &StoreConfig) -> Result<Connection, StoreError> {
    let mut db = match config {
        StoreConfig::Memory => Connection::open_in_memory()?,
        StoreConfig::File(path) => {
            if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let db = Connection::open(path)?;
            db.busy_timeout(std::time::Duration::from_secs(1))?;
            // One server per file: the lock is taken now and held while the server runs, so a
            // second server on the same file fails at start instead of reusing ids.
            db.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
            // WAL: appends rather than rewrites. FULL: a committed move survives a power cut,
            // not just a crash of the process.
            db.pragma_update(None, "journal_mode", "WAL")
                .map_err(in_use)?;
            db.pragma_update(None, "synchronous", "FULL")?;
            db.execute_batch("BEGIN EXCLUSIVE; COMMIT;")
                .map_err(in_use)?;
            db
        }
    };
    db.pragma_update(None, "foreign_keys", true)?;
    // Every statement the server runs more than once stays prepared (about twenty of them; the
    // default cache holds 16, and an evicted statement is parsed again).
    db.set_prepared_statement_cache_capacity(64);
    migrate(&mut db)?;
    Ok(db)
}

/// A busy database at start means another server holds it.
fn in_use(err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::InUse
        }
        _ => StoreError::Database(err),
    }
}

/// Applies the migrations the database lacks, each in its own transaction.
pub(super) fn migrate(db: &mut Connection) -> Result<(), StoreError> {
    let known = u32::try_from(MIGRATIONS.len()).unwrap_or(u32::MAX);
    let found: u32 = db.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (version, script) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = db.transaction()?;
        tx.execute_batch(script)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(version + 1).unwrap_or(i64::MAX),
        )?;
        tx.commit()?;
    }
    Ok(())
}

/// An enum as the text its serde name gives (`"classic"`, `"x"`, `"resign"`).
fn text<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        _ => String::new(),
    }
}

/// The enum a stored text names.
fn parse<T: DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| StoreError::Corrupt(format!("unknown value {text:?}")))
}

/// An integer column as SQLite keeps it.
fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn uint(value: i64) -> u64 {
    u64::try_from(value).unwrap_or_default()
}

fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or_default()
}

pub(super) fn startup(db: &Connection) -> Result<Startup, StoreError> {
    let last_player: i64 =
        db.query_row("SELECT COALESCE(MAX(id), 0) FROM players", [], |r| r.get(0))?;
    let last_game: i64 =
        db.query_row("SELECT COALESCE(MAX(id), 0) FROM games", [], |r| r.get(0))?;
    let ids: Vec<i64> = db
        .prepare("SELECT id FROM games WHERE ended_ms IS NULL ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut live = Vec::with_capacity(ids.len());
    for id in ids {
        // One unreadable game must not keep the server from starting: it stays as stored.
        match live_game(db, GameId(uint(id))) {
            Ok(game) => live.push(game),
            Err(StoreError::Corrupt(why)) => error!(game = id, %why, "cannot restore a game"),
            Err(err) => return Err(err),
        }
    }
    Ok(Startup {
        last_player: uint(last_player),
        last_game: uint(last_game),
        live,
    })
}

/// The columns [`game_row`] reads, in order.
const GAME_COLUMNS: &str = "id, variant, kind, x_player, x_level, o_player, o_level, \
     clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, started_ms, seq, \
     ended_ms, winner, reason, cells, x_rating, x_rating_change, o_rating, o_rating_change";

/// One row of `games`, read.
struct GameRow {
    start: GameStart,
    seq: u64,
    ended_ms: Option<u64>,
    result: Option<GameResult>,
    /// X's and O's rating before the game and the change it made, for a finished rated game.
    ratings: [(Option<f64>, Option<f64>); 2],
}

fn game_row(row: &Row<'_>) -> rusqlite::Result<Result<GameRow, StoreError>> {
    let seat = |player: Option<i64>, level: Option<String>| match (player, level) {
        (Some(player), _) => Ok(Ok(PlayerId(uint(player)))),
        (None, Some(level)) => parse::<Level>(&level).map(Err),
        (None, None) => Err(StoreError::Corrupt("a seat with nobody in it".into())),
    };
    let clock = match (row.get::<_, Option<i64>>(7)?, row.get::<_, Option<i64>>(8)?) {
        (Some(initial), Some(increment)) => Some(ClockSpec {
            initial_ms: uint(initial),
            increment_ms: uint(increment),
        }),
        _ => None,
    };
    let variant: String = row.get(1)?;
    let kind: String = row.get(2)?;
    let x = seat(row.get(3)?, row.get(4)?);
    let o = seat(row.get(5)?, row.get(6)?);
    let reason: Option<String> = row.get(17)?;
    let winner: Option<String> = row.get(16)?;
    let cells: Option<String> = row.get(18)?;
    let ended_ms: Option<i64> = row.get(15)?;
    let ratings = [(row.get(19)?, row.get(20)?), (row.get(21)?, row.get(22)?)];
    let id = GameId(uint(row.get(0)?));
    let rated: bool = row.get(9)?;
    let listed: bool = row.get(10)?;
    let rematch_of = row.get::<_, Option<i64>>(11)?.map(|g| GameId(uint(g)));
    let owner = row.get::<_, Option<i64>>(12)?.map(|p| PlayerId(uint(p)));
    let started_ms = uint(row.get(13)?);
    let seq = uint(row.get(14)?);
    Ok((|| {
        let result = match reason {
            Some(reason) => Some(GameResult {
                winner: winner.as_deref().map(parse::<Mark>).transpose()?,
                reason: parse(&reason)?,
                cells: cells
                    .unwrap_or_default()
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(|c| {
                        c.parse()
                            .map_err(|_| StoreError::Corrupt(format!("a bad cell {c:?}")))
                    })
                    .collect::<Result<_, _>>()?,
            }),
            None => None,
        };
        Ok(GameRow {
            start: GameStart {
                game: id,
                variant: parse(&variant)?,
                kind: parse::<GameKind>(&kind)?,
                seats: [x?, o?],
                clock,
                rated,
                listed,
                rematch_of,
                owner,
                started_ms,
            },
            seq,
            ended_ms: ended_ms.map(uint),
            result,
            ratings,
        })
    })())
}

fn game(db: &Connection, game: GameId) -> Result<Option<GameRow>, StoreError> {
    let row = db
        .query_row(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
            [int(game.0)],
            game_row,
        )
        .optional()?;
    row.transpose()
}

fn moves(db: &Connection, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
    let moves = db
        .prepare_cached("SELECT cell, at_ms, clock_ms FROM moves WHERE game = ?1 ORDER BY ply")?
        .query_map([int(game.0)], |row| {
            Ok(StoredMove {
                cell: usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX),
                at_ms: uint(row.get(1)?),
                clock_ms: row.get::<_, Option<i64>>(2)?.map(uint),
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(moves)
}

fn ratings_of(db: &Connection, player: PlayerId) -> Result<Ratings, StoreError> {
    let mut ratings = Ratings::default();
    let mut query = db.prepare_cached(
        "SELECT variant, rating, deviation, volatility, games FROM ratings WHERE player = ?1",
    )?;
    let rows = query.query_map([int(player.0)], |row| {
        Ok((
            row.get::<_, String>(0)?,
            Glicko {
                rating: row.get(1)?,
                deviation: row.get(2)?,
                volatility: row.get(3)?,
            },
            row.get::<_, i64>(4)?,
        ))
    })?;
    for row in rows {
        let (variant, glicko, games) = row?;
        ratings.set(parse(&variant)?, glicko, count(games));
    }
    Ok(ratings)
}

fn player(db: &Connection, player: PlayerId) -> Result<Option<StoredPlayer>, StoreError> {
    let row = db
        .query_row(
            "SELECT name, token_hash FROM players WHERE id = ?1",
            [int(player.0)],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, Vec<u8>>(1)?)),
        )
        .optional()?;
    let Some((name, hash)) = row else {
        return Ok(None);
    };
    let token = TokenHash(
        hash.try_into()
            .map_err(|_| StoreError::Corrupt("a token hash of the wrong length".into()))?,
    );
    Ok(Some(StoredPlayer {
        player,
        name,
        token,
        ratings: ratings_of(db, player)?,
    }))
}

fn live_game(db: &Connection, id: GameId) -> Result<LiveGame, StoreError> {
    let row = game(db, id)?.ok_or_else(|| StoreError::Corrupt(format!("game {id} vanished")))?;
    let mut seats = Vec::with_capacity(2);
    for seat in row.start.seats {
        seats.push(match seat {
            Ok(id) => StoredSeat::Human(
                player(db, id)?
                    .ok_or_else(|| StoreError::Corrupt(format!("player {id} is missing")))?,
            ),
            Err(level) => StoredSeat::Ai(level),
        });
    }
    let [x, o]: [StoredSeat; 2] = seats
        .try_into()
        .map_err(|_| StoreError::Corrupt("a game without two seats".into()))?;
    Ok(LiveGame {
        seats: [x, o],
        seq: row.seq,
        moves: moves(db, id)?,
        start: row.start,
    })
}

pub(super) fn add_player(
    db: &Connection,
    player: PlayerId,
    name: &str,
    token: TokenHash,
    now: u64,
) -> rusqlite::Result<()> {
    db.prepare_cached(
        "INSERT INTO players (id, name, token_hash, created_ms, last_seen_ms) \
         VALUES (?1, ?2, ?3, ?4, ?4)",
    )?
    .execute(params![int(player.0), name, &token.0[..], int(now)])?;
    Ok(())
}

pub(super) fn seen(db: &Connection, player: PlayerId, now: u64) -> rusqlite::Result<()> {
    db.prepare_cached("UPDATE players SET last_seen_ms = ?2 WHERE id = ?1")?
        .execute(params![int(player.0), int(now)])?;
    Ok(())
}

pub(super) fn player_by_token(
    db: &Connection,
    token: TokenHash,
) -> Result<Option<StoredPlayer>, StoreError> {
    let id: Option<i64> = db
        .query_row(
            "SELECT id FROM players WHERE token_hash = ?1",
            [&token.0[..]],
            |row| row.get(0),
        )
        .optional()?;
    match id {
        Some(id) => player(db, PlayerId(uint(id))),
        None => Ok(None),
    }
}

pub(super) fn start_game(db: &Connection, start: &GameStart) -> rusqlite::Result<()> {
    let seat = |seat: &Result<PlayerId, Level>| match seat {
        Ok(player) => (Some(int(player.0)), None),
        Err(level) => (None, Some(text(level))),
    };
    let (x_player, x_level) = seat(&start.seats[0]);
    let (o_player, o_level) = seat(&start.seats[1]);
    db.prepare_cached(
        "INSERT INTO games (id, variant, kind, x_player, x_level, o_player, o_level, \
         clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, started_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        int(start.game.0),
        text(start.variant),
        text(start.kind),
        x_player,
        x_level,
        o_player,
        o_level,
        start.clock.map(|c| int(c.initial_ms)),
        start.clock.map(|c| int(c.increment_ms)),
        start.rated,
        start.listed,
        start.rematch_of.map(|g| int(g.0)),
        start.owner.map(|p| int(p.0)),
        int(start.started_ms),
    ])?;
    Ok(())
}

pub(super) fn record_move(
    db: &Connection,
    game: GameId,
    ply: u32,
    seq: u64,
    played: StoredMove,
) -> rusqlite::Result<()> {
    db.prepare_cached(
        "INSERT INTO moves (game, ply, cell, at_ms, clock_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        int(game.0),
        ply,
        i64::try_from(played.cell).unwrap_or(i64::MAX),
        int(played.at_ms),
        played.clock_ms.map(int),
    ])?;
    set_seq(db, game, seq)
}

pub(super) fn set_seq(db: &Connection, game: GameId, seq: u64) -> rusqlite::Result<()> {
    db.prepare_cached("UPDATE games SET seq = MAX(seq, ?2) WHERE id = ?1")?
        .execute(params![int(game.0), int(seq)])?;
    Ok(())
}

/// Records the end; for a rated game between two people, rates it and returns the new ratings.
pub(super) fn end_game(
    db: &Connection,
    game: GameId,
    ending: &Ending,
) -> rusqlite::Result<Option<Rerated>> {
    let cells = ending
        .cells
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let changed = db
        .prepare_cached(
            "UPDATE games SET ended_ms = ?2, winner = ?3, reason = ?4, cells = ?5, \
             seq = MAX(seq, ?6) WHERE id = ?1 AND ended_ms IS NULL",
        )?
        .execute(params![
            int(game.0),
            int(ending.ended_ms),
            ending.winner.map(text),
            text(ending.reason),
            cells,
            int(ending.seq),
        ])?;
    if changed == 0 || ending.reason == noughts_protocol::EndReason::Aborted {
        return Ok(None);
    }
    let (rated, variant, x, o): (bool, String, Option<i64>, Option<i64>) = db.query_row(
        "SELECT rated, variant, x_player, o_player FROM games WHERE id = ?1",
        [int(game.0)],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
    )?;
    let (true, Some(x), Some(o)) = (rated, x, o) else {
        return Ok(None);
    };
    let rating = |player: i64| -> rusqlite::Result<Glicko> {
        Ok(db
            .query_row(
                "SELECT rating, deviation, volatility FROM ratings \
                 WHERE player = ?1 AND variant = ?2",
                params![player, variant],
                |row| {
                    Ok(Glicko {
                        rating: row.get(0)?,
                        deviation: row.get(1)?,
                        volatility: row.get(2)?,
                    })
                },
            )
            .optional()?
            .unwrap_or(rating::NEW))
    };
    let (x_before, o_before) = (rating(x)?, rating(o)?);
    let x_score = match ending.winner {
        Some(Mark::X) => Score::Win,
        Some(Mark::O) => Score::Loss,
        None => Score::Draw,
    };
    let (x_after, o_after) = rating::rate_game(x_before, o_before, x_score);
    let mut save = db.prepare_cached(
        "INSERT INTO ratings (player, variant, rating, deviation, volatility, games, wins, draws, \
         losses) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?8) \
         ON CONFLICT (player, variant) DO UPDATE SET rating = ?3, deviation = ?4, \
         volatility = ?5, games = games + 1, wins = wins + ?6, draws = draws + ?7, \
         losses = losses + ?8",
    )?;
    for (player, after, score) in [(x, x_after, x_score), (o, o_after, opposite(x_score))] {
        save.execute(params![
            player,
            variant,
            after.rating,
            after.deviation,
            after.volatility,
            i64::from(score == Score::Win),
            i64::from(score == Score::Draw),
            i64::from(score == Score::Loss),
        ])?;
    }
    db.prepare_cached(
        "UPDATE games SET x_rating = ?2, x_rating_change = ?3, o_rating = ?4, \
         o_rating_change = ?5 WHERE id = ?1",
    )?
    .execute(params![
        int(game.0),
        x_before.rating,
        x_after.rating - x_before.rating,
        o_before.rating,
        o_after.rating - o_before.rating,
    ])?;
    Ok(Some(Rerated {
        x: x_after,
        o: o_after,
    }))
}

fn opposite(score: Score) -> Score {
    match score {
        Score::Win => Score::Loss,
        Score::Draw => Score::Draw,
        Score::Loss => Score::Win,
    }
}

pub(super) fn leaderboard(
    db: &Connection,
    variant: Variant,
    offset: u32,
    limit: u32,
) -> Result<Vec<LeaderboardEntry>, StoreError> {
    let mut query = db.prepare_cached(
        "SELECT r.player, p.name, r.rating, r.deviation, r.games, r.wins, r.draws, r.losses \
         FROM ratings r JOIN players p ON p.id = r.player \
         WHERE r.variant = ?1 AND r.games > 0 \
         ORDER BY r.rating DESC, r.player LIMIT ?2 OFFSET ?3",
    )?;
    let rows = query.query_map(params![text(variant), limit, offset], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, f64>(2)?,
            row.get::<_, f64>(3)?,
            row.get::<_, i64>(4)?,
            row.get::<_, i64>(5)?,
            row.get::<_, i64>(6)?,
            row.get::<_, i64>(7)?,
        ))
    })?;
    let mut entries = Vec::new();
    for (place, row) in rows.enumerate() {
        let (player, name, rating, deviation, games, wins, draws, losses) = row?;
        entries.push(LeaderboardEntry {
            rank: offset
                .saturating_add(u32::try_from(place).unwrap_or(u32::MAX))
                .saturating_add(1),
            player: PlayerId(uint(player)),
            name,
            rating: rating::points(rating),
            deviation: rating::points(deviation),
            games: count(games),
            wins: count(wins),
            draws: count(draws),
            losses: count(losses),
        });
    }
    Ok(entries)
}

/// A seat of a stored game as the protocol shows it.
fn record_seat(
    db: &Connection,
    seat: Result<PlayerId, Level>,
    (before, change): (Option<f64>, Option<f64>),
) -> Result<RecordSeat, StoreError> {
    Ok(match seat {
        Ok(id) => {
            let name: String = db
                .prepare_cached("SELECT name FROM players WHERE id = ?1")?
                .query_row([int(id.0)], |row| row.get(0))
                .optional()?
                .unwrap_or_default();
            RecordSeat {
                name,
                player: Some(id),
                level: None,
                rating: before.map(rating::points),
                rating_change: change.map(|c| {
                    // Whole points; a change is far inside i32.
                    c.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
                }),
            }
        }
        Err(level) => RecordSeat {
            name: format!("AI ({level})"),
            player: None,
            level: Some(level),
            rating: None,
            rating_change: None,
        },
    })
}

pub(super) fn history(
    db: &Connection,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Result<Option<(Vec<GameSummary>, bool)>, StoreError> {
    let known: Option<i64> = db
        .query_row(
            "SELECT id FROM players WHERE id = ?1",
            [int(player.0)],
            |row| row.get(0),
        )
        .optional()?;
    if known.is_none() {
        return Ok(None);
    }
    let before = before.map_or(i64::MAX, |g| int(g.0));
    let query = format!(
        "SELECT {GAME_COLUMNS}, (SELECT COUNT(*) FROM moves WHERE game = games.id) FROM games \
         WHERE id IN (SELECT id FROM games WHERE x_player = ?1 AND id < ?2 AND ended_ms IS NOT NULL \
                      UNION SELECT id FROM games WHERE o_player = ?1 AND id < ?2 \
                      AND ended_ms IS NOT NULL) \
         AND (listed OR x_player = ?4 OR o_player = ?4) \
         ORDER BY id DESC LIMIT ?3"
    );
    let mut statement = db.prepare_cached(&query)?;
    let rows = statement.query_map(
        params![int(player.0), before, i64::from(limit) + 1, int(viewer.0)],
        |row| Ok((game_row(row)?, row.get::<_, i64>(23)?)),
    )?;
    let mut games = Vec::new();
    let mut more = false;
    for row in rows {
        let (row, moves) = row?;
        if games.len() == limit as usize {
            more = true;
            break;
        }
        let row = row?;
        let (Some(ended_ms), Some(result)) = (row.ended_ms, row.result) else {
            continue;
        };
        let [x, o] = row.start.seats;
        games.push(GameSummary {
            game: row.start.game,
            variant: row.start.variant,
            kind: row.start.kind,
            x: record_seat(db, x, row.ratings[0])?,
            o: record_seat(db, o, row.ratings[1])?,
            clock: row.start.clock,
            rated: row.start.rated,
            started_ms: row.start.started_ms,
            ended_ms,
            moves: count(moves),
            result,
        });
    }
    Ok(Some((games, more)))
}

pub(super) fn record(
    db: &Connection,
    id: GameId,
    viewer: PlayerId,
) -> Result<Option<GameRecord>, StoreError> {
    let Some(row) = game(db, id)? else {
        return Ok(None);
    };
    let plays = |seat: &Result<PlayerId, Level>| seat.as_ref().ok() == Some(&viewer);
    if !row.start.listed && !row.start.seats.iter().any(plays) {
        return Ok(None);
    }
    let stored = moves(db, id)?;
    let mut board = Board::new(row.start.variant);
    let mut moves = Vec::with_capacity(stored.len());
    for played in stored {
        let mark = board.to_move();
        board = board
            .play(played.cell)
            .map_err(|err| StoreError::Corrupt(format!("game {id}: {err}")))?;
        moves.push(MoveRecord {
            mark,
            cell: played.cell,
            at_ms: played.at_ms,
            clock_ms: played.clock_ms,
        });
    }
    let [x, o] = row.start.seats;
    Ok(Some(GameRecord {
        game: id,
        variant: row.start.variant,
        kind: row.start.kind,
        x: record_seat(db, x, row.ratings[0])?,
        o: record_seat(db, o, row.ratings[1])?,
        clock: row.start.clock,
        rated: row.start.rated,
        started_ms: row.start.started_ms,
        ended_ms: row.ended_ms,
        moves,
        board: board.to_compact(),
        result: row.result,
        rematch_of: row.start.rematch_of,
    }))
}

pub(super) fn profile(db: &Connection, id: PlayerId) -> Result<Option<Profile>, StoreError> {
    let row = db
        .query_row(
            "SELECT name, created_ms, last_seen_ms FROM players WHERE id = ?1",
            [int(id.0)],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            },
        )
        .optional()?;
    let Some((name, created_ms, last_seen_ms)) = row else {
        return Ok(None);
    };
    let mut variants: Vec<VariantStats> = Variant::ALL
        .iter()
        .map(|&variant| VariantStats {
            variant,
            rating: rating::points(rating::NEW.rating),
            deviation: rating::points(rating::NEW.deviation),
            rated_games: 0,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
        })
        .collect();
    let mut ratings = db.prepare_cached(
        "SELECT variant, rating, deviation, games FROM ratings WHERE player = ?1",
    )?;
    let rows = ratings.query_map([int(id.0)], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, f64>(1)?,
            row.get::<_, f64>(2)?,
            row.get::<_, i64>(3)?,
        ))
    })?;
    for row in rows {
        let (variant, rating, deviation, games) = row?;
        let stats = &mut variants[Ratings::slot(parse(&variant)?)];
        stats.rating = rating::points(rating);
        stats.deviation = rating::points(deviation);
        stats.rated_games = count(games);
    }
    let mut results = db.prepare_cached(
        "SELECT variant, COUNT(*), \
         SUM((winner = 'x' AND x_player = ?1) OR (winner = 'o' AND o_player = ?1)), \
         SUM(winner IS NULL) \
         FROM games WHERE (x_player = ?1 OR o_player = ?1) AND ended_ms IS NOT NULL \
         AND reason != 'aborted' GROUP BY variant",
    )?;
    let rows = results.query_map([int(id.0)], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, Option<i64>>(2)?,
            row.get::<_, Option<i64>>(3)?,
        ))
    })?;
    for row in rows {
        let (variant, games, wins, draws) = row?;
        let stats = &mut variants[Ratings::slot(parse(&variant)?)];
        stats.games = count(games);
        stats.wins = count(wins.unwrap_or_default());
        stats.draws = count(draws.unwrap_or_default());
        stats.losses = stats.games.saturating_sub(stats.wins + stats.draws);
    }
    Ok(Some(Profile {
        player: id,
        name,
        created_ms: uint(created_ms),
        last_seen_ms: uint(last_seen_ms),
        variants,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_are_stored_by_their_wire_names() {
        assert_eq!(text(Variant::Qubic), "qubic");
        assert_eq!(text(Mark::O), "o");
        assert_eq!(text(GameKind::War), "war");
        assert_eq!(parse::<Level>("perfect").unwrap(), Level::Perfect);
        assert!(parse::<Variant>("go").is_err());
    }
}
