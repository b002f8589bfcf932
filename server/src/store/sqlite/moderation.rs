//! The moderation log in SQLite: appending a fact and reading the log forward from an id.

use noughts_protocol::{GameId, PlayerId};
use rusqlite::{Connection, params};

use super::super::records::ModerationEntry;
use super::super::records::StoreError;
use super::super::rows::{int, uint};

pub(super) fn add(db: &Connection, entry: &ModerationEntry) -> Result<u64, StoreError> {
    db.prepare_cached(
        "INSERT INTO moderation_log (at_ms, kind, actor, operator, target, game, detail, reason, \
         until_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        int(entry.at_ms),
        entry.kind,
        entry.actor.map(|p| int(p.0)),
        entry.operator,
        entry.target.map(|p| int(p.0)),
        entry.game.map(|g| int(g.0)),
        entry.detail,
        entry.reason,
        entry.until_ms.map(int),
    ])?;
    Ok(uint(db.last_insert_rowid()))
}

pub(super) fn since(
    db: &Connection,
    after: u64,
    limit: u32,
) -> Result<Vec<ModerationEntry>, StoreError> {
    let mut statement = db.prepare_cached(
        "SELECT id, at_ms, kind, actor, operator, target, game, detail, reason, until_ms \
         FROM moderation_log WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    let rows = statement.query_map(params![int(after), i64::from(limit)], |row| {
        Ok(ModerationEntry {
            id: uint(row.get(0)?),
            at_ms: uint(row.get(1)?),
            kind: row.get(2)?,
            actor: row.get::<_, Option<i64>>(3)?.map(|p| PlayerId(uint(p))),
            operator: row.get(4)?,
            target: row.get::<_, Option<i64>>(5)?.map(|p| PlayerId(uint(p))),
            game: row.get::<_, Option<i64>>(6)?.map(|g| GameId(uint(g))),
            detail: row.get(7)?,
            reason: row.get(8)?,
            until_ms: row.get::<_, Option<i64>>(9)?.map(uint),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
