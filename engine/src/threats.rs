//! Threats: cells that complete a line, and the search for wins by continuous threats.
//!
//! A threat is a line holding all but one of its cells for one side and none for the other: that
//! side wins next move unless the other blocks. Two threats at once cannot both be blocked. The
//! threat search looks for a win made only of threats (each answered by the one forced block),
//! which is how wins are found on qubic long before the ordinary search could see them.

use crate::board::cells_of;
use crate::line_counts::{Geometry, LineCounts, OTHER, OWN};
use crate::variant::Variant;

/// The cells where `own` would complete a line of `lines` (`other` having no mark in it).
#[inline]
pub fn winning_cells(lines: &[u64], own: u64, other: u64) -> u64 {
    let mut cells = 0;
    for &line in lines {
        let rest = line & !own;
        // Exactly one cell of the line left (and it is not the other side's).
        if line & other == 0 && rest != 0 && rest & (rest - 1) == 0 {
            cells |= rest;
        }
    }
    cells
}

/// The cells where the defender (`defender` to move) could break the attacker's forcing `line`
/// (as [`ThreatSearch::find_line`] gives it): the line's own cells, cells where the defender
/// makes a threat of its own, and cells sharing an open line with one of its forced replies
/// (which that reply could then turn into a counter-threat). Any other move leaves the same line
/// playable.
pub fn defence_cells(variant: Variant, line: &[usize], defender: u64, attacker: u64) -> u64 {
    let k = variant.side() as u32;
    let on_line = line.iter().fold(0u64, |m, &c| m | 1 << c);
    let replies = line
        .iter()
        .skip(1)
        .step_by(2)
        .fold(0u64, |m, &c| m | 1 << c);
    let mut cells = on_line;
    for &l in variant.lines() {
        if l & attacker == 0 && ((l & defender).count_ones() == k - 2 || l & replies != 0) {
            cells |= l;
        }
    }
    cells & !(defender | attacker)
}

/// What a threat search says about whether a side can survive the other's threats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Every threat line found is stopped (or the side wins first).
    Holds,
    /// Some threat line wins whatever the side does.
    Falls,
    /// The node limit ran out first: nothing is proven.
    Unknown,
}

/// Searches for wins by continuous threats (one side only ever makes threats, the other only
/// ever blocks), within a node limit.
///
/// A node costs no allocation and no scan of every line: the lines each side holds, by how many
/// marks, are kept up to date move by move ([`LineCounts`]), and the positions already refuted
/// are remembered in a fixed table.
#[derive(Debug)]
pub struct ThreatSearch {
    /// The lines of the variant being searched, and which pass through each cell.
    geometry: Geometry,
    /// The variant, for the defence cells.
    variant: Variant,
    /// Nodes visited so far, across calls.
    pub nodes: u64,
    /// Stop once `nodes` reaches this; a search cut short reports no win.
    limit: u64,
    /// Positions (attacker, defender) already shown to hold no threat win within a depth, to
    /// avoid searching a transposition twice (kept across calls: a refutation is a fact about
    /// the position).
    refuted: Refuted,
}

/// One remembered refutation: the attacker's and defender's marks and the depth searched.
#[derive(Debug, Clone, Copy, Default)]
struct Refutation {
    own: u64,
    other: u64,
    depth: u32,
}

/// A fixed table of refutations: buckets of two slots, the first keeping the deepest
/// refutation seen for its index (a shallower one replaces it only for the same position), the
/// second the newest. It starts small, so that a short search costs little to set up, and grows
/// with the work done up to [`REFUTED_MAX_BITS`]; after that, old entries are overwritten.
#[derive(Debug)]
struct Refuted {
    /// Two slots per bucket.
    slots: Vec<Refutation>,
    /// `slots.len() - 2`: masks an index down to the first slot of its bucket.
    mask: usize,
    /// Refutations stored since the table last grew.
    stored: usize,
}

/// The table's first size (log2 of the slots): 1,024 slots, 24 KiB.
const REFUTED_MIN_BITS: u32 = 10;
/// Its largest: 2^17 slots, 3 MiB.
const REFUTED_MAX_BITS: u32 = 17;

impl Refuted {
    fn new(bits: u32) -> Refuted {
        Refuted {
            slots: vec![Refutation::default(); 1 << bits],
            mask: (1 << bits) - 2,
            stored: 0,
        }
    }

    #[inline]
    fn index(&self, own: u64, other: u64) -> usize {
        let h = (own ^ other.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & self.mask
    }

    /// Whether (own, other) is known to hold no threat win within `depth`.
    #[inline]
    fn holds(&self, own: u64, other: u64, depth: u32) -> bool {
        let at = self.index(own, other);
        self.slots[at..at + 2]
            .iter()
            .any(|r| r.own == own && r.other == other && r.depth >= depth)
    }

    #[inline]
    fn insert(&mut self, own: u64, other: u64, depth: u32) {
        self.stored += 1;
        if 2 * self.stored > self.slots.len() && self.slots.len() < 1 << REFUTED_MAX_BITS {
            self.grow();
        }
        self.put(Refutation { own, other, depth });
    }

    #[inline]
    fn put(&mut self, new: Refutation) {
        let at = self.index(new.own, new.other);
        let kept = self.slots[at];
        if kept.own == new.own && kept.other == new.other || new.depth >= kept.depth {
            self.slots[at] = new;
        } else {
            self.slots[at + 1] = new;
        }
    }

    /// Four times the slots, every refutation kept.
    fn grow(&mut self) {
        let bits = (self.slots.len().trailing_zeros() + 2).min(REFUTED_MAX_BITS);
        let old = std::mem::replace(self, Refuted::new(bits));
        for r in old.slots.into_iter().filter(|r| r.depth > 0) {
            self.put(r);
        }
    }
}

impl ThreatSearch {
    /// A search over `variant` that gives up after `limit` nodes.
    pub fn new(variant: Variant, limit: u64) -> ThreatSearch {
        ThreatSearch {
            geometry: Geometry::of(variant),
            variant,
            nodes: 0,
            limit,
            refuted: Refuted::new(REFUTED_MIN_BITS),
        }
    }

    /// Allows `extra` more nodes.
    pub fn extend(&mut self, extra: u64) {
        self.limit = self.nodes + extra;
    }

    /// Whether the last search ran out of nodes (so "no win" means "none found", not "none").
    pub fn truncated(&self) -> bool {
        self.nodes >= self.limit
    }

    /// Whether the side to move (`own`) survives the other side's threats: it has a threat win
    /// of its own, the other side has none, or some move of its stops every one found. Each
    /// search may spend `per_search` nodes; a search cut short by that limit proves nothing, so
    /// the answer is then [`Hold::Unknown`] unless another search settles it.
    pub fn can_hold(&mut self, own: u64, other: u64, per_search: u64) -> Hold {
        self.extend(per_search);
        if self.find_win(own, other, 32).is_some() {
            return Hold::Holds;
        }
        self.extend(per_search);
        let Some(line) = self.find_line(other, own, 32) else {
            return if self.truncated() {
                Hold::Unknown
            } else {
                Hold::Holds
            };
        };
        let candidates = defence_cells(self.variant, &line, own, other);
        let mut answer = Hold::Falls;
        for cell in cells_of(candidates) {
            self.extend(per_search);
            if self.find_win(other, own | 1 << cell, 32).is_none() {
                if !self.truncated() {
                    return Hold::Holds;
                }
                answer = Hold::Unknown;
            }
        }
        answer
    }

    /// The attacker's fastest threat win found: [`ThreatSearch::find_win`] at depths 1, 2, … up
    /// to `depth`, so the plies are the fewest any threat line needs (within the node limit).
    pub fn find_shortest_win(&mut self, own: u64, other: u64, depth: u32) -> Option<(usize, u32)> {
        for d in 1..=depth {
            if let Some(found) = self.find_win(own, other, d) {
                return Some(found);
            }
            if self.truncated() {
                return None;
            }
        }
        None
    }

    /// Like [`ThreatSearch::find_win`], but the whole forcing line: the attacker's moves and the
    /// defender's forced replies in turn, ending with the winning cell or the two cells of the
    /// final double threat. Every cell a defence could use to break this line is in it.
    pub fn find_line(&mut self, own: u64, other: u64, depth: u32) -> Option<Vec<usize>> {
        let budget = self.limit.saturating_sub(self.nodes);
        let (mut own, mut other) = (own, other);
        let mut line = Vec::new();
        let mut depth = depth;
        loop {
            let (cell, plies) = self.find_win(own, other, depth)?;
            line.push(cell);
            if plies == 1 {
                return Some(line);
            }
            own |= 1 << cell;
            let threats = winning_cells(self.geometry.lines, own, other) & !(own | other);
            if threats.count_ones() >= 2 {
                line.extend(cells_of(threats));
                return Some(line);
            }
            let block = threats.trailing_zeros() as usize;
            line.push(block);
            other |= 1 << block;
            depth = depth.saturating_sub(1);
            // Replaying the line costs few nodes (the refutations are remembered); allow them.
            self.extend(budget);
        }
    }

    /// If the side to move (marks `own`; the opponent has `other`) can force a win by threats
    /// within `depth` of its own moves: the first move and the plies from now to the winning move
    /// included.
    pub fn find_win(&mut self, own: u64, other: u64, depth: u32) -> Option<(usize, u32)> {
        let counts = LineCounts::new(&self.geometry, own, other);
        self.win(&counts, own, other, depth)
    }

    /// [`ThreatSearch::find_win`] with the position's lines already counted.
    fn win(
        &mut self,
        counts: &LineCounts,
        own: u64,
        other: u64,
        depth: u32,
    ) -> Option<(usize, u32)> {
        self.nodes += 1;
        let geometry = &self.geometry;
        let occupied = own | other;
        let wins = counts.completing(geometry, OWN, occupied);
        if wins != 0 {
            return Some((wins.trailing_zeros() as usize, 1));
        }
        let losses = counts.completing(geometry, OTHER, occupied);
        if losses & losses.wrapping_sub(1) != 0 || depth == 0 || self.nodes >= self.limit {
            return None;
        }
        if self.refuted.holds(own, other, depth) {
            return None;
        }
        let candidates = if losses != 0 {
            losses
        } else {
            counts.threat_making(geometry, OWN, occupied)
        };
        // Moves making the most threats first (then the lower cell): (count, cell, threats).
        let mut moves = [(0u32, 0u8, 0u64); 64];
        let mut len = 0;
        for cell in cells_of(candidates) {
            let threats = counts.threats_made(geometry, OWN, cell, occupied);
            if threats != 0 {
                moves[len] = (threats.count_ones(), cell as u8, threats);
                len += 1;
            }
        }
        let moves = &mut moves[..len];
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(count, cell, threats) in moves.iter() {
            let cell = cell as usize;
            if count >= 2 {
                return Some((cell, 3));
            }
            let block = threats.trailing_zeros() as usize;
            let mut next = *counts;
            next.play(&self.geometry, OWN, cell);
            next.play(&self.geometry, OTHER, block);
            if let Some((_, plies)) =
                self.win(&next, own | 1 << cell, other | 1 << block, depth - 1)
            {
                return Some((cell, plies + 2));
            }
            if self.nodes >= self.limit {
                return None;
            }
        }
        if self.nodes < self.limit {
            self.refuted.insert(own, other, depth);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Mark};

    #[test]
    fn finds_threats_and_blocks() {
        let board = Board::parse(Variant::Classic, "XX./OO./...").unwrap();
        let lines = Variant::Classic.lines();
        let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
        assert_eq!(winning_cells(lines, x, o), 1 << 2);
        assert_eq!(winning_cells(lines, o, x), 1 << 5);
    }

    /// Qubic with X to have made `forks` (each four X cells: two of a row and two of the column
    /// crossing the row's end, so that X at that end makes two threats), and O holding harmless
    /// cells, O to move.
    fn qubic_forks(forks: &[[usize; 5]]) -> (u64, u64) {
        let lines = Variant::Qubic.lines();
        let x = forks
            .iter()
            .flat_map(|f| f[..4].iter())
            .fold(0u64, |m, &c| m | 1 << c);
        let needed = forks.iter().fold(0u64, |m, f| m | 1 << f[4]);
        let mut o = 0u64;
        for cell in (0..64).rev() {
            if o.count_ones() + 1 == x.count_ones() {
                break;
            }
            let with = o | 1 << cell;
            // Off X's cells, on no line with two X marks, and never two O marks on an open line.
            let harmless = (x | needed) & 1 << cell == 0
                && lines
                    .iter()
                    .all(|&l| l & 1 << cell == 0 || (l & x).count_ones() < 2)
                && lines
                    .iter()
                    .all(|&l| l & x != 0 || (l & with).count_ones() < 2);
            if harmless {
                o = with;
            }
        }
        (x, o)
    }

    #[test]
    fn one_fork_can_be_stopped_but_not_two() {
        // Row 0 of layer 0 (0, 1) with the column through 3 (19, 35); fork at 3.
        let first = [0, 1, 19, 35, 3];
        // Row 3 of layer 3 (60, 61) with the column through 63 (31, 47); fork at 63.
        let second = [60, 61, 31, 47, 63];
        let (x, o) = qubic_forks(&[first]);
        assert!(
            ThreatSearch::new(Variant::Qubic, 10_000)
                .find_win(x, o, 8)
                .is_some()
        );
        assert_eq!(
            ThreatSearch::new(Variant::Qubic, 0).can_hold(o, x, 10_000),
            Hold::Holds
        );
        let (x, o) = qubic_forks(&[first, second]);
        assert_eq!(o.count_ones() + 1, x.count_ones());
        assert_eq!(
            ThreatSearch::new(Variant::Qubic, 0).can_hold(o, x, 10_000),
            Hold::Falls
        );
    }

    #[test]
    fn finds_a_fork_by_threats() {
        // X to move: 6 threatens 3 (column) and 7... X at 0 and 8, O at 4 and 2; X plays 6: threats
        // at 3 and 7.
        let board = Board::parse(Variant::Classic, "X.O/.O./..X").unwrap();
        let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
        // O threatens 6 (the other diagonal), so X must block there, which forks.
        let mut search = ThreatSearch::new(Variant::Classic, 1000);
        assert_eq!(search.find_win(x, o, 4), Some((6, 3)));
        // O, to move in X's shoes, has nothing.
        let mut search = ThreatSearch::new(Variant::Classic, 1000);
        assert_eq!(search.find_win(o, x | 1 << 6, 4), None);
    }
}
