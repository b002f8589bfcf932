//! The search's move ordering: the table's move first, then the moves on the most promising
//! lines, then the moves that caused cut-offs before (history).

use crate::board::cells_of;
use crate::small_board::{self, SmallBoard};
use crate::variant::Variant;

/// The most winning lines of any board (qubic's).
const MAX_LINES: usize = 76;
/// The most cells of a board with small-board tables.
const SMALL_CELLS: usize = 9;
/// The most lines of such a board.
const SMALL_LINES: usize = 8;

/// Moves in search order.
#[derive(Debug)]
pub(crate) struct Moves {
    /// The cells, best first.
    cells: [u8; 64],
    /// How many there are.
    pub(crate) len: usize,
    /// Instead of `cells`, on a small board: the sort keys of the moves (cell in the low byte),
    /// each picked when the search reaches it, so that a cut-off after the first move or two
    /// leaves the rest unsorted.
    keys: [u64; SMALL_CELLS],
    /// Whether the moves are in `keys`.
    by_key: bool,
}

impl Moves {
    /// No moves yet. The lists are filled where they are used: one built in a callee and
    /// returned would be copied out whole right after its cells were written one at a time,
    /// which stalls the copy.
    pub(crate) fn new() -> Moves {
        Moves {
            cells: [0; 64],
            len: 0,
            keys: [0; SMALL_CELLS],
            by_key: false,
        }
    }

    /// Appends `moves` in cell order.
    pub(crate) fn extend(&mut self, moves: u64) {
        for cell in cells_of(moves) {
            self.cells[self.len] = cell as u8;
            self.len += 1;
        }
    }

    /// The `i`th move; moves are taken in order, `i` from 0 up.
    #[inline(always)]
    pub(crate) fn get(&mut self, i: usize) -> usize {
        if !self.by_key {
            return self.cells[i] as usize;
        }
        let mut best = i;
        for j in i + 1..self.len {
            if self.keys[j] > self.keys[best] {
                best = j;
            }
        }
        self.keys.swap(i, best);
        63 - (self.keys[i] & 0xff) as usize
    }
}

/// What the ordering knows of the board, and the history of cut-offs.
#[derive(Debug)]
pub(crate) struct MoveOrder {
    /// The winning lines.
    lines: &'static [u64],
    /// For each cell, the indices in `lines` of the lines through it.
    through: &'static [Vec<u8>],
    /// The board's lookup tables, if it is small.
    small: Option<&'static SmallBoard>,
    /// How often each (side, cell) caused a cut-off.
    history: [[u32; 64]; 2],
}

impl MoveOrder {
    pub(crate) fn new(variant: Variant) -> MoveOrder {
        MoveOrder {
            lines: variant.lines(),
            through: variant.line_ids_through_each(),
            small: SmallBoard::of(variant),
            history: [[0; 64]; 2],
        }
    }

    /// Halves the history, so that a new search weighs its own cut-offs more.
    pub(crate) fn halve_history(&mut self) {
        for side in &mut self.history {
            for count in side.iter_mut() {
                *count /= 2;
            }
        }
    }

    /// Counts a cut-off by `cell` at `depth`, played at `ply`.
    #[inline(always)]
    pub(crate) fn record_cut(&mut self, ply: u32, cell: usize, depth: i32) {
        let depth = depth.clamp(1, 20);
        self.history[ply as usize & 1][cell] += (depth * depth) as u32;
    }

    /// The number of cells in `mask`.
    #[inline]
    fn count(&self, mask: u64) -> u32 {
        small_board::count(self.small, mask)
    }

    /// Fills `ordered` (empty) with `moves` best first: the table's move, then moves that extend
    /// or block the most promising lines, then history (`ply` marks on the board).
    pub(crate) fn order(
        &self,
        me: u64,
        opp: u64,
        ply: u32,
        moves: u64,
        first: Option<usize>,
        ordered: &mut Moves,
    ) {
        let side = ply as usize & 1;
        if self.small.is_some() {
            let worth = self.line_worth::<SMALL_LINES>(me, opp);
            let value = |cell: usize| self.through[cell].iter().map(|&l| worth[l as usize]).sum();
            ordered.len = self.sort_keys(moves, first, side, value, &mut ordered.keys);
            ordered.by_key = true;
            return;
        }
        let worth = self.line_worth::<MAX_LINES>(me, opp);
        let value = |cell: usize| self.through[cell].iter().map(|&l| worth[l as usize]).sum();
        let mut keys = [0u64; 64];
        let len = self.sort_keys(moves, first, side, value, &mut keys);
        let keys = &mut keys[..len];
        keys.sort_unstable_by(|a, b| b.cmp(a));
        for (slot, key) in ordered.cells.iter_mut().zip(keys.iter()) {
            *slot = 63 - (key & 0xff) as u8;
        }
        ordered.len = len;
    }

    /// What each line (of at most `N`) is worth to a move on it, for move ordering: found once
    /// for all the cells it passes through.
    #[inline]
    fn line_worth<const N: usize>(&self, me: u64, opp: u64) -> [u64; N] {
        const MINE: [u64; 4] = [1, 4, 24, 96];
        const THEIRS: [u64; 4] = [1, 3, 18, 80];
        debug_assert!(self.lines.len() <= N);
        let mut worth = [0u64; N];
        for (value, &line) in worth.iter_mut().zip(self.lines) {
            if line & opp == 0 {
                *value = MINE[self.count(line & me) as usize];
            } else if line & me == 0 {
                *value = THEIRS[self.count(line & opp) as usize];
            }
        }
        worth
    }

    /// Writes the sort key of each of `moves` to `keys`, and returns how many: `value`, the
    /// table's move `first` ahead of all, then the history of `side`, then the lower cell first.
    #[inline]
    fn sort_keys(
        &self,
        moves: u64,
        first: Option<usize>,
        side: usize,
        value: impl Fn(usize) -> u64,
        keys: &mut [u64],
    ) -> usize {
        let mut len = 0;
        for cell in cells_of(moves) {
            let value = if Some(cell) == first {
                1 << 24
            } else {
                value(cell)
            };
            let history = u64::from(self.history[side][cell].min(1 << 24));
            keys[len] = value << 40 | history << 8 | (63 - cell as u64);
            len += 1;
        }
        len
    }
}
