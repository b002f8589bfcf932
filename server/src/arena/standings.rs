//! An arena's arithmetic, pure: who is paired with whom among the players free now (the points a
//! finished game gives each side are the store's [`count`], applied as the game's end is stored;
//! the order of the standings is kept by the director's table), and how far apart the standings
//! are pushed.

use std::cmp::Reverse;
use std::time::Duration;

use noughts_protocol::{ArenaInfo, ArenaLine, ArenaStatus, ErrorCode, GameId, PlayerId};

use crate::error::Refusal;
use crate::store::StoredArena;
#[cfg(test)]
use crate::store::{Entrant, Outcome, count};

/// Where `arena` stands at `now`.
pub(crate) fn status_of(arena: &StoredArena, now: u64) -> ArenaStatus {
    if arena.finished_ms.is_some() {
        ArenaStatus::Finished
    } else if now < arena.start_ms {
        ArenaStatus::Upcoming
    } else if now < arena.end_ms {
        ArenaStatus::Running
    } else {
        ArenaStatus::Ending
    }
}

/// What lists show of `arena` at `now`, with its number of `players`.
pub(crate) fn info_of(arena: &StoredArena, players: u32, now: u64) -> ArenaInfo {
    ArenaInfo {
        arena: arena.id,
        name: arena.name.clone(),
        variant: arena.variant,
        clock: arena.clock,
        start_ms: arena.start_ms,
        end_ms: arena.end_ms,
        status: status_of(arena, now),
        players,
        creator: arena.creator.as_ref().map(|(_, name)| name.clone()),
        private: arena.code.is_some(),
        bots_only: arena.bots_only,
    }
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
/// was not their last opponent and neither of whom `blocked` says blocks the other; a player
/// left over waits for the next round.
pub(crate) fn pair(
    mut free: Vec<Free>,
    blocked: impl Fn(PlayerId, PlayerId) -> bool,
) -> Vec<[PlayerId; 2]> {
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
                && !blocked(me.player, free[j].player)
        });
        if let Some(j) = found {
            taken[i] = true;
            taken[j] = true;
            pairs.push([me.player, free[j].player]);
        }
    }
    pairs
}

/// The least time between two pushes of the standings to `followers` that keeps within
/// `sends_per_sec` (as the lobby's frames: past half the budget's followers at two a second,
/// pushes come further apart as more follow, and the arena's cost stays the same), and never
/// less than `tick` (the director's, on which pushes are made); less [`TICK_SLACK`].
pub(crate) fn push_spacing(followers: usize, sends_per_sec: u32, tick: Duration) -> Duration {
    let budget = Duration::from_secs_f64(followers as f64 / f64::from(sends_per_sec.max(1)));
    budget.max(tick).saturating_sub(TICK_SLACK)
}

/// How much sooner than its spacing a push may come: pushes are made on the director's ticks, a
/// tick apart give or take the moment in the tick, and a push that missed by that would wait a
/// whole tick more.
pub(crate) const TICK_SLACK: Duration = Duration::from_millis(20);

/// A follower's own members of the standings frame: their line and their game in play, as JSON
/// text to splice into the shared frame (empty for a watcher who has not joined).
pub(crate) fn own_members(me: Option<&ArenaLine>, my_game: Option<&GameId>) -> String {
    let mut members = String::new();
    if let Some(me) = me {
        members.push_str(",\"me\":");
        members.push_str(&serde_json::to_string(me).unwrap_or_else(|_| "null".to_owned()));
    }
    if let Some(game) = my_game {
        members.push_str(&format!(",\"my_game\":{}", game.0));
    }
    members
}

/// Whether a player (a bot account, `bot`) may join an arena (for bots only, `bots_only`): bots
/// play in arenas for bots, people in the others.
pub(crate) fn may_join(bot: bool, bots_only: bool) -> Result<(), Refusal> {
    match (bot, bots_only) {
        (true, false) => Err(Refusal::new(
            ErrorCode::NoBots,
            "this arena is for people; bots play in arenas for bots",
        )),
        (false, true) => Err(Refusal::new(
            ErrorCode::BotsOnly,
            "this arena is for bots; only a bot account may join it",
        )),
        _ => Ok(()),
    }
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
    fn pairs_are_close_in_score_never_the_last_opponent_nor_blocked() {
        let free = |player, score, last: Option<u64>| Free {
            player: PlayerId(player),
            score,
            rating: 1500,
            last_opponent: last.map(PlayerId),
        };
        let nobody = |_, _| false;
        let pairs = pair(
            vec![
                free(1, 10, Some(2)),
                free(2, 9, Some(1)),
                free(3, 8, None),
                free(4, 0, None),
                free(5, 1, None),
            ],
            nobody,
        );
        let ids: Vec<[u64; 2]> = pairs.iter().map(|[a, b]| [a.0, b.0]).collect();
        assert_eq!(ids, [[1, 3], [2, 5]], "4 waits: fewest points, odd one out");
        // Two players who just met wait rather than meet again.
        assert!(pair(vec![free(1, 0, Some(2)), free(2, 0, Some(1))], nobody).is_empty());
        // Nor is anyone paired with a player they block, or who blocks them.
        let blocks = |a: PlayerId, b: PlayerId| [a.0, b.0].contains(&1) && [a.0, b.0].contains(&2);
        let pairs = pair(
            vec![free(1, 5, None), free(2, 4, None), free(3, 3, None)],
            blocks,
        );
        let ids: Vec<[u64; 2]> = pairs.iter().map(|[a, b]| [a.0, b.0]).collect();
        assert_eq!(
            ids,
            [[1, 3]],
            "1 blocks 2 (or 2 blocks 1): 1 meets 3, 2 waits"
        );
    }

    #[test]
    fn pushes_come_further_apart_past_the_budget_of_sends() {
        let tick = Duration::from_millis(500);
        let spacing = |followers| push_spacing(followers, 800, tick) + TICK_SLACK;
        assert_eq!(spacing(0), tick);
        assert_eq!(spacing(400), tick, "twice a second to 400: the 800 sends");
        assert_eq!(spacing(1600), Duration::from_secs(2));
        // Past 400 followers, the sends a second stay at the budget.
        for followers in [401, 1250, 5000, 100_000] {
            let sends = followers as f64 / spacing(followers).as_secs_f64();
            assert!((sends - 800.0).abs() < 1e-6, "{followers}: {sends}");
        }
    }

    #[test]
    fn a_followers_own_members_complete_the_shared_standings() {
        let line = ArenaLine {
            rank: 2,
            player: PlayerId(4),
            name: "bob \"b\"".to_owned(),
            rating: 1540,
            score: 2,
            games: 2,
            wins: 1,
            fire: false,
            playing: true,
            withdrawn: false,
        };
        let members = own_members(Some(&line), Some(&GameId(131)));
        let json = format!("{{\"type\":\"x\"{members}}}");
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed["me"], serde_json::to_value(&line).unwrap());
        assert_eq!(parsed["my_game"], 131);
        assert_eq!(
            own_members(None, None),
            "",
            "a watcher's copy is the shared frame"
        );
    }
}
