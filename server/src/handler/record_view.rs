//! The one place stored records become the protocol's: ratings rounded to whole points, an AI
//! seat named for its level, places on a leaderboard numbered, a record's moves replayed to say
//! who made each and the board they left.

use noughts_engine::Board;
use noughts_protocol::{
    GameRecord, GameSummary, LeaderboardEntry, MoveRecord, Profile, RecordSeat, Variant,
    VariantStats,
};

use crate::rating;
use crate::sitter::Sitter;
use crate::store::{StoredGame, StoredMove, StoredProfile, StoredSeat, StoredStanding};

/// A leaderboard's entries, the first at place `offset + 1`.
pub(super) fn leaderboard(offset: u32, standings: Vec<StoredStanding>) -> Vec<LeaderboardEntry> {
    standings
        .into_iter()
        .enumerate()
        .map(|(place, standing)| LeaderboardEntry {
            rank: offset
                .saturating_add(u32::try_from(place).unwrap_or(u32::MAX))
                .saturating_add(1),
            player: standing.player,
            name: standing.name,
            rating: rating::points(standing.rating.rating),
            deviation: rating::points(standing.rating.deviation),
            games: standing.results.games,
            wins: standing.results.wins,
            draws: standing.results.draws,
            losses: standing.results.losses,
        })
        .collect()
}

/// A seat of a stored game as the protocol shows it.
fn seat(sitter: Sitter, stored: StoredSeat) -> RecordSeat {
    match sitter {
        Sitter::Human(player) => RecordSeat {
            name: stored.name.unwrap_or_default(),
            player: Some(player),
            level: None,
            rating: stored.rating.map(rating::points),
            // Whole points; a change is far inside i32.
            rating_change: stored
                .change
                .map(|c| c.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
        },
        Sitter::Ai(level) => RecordSeat {
            name: format!("AI ({level})"),
            player: None,
            level: Some(level),
            rating: None,
            rating_change: None,
        },
    }
}

/// X's and O's seats as the protocol shows them.
fn seats(sitters: [Sitter; 2], stored: [StoredSeat; 2]) -> [RecordSeat; 2] {
    let [x, o] = sitters;
    let [x_seat, o_seat] = stored;
    [seat(x, x_seat), seat(o, o_seat)]
}

/// A finished game as a history lists it; `None` for one that has not ended.
pub(super) fn summary(game: StoredGame) -> Option<GameSummary> {
    let [x, o] = seats(game.start.seats, game.seats);
    Some(GameSummary {
        game: game.start.game,
        variant: game.start.variant,
        kind: game.start.kind,
        x,
        o,
        clock: game.start.clock,
        rated: game.start.rated,
        started_ms: game.start.started_ms,
        ended_ms: game.ended_ms?,
        moves: game.moves,
        result: game.result?,
    })
}

/// A game's whole record, its moves replayed from the empty board; an error if they are not a
/// legal game (the stored game is damaged).
pub(super) fn record(game: StoredGame, played: Vec<StoredMove>) -> Result<GameRecord, String> {
    let mut board = Board::new(game.start.variant);
    let mut moves = Vec::with_capacity(played.len());
    for stored in played {
        let mark = board.to_move();
        board = board
            .play(stored.cell)
            .map_err(|err| format!("game {}: {err}", game.start.game))?;
        moves.push(MoveRecord {
            mark,
            cell: stored.cell,
            at_ms: stored.at_ms,
            clock_ms: stored.clock_ms,
        });
    }
    let [x, o] = seats(game.start.seats, game.seats);
    Ok(GameRecord {
        game: game.start.game,
        variant: game.start.variant,
        kind: game.start.kind,
        x,
        o,
        clock: game.start.clock,
        rated: game.start.rated,
        started_ms: game.start.started_ms,
        ended_ms: game.ended_ms,
        moves,
        board: board.to_compact(),
        result: game.result,
        rematch_of: game.start.rematch_of,
    })
}

/// A player's public profile, a line per variant.
pub(super) fn profile(stored: StoredProfile) -> Profile {
    let variants = Variant::ALL
        .iter()
        .zip(stored.ratings.iter().zip(stored.results.iter()))
        .map(
            |(&variant, ((glicko, rated_games), results))| VariantStats {
                variant,
                rating: rating::points(glicko.rating),
                deviation: rating::points(glicko.deviation),
                rated_games: *rated_games,
                games: results.games,
                wins: results.wins,
                draws: results.draws,
                losses: results.losses,
            },
        )
        .collect();
    Profile {
        player: stored.player,
        name: stored.name,
        created_ms: stored.created_ms,
        last_seen_ms: stored.last_seen_ms,
        variants,
    }
}
