//! A position's lines by who holds them: for each side, the lines it alone has marks on, by how
//! many, kept up to date mark by mark, so that the threat search finds threats without looking
//! at every line at every node.

use crate::variant::Variant;

/// A set of lines: bit `i` for line `i` of the variant (qubic, the most, has 76).
type LineSet = u128;

/// The lines of a variant and, for each cell, the indices of the lines through it.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    /// Every winning line as a mask over the cells.
    pub lines: &'static [u64],
    /// For each cell, the indices in `lines` of the lines through it.
    ids: &'static [Vec<u8>],
    /// Cells in a line.
    k: usize,
}

impl Geometry {
    /// The lines of `variant`.
    pub fn of(variant: Variant) -> Geometry {
        Geometry {
            lines: variant.lines(),
            ids: variant.line_ids_through_each(),
            k: variant.side(),
        }
    }
}

/// The two sides of a [`LineCounts`], by index.
pub const OWN: usize = 0;
/// The other side.
pub const OTHER: usize = 1;

/// A position's lines by holder. `held[side][m - 1]` is the set of lines with `m` marks of
/// `side` and none of the other side's; `empty` the lines with no mark at all. A line with marks
/// of both sides is in no set: nobody can win it.
#[derive(Debug, Clone, Copy)]
pub struct LineCounts {
    /// Lines held by one side alone, by side and by number of marks less one.
    held: [[LineSet; 4]; 2],
    /// Lines with no mark yet.
    empty: LineSet,
}

impl LineCounts {
    /// The lines of the position where [`OWN`] has the marks `own` and [`OTHER`] has `other`.
    pub fn new(geometry: &Geometry, own: u64, other: u64) -> LineCounts {
        let mut counts = LineCounts {
            held: [[0; 4]; 2],
            empty: 0,
        };
        for (id, &line) in geometry.lines.iter().enumerate() {
            let bit = 1 << id;
            match ((line & own).count_ones(), (line & other).count_ones()) {
                (0, 0) => counts.empty |= bit,
                (m, 0) => counts.held[OWN][m as usize - 1] |= bit,
                (0, m) => counts.held[OTHER][m as usize - 1] |= bit,
                _ => {}
            }
        }
        counts
    }

    /// `side` puts a mark on `cell` (which must be empty).
    #[inline]
    pub fn play(&mut self, geometry: &Geometry, side: usize, cell: usize) {
        for &id in &geometry.ids[cell] {
            let bit = 1 << id;
            if self.empty & bit != 0 {
                self.empty &= !bit;
                self.held[side][0] |= bit;
                continue;
            }
            let theirs = &mut self.held[1 - side];
            if (theirs[0] | theirs[1] | theirs[2] | theirs[3]) & bit != 0 {
                // Now both sides are on it: dead.
                for set in theirs.iter_mut() {
                    *set &= !bit;
                }
                continue;
            }
            let mine = &mut self.held[side];
            if let Some(m) = (0..3).find(|&m| mine[m] & bit != 0) {
                mine[m] &= !bit;
                mine[m + 1] |= bit;
            }
        }
    }

    /// The empty cells of the lines in `set` (`occupied` the cells with a mark).
    #[inline]
    fn cells_of_lines(geometry: &Geometry, mut set: LineSet, occupied: u64) -> u64 {
        let mut cells = 0;
        while set != 0 {
            cells |= geometry.lines[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        cells & !occupied
    }

    /// The cells where `side` would complete a line: the empty cell of each line it holds with
    /// one mark short.
    #[inline]
    pub fn completing(&self, geometry: &Geometry, side: usize, occupied: u64) -> u64 {
        Self::cells_of_lines(geometry, self.held[side][geometry.k - 2], occupied)
    }

    /// The cells where `side` would make a threat: the empty cells of the lines it holds with two
    /// marks short.
    #[inline]
    pub fn threat_making(&self, geometry: &Geometry, side: usize, occupied: u64) -> u64 {
        Self::cells_of_lines(geometry, self.held[side][geometry.k - 3], occupied)
    }

    /// The threats `side` would make by playing `cell`: the cells that would then complete one
    /// of its lines through `cell`.
    #[inline]
    pub fn threats_made(
        &self,
        geometry: &Geometry,
        side: usize,
        cell: usize,
        occupied: u64,
    ) -> u64 {
        let two_short = self.held[side][geometry.k - 3];
        let mut cells = 0;
        for &id in &geometry.ids[cell] {
            if two_short & 1 << id != 0 {
                cells |= geometry.lines[id as usize];
            }
        }
        cells & !(occupied | 1 << cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::cells_of;
    use crate::threats::winning_cells;

    #[test]
    fn counts_kept_mark_by_mark_match_a_fresh_count() {
        for variant in Variant::ALL {
            let geometry = Geometry::of(variant);
            let mut rng = fastrand::Rng::with_seed(7);
            for _ in 0..50 {
                let (mut own, mut other) = (0u64, 0u64);
                let mut counts = LineCounts::new(&geometry, 0, 0);
                let full = variant.full_mask();
                for turn in 0..rng.usize(1..variant.cells()) {
                    let empty: Vec<usize> = cells_of(full & !(own | other)).collect();
                    let cell = empty[rng.usize(..empty.len())];
                    let side = turn % 2;
                    counts.play(&geometry, side, cell);
                    if side == OWN {
                        own |= 1 << cell;
                    } else {
                        other |= 1 << cell;
                    }
                    let fresh = LineCounts::new(&geometry, own, other);
                    assert_eq!(counts.held, fresh.held);
                    assert_eq!(counts.empty, fresh.empty);
                    let occupied = own | other;
                    assert_eq!(
                        counts.completing(&geometry, OWN, occupied),
                        winning_cells(geometry.lines, own, other) & !occupied
                    );
                }
            }
        }
    }
}
