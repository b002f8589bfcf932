//! Lookup tables for the search on a board of at most nine cells (classic): what a pass over the
//! lines finds, read off one side's marks instead.
//!
//! A mask of one side's marks on such a board is below 512, so a table indexed by it is small
//! enough to stay in the first-level cache. The default target has no bit-count instruction, so
//! counting the bits of a mask is a table read here too.

use std::sync::OnceLock;

use crate::variant::Variant;

/// Masks of one side's marks on a board of up to this many cells index the tables.
const MAX_CELLS: usize = 9;

/// The tables of one small board.
#[derive(Debug)]
pub(crate) struct SmallBoard {
    /// For each mask of one side's marks: the cells that would complete a line holding all but
    /// one of them (taken by the other side or not), and in the top bit whether some line holds
    /// none of them, so that the other side can still complete it.
    lines: [u16; 1 << MAX_CELLS],
    /// The number of cells in each mask.
    count: [u8; 1 << MAX_CELLS],
}

/// The top bit of an entry of [`SmallBoard::lines`]: some line is free of the masked marks.
const FREE_LINE: u16 = 1 << 15;

impl SmallBoard {
    /// The tables of `variant`, built once, if its board is small enough.
    pub(crate) fn of(variant: Variant) -> Option<&'static SmallBoard> {
        static CLASSIC: OnceLock<SmallBoard> = OnceLock::new();
        (variant.cells() <= MAX_CELLS)
            .then(|| CLASSIC.get_or_init(|| SmallBoard::new(variant.lines())))
    }

    fn new(lines: &[u64]) -> SmallBoard {
        let mut count = [0u8; 1 << MAX_CELLS];
        let mut table = [0u16; 1 << MAX_CELLS];
        for (mask, entry) in table.iter_mut().enumerate() {
            let mask = mask as u64;
            count[mask as usize] = mask.count_ones() as u8;
            for &line in lines {
                let rest = line & !mask;
                if rest.count_ones() == 1 {
                    *entry |= rest as u16;
                }
                if line & mask == 0 {
                    *entry |= FREE_LINE;
                }
            }
        }
        SmallBoard {
            lines: table,
            count,
        }
    }

    /// What one pass over the lines finds, for `me` to move against `opp`: the cells where `me`
    /// would complete a line, the cells where `opp` would, and whether each side still has an
    /// open line.
    #[inline]
    pub(crate) fn scan(&self, me: u64, opp: u64) -> (u64, u64, bool, bool) {
        let (mine, theirs) = (self.lines[me as usize], self.lines[opp as usize]);
        (
            u64::from(mine & !FREE_LINE) & !opp,
            u64::from(theirs & !FREE_LINE) & !me,
            theirs & FREE_LINE != 0,
            mine & FREE_LINE != 0,
        )
    }

    /// The number of cells in `mask`.
    #[inline]
    pub(crate) fn count(&self, mask: u64) -> u32 {
        u32::from(self.count[mask as usize])
    }
}

/// The number of cells in `mask`: read off `small`'s table where there is one.
#[inline]
pub(crate) fn count(small: Option<&SmallBoard>, mask: u64) -> u32 {
    match small {
        Some(small) => small.count(mask),
        None => mask.count_ones(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::search::sides;

    /// The pass over the lines that the tables replace.
    fn scan_lines(lines: &[u64], me: u64, opp: u64) -> (u64, u64, bool, bool) {
        let (mut wins, mut threats, mut can_win, mut can_lose) = (0, 0, false, false);
        for &line in lines {
            if line & opp == 0 {
                can_win = true;
                if (line & !me).count_ones() == 1 {
                    wins |= line & !me;
                }
            }
            if line & me == 0 {
                can_lose = true;
                if (line & !opp).count_ones() == 1 {
                    threats |= line & !opp;
                }
            }
        }
        (wins, threats, can_win, can_lose)
    }

    #[test]
    fn the_tables_agree_with_the_lines_in_every_position() {
        let small = SmallBoard::of(Variant::Classic).expect("classic is small");
        assert!(SmallBoard::of(Variant::Four).is_none());
        let lines = Variant::Classic.lines();
        let mut stack = vec![Board::new(Variant::Classic)];
        let mut seen = std::collections::HashSet::new();
        while let Some(board) = stack.pop() {
            if board.is_over() || !seen.insert(board) {
                continue;
            }
            let (me, opp) = sides(&board);
            assert_eq!(small.scan(me, opp), scan_lines(lines, me, opp), "{board}");
            assert_eq!(small.count(me | opp), (me | opp).count_ones());
            stack.extend(board.legal_moves().map(|c| board.play_unchecked(c)));
        }
        assert_eq!(seen.len(), 4520);
    }
}
