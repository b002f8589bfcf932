//! The store's questions in PostgreSQL: a game's row and moves, a player's name, ratings and
//! results, leaderboards and a player's finished games.

use noughts_protocol::{GameId, PlayerId, Variant};
use postgres::Row;

use super::super::backend::PlayerRow;
use super::super::records::{Results, StoreError, StoredMove, StoredStanding, TokenHash};
use super::super::rows::{GAME_COLUMNS, GameRow, RawGame, count, int, parse, tally, text, uint};
use super::client::Conn;
use crate::rules::rating::{self, Glicko, Ratings};

/// A row of [`GAME_COLUMNS`], as PostgreSQL returns it.
fn raw_game(row: &Row) -> Result<RawGame, postgres::Error> {
    Ok(RawGame {
        id: row.try_get(0)?,
        variant: row.try_get(1)?,
        kind: row.try_get(2)?,
        seats: [
            (row.try_get(3)?, row.try_get(4)?),
            (row.try_get(5)?, row.try_get(6)?),
        ],
        clock: (row.try_get(7)?, row.try_get(8)?),
        rated: row.try_get(9)?,
        listed: row.try_get(10)?,
        rematch_of: row.try_get(11)?,
        started_by: row.try_get(12)?,
        started_ms: row.try_get(13)?,
        seq: row.try_get(14)?,
        ended_ms: row.try_get(15)?,
        winner: row.try_get(16)?,
        reason: row.try_get(17)?,
        cells: row.try_get(18)?,
        ratings: [
            (row.try_get(19)?, row.try_get(20)?),
            (row.try_get(21)?, row.try_get(22)?),
        ],
    })
}

pub(super) fn game(conn: &mut Conn, game: GameId) -> Result<Option<GameRow>, StoreError> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
    match conn.query_opt(&sql, &[&int(game.0)])? {
        Some(row) => Ok(Some(raw_game(&row)?.decode()?)),
        None => Ok(None),
    }
}

pub(super) fn moves(conn: &mut Conn, game: GameId) -> Result<Vec<StoredMove>, StoreError> {
    conn.query(
        "SELECT cell, at_ms, clock_ms FROM moves WHERE game = $1 ORDER BY ply",
        &[&int(game.0)],
    )?
    .iter()
    .map(|row| {
        Ok(StoredMove {
            cell: usize::try_from(row.try_get::<_, i64>(0)?).unwrap_or(usize::MAX),
            at_ms: uint(row.try_get(1)?),
            clock_ms: row.try_get::<_, Option<i64>>(2)?.map(uint),
        })
    })
    .collect()
}

pub(super) fn player_row(conn: &mut Conn, id: PlayerId) -> Result<Option<PlayerRow>, StoreError> {
    let row = conn.query_opt(
        "SELECT name, created_ms, last_seen_ms FROM players WHERE id = $1",
        &[&int(id.0)],
    )?;
    row.map(|row| {
        Ok(PlayerRow {
            name: row.try_get(0)?,
            created_ms: uint(row.try_get(1)?),
            last_seen_ms: uint(row.try_get(2)?),
        })
    })
    .transpose()
}

pub(super) fn ratings(conn: &mut Conn, player: PlayerId) -> Result<Ratings, StoreError> {
    let mut ratings = Ratings::default();
    let rows = conn.query(
        "SELECT variant, rating, deviation, volatility, games FROM ratings WHERE player = $1",
        &[&int(player.0)],
    )?;
    for row in rows {
        let variant: String = row.try_get(0)?;
        let glicko = Glicko {
            rating: row.try_get(1)?,
            deviation: row.try_get(2)?,
            volatility: row.try_get(3)?,
        };
        ratings.set(parse(&variant)?, glicko, count(row.try_get(4)?));
    }
    Ok(ratings)
}

pub(super) fn results(
    conn: &mut Conn,
    player: PlayerId,
) -> Result<Vec<(Variant, Results)>, StoreError> {
    let rows = conn.query(
        "SELECT variant, COUNT(*), \
         COUNT(*) FILTER (WHERE (winner = 'x' AND x_player = $1) \
                          OR (winner = 'o' AND o_player = $1)), \
         COUNT(*) FILTER (WHERE winner IS NULL) \
         FROM games WHERE (x_player = $1 OR o_player = $1) AND ended_ms IS NOT NULL \
         AND reason <> 'aborted' GROUP BY variant",
        &[&int(player.0)],
    )?;
    let mut found = Vec::with_capacity(rows.len());
    for row in rows {
        let variant: String = row.try_get(0)?;
        let results = tally(
            row.try_get(1)?,
            Some(row.try_get(2)?),
            Some(row.try_get(3)?),
        );
        found.push((parse(&variant)?, results));
    }
    Ok(found)
}

pub(super) fn leaderboard(
    conn: &mut Conn,
    variant: Variant,
    offset: u32,
    limit: u32,
) -> Result<Vec<StoredStanding>, StoreError> {
    let rows = conn.query(
        "SELECT r.player, a.username, r.rating, r.deviation, r.games, r.wins, r.draws, r.losses, \
         a.bot_ms \
         FROM ratings r JOIN accounts a ON a.player = r.player \
         WHERE r.variant = $1 AND r.games > 0 AND a.closed_ms IS NULL \
         ORDER BY r.rating DESC, r.player LIMIT $2 OFFSET $3",
        &[&text(variant), &i64::from(limit), &i64::from(offset)],
    )?;
    rows.iter()
        .map(|row| {
            Ok(StoredStanding {
                player: PlayerId(uint(row.try_get(0)?)),
                name: row.try_get(1)?,
                rating: Glicko {
                    rating: row.try_get(2)?,
                    deviation: row.try_get(3)?,
                    ..rating::NEW
                },
                results: Results {
                    games: count(row.try_get(4)?),
                    wins: count(row.try_get(5)?),
                    draws: count(row.try_get(6)?),
                    losses: count(row.try_get(7)?),
                },
                bot: row.try_get::<_, Option<i64>>(8)?.is_some(),
            })
        })
        .collect()
}

pub(super) fn finished_games(
    conn: &mut Conn,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Result<Vec<(GameRow, u32)>, StoreError> {
    let before = before.map_or(i64::MAX, |g| int(g.0));
    let sql = format!(
        "SELECT {GAME_COLUMNS}, (SELECT COUNT(*) FROM moves WHERE game = games.id) FROM games \
         WHERE id IN (SELECT id FROM games WHERE x_player = $1 AND id < $2 AND ended_ms IS NOT NULL \
                      UNION SELECT id FROM games WHERE o_player = $1 AND id < $2 \
                      AND ended_ms IS NOT NULL) \
         AND (listed OR x_player = $4 OR o_player = $4) \
         ORDER BY id DESC LIMIT $3"
    );
    let rows = conn.query(
        &sql,
        &[&int(player.0), &before, &i64::from(limit), &int(viewer.0)],
    )?;
    let mut games = Vec::with_capacity(rows.len());
    for row in rows {
        let moves: i64 = row.try_get(23)?;
        games.push((raw_game(&row)?.decode()?, count(moves)));
    }
    Ok(games)
}

pub(super) fn token_used_ms(conn: &mut Conn, hash: TokenHash) -> Result<Option<u64>, StoreError> {
    let found = conn.query_opt(
        "SELECT used_ms FROM tokens WHERE hash = $1",
        &[&&hash.0[..]],
    )?;
    match found {
        Some(row) => Ok(Some(uint(row.try_get(0)?))),
        None => Ok(None),
    }
}

pub(super) fn ended_since(
    conn: &mut Conn,
    player: PlayerId,
    since_ms: u64,
    recent: u32,
    limit: u32,
) -> Result<Vec<GameRow>, StoreError> {
    // Each seat's latest games by its index, then those that ended since.
    let sql = format!(
        "SELECT {GAME_COLUMNS} FROM games \
         WHERE id IN ((SELECT id FROM games WHERE x_player = $1 ORDER BY id DESC LIMIT $3) \
                      UNION (SELECT id FROM games WHERE o_player = $1 ORDER BY id DESC LIMIT $3)) \
         AND ended_ms >= $2 ORDER BY ended_ms DESC, id DESC LIMIT $4"
    );
    let rows = conn.query(
        &sql,
        &[
            &int(player.0),
            &int(since_ms),
            &i64::from(recent),
            &i64::from(limit),
        ],
    )?;
    let mut games = Vec::with_capacity(rows.len());
    for row in rows {
        games.push(raw_game(&row)?.decode()?);
    }
    Ok(games)
}
