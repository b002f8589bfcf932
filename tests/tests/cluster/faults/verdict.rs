//! One game judged against PostgreSQL: what its players were sent, and what the store holds.

use std::collections::HashMap;

use noughts_protocol::{GameResult, Mark, PlayerId};

use super::pair::GameLog;
use super::site::{Site, wire};

/// A game as PostgreSQL has it.
pub(super) struct Stored {
    pub(super) players: [u64; 2],
    pub(super) winner: String,
    pub(super) reason: String,
    pub(super) ended: bool,
    pub(super) moves: Vec<usize>,
}

/// What went wrong in one game.
#[derive(Default)]
pub(super) struct Verdict {
    pub(super) lost: usize,
    pub(super) unseen: usize,
    pub(super) diverged: bool,
    pub(super) wrongly_ended: bool,
    pub(super) told_apart: bool,
    pub(super) ids: bool,
    pub(super) problems: Vec<String>,
}

impl Verdict {
    pub(super) fn bad(&self) -> bool {
        !self.problems.is_empty()
    }
}

/// A result as the store writes it: winner, reason.
pub(super) fn result_text(result: &GameResult) -> (String, String) {
    (
        wire(serde_json::to_value(result.winner)),
        wire(serde_json::to_value(result.reason)),
    )
}

/// Checks one game against the store.
pub(super) fn judge(
    game: &GameLog,
    players: [Option<PlayerId>; 2],
    stored: Option<&Stored>,
) -> Verdict {
    let mut verdict = Verdict::default();
    let Some(stored) = stored else {
        verdict.lost = game.acked.len();
        verdict.ids = true;
        verdict.problems.push("not in PostgreSQL".to_owned());
        return verdict;
    };
    for &(seat, ply, cell) in &game.acked {
        if stored.moves.get(ply) != Some(&cell) {
            verdict.lost += 1;
            verdict.problems.push(format!(
                "acknowledged move {cell} (ply {ply}, seat {seat}) is not in PostgreSQL"
            ));
        }
        let other = &game.told[1 - seat];
        let seen =
            other.plies.get(&ply) == Some(&cell) || other.marks.contains(&(cell, game.marks[seat]));
        if !seen {
            verdict.unseen += 1;
            verdict.problems.push(format!(
                "acknowledged move {cell} (ply {ply}) never reached the opponent"
            ));
        }
    }
    for (seat, told) in game.told.iter().enumerate() {
        for (&ply, &cell) in &told.plies {
            if stored.moves.get(ply) != Some(&cell) {
                verdict.diverged = true;
                verdict.problems.push(format!(
                    "seat {seat} was told cell {cell} at ply {ply}; PostgreSQL has {:?}",
                    stored.moves.get(ply)
                ));
            }
        }
        if !told.contradictions.is_empty() {
            verdict.diverged = true;
            verdict.problems.push(format!(
                "seat {seat} was told two boards: {:?}",
                told.contradictions
            ));
        }
    }
    for (&ply, &cell) in &game.told[0].plies {
        if let Some(&other) = game.told[1].plies.get(&ply)
            && other != cell
        {
            verdict.diverged = true;
            verdict.problems.push(format!(
                "the players disagree on ply {ply}: {cell} and {other}"
            ));
        }
    }
    let fair = |reason: &str| reason == "line" || reason == "draw";
    if !stored.ended || !fair(&stored.reason) {
        verdict.wrongly_ended = true;
        verdict.problems.push(format!(
            "PostgreSQL has it {}",
            if stored.ended {
                format!("ended by {:?}", stored.reason)
            } else {
                "not ended".to_owned()
            }
        ));
    }
    let truth = (stored.winner.clone(), stored.reason.clone());
    for (seat, told) in game.told.iter().enumerate() {
        for result in &told.results {
            let said = result_text(result);
            if !fair(&said.1) {
                verdict.wrongly_ended = true;
            }
            if said != truth {
                verdict.told_apart = true;
                verdict.problems.push(format!(
                    "seat {seat} was told {said:?}; PostgreSQL has {truth:?}"
                ));
            }
        }
        if told.results.is_empty() {
            verdict.told_apart = true;
            verdict
                .problems
                .push(format!("seat {seat} was never told the result"));
        }
    }
    let expected = [0, 1].map(|seat| players[seat].map_or(0, |p| p.0));
    let by_mark = if game.marks[0] == Mark::X {
        expected
    } else {
        [expected[1], expected[0]]
    };
    if stored.players != by_mark {
        verdict.ids = true;
        verdict.problems.push(format!(
            "PostgreSQL seats players {:?} (X, O); the pair is {by_mark:?}",
            stored.players
        ));
    }
    verdict
}

/// What PostgreSQL holds of the games `ids`.
pub(super) async fn stored(site: &Site, ids: &[u64]) -> HashMap<u64, Stored> {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    let ids = ids.join(",");
    let rows = site
        .postgres
        .select(&format!(
            "SELECT id, coalesce(x_player, 0), coalesce(o_player, 0), coalesce(winner, ''), \
             coalesce(reason, ''), ended_ms IS NOT NULL FROM games WHERE id IN ({ids})"
        ))
        .await
        .expect("the games from PostgreSQL");
    let mut stored: HashMap<u64, Stored> = rows
        .into_iter()
        .map(|row| {
            let int = |i: usize| row[i].parse::<u64>().expect("a number");
            let game = Stored {
                players: [int(1), int(2)],
                winner: row[3].clone(),
                reason: row[4].clone(),
                ended: row[5] == "t",
                moves: Vec::new(),
            };
            (int(0), game)
        })
        .collect();
    let moves = site
        .postgres
        .select(&format!(
            "SELECT game, cell FROM moves WHERE game IN ({ids}) ORDER BY game, ply"
        ))
        .await
        .expect("the moves from PostgreSQL");
    for row in moves {
        let game: u64 = row[0].parse().expect("a game");
        if let Some(stored) = stored.get_mut(&game) {
            stored.moves.push(row[1].parse().expect("a cell"));
        }
    }
    stored
}
