//! The store's questions: leaderboards, a player's history, a game's record and a player's
//! profile, read from the tables and returned as the store keeps them; the handler that answers
//! them turns them into the protocol's records.

use noughts_protocol::{GameId, PlayerId, Variant};
use rusqlite::{Connection, OptionalExtension, params};

use super::records::{
    Results, StoreError, StoredGame, StoredMove, StoredProfile, StoredSeat, StoredStanding,
};
use super::rows::*;
use crate::rating::{self, Glicko, Ratings};
use crate::sitter::Sitter;

/// The best-rated players of `variant`, from place `offset` on.
pub(super) fn leaderboard(
    db: &Connection,
    variant: Variant,
    offset: u32,
    limit: u32,
) -> Result<Vec<StoredStanding>, StoreError> {
    let mut query = db.prepare_cached(
        "SELECT r.player, p.name, r.rating, r.deviation, r.games, r.wins, r.draws, r.losses \
         FROM ratings r JOIN players p ON p.id = r.player \
         WHERE r.variant = ?1 AND r.games > 0 \
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
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A game's row with the names of the people in it.
fn stored_game(db: &Connection, row: GameRow, moves: u32) -> Result<StoredGame, StoreError> {
    let name = |seat: &Sitter| -> Result<Option<String>, StoreError> {
        match seat {
            Sitter::Human(id) => Ok(Some(
                db.prepare_cached("SELECT name FROM players WHERE id = ?1")?
                    .query_row([int(id.0)], |row| row.get(0))
                    .optional()?
                    .unwrap_or_default(),
            )),
            Sitter::Ai(_) => Ok(None),
        }
    };
    let seat = |name, (rating, change): (Option<f64>, Option<f64>)| StoredSeat {
        name,
        rating,
        change,
    };
    let x = seat(name(&row.start.seats[0])?, row.ratings[0]);
    let o = seat(name(&row.start.seats[1])?, row.ratings[1]);
    Ok(StoredGame {
        start: row.start,
        seats: [x, o],
        ended_ms: row.ended_ms,
        result: row.result,
        moves,
    })
}

/// A player's finished games, newest first, below `before`, as `viewer` may see them; `None` if
/// there is no such player. The flag says whether older games follow.
pub(super) fn history(
    db: &Connection,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Result<Option<(Vec<StoredGame>, bool)>, StoreError> {
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
        if row.ended_ms.is_none() || row.result.is_none() {
            continue;
        }
        games.push(stored_game(db, row, count(moves))?);
    }
    Ok(Some((games, more)))
}

/// A game and its moves, if `viewer` may see it.
pub(super) fn record(
    db: &Connection,
    id: GameId,
    viewer: PlayerId,
) -> Result<Option<(StoredGame, Vec<StoredMove>)>, StoreError> {
    let Some(row) = game(db, id)? else {
        return Ok(None);
    };
    let plays = |seat: &Sitter| seat.human() == Some(&viewer);
    if !row.start.listed && !row.start.seats.iter().any(plays) {
        return Ok(None);
    }
    let played = moves(db, id)?;
    let game = stored_game(db, row, count(played.len() as i64))?;
    Ok(Some((game, played)))
}

/// A player's name, dates, ratings and results; `None` if there is no such player.
pub(super) fn profile(db: &Connection, id: PlayerId) -> Result<Option<StoredProfile>, StoreError> {
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
    let mut profile = StoredProfile {
        player: id,
        name,
        created_ms: uint(created_ms),
        last_seen_ms: uint(last_seen_ms),
        ratings: [(rating::NEW, 0); 4],
        results: [Results::default(); 4],
    };
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
        let slot = Ratings::slot(parse(&variant)?);
        let glicko = Glicko {
            rating,
            deviation,
            ..rating::NEW
        };
        profile.ratings[slot] = (glicko, count(games));
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
        let games = count(games);
        let wins = count(wins.unwrap_or_default());
        let draws = count(draws.unwrap_or_default());
        profile.results[Ratings::slot(parse(&variant)?)] = Results {
            games,
            wins,
            draws,
            losses: games.saturating_sub(wins + draws),
        };
    }
    Ok(Some(profile))
}
