//! How the store's values read and write in either database: enums by their wire names, integers,
//! and a row of `games` as both databases return it, decoded once into what the store returns.

use noughts_protocol::{ClockSpec, GameId, GameKind, GameResult, Level, Mark, PlayerId};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::records::{GameStart, Results, StoreError};
use crate::rules::sitter::Sitter;

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

/// An integer column as both databases keep it (SQLite's INTEGER, PostgreSQL's BIGINT).
pub(super) fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn uint(value: i64) -> u64 {
    u64::try_from(value).unwrap_or_default()
}

pub(super) fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or_default()
}

/// A player's results in a variant from the games counted, the wins and the draws among them.
pub(super) fn tally(games: i64, wins: Option<i64>, draws: Option<i64>) -> Results {
    let games = count(games);
    let wins = count(wins.unwrap_or_default());
    let draws = count(draws.unwrap_or_default());
    Results {
        games,
        wins,
        draws,
        losses: games.saturating_sub(wins + draws),
    }
}

/// The columns of `games` that [`RawGame`] holds, in its fields' order.
pub(super) const GAME_COLUMNS: &str = "id, variant, kind, x_player, x_level, o_player, o_level, \
     clock_initial_ms, clock_increment_ms, rated, listed, rematch_of, started_by, started_ms, seq, \
     ended_ms, winner, reason, cells, x_rating, x_rating_change, o_rating, o_rating_change";

/// One row of `games` as a database returns it, before it is checked.
/// A seat's rating as a rated game found it, and what the game changed it by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SeatRating {
    pub before: f64,
    pub change: f64,
}

#[derive(Debug)]
pub(super) struct RawGame {
    pub(super) id: i64,
    pub(super) variant: String,
    pub(super) kind: String,
    /// X's seat, then O's: a player's id or an AI level.
    pub(super) seats: [(Option<i64>, Option<String>); 2],
    /// The time control's initial time and increment.
    pub(super) clock: (Option<i64>, Option<i64>),
    pub(super) rated: bool,
    pub(super) listed: bool,
    pub(super) rematch_of: Option<i64>,
    pub(super) started_by: Option<i64>,
    pub(super) started_ms: i64,
    pub(super) seq: i64,
    pub(super) ended_ms: Option<i64>,
    pub(super) winner: Option<String>,
    pub(super) reason: Option<String>,
    pub(super) cells: Option<String>,
    /// X's and O's rating before the game and the change it made.
    pub(super) ratings: [(Option<f64>, Option<f64>); 2],
}

/// One row of `games`, read.
#[derive(Debug, Clone)]
pub(super) struct GameRow {
    pub(super) start: GameStart,
    pub(super) seq: u64,
    pub(super) ended_ms: Option<u64>,
    pub(super) result: Option<GameResult>,
    /// X's and O's rating before the game and the change it made, for a finished rated game.
    pub(super) ratings: [(Option<f64>, Option<f64>); 2],
}

impl RawGame {
    /// The row checked: every enum known, every seat filled.
    pub(super) fn decode(self) -> Result<GameRow, StoreError> {
        let seat = |(player, level): (Option<i64>, Option<String>)| match (player, level) {
            (Some(player), _) => Ok(Sitter::Human(PlayerId(uint(player)))),
            (None, Some(level)) => parse::<Level>(&level).map(Sitter::Ai),
            (None, None) => Err(StoreError::Corrupt("a seat with nobody in it".into())),
        };
        let clock = match self.clock {
            (Some(initial), Some(increment)) => Some(ClockSpec {
                initial_ms: uint(initial),
                increment_ms: uint(increment),
            }),
            _ => None,
        };
        let result = match self.reason {
            Some(reason) => Some(GameResult {
                winner: self.winner.as_deref().map(parse::<Mark>).transpose()?,
                reason: parse(&reason)?,
                cells: cells(self.cells.as_deref().unwrap_or_default())?,
            }),
            None => None,
        };
        let [x, o] = self.seats;
        Ok(GameRow {
            start: GameStart {
                game: GameId(uint(self.id)),
                variant: parse(&self.variant)?,
                kind: parse::<GameKind>(&self.kind)?,
                seats: [seat(x)?, seat(o)?],
                clock,
                rated: self.rated,
                listed: self.listed,
                rematch_of: self.rematch_of.map(|g| GameId(uint(g))),
                owner: self.started_by.map(|p| PlayerId(uint(p))),
                started_ms: uint(self.started_ms),
            },
            seq: uint(self.seq),
            ended_ms: self.ended_ms.map(uint),
            result,
            ratings: self.ratings,
        })
    }
}

/// A winning line as stored: its cells, comma-separated.
pub(super) fn cells_text(cells: &[usize]) -> String {
    cells
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn cells(text: &str) -> Result<Vec<usize>, StoreError> {
    text.split(',')
        .filter(|c| !c.is_empty())
        .map(|c| {
            c.parse()
                .map_err(|_| StoreError::Corrupt(format!("a bad cell {c:?}")))
        })
        .collect()
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

    #[test]
    fn a_winning_line_reads_back_as_written() {
        assert_eq!(cells_text(&[0, 4, 8]), "0,4,8");
        assert_eq!(cells("0,4,8").unwrap(), [0, 4, 8]);
        assert!(cells("").unwrap().is_empty());
        assert!(cells("0,x").is_err());
    }
}
