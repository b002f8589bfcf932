//! Whole-game computations: the value of every reachable position, and move-path counts (perft).
//!
//! The solver visits each position once up to symmetry and counts every position of its class, so
//! its counts are over all reachable positions. Classic is small enough to keep solved: the
//! `perfect` level there is a table lookup.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::board::{Board, Mark, cells_of};
use crate::search::win_at;
use crate::symmetry::Symmetries;
use crate::variant::Variant;

/// A hasher for keys that are already well spread bit masks.
#[derive(Debug, Default)]
pub(crate) struct MaskHasher(u64);

impl Hasher for MaskHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, key: u64) {
        let mixed = (key ^ (key >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = mixed ^ (mixed >> 29);
    }
}

type MaskMap<V> = HashMap<u64, V, BuildHasherDefault<MaskHasher>>;

/// Every reachable position of a variant, solved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Reachable positions, finished ones included (each counted once, not once per path).
    pub positions: u64,
    /// Of those, positions X wins under perfect play (finished wins included).
    pub x_wins: u64,
    /// Positions drawn under perfect play.
    pub draws: u64,
    /// Positions O wins under perfect play.
    pub o_wins: u64,
    /// Classes of positions up to symmetry (what the solver actually visited).
    pub classes: u64,
    /// The score of the empty board for X, as the search scores it (0 is a draw).
    pub value: i32,
    /// Score of each class for its side to move, keyed by `x | o << 32` of its canonical image.
    scores: MaskMap<i16>,
}

struct Solver {
    variant: Variant,
    group: &'static Symmetries,
    scores: MaskMap<i16>,
    positions: u64,
    x_wins: u64,
    draws: u64,
    o_wins: u64,
}

impl Solver {
    fn node(&mut self, x: u64, o: u64) -> i16 {
        let (cx, co, _) = self.group.canonical(x, o);
        let key = cx | co << 32;
        if let Some(&score) = self.scores.get(&key) {
            return score;
        }
        let ply = (x | o).count_ones();
        let x_to_move = x.count_ones() == o.count_ones();
        let opp = if x_to_move { o } else { x };
        let empty = self.variant.full_mask() & !(x | o);
        let score = if self.variant.lines().iter().any(|&l| l & !opp == 0) {
            -win_at(ply) as i16
        } else if empty == 0 {
            0
        } else {
            let mut best = i16::MIN;
            for cell in cells_of(empty) {
                let child = if x_to_move {
                    self.node(x | 1 << cell, o)
                } else {
                    self.node(x, o | 1 << cell)
                };
                best = best.max(-child);
            }
            best
        };
        self.scores.insert(key, score);
        let orbit = (self.group.len() / self.group.stabiliser(cx, co).len()) as u64;
        self.positions += orbit;
        let for_x = if x_to_move { score } else { -score };
        match for_x.signum() {
            1 => self.x_wins += orbit,
            0 => self.draws += orbit,
            _ => self.o_wins += orbit,
        }
        score
    }
}

/// Solves every reachable position of `variant`. Practical for classic (instant) and four
/// (seconds, and memory for about a million classes); the cubes are far too large.
pub fn solve(variant: Variant) -> Solution {
    let mut solver = Solver {
        variant,
        group: Symmetries::of(variant),
        scores: MaskMap::default(),
        positions: 0,
        x_wins: 0,
        draws: 0,
        o_wins: 0,
    };
    let value = solver.node(0, 0) as i32;
    Solution {
        positions: solver.positions,
        x_wins: solver.x_wins,
        draws: solver.draws,
        o_wins: solver.o_wins,
        classes: solver.scores.len() as u64,
        value,
        scores: solver.scores,
    }
}

impl Solution {
    /// The score of `board` for its side to move, if it was solved (every reachable position of
    /// the solved variant is).
    pub fn score(&self, board: &Board) -> Option<i32> {
        let group = Symmetries::of(board.variant());
        let (cx, co, _) = group.canonical(board.mask(Mark::X), board.mask(Mark::O));
        self.scores.get(&(cx | co << 32)).map(|&s| s as i32)
    }
}

/// Classic, solved once per process and kept.
pub fn classic() -> &'static Solution {
    static CLASSIC: OnceLock<Solution> = OnceLock::new();
    CLASSIC.get_or_init(|| solve(Variant::Classic))
}

/// The number of move sequences of exactly `depth` plies from `board` (a game stops at a win or a
/// full board).
pub fn perft(board: &Board, depth: u32) -> u64 {
    if board.is_over() {
        return u64::from(depth == 0);
    }
    let (me, opp) = crate::search::sides(board);
    perft_masks(board.variant(), me, opp, depth)
}

fn perft_masks(variant: Variant, me: u64, opp: u64, depth: u32) -> u64 {
    let empty = variant.full_mask() & !(me | opp);
    match depth {
        0 => 1,
        1 => empty.count_ones() as u64,
        _ => cells_of(empty)
            .map(|cell| {
                let after = me | 1 << cell;
                let won = variant.lines_through(cell).iter().any(|&l| l & !after == 0);
                if won || after | opp == variant.full_mask() {
                    0
                } else {
                    perft_masks(variant, opp, after, depth - 1)
                }
            })
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_counts() {
        let solution = classic();
        assert_eq!(solution.positions, 5478);
        assert_eq!(
            (solution.x_wins, solution.draws, solution.o_wins),
            (2936, 1068, 1474)
        );
        assert_eq!(solution.value, 0);
    }

    #[test]
    fn perft_classic_first_plies() {
        let empty = Board::new(Variant::Classic);
        assert_eq!(perft(&empty, 1), 9);
        assert_eq!(perft(&empty, 2), 72);
        assert_eq!(perft(&empty, 5), 15_120);
    }
}
