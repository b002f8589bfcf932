//! The store in SQLite: opening the file, the schema and its migrations, and each
//! fact written; `reads.rs` has the questions. Everything here runs on the store thread.

mod accounts;
mod arenas;
mod backup;
mod league;
mod moderation;
mod reads;

use std::path::Path;

use noughts_protocol::{GameId, GameKind, PlayerId, Variant};
use rusqlite::{Connection, OptionalExtension, params};

use super::backend::{Backend, Closed, LogSync, PlayerRow};
use super::records::ModerationEntry;
use super::records::{
    Ending, GameStart, Results, StoreError, StoredMove, StoredStanding, TokenHash, TokenRules,
};
use super::rows::{GameRow, SeatRating, cells_text, int, text, uint};
use crate::rules::rating::{Glicko, Ratings, Score};
use crate::rules::sitter::Sitter;

/// A SQLite database, as the store thread drives it.
#[derive(Debug)]
pub(super) struct Sqlite {
    /// The one connection; the store thread is its only user.
    db: Connection,
    /// The database's write-ahead log, where every commit is appended: synced by
    /// [`Backend::flush`] when commits are answered once written (opened at the first flush).
    wal: Wal,
}

/// The write-ahead log's file, as [`Backend::flush`] syncs it.
#[derive(Debug)]
struct Wal {
    path: std::path::PathBuf,
    file: Option<std::fs::File>,
}

impl Wal {
    /// Syncs what SQLite has written to the log onto the disk.
    fn sync(&mut self) -> Result<(), StoreError> {
        let file = match &mut self.file {
            Some(file) => file,
            // SQLite made the log when it opened the database in WAL mode, and keeps it while
            // it holds the database; it never truncates it under an open handle of its own.
            none => {
                let opened = std::fs::OpenOptions::new().append(true).open(&self.path);
                none.insert(opened.map_err(StoreError::Flush)?)
            }
        };
        file.sync_data().map_err(StoreError::Flush)
    }
}

impl Sqlite {
    /// Opens the database file (creating it), sets it up for durable use by this server alone
    /// and brings its schema up to date.
    pub(super) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Ok(Sqlite {
            db: open(path)?,
            wal: Wal {
                path: wal.into(),
                file: None,
            },
        })
    }

    /// Runs one statement that takes no parameters and returns no rows (a transaction's or a
    /// savepoint's), kept prepared: one of these runs around every write.
    fn run(&mut self, sql: &str) -> Result<(), StoreError> {
        self.db.prepare_cached(sql)?.execute([])?;
        Ok(())
    }
}

/// The schema, one migration per version: version N is the first N scripts. A database records
/// its version in `PRAGMA user_version`; opening it applies the scripts it lacks, in order.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/001_initial.sql"),
    include_str!("../migrations/002_ratings.sql"),
    include_str!("../migrations/003_tokens.sql"),
    include_str!("../migrations/004_fencing.sql"),
    include_str!("../migrations/005_moderation.sql"),
    include_str!("../migrations/006_accounts.sql"),
    include_str!("../migrations/007_id_blocks.sql"),
    include_str!("../migrations/008_account_guards.sql"),
    include_str!("../migrations/009_device_network.sql"),
    include_str!("../migrations/010_league.sql"),
    include_str!("../migrations/011_bots.sql"),
    include_str!("../migrations/012_arenas.sql"),
    include_str!("../migrations/013_league_bots.sql"),
    include_str!("../migrations/014_league_table.sql"),
    include_str!("../migrations/015_arena_fencing.sql"),
];

/// Opens the database, sets it up for durable concurrent use and brings its schema up to date.
fn open(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    private_files(path)?;
    let mut db = Connection::open(path)?;
    db.busy_timeout(std::time::Duration::from_secs(1))?;
    // One server per file: the lock is taken now and held while the server runs, so a second
    // server on the same file fails at start instead of reusing ids.
    db.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
    // WAL: appends rather than rewrites. FULL: a committed move survives a power cut, not just
    // a crash of the process.
    db.pragma_update(None, "journal_mode", "WAL")
        .map_err(in_use)?;
    db.pragma_update(None, "synchronous", "FULL")?;
    db.execute_batch("BEGIN EXCLUSIVE; COMMIT;")
        .map_err(in_use)?;
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
        _ => StoreError::Sqlite(err),
    }
}

/// Applies the migrations the database lacks, each in its own transaction. Foreign keys are
/// enforced only afterwards (a migration may rebuild a table others refer to), and each migration
/// is checked to leave none broken before it commits.
fn migrate(db: &mut Connection) -> Result<(), StoreError> {
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

impl Backend for Sqlite {
    fn backup_into(&mut self, to: &Path) -> Result<(), StoreError> {
        self.backup(to)
    }

    fn begin(&mut self) -> Result<(), StoreError> {
        self.run("BEGIN IMMEDIATE")
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.run("COMMIT")
    }

    fn rollback(&mut self) {
        let _ = self.run("ROLLBACK");
    }

    fn savepoint(&mut self) -> Result<(), StoreError> {
        self.run("SAVEPOINT write")
    }

    fn end_savepoint(&mut self, keep: bool) -> Result<(), StoreError> {
        if !keep {
            self.run("ROLLBACK TO write")?;
        }
        self.run("RELEASE write")
    }

    fn answer_when_written(&mut self, written: bool) -> Result<(), StoreError> {
        // NORMAL, in WAL mode: a commit is appended to the log and not synced; the log is
        // synced at each flush (and by SQLite before each checkpoint).
        let synchronous = if written { "NORMAL" } else { "FULL" };
        self.db.pragma_update(None, "synchronous", synchronous)?;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.wal.sync()
    }

    fn sync_beside(&mut self) -> Result<Option<LogSync>, StoreError> {
        self.answer_when_written(true)?;
        // Checkpoints wait for the disk: the caller runs them, on its own thread.
        self.db.pragma_update(None, "wal_autocheckpoint", 0)?;
        // The log starts again from its beginning after a checkpoint, its file kept as large as
        // it grew (up to 16 MiB): a sync then writes over blocks the file has, and the file
        // system has no size to commit as well.
        self.db
            .pragma_update(None, "journal_size_limit", 16 << 20)?;
        let mut wal = Wal {
            path: self.wal.path.clone(),
            file: None,
        };
        Ok(Some(Box::new(move || wal.sync())))
    }

    fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.db
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    fn last_ids(&mut self) -> Result<(u64, u64), StoreError> {
        let last = |table: &str| -> Result<u64, StoreError> {
            let sql = format!("SELECT COALESCE(MAX(id), 0) FROM {table}");
            Ok(uint(self.db.query_row(&sql, [], |r| r.get(0))?))
        };
        Ok((last("players")?, last("games")?))
    }

    fn live_ids(&mut self) -> Result<Vec<GameId>, StoreError> {
        let ids = self
            .db
            .prepare("SELECT id FROM games WHERE ended_ms IS NULL ORDER BY id")?
            .query_map([], |r| r.get(0).map(|id| GameId(uint(id))))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    fn live_ids_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        let ids = self
            .db
            .prepare_cached(
                "SELECT id FROM games WHERE ended_ms IS NULL AND (x_player = ?1 OR o_player = ?1) \
                 ORDER BY id",
            )?
            .query_map(params![int(player.0)], |r| {
                r.get(0).map(|id| GameId(uint(id)))
            })?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    fn add_player(
        &mut self,
        player: PlayerId,
        name: &str,
        token: TokenHash,
        now: u64,
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "INSERT INTO players (id, name, created_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?3)",
            )?
            .execute(params![int(player.0), name, int(now)])?;
        self.db
            .prepare_cached("INSERT INTO tokens (hash, player, used_ms) VALUES (?1, ?2, ?3)")?
            .execute(params![&token.0[..], int(player.0), int(now)])?;
        Ok(())
    }

    fn seen(&mut self, player: PlayerId, now: u64) -> Result<(), StoreError> {
        self.db
            .prepare_cached("UPDATE players SET last_seen_ms = ?2 WHERE id = ?1")?
            .execute(params![int(player.0), int(now)])?;
        Ok(())
    }

    fn rename_player(&mut self, player: PlayerId, name: &str) -> Result<(), StoreError> {
        self.db
            .prepare_cached("UPDATE players SET name = ?2 WHERE id = ?1")?
            .execute(params![int(player.0), name])?;
        Ok(())
    }

    fn token_owner(
        &mut self,
        presented: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError> {
        let unused_since = now.saturating_sub(rules.idle_ms);
        let player: Option<i64> = self
            .db
            .prepare_cached(
                "SELECT player FROM tokens WHERE hash = ?1 \
                 AND (expires_ms IS NULL OR expires_ms > ?2) AND used_ms > ?3",
            )?
            .query_row(
                params![&presented.0[..], int(now), int(unused_since)],
                |row| row.get(0),
            )
            .optional()?;
        Ok(player.map(|player| PlayerId(uint(player))))
    }

    fn rotate_token(
        &mut self,
        presented: TokenHash,
        fresh: TokenHash,
        rules: TokenRules,
        now: u64,
    ) -> Result<Option<PlayerId>, StoreError> {
        let Some(player) = self.token_owner(presented, rules, now)? else {
            return Ok(None);
        };
        let player = int(player.0);
        let db = &self.db;
        let unused_since = now.saturating_sub(rules.idle_ms);
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
        let player = PlayerId(uint(player));
        self.seen(player, now)?;
        Ok(Some(player))
    }

    fn touch_token(&mut self, hash: TokenHash, now: u64) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "UPDATE tokens SET used_ms = MAX(used_ms, ?2) \
                 WHERE hash = ?1 AND expires_ms IS NULL",
            )?
            .execute(params![&hash.0[..], int(now)])?;
        Ok(())
    }

    fn revoke_tokens(&mut self, player: PlayerId) -> Result<usize, StoreError> {
        Ok(self
            .db
            .prepare_cached("DELETE FROM tokens WHERE player = ?1")?
            .execute([int(player.0)])?)
    }

    fn prune_tokens(&mut self, rules: TokenRules, now: u64) -> Result<usize, StoreError> {
        Ok(self.db.execute(
            "DELETE FROM tokens WHERE expires_ms <= ?1 OR used_ms <= ?2",
            params![int(now), int(now.saturating_sub(rules.idle_ms))],
        )?)
    }

    fn start_game(&mut self, start: &GameStart) -> Result<(), StoreError> {
        let seat = |seat: &Sitter| match seat {
            Sitter::Human(player) => (Some(int(player.0)), None),
            Sitter::Ai(level) => (None, Some(text(level))),
        };
        let (x_player, x_level) = seat(&start.seats[0]);
        let (o_player, o_level) = seat(&start.seats[1]);
        self.db
            .prepare_cached(
                "INSERT INTO games (id, variant, kind, x_player, x_level, o_player, o_level, \
                 clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, \
                 started_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
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

    fn add_move(
        &mut self,
        game: GameId,
        ply: u32,
        played: &StoredMove,
    ) -> Result<Option<usize>, StoreError> {
        let added = self
            .db
            .prepare_cached(
                "INSERT INTO moves (game, ply, cell, at_ms, clock_ms) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (game, ply) DO NOTHING",
            )?
            .execute(params![
                int(game.0),
                ply,
                i64::try_from(played.cell).unwrap_or(i64::MAX),
                int(played.at_ms),
                played.clock_ms.map(int),
            ])?;
        if added == 1 {
            return Ok(None);
        }
        let cell: Option<i64> = self
            .db
            .prepare_cached("SELECT cell FROM moves WHERE game = ?1 AND ply = ?2")?
            .query_row(params![int(game.0), ply], |row| row.get(0))
            .optional()?;
        Ok(cell.map(|cell| usize::try_from(cell).unwrap_or(usize::MAX)))
    }

    fn drop_moves(&mut self, game: GameId, keep: u32) -> Result<(), StoreError> {
        self.db
            .prepare_cached("DELETE FROM moves WHERE game = ?1 AND ply >= ?2")?
            .execute(params![int(game.0), keep])?;
        Ok(())
    }

    fn fence(&mut self, game: GameId, epoch: u64) -> Result<bool, StoreError> {
        let kept = self
            .db
            .prepare_cached(
                "UPDATE games SET owner_epoch = ?2 WHERE id = ?1 AND owner_epoch <= ?2",
            )?
            .execute(params![int(game.0), int(epoch)])?;
        Ok(kept == 1)
    }

    fn claim(&mut self, game: GameId, held: Option<u64>) -> Result<Option<u64>, StoreError> {
        let epoch = self
            .db
            .prepare_cached(
                "UPDATE games SET owner_epoch = owner_epoch + (?2 IS NULL) WHERE id = ?1 \
                 AND ended_ms IS NULL AND (?2 IS NULL OR owner_epoch = ?2) RETURNING owner_epoch",
            )?
            .query_row(params![int(game.0), held.map(int)], |row| {
                row.get::<_, i64>(0)
            })
            .optional()?;
        Ok(epoch.map(uint))
    }

    fn live_war_games(&mut self, variant: Variant) -> Result<Vec<GameId>, StoreError> {
        let mut query = self.db.prepare_cached(
            "SELECT id FROM games WHERE ended_ms IS NULL AND kind = ?1 \
             AND started_by IS NULL AND variant = ?2 ORDER BY id DESC",
        )?;
        let ids = query.query_map(params![text(GameKind::War), text(variant)], |row| {
            row.get::<_, i64>(0)
        })?;
        ids.map(|id| Ok(GameId(uint(id?)))).collect()
    }

    fn reserve_ids(&mut self, kind: &str, size: u64, floor: u64) -> Result<u64, StoreError> {
        let last = self
            .db
            .prepare_cached(
                "INSERT INTO id_blocks (kind, last) VALUES (?1, ?2 + ?3) ON CONFLICT (kind) \
                 DO UPDATE SET last = MAX(id_blocks.last, ?2) + ?3 RETURNING last",
            )?
            .query_row(params![kind, int(floor), int(size)], |row| {
                row.get::<_, i64>(0)
            })?;
        Ok(uint(last))
    }

    fn raise_seq(&mut self, game: GameId, seq: u64) -> Result<(), StoreError> {
        self.db
            .prepare_cached("UPDATE games SET seq = MAX(seq, ?2) WHERE id = ?1")?
            .execute(params![int(game.0), int(seq)])?;
        Ok(())
    }

    fn close_game(&mut self, game: GameId, ending: &Ending) -> Result<Option<Closed>, StoreError> {
        let changed = self
            .db
            .prepare_cached(
                "UPDATE games SET ended_ms = ?2, winner = ?3, reason = ?4, cells = ?5, \
                 seq = MAX(seq, ?6) WHERE id = ?1 AND ended_ms IS NULL",
            )?
            .execute(params![
                int(game.0),
                int(ending.ended_ms),
                ending.winner.map(text),
                text(ending.reason),
                cells_text(&ending.cells),
                int(ending.seq),
            ])?;
        if changed == 0 {
            return Ok(None);
        }
        let closed = self
            .db
            .prepare_cached("SELECT rated, variant, x_player, o_player FROM games WHERE id = ?1")?
            .query_row([int(game.0)], |row| {
                let player = |id: Option<i64>| id.map(|id| PlayerId(uint(id)));
                Ok(Closed {
                    rated: row.get(0)?,
                    variant: row.get(1)?,
                    x: player(row.get(2)?),
                    o: player(row.get(3)?),
                })
            })?;
        Ok(Some(closed))
    }

    fn rating(&mut self, player: PlayerId, variant: &str) -> Result<Option<Glicko>, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT rating, deviation, volatility FROM ratings \
                 WHERE player = ?1 AND variant = ?2",
            )?
            .query_row(params![int(player.0), variant], |row| {
                Ok(Glicko {
                    rating: row.get(0)?,
                    deviation: row.get(1)?,
                    volatility: row.get(2)?,
                })
            })
            .optional()?)
    }

    fn save_rating(
        &mut self,
        player: PlayerId,
        variant: &str,
        after: Glicko,
        score: Score,
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "INSERT INTO ratings (player, variant, rating, deviation, volatility, games, \
                 wins, draws, losses) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?8) \
                 ON CONFLICT (player, variant) DO UPDATE SET rating = ?3, deviation = ?4, \
                 volatility = ?5, games = games + 1, wins = wins + ?6, draws = draws + ?7, \
                 losses = losses + ?8",
            )?
            .execute(params![
                int(player.0),
                variant,
                after.rating,
                after.deviation,
                after.volatility,
                i64::from(score == Score::Win),
                i64::from(score == Score::Draw),
                i64::from(score == Score::Loss),
            ])?;
        Ok(())
    }

    fn set_game_ratings(
        &mut self,
        game: GameId,
        [x, o]: [SeatRating; 2],
    ) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "UPDATE games SET x_rating = ?2, x_rating_change = ?3, o_rating = ?4, \
                 o_rating_change = ?5 WHERE id = ?1",
            )?
            .execute(params![int(game.0), x.before, x.change, o.before, o.change])?;
        Ok(())
    }

    fn game(&mut self, game: GameId) -> Result<Option<GameRow>, StoreError> {
        reads::game(&self.db, game)
    }

    fn moves(&mut self, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
        reads::moves(&self.db, game)
    }

    fn add_moderation(&mut self, entry: &ModerationEntry) -> Result<u64, StoreError> {
        moderation::add(&self.db, entry)
    }

    fn moderation_since(
        &mut self,
        after: u64,
        limit: u32,
    ) -> Result<Vec<ModerationEntry>, StoreError> {
        moderation::since(&self.db, after, limit)
    }

    fn player_row(&mut self, player: PlayerId) -> Result<Option<PlayerRow>, StoreError> {
        reads::player_row(&self.db, player)
    }

    fn ratings(&mut self, player: PlayerId) -> Result<Ratings, StoreError> {
        reads::ratings(&self.db, player)
    }

    fn results(&mut self, player: PlayerId) -> Result<Vec<(Variant, Results)>, StoreError> {
        reads::results(&self.db, player)
    }

    fn leaderboard(
        &mut self,
        variant: Variant,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<StoredStanding>, StoreError> {
        reads::leaderboard(&self.db, variant, offset, limit)
    }

    fn finished_games(
        &mut self,
        player: PlayerId,
        before: Option<GameId>,
        limit: u32,
        viewer: PlayerId,
    ) -> Result<Vec<(GameRow, u32)>, StoreError> {
        reads::finished_games(&self.db, player, before, limit, viewer)
    }

    fn token_used_ms(&mut self, hash: TokenHash) -> Result<Option<u64>, StoreError> {
        reads::token_used_ms(&self.db, hash)
    }

    fn ended_since(
        &mut self,
        player: PlayerId,
        since_ms: u64,
        recent: u32,
        limit: u32,
    ) -> Result<Vec<GameRow>, StoreError> {
        reads::ended_since(&self.db, player, since_ms, recent, limit)
    }

    /// An unknown variant: the row no longer decodes.
    #[cfg(test)]
    fn spoil(&mut self, game: GameId) -> Result<(), StoreError> {
        self.db.execute(
            "UPDATE games SET variant = 'chess' WHERE id = ?1",
            [int(game.0)],
        )?;
        Ok(())
    }
}
