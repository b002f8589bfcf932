//! The one place stored records become the protocol's: ratings rounded to whole points, an AI
//! seat named for its level, places on a leaderboard numbered, a record's moves replayed to say
//! who made each and the board they left, and a game that ended while its player was away shown
//! as its final snapshot.

use noughts_engine::Board;
use noughts_protocol::{
    Clocks, EndReason, GameRecord, GameState, GameSummary, LeaderboardEntry, Mark, MoveRecord,
    PlayerId, Profile, RecordSeat, SeatInfo, Variant, VariantStats,
};

use crate::rules::rating;
use crate::rules::sitter::Sitter;
use crate::store::{EndedGame, StoredGame, StoredMove, StoredProfile, StoredSeat, StoredStanding};

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
            bot: standing.bot,
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
            guest: stored.guest,
            bot: stored.bot,
        },
        Sitter::Ai(level) => RecordSeat {
            name: format!("AI ({level})"),
            player: None,
            level: Some(level),
            rating: None,
            rating_change: None,
            guest: false,
            bot: false,
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

/// The final `game_state` of a game that ended while `you` was away, from its record: the board
/// its moves leave, its result and `seq`, each person's rating now and whether `connected` says
/// they are; the clocks as the last moves left them (the loser's at zero after a timeout). Chat
/// and watchers are not stored: none are shown. An error if the moves are not a legal game.
pub(super) fn final_state(
    ended: EndedGame,
    you: PlayerId,
    connected: impl Fn(PlayerId) -> bool,
) -> Result<GameState, String> {
    let EndedGame {
        game,
        moves: played,
        seq,
        ratings,
    } = ended;
    let start = game.start;
    let mut board = Board::new(start.variant);
    let mut left = [None, None];
    for stored in &played {
        let mark = board.to_move();
        board = board
            .play(stored.cell)
            .map_err(|err| format!("game {}: {err}", start.game))?;
        if stored.clock_ms.is_some() {
            left[usize::from(mark == Mark::O)] = stored.clock_ms;
        }
    }
    let clocks = start.clock.map(|clock| {
        let mut ms = left.map(|left| left.unwrap_or(clock.initial_ms));
        if let Some(result) = &game.result
            && result.reason == EndReason::Timeout
            && let Some(winner) = result.winner
        {
            ms[usize::from(winner == Mark::X)] = 0;
        }
        Clocks {
            x_ms: ms[0],
            o_ms: ms[1],
            running: None,
        }
    });
    let mut seats =
        start
            .seats
            .iter()
            .zip(game.seats)
            .zip(ratings)
            .map(|((sitter, stored), rating)| match *sitter {
                Sitter::Human(player) => SeatInfo {
                    name: stored.name.unwrap_or_default(),
                    player: Some(player),
                    level: None,
                    connected: connected(player),
                    rating: rating.map(rating::points),
                    guest: stored.guest,
                    bot: stored.bot,
                },
                Sitter::Ai(level) => SeatInfo {
                    name: format!("AI ({level})"),
                    player: None,
                    level: Some(level),
                    connected: true,
                    rating: None,
                    guest: false,
                    bot: false,
                },
            });
    let (Some(x), Some(o)) = (seats.next(), seats.next()) else {
        return Err(format!("game {}: not two seats", start.game));
    };
    let plays = |mark: Mark| start.seats[usize::from(mark == Mark::O)].human() == Some(&you);
    Ok(GameState {
        game: start.game,
        variant: start.variant,
        kind: start.kind,
        x,
        o,
        you: [Mark::X, Mark::O].into_iter().find(|&mark| plays(mark)),
        seq,
        board: board.to_compact(),
        moves: played.iter().map(|stored| stored.cell).collect(),
        to_move: None,
        clock: start.clock,
        clocks,
        result: game.result,
        watchers: 0,
        chat: Vec::new(),
        rematch_of: start.rematch_of,
        rated: start.rated,
        offer: None,
        away: Vec::new(),
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
        guest: stored.guest,
        bot: stored.bot,
        created_ms: stored.created_ms,
        last_seen_ms: stored.last_seen_ms,
        variants,
        podiums: stored
            .podiums
            .into_iter()
            .map(|p| noughts_protocol::Podium {
                arena: p.arena,
                name: p.name,
                variant: p.variant,
                place: p.place,
                score: p.score,
                ended_ms: p.ended_ms,
            })
            .collect(),
    }
}
