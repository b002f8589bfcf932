//! An arena's arithmetic, pure: the order of the standings, and who is paired with whom among the
//! players free now (the points a finished game gives each side are the store's [`count`], applied
//! as the game's end is stored).

use std::cmp::Reverse;

use noughts_protocol::PlayerId;

use crate::store::Entrant;
pub(crate) use crate::store::on_fire;
#[cfg(test)]
use crate::store::{Outcome, count};

/// The order of the standings: score, then rating, then who joined first.
pub(crate) fn rank_key(entrant: &Entrant, rating: u32) -> impl Ord + use<> {
    (
        Reverse(entrant.score),
        Reverse(rating),
        entrant.joined_ms,
        entrant.player,
    )
}

/// A player free to be paired now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Free {
    pub(crate) player: PlayerId,
    pub(crate) score: u32,
    pub(crate) rating: u32,
    pub(crate) last_opponent: Option<PlayerId>,
}

/// Pairs the free players: in order of score, then rating, each with the nearest one below who
/// was not their last opponent; a player left over waits for the next round.
pub(crate) fn pair(mut free: Vec<Free>) -> Vec<[PlayerId; 2]> {
    free.sort_by_key(|f| (Reverse(f.score), Reverse(f.rating), f.player));
    let mut taken = vec![false; free.len()];
    let mut pairs = Vec::new();
    for i in 0..free.len() {
        if taken[i] {
            continue;
        }
        let me = free[i];
        let found = (i + 1..free.len()).find(|&j| {
            !taken[j]
                && me.last_opponent != Some(free[j].player)
                && free[j].last_opponent != Some(me.player)
        });
        if let Some(j) = found {
            taken[i] = true;
            taken[j] = true;
            pairs.push([me.player, free[j].player]);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use noughts_protocol::ARENA_QUICK_DRAW_MOVES;

    use super::*;

    fn entrant(player: u64) -> Entrant {
        Entrant {
            player: PlayerId(player),
            name: format!("p{player}"),
            score: 0,
            streak: 0,
            games: 0,
            wins: 0,
            draws: 0,
            withdrawn: false,
            joined_ms: player,
            last_opponent: None,
        }
    }

    #[test]
    fn the_third_win_in_a_row_and_what_follows_score_double() {
        let mut e = entrant(1);
        let scored: Vec<u32> = [
            Outcome::Win,
            Outcome::Win,
            Outcome::Win,
            Outcome::Draw,
            Outcome::Draw,
            Outcome::Win,
            Outcome::Loss,
        ]
        .into_iter()
        .map(|o| count(&mut e, o, 9))
        .collect();
        assert_eq!(scored, [2, 2, 4, 2, 1, 2, 0]);
        assert_eq!((e.score, e.games, e.wins, e.draws), (13, 7, 4, 2));
        assert_eq!(e.streak, 0);
    }

    #[test]
    fn a_quick_draw_scores_nothing_and_a_void_game_does_not_count() {
        let mut e = entrant(1);
        assert_eq!(count(&mut e, Outcome::Draw, ARENA_QUICK_DRAW_MOVES - 1), 0);
        assert_eq!(count(&mut e, Outcome::Draw, ARENA_QUICK_DRAW_MOVES), 1);
        assert_eq!(count(&mut e, Outcome::Void, 0), 0);
        assert_eq!((e.score, e.games, e.draws), (1, 2, 2));
    }

    #[test]
    fn pairs_are_close_in_score_and_never_the_last_opponent() {
        let free = |player, score, last: Option<u64>| Free {
            player: PlayerId(player),
            score,
            rating: 1500,
            last_opponent: last.map(PlayerId),
        };
        let pairs = pair(vec![
            free(1, 10, Some(2)),
            free(2, 9, Some(1)),
            free(3, 8, None),
            free(4, 0, None),
            free(5, 1, None),
        ]);
        let ids: Vec<[u64; 2]> = pairs.iter().map(|[a, b]| [a.0, b.0]).collect();
        assert_eq!(ids, [[1, 3], [2, 5]], "4 waits: fewest points, odd one out");
        // Two players who just met wait rather than meet again.
        assert!(pair(vec![free(1, 0, Some(2)), free(2, 0, Some(1))]).is_empty());
    }
}
