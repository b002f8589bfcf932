//! The four games: their board shapes and winning lines.
//!
//! A variant is nothing more than a number of cells and a set of winning lines; every other part of
//! the engine is generic over it. Lines are bit masks over the cells (at most 64, so a `u64`).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// One of the four line games noughts serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Variant {
    /// 3×3, three in a row, 8 lines. A draw under perfect play.
    Classic,
    /// 4×4, four in a row, 10 lines. A draw under perfect play.
    Four,
    /// 3×3×3, three in a row, 49 lines. The first player wins.
    Cube,
    /// 4×4×4, four in a row, 76 lines. The first player wins, but only deep search finds it.
    Qubic,
}

/// The winning lines of a variant, precomputed once.
#[derive(Debug)]
struct Geometry {
    lines: Vec<u64>,
    /// For each cell, the lines that pass through it.
    through: Vec<Vec<u64>>,
    /// For each cell, the indices (in `lines`) of the lines that pass through it.
    through_ids: Vec<Vec<u8>>,
}

impl Variant {
    /// Every variant, smallest first.
    pub const ALL: [Variant; 4] = [
        Variant::Classic,
        Variant::Four,
        Variant::Cube,
        Variant::Qubic,
    ];

    /// The name used everywhere: protocol, command line, client.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Classic => "classic",
            Variant::Four => "four",
            Variant::Cube => "cube",
            Variant::Qubic => "qubic",
        }
    }

    /// Cells along one edge; also the length of a winning line.
    pub const fn side(self) -> usize {
        match self {
            Variant::Classic | Variant::Cube => 3,
            Variant::Four | Variant::Qubic => 4,
        }
    }

    /// 2 for the flat boards, 3 for the cubes.
    pub const fn dims(self) -> usize {
        match self {
            Variant::Classic | Variant::Four => 2,
            Variant::Cube | Variant::Qubic => 3,
        }
    }

    /// Number of cells on the board.
    pub const fn cells(self) -> usize {
        let n = self.side();
        if self.dims() == 2 { n * n } else { n * n * n }
    }

    /// Mask with one bit set for every cell of the board.
    pub const fn full_mask(self) -> u64 {
        let cells = self.cells();
        if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        }
    }

    /// Every winning line, as a mask over the cells.
    pub fn lines(self) -> &'static [u64] {
        &self.geometry().lines
    }

    /// The winning lines that pass through `cell`. Panics if `cell` is off the board.
    pub fn lines_through(self, cell: usize) -> &'static [u64] {
        &self.geometry().through[cell]
    }

    /// For every cell, the indices in [`Variant::lines`] of the lines that pass through it.
    pub(crate) fn line_ids_through_each(self) -> &'static [Vec<u8>] {
        &self.geometry().through_ids
    }

    /// Coordinates of a cell: `[row, column]` on the flat boards, `[layer, row, column]` on the
    /// cubes. Panics if `cell` is off the board.
    pub fn coords(self, cell: usize) -> Vec<usize> {
        assert!(cell < self.cells(), "cell {cell} is off the {self} board");
        let n = self.side();
        if self.dims() == 2 {
            vec![cell / n, cell % n]
        } else {
            vec![cell / (n * n), (cell / n) % n, cell % n]
        }
    }

    /// The cell at the given coordinates (same order as [`Variant::coords`]), if on the board.
    pub fn cell_at(self, coords: &[usize]) -> Option<usize> {
        let n = self.side();
        if coords.len() != self.dims() || coords.iter().any(|&c| c >= n) {
            return None;
        }
        Some(coords.iter().fold(0, |acc, &c| acc * n + c))
    }

    fn geometry(self) -> &'static Geometry {
        static GEOMETRY: [OnceLock<Geometry>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        GEOMETRY[self as usize].get_or_init(|| Geometry::new(self))
    }
}

impl Geometry {
    /// Every line of an n^d board with k = n: for each direction in {-1, 0, 1}^d (one of each ± pair),
    /// the free axes range over the board and the others run from one face to the opposite one.
    fn new(variant: Variant) -> Geometry {
        let (n, d) = (variant.side(), variant.dims());
        let mut lines = Vec::new();
        for code in 0..3usize.pow(d as u32) {
            let dir: Vec<i64> = (0..d)
                .map(|axis| (code / 3usize.pow(axis as u32)) % 3)
                .map(|digit| digit as i64 - 1)
                .collect();
            // Skip the zero vector and keep one direction of each ± pair: first non-zero is +1.
            match dir.iter().find(|&&s| s != 0) {
                Some(1) => {}
                _ => continue,
            }
            let free: Vec<usize> = (0..d).filter(|&a| dir[a] == 0).collect();
            for combo in 0..n.pow(free.len() as u32) {
                let mut start = vec![0i64; d];
                for (i, &axis) in free.iter().enumerate() {
                    start[axis] = ((combo / n.pow(i as u32)) % n) as i64;
                }
                for axis in 0..d {
                    if dir[axis] == -1 {
                        start[axis] = n as i64 - 1;
                    }
                }
                let mut mask = 0u64;
                for step in 0..n as i64 {
                    let coords: Vec<usize> = (0..d)
                        .map(|a| (start[a] + step * dir[a]) as usize)
                        .collect();
                    let cell = variant.cell_at(&coords).expect("line stays on the board");
                    mask |= 1 << cell;
                }
                lines.push(mask);
            }
        }
        lines.sort_unstable();
        let through = (0..variant.cells())
            .map(|cell| {
                lines
                    .iter()
                    .copied()
                    .filter(|line| line & (1 << cell) != 0)
                    .collect()
            })
            .collect();
        let through_ids = (0..variant.cells())
            .map(|cell| {
                (0..lines.len())
                    .filter(|&id| lines[id] & (1 << cell) != 0)
                    .map(|id| id as u8)
                    .collect()
            })
            .collect();
        Geometry {
            lines,
            through,
            through_ids,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not one of `classic`, `four`, `cube`, `qubic`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown variant {:?} (expected classic, four, cube or qubic)",
            self.0
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counts_match_the_formula() {
        for (variant, count) in [
            (Variant::Classic, 8),
            (Variant::Four, 10),
            (Variant::Cube, 49),
            (Variant::Qubic, 76),
        ] {
            assert_eq!(variant.lines().len(), count, "{variant}");
            for &line in variant.lines() {
                assert_eq!(line.count_ones() as usize, variant.side());
                assert_eq!(line & !variant.full_mask(), 0);
            }
        }
    }

    #[test]
    fn coords_round_trip() {
        for variant in Variant::ALL {
            for cell in 0..variant.cells() {
                assert_eq!(variant.cell_at(&variant.coords(cell)), Some(cell));
            }
        }
        assert_eq!(Variant::Cube.coords(14), vec![1, 1, 2]);
        assert_eq!(Variant::Classic.cell_at(&[3, 0]), None);
    }

    #[test]
    fn classic_centre_is_on_four_lines() {
        assert_eq!(Variant::Classic.lines_through(4).len(), 4);
        assert_eq!(Variant::Classic.lines_through(0).len(), 3);
        assert_eq!(Variant::Classic.lines_through(1).len(), 2);
        // The centre of the cube lies on 13 lines.
        assert_eq!(Variant::Cube.lines_through(13).len(), 13);
    }

    #[test]
    fn names_parse() {
        for variant in Variant::ALL {
            assert_eq!(variant.name().parse::<Variant>(), Ok(variant));
        }
        assert!("hex".parse::<Variant>().is_err());
    }
}
