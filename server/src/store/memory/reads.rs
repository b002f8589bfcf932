//! The memory store's questions: a game's row and moves, a player's name, ratings and results,
//! leaderboards and a player's finished games, each answered from the tables' indexes.

use noughts_protocol::{GameId, Mark, PlayerId, Variant};

use super::super::backend::PlayerRow;
use super::super::records::{Results, StoredMove, StoredStanding, TokenHash};
use super::super::rows::GameRow;
use super::tables::{Accounts, Game, Tables};
use crate::rules::rating::{self, Glicko, Ratings};

pub(super) fn game(tables: &Tables, id: GameId) -> Option<GameRow> {
    tables.games.get(&id).map(|game| game.row.clone())
}

pub(super) fn moves(tables: &Tables, id: GameId) -> Vec<StoredMove> {
    tables
        .moves
        .get(&id)
        .map(|moves| moves.iter().map(|(_, played)| *played).collect())
        .unwrap_or_default()
}

pub(super) fn player_row(tables: &Tables, id: PlayerId) -> Option<PlayerRow> {
    tables.players.get(&id).map(|p| PlayerRow {
        name: p.name.clone(),
        created_ms: p.created_ms,
        last_seen_ms: p.last_seen_ms,
    })
}

pub(super) fn ratings(tables: &Tables, player: PlayerId) -> Ratings {
    let mut ratings = Ratings::default();
    for variant in Variant::ALL {
        if let Some(kept) = tables.ratings.get(&(player, variant)) {
            ratings.set(variant, kept.glicko, kept.results.games);
        }
    }
    ratings
}

/// The games `player` sits in, newest first, below `before`.
fn games_of(
    tables: &Tables,
    player: PlayerId,
    before: Option<GameId>,
) -> impl Iterator<Item = (GameId, &Game)> {
    let below = before.unwrap_or(GameId(u64::MAX));
    tables
        .games_of
        .get(&player)
        .into_iter()
        .flat_map(move |games| games.range(..below).rev())
        .filter_map(|id| tables.games.get(id).map(|game| (*id, game)))
}

fn sits(game: &Game, mark: Mark, player: PlayerId) -> bool {
    let seat = &game.row.start.seats[usize::from(mark == Mark::O)];
    seat.human() == Some(&player)
}

/// Per variant with any, a player's finished games (aborted ones left out), wins and draws,
/// those no longer kept included.
pub(super) fn results(tables: &Tables, player: PlayerId) -> Vec<(Variant, Results)> {
    let mut found: Vec<(Variant, Results)> = Variant::ALL
        .into_iter()
        .filter_map(|variant| Some((variant, *tables.carried.get(&(player, variant))?)))
        .collect();
    for (_, game) in games_of(tables, player, None) {
        let Some(result) = game
            .row
            .result
            .as_ref()
            .filter(|_| game.row.ended_ms.is_some())
        else {
            continue;
        };
        if result.reason == noughts_protocol::EndReason::Aborted {
            continue;
        }
        let variant = game.row.start.variant;
        let at = match found.iter().position(|(v, _)| *v == variant) {
            Some(at) => at,
            None => {
                found.push((variant, Results::default()));
                found.len() - 1
            }
        };
        found[at]
            .1
            .count(result.winner.map(|mark| sits(game, mark, player)));
    }
    found
}

/// The best-rated open accounts of `variant`, by username.
pub(super) fn leaderboard(
    tables: &Tables,
    accounts: &Accounts,
    variant: Variant,
    offset: u32,
    limit: u32,
) -> Vec<StoredStanding> {
    tables.boards[Ratings::slot(variant)]
        .iter()
        .filter_map(|(_, player)| {
            let (account, _) = accounts.accounts.get(player)?;
            if account.closed_ms.is_some() {
                return None;
            }
            let name = account.username.clone();
            let kept = tables.ratings.get(&(*player, variant))?;
            Some(StoredStanding {
                player: *player,
                name,
                rating: Glicko {
                    rating: kept.glicko.rating,
                    deviation: kept.glicko.deviation,
                    ..rating::NEW
                },
                results: kept.results,
                bot: account.bot,
            })
        })
        .skip(offset as usize)
        .take(limit as usize)
        .collect()
}

pub(super) fn finished_games(
    tables: &Tables,
    player: PlayerId,
    before: Option<GameId>,
    limit: u32,
    viewer: PlayerId,
) -> Vec<(GameRow, u32)> {
    let visible = |game: &Game| {
        game.row.start.listed
            || game
                .row
                .start
                .seats
                .iter()
                .any(|s| s.human() == Some(&viewer))
    };
    games_of(tables, player, before)
        .filter(|(_, game)| game.row.ended_ms.is_some() && visible(game))
        .take(limit as usize)
        .map(|(id, game)| {
            let moves = tables.moves.get(&id).map_or(0, Vec::len);
            (game.row.clone(), u32::try_from(moves).unwrap_or(u32::MAX))
        })
        .collect()
}

pub(super) fn token_used_ms(tables: &Tables, hash: TokenHash) -> Option<u64> {
    tables.tokens.get(&hash).map(|token| token.used_ms)
}

pub(super) fn ended_since(
    tables: &Tables,
    player: PlayerId,
    since_ms: u64,
    recent: u32,
    limit: u32,
) -> Vec<GameRow> {
    let mut ended: Vec<GameRow> = games_of(tables, player, None)
        .take(recent as usize)
        .filter(|(_, game)| game.row.ended_ms.is_some_and(|at| at >= since_ms))
        .map(|(_, game)| game.row.clone())
        .collect();
    ended.sort_by_key(|row| std::cmp::Reverse((row.ended_ms, row.start.game)));
    ended.truncate(limit as usize);
    ended
}
