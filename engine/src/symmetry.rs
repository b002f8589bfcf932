//! The symmetries of the boards: the rotations and reflections that map winning lines to lines.
//!
//! Every n^d board has the symmetries of the d-cube: permute the axes and flip any of them, 8 for
//! the squares and 48 for the cubes. Qubic has four times as many (192): the same map applied to
//! every coordinate, swapping the two inner layers, or each inner layer with its outer neighbour,
//! also sends lines to lines. The search keys its table on the smallest image of a position and
//! plays one move of each class of equivalent moves, so symmetric positions are searched once.

use std::sync::OnceLock;

use crate::board::Board;
use crate::variant::Variant;

/// The symmetry group of one variant, with tables to map masks quickly.
#[derive(Debug)]
pub struct Symmetries {
    /// For each symmetry, where each cell goes.
    perms: Vec<Vec<u8>>,
    /// For each symmetry, the index of its inverse (to map stored moves back).
    inverse: Vec<usize>,
    /// For each symmetry and each byte of a mask, the image of that byte's cells; a mask maps with
    /// one lookup per byte instead of one step per cell.
    /// Stored flat: symmetry `s`, byte `i` is at `s * chunks + i`.
    tables: Vec<[u64; 256]>,
    /// Bytes in a mask of this board.
    chunks: usize,
    /// On boards of at most nine cells (classic), the canonical image of every pair of masks,
    /// computed once: one lookup instead of a pass over the group.
    small: Option<SmallTable>,
}

/// Every canonical image on a board of at most nine cells, indexed by the pair's base-3 code.
#[derive(Debug)]
struct SmallTable {
    /// For each mask, the sum of `3^cell` over its cells.
    base3: Vec<u16>,
    /// For each code `base3[a] + 2 * base3[b]`, what the search asks of the position, in one
    /// entry of eight bytes.
    images: Vec<SmallImage>,
}

/// A position on a small board: its canonical image and its kinds of move.
#[derive(Debug, Clone, Copy, Default)]
struct SmallImage {
    /// The canonical `(a, b)`.
    a: u16,
    b: u16,
    /// One empty cell of each class of cells that the position's symmetries map onto one
    /// another.
    distinct: u16,
    /// The symmetry that maps the position to its canonical image.
    symmetry: u8,
}

impl Symmetries {
    /// The group of `variant`, built once.
    pub fn of(variant: Variant) -> &'static Symmetries {
        static GROUPS: [OnceLock<Symmetries>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        GROUPS[variant as usize].get_or_init(|| Symmetries::new(variant))
    }

    fn new(variant: Variant) -> Symmetries {
        let (n, d) = (variant.side(), variant.dims());
        let axis_orders: Vec<Vec<usize>> = if d == 2 {
            vec![vec![0, 1], vec![1, 0]]
        } else {
            vec![
                vec![0, 1, 2],
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0],
            ]
        };
        // Maps applied to every coordinate at once. On the 4×4×4 board, swapping the two inner
        // layers of every axis, or each inner layer with its neighbouring outer one, also maps
        // lines to lines: the 192 symmetries of qubic.
        let uniform: Vec<[usize; 4]> = if variant == Variant::Qubic {
            vec![[0, 1, 2, 3], [0, 2, 1, 3], [1, 0, 3, 2], [2, 0, 3, 1]]
        } else {
            vec![[0, 1, 2, 3]]
        };
        let mut perms = Vec::new();
        for inner in &uniform {
            for order in &axis_orders {
                for flips in 0..(1usize << d) {
                    let perm = (0..variant.cells())
                        .map(|cell| {
                            let coords = variant.coords(cell);
                            let image: Vec<usize> = (0..d)
                                .map(|axis| {
                                    let c = inner[coords[order[axis]]];
                                    if flips & (1 << axis) != 0 {
                                        n - 1 - c
                                    } else {
                                        c
                                    }
                                })
                                .collect();
                            variant.cell_at(&image).expect("image is on the board") as u8
                        })
                        .collect::<Vec<u8>>();
                    perms.push(perm);
                }
            }
        }
        let inverse = perms
            .iter()
            .map(|perm| {
                perms
                    .iter()
                    .position(|other| {
                        (0..perm.len()).all(|c| other[perm[c] as usize] as usize == c)
                    })
                    .expect("the group is closed under inverses")
            })
            .collect();
        let chunks = variant.cells().div_ceil(8);
        let tables = perms
            .iter()
            .flat_map(|perm| {
                (0..chunks).map(move |chunk| {
                    let mut table = [0u64; 256];
                    for (byte, image) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let cell = chunk * 8 + bit;
                            if byte & (1 << bit) != 0 && cell < perm.len() {
                                *image |= 1 << perm[cell];
                            }
                        }
                    }
                    table
                })
            })
            .collect();
        let mut group = Symmetries {
            perms,
            inverse,
            tables,
            chunks,
            small: None,
        };
        if variant.cells() <= 9 {
            let cells = variant.cells();
            let base3: Vec<u16> = (0..1u64 << cells)
                .map(|mask| {
                    (0..cells)
                        .filter(|&c| mask & 1 << c != 0)
                        .map(|c| 3u16.pow(c as u32))
                        .sum()
                })
                .collect();
            let mut images = vec![SmallImage::default(); 3usize.pow(cells as u32)];
            let full = variant.full_mask();
            for a in 0..1u64 << cells {
                for b in (0..1u64 << cells).filter(|b| a & b == 0) {
                    let code = base3[a as usize] as usize + 2 * base3[b as usize] as usize;
                    let (ca, cb, s) = group.canonical(a, b);
                    images[code] = SmallImage {
                        a: ca as u16,
                        b: cb as u16,
                        distinct: group.distinct_moves(a, b, full & !(a | b)) as u16,
                        symmetry: s as u8,
                    };
                }
            }
            group.small = Some(SmallTable { base3, images });
        }
        group
    }

    /// Number of symmetries (the identity included).
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Always false: the identity is a symmetry.
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// Where symmetry `s` sends `cell`.
    #[inline]
    pub fn map_cell(&self, s: usize, cell: usize) -> usize {
        self.perms[s][cell] as usize
    }

    /// The index of the symmetry that undoes `s`.
    #[inline]
    pub fn inverse(&self, s: usize) -> usize {
        self.inverse[s]
    }

    /// The image of a mask of cells under symmetry `s`.
    #[inline]
    pub fn map_mask(&self, s: usize, mask: u64) -> u64 {
        let mut image = 0;
        let mut rest = mask;
        for table in &self.tables[s * self.chunks..(s + 1) * self.chunks] {
            image |= table[(rest & 0xff) as usize];
            rest >>= 8;
        }
        image
    }

    /// The smallest image of the pair `(a, b)` (compared as `(a, b)`), and the symmetry that
    /// produced it.
    #[inline]
    pub fn canonical(&self, a: u64, b: u64) -> (u64, u64, usize) {
        if let Some(image) = self.small_image(a, b) {
            return (image.a.into(), image.b.into(), image.symmetry.into());
        }
        let mut best = (a, b, 0);
        for s in 1..self.perms.len() {
            let ia = self.map_mask(s, a);
            if ia > best.0 {
                continue;
            }
            let ib = self.map_mask(s, b);
            if (ia, ib) < (best.0, best.1) {
                best = (ia, ib, s);
            }
        }
        best
    }

    /// Of the cells in `moves`, the lowest of each class that the symmetries leaving `(a, b)`
    /// unchanged map onto one another: one move of each kind. Looked up on small boards.
    #[inline]
    pub fn distinct_moves(&self, a: u64, b: u64, moves: u64) -> u64 {
        if let Some(image) = self.small_image(a, b) {
            return u64::from(image.distinct) & moves;
        }
        let stabiliser = self.stabiliser(a, b);
        crate::board::cells_of(moves)
            .filter(|&cell| stabiliser.iter().all(|&s| self.map_cell(s, cell) >= cell))
            .fold(0, |mask, cell| mask | 1 << cell)
    }

    /// On a small board, [`Symmetries::canonical`] of `(a, b)` and its
    /// [`Symmetries::distinct_moves`] among all the empty cells, in one lookup.
    #[inline]
    pub fn canonical_and_distinct(&self, a: u64, b: u64) -> Option<(u64, u64, usize, u64)> {
        let image = self.small_image(a, b)?;
        Some((
            image.a.into(),
            image.b.into(),
            image.symmetry.into(),
            image.distinct.into(),
        ))
    }

    #[inline(always)]
    fn small_image(&self, a: u64, b: u64) -> Option<SmallImage> {
        let small = self.small.as_ref()?;
        let code = small.base3[a as usize] as usize + 2 * small.base3[b as usize] as usize;
        Some(small.images[code])
    }

    /// The symmetries that leave the pair `(a, b)` unchanged.
    pub fn stabiliser(&self, a: u64, b: u64) -> Vec<usize> {
        let mut stabiliser = Vec::with_capacity(self.perms.len());
        stabiliser.extend(
            (0..self.perms.len()).filter(|&s| self.map_mask(s, a) == a && self.map_mask(s, b) == b),
        );
        stabiliser
    }
}

/// Every image of `board` under the symmetries of its variant (the board itself first). Each has
/// the same game value.
pub fn images(board: &Board) -> Vec<Board> {
    let group = Symmetries::of(board.variant());
    let (x, o) = (
        board.mask(crate::board::Mark::X),
        board.mask(crate::board::Mark::O),
    );
    (0..group.len())
        .map(|s| {
            Board::from_masks(board.variant(), group.map_mask(s, x), group.map_mask(s, o))
                .expect("a symmetry maps legal positions to legal positions")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sizes() {
        assert_eq!(Symmetries::of(Variant::Classic).len(), 8);
        assert_eq!(Symmetries::of(Variant::Four).len(), 8);
        assert_eq!(Symmetries::of(Variant::Cube).len(), 48);
        assert_eq!(Symmetries::of(Variant::Qubic).len(), 192);
    }

    #[test]
    fn symmetries_are_distinct_and_map_lines_to_lines() {
        for variant in Variant::ALL {
            let group = Symmetries::of(variant);
            let mut seen = std::collections::HashSet::new();
            for s in 0..group.len() {
                assert!(
                    seen.insert(group.perms[s].clone()),
                    "{variant}: duplicate symmetry"
                );
                for &line in variant.lines() {
                    let image = group.map_mask(s, line);
                    assert!(
                        variant.lines().contains(&image),
                        "{variant}: line not mapped to a line"
                    );
                }
                let inv = group.inverse(s);
                for cell in 0..variant.cells() {
                    assert_eq!(group.map_cell(inv, group.map_cell(s, cell)), cell);
                }
            }
        }
    }

    #[test]
    fn symmetries_form_a_group() {
        for variant in Variant::ALL {
            let group = Symmetries::of(variant);
            let all: std::collections::HashSet<&Vec<u8>> = group.perms.iter().collect();
            for a in &group.perms {
                for b in &group.perms {
                    let composed: Vec<u8> = b.iter().map(|&c| a[c as usize]).collect();
                    assert!(all.contains(&composed), "{variant}: not closed");
                }
            }
        }
    }

    #[test]
    fn canonical_form_is_shared_by_images() {
        let board = Board::parse(Variant::Four, "X.../.O../..X./....").unwrap();
        let group = Symmetries::of(Variant::Four);
        let (x, o) = (
            board.mask(crate::board::Mark::X),
            board.mask(crate::board::Mark::O),
        );
        let canon = group.canonical(x, o);
        for image in images(&board) {
            let (ix, io) = (
                image.mask(crate::board::Mark::X),
                image.mask(crate::board::Mark::O),
            );
            let other = group.canonical(ix, io);
            assert_eq!((canon.0, canon.1), (other.0, other.1));
            assert_eq!(group.map_mask(other.2, ix), other.0);
        }
        // The main diagonal reflection leaves this position alone.
        assert_eq!(group.stabiliser(x, o).len(), 2);
    }

    #[test]
    fn distinct_moves_keep_one_move_of_each_kind() {
        let group = Symmetries::of(Variant::Classic);
        let empty = Variant::Classic.full_mask();
        // The empty board: a corner, an edge and the centre.
        assert_eq!(group.distinct_moves(0, 0, empty), 1 << 0 | 1 << 1 | 1 << 4);
        // Every position: each empty cell is the image of exactly one kept cell.
        for a in 0..512u64 {
            for b in (0..512u64).filter(|b| a & b == 0) {
                let moves = empty & !(a | b);
                let kept = group.distinct_moves(a, b, moves);
                let stabiliser = group.stabiliser(a, b);
                for cell in crate::board::cells_of(moves) {
                    let images = stabiliser.iter().map(|&s| group.map_cell(s, cell));
                    let kept_images = images.filter(|&image| kept & 1 << image != 0).count();
                    assert!(
                        kept_images > 0,
                        "{a:b} {b:b}: cell {cell} has no kept image"
                    );
                    assert_eq!(kept & moves, kept);
                }
                for cell in crate::board::cells_of(kept) {
                    assert!(stabiliser.iter().all(|&s| {
                        let image = group.map_cell(s, cell);
                        image == cell || kept & 1 << image == 0
                    }));
                }
            }
        }
    }
}
