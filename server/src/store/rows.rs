//! How the store's values and rows read and write: enums by their wire names, integers, and the
//! rows of `games`, `moves`, `players` and `ratings` read back into what the store returns.

use noughts_protocol::{ClockSpec, GameId, GameKind, GameResult, Level, Mark, PlayerId};
use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::records::{GameStart, LiveGame, StoreError, StoredMove, StoredPlayer};
use crate::rating::{Glicko, Ratings};
use crate::sitter::Sitter;

/// An enum as the text its serde name gives (`"classic"`, `"x"`, `"resign"`).
pub(super) fn text<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        _ => String::new(),
    }
}

/// The enum a stored text names.
pub(super) fn parse<T: DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| StoreError::Corrupt(format!("unknown value {text:?}")))
}

/// An integer column as SQLite keeps it.
pub(super) fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn uint(value: i64) -> u64 {
    u64::try_from(value).unwrap_or_default()
}

pub(super) fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or_default()
}

/// The columns [`game_row`] reads, in order.
pub(super) const GAME_COLUMNS: &str = "id, variant, kind, x_player, x_level, o_player, o_level, \
     clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, started_ms, seq, \
     ended_ms, winner, reason, cells, x_rating, x_rating_change, o_rating, o_rating_change";

/// One row of `games`, read.
pub(super) struct GameRow {
    pub(super) start: GameStart,
    pub(super) seq: u64,
    pub(super) ended_ms: Option<u64>,
    pub(super) result: Option<GameResult>,
    /// X's and O's rating before the game and the change it made, for a finished rated game.
    pub(super) ratings: [(Option<f64>, Option<f64>); 2],
}

pub(super) fn game_row(row: &Row<'_>) -> rusqlite::Result<Result<GameRow, StoreError>> {
    let seat = |player: Option<i64>, level: Option<String>| match (player, level) {
        (Some(player), _) => Ok(Sitter::Human(PlayerId(uint(player)))),
        (None, Some(level)) => parse::<Level>(&level).map(Sitter::Ai),
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

pub(super) fn game(db: &Connection, game: GameId) -> Result<Option<GameRow>, StoreError> {
    let row = db
        .query_row(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
            [int(game.0)],
            game_row,
        )
        .optional()?;
    row.transpose()
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

pub(super) fn ratings_of(db: &Connection, player: PlayerId) -> Result<Ratings, StoreError> {
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

pub(super) fn player(
    db: &Connection,
    player: PlayerId,
) -> Result<Option<StoredPlayer>, StoreError> {
    let name: Option<String> = db
        .query_row(
            "SELECT name FROM players WHERE id = ?1",
            [int(player.0)],
            |row| row.get(0),
        )
        .optional()?;
    let Some(name) = name else {
        return Ok(None);
    };
    Ok(Some(StoredPlayer {
        player,
        name,
        ratings: ratings_of(db, player)?,
    }))
}

pub(super) fn live_game(db: &Connection, id: GameId) -> Result<LiveGame, StoreError> {
    let row = game(db, id)?.ok_or_else(|| StoreError::Corrupt(format!("game {id} vanished")))?;
    let mut seats = Vec::with_capacity(2);
    for seat in row.start.seats {
        seats.push(match seat {
            Sitter::Human(id) => Sitter::Human(
                player(db, id)?
                    .ok_or_else(|| StoreError::Corrupt(format!("player {id} is missing")))?,
            ),
            Sitter::Ai(level) => Sitter::Ai(level),
        });
    }
    let [x, o]: [Sitter<StoredPlayer>; 2] = seats
        .try_into()
        .map_err(|_| StoreError::Corrupt("a game without two seats".into()))?;
    Ok(LiveGame {
        seats: [x, o],
        seq: row.seq,
        moves: moves(db, id)?,
        start: row.start,
    })
}

#[cfg(test)]
mod tests {
    use noughts_protocol::Variant;

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
