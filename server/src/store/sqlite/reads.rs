//! The store's questions in SQLite: a game's row and moves, a player's name, ratings and results,
//! leaderboards and a player's finished games.

use noughts_protocol::{GameId, PlayerId, Variant};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::super::backend::PlayerRow;
use super::super::records::{Results, StoreError, StoredMove, StoredStanding, TokenHash};
use super::super::rows::{GAME_COLUMNS, GameRow, RawGame, count, int, parse, tally, text, uint};
use crate::rules::rating::{self, Glicko, Ratings};

/// A row of [`GAME_COLUMNS`], as SQLite returns it.
fn raw_game(row: &Row<'_>) -> rusqlite::Result<RawGame> {
    Ok(RawGame {
        id: row.get(0)?,
        variant: row.get(1)?,
        kind: row.get(2)?,
        seats: [(row.get(3)?, row.get(4)?), (row.get(5)?, row.get(6)?)],
        clock: (row.get(7)?, row.get(8)?),
        rated: row.get(9)?,
        listed: row.get(10)?,
        rematch_of: row.get(11)?,
        started_by: row.get(12)?,
        started_ms: row.get(13)?,
        seq: row.get(14)?,
        ended_ms: row.get(15)?,
        winner: row.get(16)?,
        reason: row.get(17)?,
        cells: row.get(18)?,
        ratings: [(row.get(19)?, row.get(20)?), (row.get(21)?, row.get(22)?)],
    })
}

pub(super) fn game(db: &Connection, game: GameId) -> Result<Option<GameRow>, StoreError> {
    let row = db
        .prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"))?
        .query_row([int(game.0)], raw_game)
        .optional()?;
    row.map(RawGame::decode).transpose()
}

pub(super) fn moves(db: &Connection, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
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

pub(super) fn player_row(db: &Connection, id: PlayerId) -> Result<Option<PlayerRow>, StoreError> {
    Ok(db
        .prepare_cached("SELECT name, created_ms, last_seen_ms FROM players WHERE id = ?1")?
        .query_row([int(id.0)], |row| {
            Ok(PlayerRow {
                name: row.get(0)?,
                created_ms: uint(row.get(1)?),
                last_seen_ms: uint(row.get(2)?),
            })
        })
        .optional()?)
}

pub(super) fn ratings(db: &Connection, player: PlayerId) -> Result<Ratings, StoreError> {
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

pub(super) fn results(
    db: &Connection,
    player: PlayerId,
) -> Result<Vec<(Variant, Results)>, StoreError> {
    let mut query = db.prepare_cached(
        "SELECT variant, COUNT(*), \
         SUM((winner = 'x' AND x_player = ?1) OR (winner = 'o' AND o_player = ?1)), \
         SUM(winner IS NULL) \
         FROM games WHERE (x_player = ?1 OR o_player = ?1) AND ended_ms IS NOT NULL \
         AND reason != 'aborted' GROUP BY variant",
    )?;
    let rows = query.query_map([int(player.0)], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, Option<i64>>(2)?,
            row.get::<_, Option<i64>>(3)?,
        ))
    })?;
    let mut found = Vec::new();
    for row in rows {
        let (variant, games, wins, draws) = row?;
        found.push((parse(&variant)?, tally(games, wins, draws)));
    }
    Ok(found)
}

pub(super) fn leaderboard(
    db: &Connection,
    variant: Variant,
    offset: u32,
    limit: u32,
) -> Result<Vec<StoredStanding>, StoreError> {
    let mut query = db.prepare_cached(
        "SELECT r.player, a.username, r.rating, r.deviation, r.games, r.wins, r.draws, r.losses, \
         a.bot_ms \
         FROM ratings r JOIN accounts a ON a.player = r.player \
         WHERE r.variant = ?1 AND r.games > 0 AND a.closed_ms IS NULL \
         ORDER BY r.rating DESC, r.player LIMIT ?2 OFFSET ?3",
    )?;
    let rows = query.query_map(params![text(variant), limit, offset], |row| {
        Ok(StoredStanding {
            player: PlayerId(uint(row.get(0)?)),
            name: row.get(1)?,
            rating: Glicko {
                rating: row.get(2)?,
                deviation: row.get(3)?,
                ..rating::NEW
            },
            results: Results {
                games: count(row.get(4)?),
                wins: count(row.get(5)?),
                draws: count(row.get(6)?),
                losses: count(row.get(7)?),
            },
            bot: row.get::<_, Option<i64>>(8)?.is_some(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn finished_games(
    db: &Connection,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Result<Vec<(GameRow, u32)>, StoreError> {
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
        params![int(player.0), before, i64::from(limit), int(viewer.0)],
        |row| Ok((raw_game(row)?, row.get::<_, i64>(23)?)),
    )?;
    let mut games = Vec::new();
    for row in rows {
        let (raw, moves) = row?;
        games.push((raw.decode()?, count(moves)));
    }
    Ok(games)
}

pub(super) fn token_used_ms(db: &Connection, hash: TokenHash) -> Result<Option<u64>, StoreError> {
    let used: Option<i64> = db
        .prepare_cached("SELECT used_ms FROM tokens WHERE hash = ?1")?
        .query_row([&hash.0[..]], |row| row.get(0))
        .optional()?;
    Ok(used.map(uint))
}

pub(super) fn ended_since(
    db: &Connection,
    player: PlayerId,
    since_ms: u64,
    recent: u32,
    limit: u32,
) -> Result<Vec<GameRow>, StoreError> {
    // Each seat's latest games by its index, then those that ended since.
    let query = format!(
        "SELECT {GAME_COLUMNS} FROM games \
         WHERE id IN (SELECT id FROM (SELECT id FROM games WHERE x_player = ?1 \
                                      ORDER BY id DESC LIMIT ?3) \
                      UNION SELECT id FROM (SELECT id FROM games WHERE o_player = ?1 \
                                            ORDER BY id DESC LIMIT ?3)) \
         AND ended_ms >= ?2 ORDER BY ended_ms DESC, id DESC LIMIT ?4"
    );
    let mut statement = db.prepare_cached(&query)?;
    let rows = statement.query_map(
        params![
            int(player.0),
            int(since_ms),
            i64::from(recent),
            i64::from(limit)
        ],
        raw_game,
    )?;
    let mut games = Vec::new();
    for row in rows {
        games.push(row?.decode()?);
    }
    Ok(games)
}
