//! The store's questions: leaderboards, a player's history, a game's record and a player's
//! profile, read from the tables and answered as the protocol lists them.

use noughts_engine::Board;
use noughts_protocol::{
    GameId, GameRecord, GameSummary, LeaderboardEntry, MoveRecord, PlayerId, Profile, RecordSeat,
    Variant, VariantStats,
};
use rusqlite::{Connection, OptionalExtension, params};

use super::records::StoreError;
use super::rows::*;
use crate::rating::{self, Ratings};
use crate::sitter::Sitter;

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
    seat: Sitter,
    (before, change): (Option<f64>, Option<f64>),
) -> Result<RecordSeat, StoreError> {
    Ok(match seat {
        Sitter::Human(id) => {
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
        Sitter::Ai(level) => RecordSeat {
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
    let plays = |seat: &Sitter| seat.human() == Some(&viewer);
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
