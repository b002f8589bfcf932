//! The SQL behind the store's writes: opening the database, the schema and its migrations, what
//! is read at start, and one function per fact written (players, games, moves, ends and the
//! rating changes they cause). Everything here runs on the store thread.

use noughts_protocol::{GameId, Mark, PlayerId};
use rusqlite::{Connection, OptionalExtension, params};
use tracing::error;

use super::records::SEQ_RESERVE;
use super::records::{
    Ending, GameStart, Rerated, Startup, StoreConfig, StoreError, StoredMove, TokenHash, TokenRules,
};
use super::rows::*;
use crate::rating::{self, Glicko, Score};
use crate::sitter::Sitter;

/// The schema, one migration per version: version N is the first N scripts. A database records
/// its version in `PRAGMA user_version`; opening it applies the scripts it lacks, in order.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_initial.sql"),
    include_str!("migrations/002_ratings.sql"),
    include_str!("migrations/003_tokens.sql"),
];

/// Opens the database, sets it up for durable concurrent use and brings its schema up to date.
pub(super) fn open(config: &StoreConfig) -> Result<Connection, StoreError> {
    let mut db = match config {
        StoreConfig::Memory => Connection::open_in_memory()?,
        StoreConfig::File(path) => {
            if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            private_files(path)?;
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
    // Every statement the server runs more than once stays prepared (about twenty of them; the
    // default cache holds 16, and an evicted statement is parsed again).
    db.set_prepared_statement_cache_capacity(64);
    db.pragma_update(None, "foreign_keys", false)?;
    migrate(&mut db)?;
    db.pragma_update(None, "foreign_keys", true)?;
    Ok(db)
}

/// The database holds token hashes: it, and its `-wal` and `-shm` files, are readable and writable
/// by the server's user alone (0600). A new file is created so; an existing one is tightened. SQLite
/// gives the `-wal` and `-shm` files it creates the database file's own mode.
#[cfg(unix)]
fn private_files(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        match std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            other => other?,
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn private_files(_path: &std::path::Path) -> std::io::Result<()> {
    Ok(())
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

/// Applies the migrations the database lacks, each in its own transaction. Foreign keys are
/// enforced only afterwards (a migration may rebuild a table others refer to), and each migration
/// is checked to leave none broken before it commits.
pub(super) fn migrate(db: &mut Connection) -> Result<(), StoreError> {
    let known = u32::try_from(MIGRATIONS.len()).unwrap_or(u32::MAX);
    let found: u32 = db.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (version, script) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = db.transaction()?;
        tx.execute_batch(script)?;
        let broken: Option<String> = tx
            .query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
            .optional()?;
        if let Some(table) = broken {
            return Err(StoreError::Corrupt(format!(
                "migration {} leaves a broken reference in {table}",
                version + 1
            )));
        }
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(version + 1).unwrap_or(i64::MAX),
        )?;
        tx.commit()?;
    }
    Ok(())
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

pub(super) fn add_player(
    db: &Connection,
    player: PlayerId,
    name: &str,
    token: TokenHash,
    now: u64,
) -> rusqlite::Result<()> {
    db.prepare_cached(
        "INSERT INTO players (id, name, created_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?3)",
    )?
    .execute(params![int(player.0), name, int(now)])?;
    db.prepare_cached("INSERT INTO tokens (hash, player, used_ms) VALUES (?1, ?2, ?3)")?
        .execute(params![&token.0[..], int(player.0), int(now)])?;
    Ok(())
}

pub(super) fn seen(db: &Connection, player: PlayerId, now: u64) -> rusqlite::Result<()> {
    db.prepare_cached("UPDATE players SET last_seen_ms = ?2 WHERE id = ?1")?
        .execute(params![int(player.0), int(now)])?;
    Ok(())
}

/// Trades `presented` for `fresh`: if `presented` is a token that still works, `fresh` becomes
/// one of its player's tokens and `presented` stops working `rules.overlap` from now (sooner if
/// it was already due to). Returns the player, or `None` if `presented` never worked, was
/// revoked, was replaced more than the overlap ago, or lay unused longer than `rules.idle`. The
/// player's tokens that no longer work are deleted on the way.
pub(super) fn rotate_token(
    db: &Connection,
    presented: TokenHash,
    fresh: TokenHash,
    rules: TokenRules,
    now: u64,
) -> rusqlite::Result<Option<PlayerId>> {
    let unused_since = now.saturating_sub(rules.idle_ms);
    let player: Option<i64> = db
        .prepare_cached(
            "SELECT player FROM tokens WHERE hash = ?1 \
             AND (expires_ms IS NULL OR expires_ms > ?2) AND used_ms > ?3",
        )?
        .query_row(
            params![&presented.0[..], int(now), int(unused_since)],
            |row| row.get(0),
        )
        .optional()?;
    let Some(player) = player else {
        return Ok(None);
    };
    db.prepare_cached(
        "DELETE FROM tokens WHERE player = ?1 AND (expires_ms <= ?2 OR used_ms <= ?3)",
    )?
    .execute(params![player, int(now), int(unused_since)])?;
    db.prepare_cached(
        "UPDATE tokens SET expires_ms = MIN(COALESCE(expires_ms, ?2), ?2) WHERE hash = ?1",
    )?
    .execute(params![
        &presented.0[..],
        int(now.saturating_add(rules.overlap_ms))
    ])?;
    db.prepare_cached("INSERT INTO tokens (hash, player, used_ms) VALUES (?1, ?2, ?3)")?
        .execute(params![&fresh.0[..], player, int(now)])?;
    seen(db, PlayerId(uint(player)), now)?;
    Ok(Some(PlayerId(uint(player))))
}

/// Revokes every token of `player`; returns how many there were.
pub(super) fn revoke_tokens(db: &Connection, player: PlayerId) -> rusqlite::Result<usize> {
    db.prepare_cached("DELETE FROM tokens WHERE player = ?1")?
        .execute([int(player.0)])
}

/// Deletes every token that no longer works; run at start.
pub(super) fn prune_tokens(
    db: &Connection,
    rules: TokenRules,
    now: u64,
) -> rusqlite::Result<usize> {
    db.execute(
        "DELETE FROM tokens WHERE expires_ms <= ?1 OR used_ms <= ?2",
        params![int(now), int(now.saturating_sub(rules.idle_ms))],
    )
}

pub(super) fn start_game(db: &Connection, start: &GameStart) -> rusqlite::Result<()> {
    let seat = |seat: &Sitter| match seat {
        Sitter::Human(player) => (Some(int(player.0)), None),
        Sitter::Ai(level) => (None, Some(text(level))),
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
    // Room for the updates that follow the move without being stored (see `SEQ_RESERVE`).
    set_seq(db, game, seq + SEQ_RESERVE)
}

/// Moves taken back by agreement: all but the first `keep` are dropped.
pub(super) fn take_back(
    db: &Connection,
    game: GameId,
    keep: u32,
    seq: u64,
) -> rusqlite::Result<()> {
    db.prepare_cached("DELETE FROM moves WHERE game = ?1 AND ply >= ?2")?
        .execute(params![int(game.0), keep])?;
    set_seq(db, game, seq + SEQ_RESERVE)
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
