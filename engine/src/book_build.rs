//! The book's builder: a proof-number search for a winning strategy for X on qubic, with the
//! threat search at its leaves.
//!
//! The tree alternates X-to-move (OR) and O-to-move (AND) positions, each stored once per
//! symmetry class (positions reached by different orders share a node). X's moves are limited
//! to a few candidates (a forced block, else the cells on the most lines still open to X or to
//! O, weighted by the marks already on them); O's are all legal moves, one per symmetry class, or
//! the one block when X threatens. A leaf with X to move is proven when the threat search finds
//! a win by continuous threats. The proof numbers say how many leaves must still be proven;
//! each step expands the most-proving leaf.
//!
//! The builder runs in steps so that a caller can report and checkpoint between them; the book
//! is extracted from whatever is proven so far (every entry is then a proven win, whether or not
//! the empty board is).

use std::collections::HashMap;
use std::time::Instant;

use crate::book::Book;
use crate::symmetry::Symmetries;
use crate::threats::{ThreatSearch, defence_cells, winning_cells};
use crate::variant::Variant;

/// A proof or disproof number that cannot be reached.
const INFINITE: u32 = u32::MAX / 2;

/// X's candidate moves per position (beyond a forced block).
const X_CANDIDATES: usize = 8;

/// Nodes the threat search may spend at each new X-to-move leaf.
const LEAF_THREAT_NODES: u64 = 3_000;

/// Threats of X's the leaf search looks through.
const LEAF_THREAT_DEPTH: u32 = 12;

/// One position of the proof tree, in canonical form.
#[derive(Debug)]
struct Node {
    x: u64,
    o: u64,
    x_to_move: bool,
    proof: u32,
    disproof: u32,
    /// Children and the move (in this node's coordinates) that leads to each; empty until
    /// expanded (and for decided leaves).
    children: Vec<(u32, u8)>,
    expanded: bool,
    /// Proven by the threat search rather than by its children.
    threat_leaf: bool,
}

/// Counts of the search so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Positions in the tree.
    pub nodes: u64,
    /// Positions expanded.
    pub expanded: u64,
    /// Positions proven won for X.
    pub proven: u64,
    /// Positions shown not to be won with X's candidate moves.
    pub disproven: u64,
    /// The root's proof and disproof numbers (0 proof: the empty board is proven).
    pub root_proof: u32,
    pub root_disproof: u32,
}

/// A proof-number search from the empty qubic board.
#[derive(Debug)]
pub struct Builder {
    nodes: Vec<Node>,
    index: HashMap<(u64, u64), u32>,
    symmetries: &'static Symmetries,
    threats: ThreatSearch,
    expanded: u64,
    /// The node being proven: the position the search was made from, or the last one given to
    /// [`Builder::prove`].
    root: u32,
    /// Whether an O-to-move position's children off X's threat line are proven by that line
    /// instead of by a threat search each (see [`Builder::for_play`]).
    shortcut: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A search whose tree holds only the empty board.
    pub fn new() -> Builder {
        Builder::from_position(0, 0)
    }

    /// A search whose tree holds only the position (x, o), to prove it won for X (whichever
    /// side is to move there).
    pub fn from_position(x: u64, o: u64) -> Builder {
        let mut builder = Builder::empty(false);
        builder.node(x, o);
        builder
    }

    /// An empty search for a player's in-game checks, one position after another
    /// ([`Builder::prove`]), all in one tree: what one check proves or expands is there for the
    /// next, whether another move of the same decision or a later move of the game reaches it.
    ///
    /// It also takes a shortcut the book's builds do not (their books stay as built): when O is
    /// to move and X has a line of threats that wins (were it X's move, or after one of O's
    /// moves), every move of O's off that line's defence cells ([`defence_cells`]) leaves the
    /// line playable, so the position after it is won for X without a threat search of its own
    /// and is left out of the tree (a proven child adds nothing to its parent's numbers). Its
    /// tree is for proofs, not for [`Builder::book`].
    pub fn for_play() -> Builder {
        Builder::empty(true)
    }

    fn empty(shortcut: bool) -> Builder {
        Builder {
            nodes: Vec::new(),
            index: HashMap::new(),
            symmetries: Symmetries::of(Variant::Qubic),
            threats: ThreatSearch::new(Variant::Qubic, 0),
            expanded: 0,
            root: 0,
            shortcut,
        }
    }

    /// Whether the root (the empty board, unless made [`Builder::from_position`] or given to
    /// [`Builder::prove`]) is proven won for X.
    pub fn solved(&self) -> bool {
        self.nodes
            .get(self.root as usize)
            .is_some_and(|root| root.proof == 0)
    }

    /// Positions expanded so far.
    pub fn expansions(&self) -> u64 {
        self.expanded
    }

    /// Positions in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds no position (only a [`Builder::for_play`] not yet used).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether X, with the marks `x` against `o` (whichever side is to move), is proven to win:
    /// the search is rooted there (added to the tree if new) and expands up to `expansions`
    /// leaves (in steps of 4) before `deadline`, stopping once the position is decided. `false`
    /// proves nothing.
    pub fn prove(&mut self, x: u64, o: u64, expansions: u64, deadline: Option<Instant>) -> bool {
        self.root = self.node(x, o);
        let mut expanded = 0;
        while expanded < expansions && deadline.is_none_or(|d| Instant::now() < d) {
            self.run(4);
            expanded += 4;
            let root = &self.nodes[self.root as usize];
            if root.proof == 0 || root.disproof == 0 {
                break;
            }
        }
        self.solved()
    }

    /// Expands up to `steps` leaves; stops early once the root is decided.
    pub fn run(&mut self, steps: u64) {
        let mut path = Vec::new();
        for _ in 0..steps {
            let root = &self.nodes[self.root as usize];
            if root.proof == 0 || root.disproof == 0 {
                return;
            }
            path.clear();
            let mut at = self.root;
            loop {
                // Numbers seen through another parent may be stale: refresh on the way down.
                self.update(at);
                let node = &self.nodes[at as usize];
                if !node.expanded || node.proof == 0 || node.disproof == 0 {
                    break;
                }
                path.push(at);
                let next = if node.x_to_move {
                    node.children
                        .iter()
                        .min_by_key(|c| self.nodes[c.0 as usize].proof)
                } else {
                    node.children
                        .iter()
                        .min_by_key(|c| self.nodes[c.0 as usize].disproof)
                };
                at = next.expect("an expanded undecided node has children").0;
            }
            let node = &self.nodes[at as usize];
            if node.proof != 0 && node.disproof != 0 {
                self.expand(at);
            }
            path.push(at);
            for &id in path.iter().rev() {
                self.update(id);
            }
        }
    }

    /// The whole tree as bytes, to resume the search later with [`Builder::resume`]: the magic
    /// `QPN1`, the node count (`u32`), then per node its X and O masks (`u64`), flags (`u8`:
    /// 1 X to move, 2 expanded, 4 won by threats), proof and disproof numbers (`u32`), the
    /// child count (`u16`) and each child's index (`u32`) and move (`u8`); little-endian.
    pub fn checkpoint(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(8 + self.nodes.len() * 32);
        bytes.extend_from_slice(b"QPN1");
        bytes.extend_from_slice(&(self.nodes.len() as u32).to_le_bytes());
        for node in &self.nodes {
            bytes.extend_from_slice(&node.x.to_le_bytes());
            bytes.extend_from_slice(&node.o.to_le_bytes());
            bytes.push(
                u8::from(node.x_to_move)
                    | u8::from(node.expanded) << 1
                    | u8::from(node.threat_leaf) << 2,
            );
            bytes.extend_from_slice(&node.proof.to_le_bytes());
            bytes.extend_from_slice(&node.disproof.to_le_bytes());
            bytes.extend_from_slice(&(node.children.len() as u16).to_le_bytes());
            for &(child, cell) in &node.children {
                bytes.extend_from_slice(&child.to_le_bytes());
                bytes.push(cell);
            }
        }
        bytes
    }

    /// A search resumed from [`Builder::checkpoint`]'s bytes; `None` if they are not one.
    pub fn resume(bytes: &[u8]) -> Option<Builder> {
        fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, rest) = bytes.split_at_checked(n)?;
            *bytes = rest;
            Some(head)
        }
        let mut rest = bytes.strip_prefix(b"QPN1")?;
        let count = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
        let mut builder = Builder::new();
        builder.nodes.clear();
        builder.index.clear();
        for id in 0..count {
            let x = u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?);
            let o = u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?);
            let flags = take(&mut rest, 1)?[0];
            let proof = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
            let disproof = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
            let children = u16::from_le_bytes(take(&mut rest, 2)?.try_into().ok()?) as usize;
            let mut list = Vec::with_capacity(children);
            for _ in 0..children {
                let child = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
                let cell = take(&mut rest, 1)?[0];
                if child as usize >= count || cell >= 64 {
                    return None;
                }
                list.push((child, cell));
            }
            builder.expanded += u64::from(flags & 2 != 0);
            builder.index.insert((x, o), id as u32);
            builder.nodes.push(Node {
                x,
                o,
                x_to_move: flags & 1 != 0,
                proof,
                disproof,
                children: list,
                expanded: flags & 2 != 0,
                threat_leaf: flags & 4 != 0,
            });
        }
        (rest.is_empty() && count > 0).then_some(builder)
    }

    /// The counts so far.
    pub fn progress(&self) -> Progress {
        // An empty tree (a player's search not yet used) has an undecided root.
        let (root_proof, root_disproof) = self
            .nodes
            .get(self.root as usize)
            .map_or((1, 1), |root| (root.proof, root.disproof));
        let mut progress = Progress {
            nodes: self.nodes.len() as u64,
            expanded: self.expanded,
            root_proof,
            root_disproof,
            ..Progress::default()
        };
        for node in &self.nodes {
            progress.proven += u64::from(node.proof == 0);
            progress.disproven += u64::from(node.disproof == 0);
        }
        progress
    }

    /// The book of the proven X-to-move positions reachable from the empty board in the tree:
    /// in each, one proven winning move (followed, with every O reply after it); for a position
    /// won by threats, each X move of the threat sequence. When the empty board is proven this
    /// is a whole winning strategy; before that, a set of proven wins.
    pub fn book(&mut self) -> Book {
        let mut entries = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![0u32];
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            let node = &self.nodes[id as usize];
            let (x, o) = (node.x, node.o);
            if !node.x_to_move {
                stack.extend(node.children.iter().map(|c| c.0));
                continue;
            }
            if node.proof != 0 {
                // Not proven: look further down for proven positions.
                stack.extend(node.children.iter().map(|c| c.0));
                continue;
            }
            if winning_cells(Variant::Qubic.lines(), x, o) & !(x | o) != 0 {
                continue;
            }
            if node.threat_leaf {
                self.threat_line(x, o, &mut entries);
            } else if let Some(&(child, cell)) = node
                .children
                .iter()
                .find(|c| self.nodes[c.0 as usize].proof == 0)
            {
                entries.push(((x, o), cell));
                stack.push(child);
            }
        }
        Book::from_entries(entries)
    }

    /// The entries of the threat win from (x, o), canonical position by position.
    fn threat_line(&mut self, x: u64, o: u64, entries: &mut Vec<((u64, u64), u8)>) {
        self.threats.extend(LEAF_THREAT_NODES * 4);
        let Some(line) = self.threats.find_line(x, o, LEAF_THREAT_DEPTH) else {
            return;
        };
        let (mut x, mut o) = (x, o);
        for pair in line.chunks(2) {
            let (cx, co, s) = self.symmetries.canonical(x, o);
            entries.push(((cx, co), self.symmetries.map_cell(s, pair[0]) as u8));
            x |= 1 << pair[0];
            match pair.get(1) {
                Some(&block)
                    if winning_cells(Variant::Qubic.lines(), x, o) & !(x | o) == 1 << block =>
                {
                    o |= 1 << block;
                }
                _ => return,
            }
        }
    }

    /// The node of the position (x, o), made (and judged) if new.
    fn node(&mut self, x: u64, o: u64) -> u32 {
        let (cx, co, _) = self.symmetries.canonical(x, o);
        if let Some(&id) = self.index.get(&(cx, co)) {
            return id;
        }
        let x_to_move = x.count_ones() == o.count_ones();
        let (proof, disproof, threat_leaf) = self.judge(cx, co, x_to_move);
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            x: cx,
            o: co,
            x_to_move,
            proof,
            disproof,
            children: Vec::new(),
            expanded: false,
            threat_leaf,
        });
        self.index.insert((cx, co), id);
        id
    }

    /// The proof and disproof numbers of a new position, and whether the threat search won it.
    fn judge(&mut self, x: u64, o: u64, x_to_move: bool) -> (u32, u32, bool) {
        let lines = Variant::Qubic.lines();
        let empty = Variant::Qubic.full_mask() & !(x | o);
        if lines.iter().any(|&l| l & !x == 0) {
            return (0, INFINITE, false);
        }
        if lines.iter().any(|&l| l & !o == 0) || empty == 0 {
            return (INFINITE, 0, false);
        }
        let x_wins = winning_cells(lines, x, o) & empty;
        let o_wins = winning_cells(lines, o, x) & empty;
        if x_to_move {
            if x_wins != 0 {
                return (0, INFINITE, false);
            }
            if o_wins.count_ones() >= 2 {
                return (INFINITE, 0, false);
            }
            self.threats.extend(LEAF_THREAT_NODES);
            if self.threats.find_win(x, o, LEAF_THREAT_DEPTH).is_some() {
                return (0, INFINITE, true);
            }
        } else {
            if o_wins != 0 {
                return (INFINITE, 0, false);
            }
            if x_wins.count_ones() >= 2 {
                return (0, INFINITE, false);
            }
        }
        (1, 1, false)
    }

    /// Makes the children of an undecided leaf.
    fn expand(&mut self, id: u32) {
        let node = &self.nodes[id as usize];
        let (x, o, x_to_move) = (node.x, node.o, node.x_to_move);
        let lines = Variant::Qubic.lines();
        let empty = Variant::Qubic.full_mask() & !(x | o);
        let moves: Vec<usize> = if x_to_move {
            let forced = winning_cells(lines, o, x) & empty;
            if forced != 0 {
                vec![forced.trailing_zeros() as usize]
            } else {
                x_candidates(x, o, empty)
            }
        } else {
            let forced = winning_cells(lines, x, o) & empty;
            let cells = if forced != 0 { forced } else { empty };
            (0..64).filter(|&c| cells & 1 << c != 0).collect()
        };
        // O's moves that leave one of X's threat lines playable (none found without the
        // shortcut, or when O's move is forced).
        let shortcut = self.shortcut && !x_to_move && moves.len() > 1;
        let mut lost = if shortcut {
            self.lost_to_line(x, o, o)
        } else {
            0
        };
        let mut children: Vec<(u32, u8)> = Vec::new();
        for cell in moves {
            let child = if x_to_move {
                self.node(x | 1 << cell, o)
            } else if lost & 1 << cell != 0 {
                // Won for X: no child, as a proven child adds nothing to O's numbers (with no
                // child at all, O's position is proven).
                continue;
            } else {
                let child = self.node(x, o | 1 << cell);
                let node = &self.nodes[child as usize];
                if shortcut && node.threat_leaf && !node.expanded {
                    // Won by threats: the line found there is also one against O's other moves
                    // off its defence cells (O's mark here only stood in X's way).
                    lost |= self.lost_to_line(x, o | 1 << cell, o);
                }
                child
            };
            if !children.iter().any(|c| c.0 == child) {
                children.push((child, cell as u8));
            }
        }
        self.expanded += 1;
        let node = &mut self.nodes[id as usize];
        node.children = children;
        node.expanded = true;
    }

    /// The moves of O's (holding `o` before it moves) that leave X's threat line from (x, played),
    /// X to move, playable; none if the threat search finds no line.
    fn lost_to_line(&mut self, x: u64, played: u64, o: u64) -> u64 {
        self.threats.extend(LEAF_THREAT_NODES);
        match self.threats.find_line(x, played, LEAF_THREAT_DEPTH) {
            Some(line) => !(x | o) & !defence_cells(Variant::Qubic, &line, o, x),
            None => 0,
        }
    }

    /// Recomputes a node's numbers from its children.
    fn update(&mut self, id: u32) {
        let node = &self.nodes[id as usize];
        if !node.expanded {
            return;
        }
        let numbers = node
            .children
            .iter()
            .map(|c| &self.nodes[c.0 as usize])
            .map(|c| (c.proof, c.disproof));
        let (proof, disproof) = if node.x_to_move {
            numbers.fold((INFINITE, 0u32), |(p, d), (cp, cd)| {
                (p.min(cp), d.saturating_add(cd).min(INFINITE))
            })
        } else {
            numbers.fold((0u32, INFINITE), |(p, d), (cp, cd)| {
                (p.saturating_add(cp).min(INFINITE), d.min(cd))
            })
        };
        let node = &mut self.nodes[id as usize];
        node.proof = proof;
        node.disproof = disproof;
    }
}

/// X's candidate moves: the empty cells scored by the lines through them still open to X (no O
/// mark), each worth more the more X marks it holds, and by the lines open to O that a mark there
/// closes; the best few, one per symmetry class.
fn x_candidates(x: u64, o: u64, empty: u64) -> Vec<usize> {
    let variant = Variant::Qubic;
    let mut scored: Vec<(u32, usize)> = (0..64)
        .filter(|&c| empty & 1 << c != 0)
        .map(|cell| {
            // Lines X could still complete, the more so the fuller; and lines O could, which a
            // mark here closes (a line with two of O's marks is the start of O's threats).
            let score = variant
                .lines_through(cell)
                .iter()
                .map(|&l| match ((l & x).count_ones(), (l & o).count_ones()) {
                    (mine, 0) => 1 + 4 * mine * mine,
                    (0, theirs) => 3 * theirs * theirs,
                    _ => 0,
                })
                .sum::<u32>();
            (score, cell)
        })
        .collect();
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let symmetries = Symmetries::of(variant);
    let mut seen = Vec::new();
    let mut picked = Vec::new();
    for (_, cell) in scored {
        let key = symmetries.canonical(x | 1 << cell, o);
        if !seen.contains(&key) {
            seen.push(key);
            picked.push(cell);
            if picked.len() == X_CANDIDATES {
                break;
            }
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book_check::verify_all;

    #[test]
    fn a_short_run_proves_positions_and_its_book_verifies() {
        let mut builder = Builder::new();
        builder.run(300);
        let progress = builder.progress();
        assert!(progress.expanded > 0);
        let book = builder.book();
        // Whatever is proven so far, each entry is a win the verifier can follow.
        verify_all(&book).unwrap();
        // A resumed search is the same search.
        let mut resumed = Builder::resume(&builder.checkpoint()).unwrap();
        assert_eq!(resumed.progress(), progress);
        builder.run(100);
        resumed.run(100);
        assert_eq!(resumed.progress(), builder.progress());
        assert!(Builder::resume(b"QPN1").is_none());
    }

    #[test]
    fn a_position_lost_for_o_is_proven_from_it() {
        // A game perfect O lost to medium X at 100 ms a move: after O's fourth move (49) X
        // wins, and a few expansions from that position show it.
        let moves = [57, 48, 25, 41, 22, 28, 37, 49];
        let mask = |parity: usize| {
            moves
                .iter()
                .skip(parity)
                .step_by(2)
                .fold(0u64, |m, &c| m | 1 << c)
        };
        let mut builder = Builder::from_position(mask(0), mask(1));
        builder.run(200);
        assert!(builder.solved());
        // And a position that is no win for X is never proven.
        let mut empty_o = Builder::from_position(1 << 0, 0);
        empty_o.run(20);
        assert!(!empty_o.solved());
    }

    #[test]
    fn the_players_search_proves_in_one_tree_and_its_shortcut_is_sound() {
        // The lost game above, from O's third move on (O to move) and after its fourth.
        let moves = [57, 48, 25, 41, 22, 28, 37, 49];
        let mask = |plies: usize, parity: usize| {
            moves[..plies]
                .iter()
                .skip(parity)
                .step_by(2)
                .fold(0u64, |m, &c| m | 1 << c)
        };
        let mut prover = Builder::for_play();
        assert!(prover.prove(mask(8, 0), mask(8, 1), 200, None));
        // The position is in the tree, proven: proving it again expands nothing.
        let expanded = prover.expanded;
        assert!(prover.prove(mask(8, 0), mask(8, 1), 200, None));
        assert_eq!(prover.expanded, expanded);
        // One move earlier, O to move: each of O's moves that the shortcut finds lost to a
        // threat line of X's (the one X has there, or one found after another of O's moves) is
        // won for X by threats, as a threat search of its own finds.
        let (x, o) = (mask(7, 0), mask(7, 1));
        let fresh = || ThreatSearch::new(Variant::Qubic, 1_000_000);
        let mut lost = prover.lost_to_line(x, o, o);
        let empty = !(x | o);
        for cell in (0..64).filter(|&c| empty & 1 << c != 0) {
            if fresh().find_win(x, o | 1 << cell, 32).is_some() {
                lost |= prover.lost_to_line(x, o | 1 << cell, o);
            }
        }
        assert!(lost.count_ones() > 10);
        for cell in (0..64).filter(|&c| lost & 1 << c != 0) {
            assert!(fresh().find_win(x, o | 1 << cell, 32).is_some());
        }
        // A position that is no win for X is never proven.
        assert!(!prover.prove(1 << 0, 0, 20, None));
    }
}
