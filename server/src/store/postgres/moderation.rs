//! The moderation log in PostgreSQL: appending a fact and reading the log forward from an id.

use noughts_protocol::{GameId, PlayerId};

use super::super::records::ModerationEntry;
use super::super::records::StoreError;
use super::super::rows::{int, uint};
use super::client::Conn;

pub(super) fn add(conn: &mut Conn, entry: &ModerationEntry) -> Result<u64, StoreError> {
    let row = conn.query_one(
        "INSERT INTO moderation_log (at_ms, kind, actor, operator, target, game, detail, reason, \
         until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        &[
            &int(entry.at_ms),
            &entry.kind,
            &entry.actor.map(|p| int(p.0)),
            &entry.operator,
            &entry.target.map(|p| int(p.0)),
            &entry.game.map(|g| int(g.0)),
            &entry.detail,
            &entry.reason,
            &entry.until_ms.map(int),
        ],
    )?;
    Ok(uint(row.try_get(0)?))
}

pub(super) fn since(
    conn: &mut Conn,
    after: u64,
    limit: u32,
) -> Result<Vec<ModerationEntry>, StoreError> {
    let rows = conn.query(
        "SELECT id, at_ms, kind, actor, operator, target, game, detail, reason, until_ms \
         FROM moderation_log WHERE id > $1 ORDER BY id LIMIT $2",
        &[&int(after), &i64::from(limit)],
    )?;
    rows.into_iter()
        .map(|row| {
            Ok(ModerationEntry {
                id: uint(row.try_get(0)?),
                at_ms: uint(row.try_get(1)?),
                kind: row.try_get(2)?,
                actor: row.try_get::<_, Option<i64>>(3)?.map(|p| PlayerId(uint(p))),
                operator: row.try_get(4)?,
                target: row.try_get::<_, Option<i64>>(5)?.map(|p| PlayerId(uint(p))),
                game: row.try_get::<_, Option<i64>>(6)?.map(|g| GameId(uint(g))),
                detail: row.try_get(7)?,
                reason: row.try_get(8)?,
                until_ms: row.try_get::<_, Option<i64>>(9)?.map(uint),
            })
        })
        .collect()
}
