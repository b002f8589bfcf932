//! The book's verifier, independent of the search that built it: from a position with X to
//! move it walks every O reply of the book's strategy and checks that X wins in every line.
//!
//! It knows only the rules (the 76 lines) and the book. At an X-to-move position X must win on
//! the spot, or the book must have a move there, or (where the book stops) a short forced
//! sequence of threats must win, found by its own small search. At an O-to-move position every
//! legal O move is followed (one per symmetry class). Positions already checked are remembered.

use std::collections::HashSet;

use crate::book::Book;
use crate::symmetry::Symmetries;
use crate::variant::Variant;

/// The cells where `own` completes a line (a line with three of its marks and none of the
/// other's).
fn completing(own: u64, other: u64) -> u64 {
    let mut cells = 0;
    for &line in Variant::Qubic.lines() {
        if line & other == 0 && (line & own).count_ones() == 3 {
            cells |= line & !own;
        }
    }
    cells
}

/// Whether X (to move) wins by a sequence of threats, each answered by O's one block, within
/// `depth` threats of X's. Sound by construction: every step is a rule of the game.
fn threats_win(x: u64, o: u64, depth: u32, nodes: &mut u64) -> bool {
    *nodes += 1;
    if completing(x, o) != 0 {
        return true;
    }
    let o_wins = completing(o, x);
    if o_wins.count_ones() >= 2 || depth == 0 || *nodes > 200_000 {
        return false;
    }
    let empty = !(x | o);
    let mut candidates = if o_wins != 0 { o_wins } else { empty };
    while candidates != 0 {
        let cell = candidates.trailing_zeros();
        candidates &= candidates - 1;
        let x2 = x | 1 << cell;
        let threats = completing(x2, o);
        match threats.count_ones() {
            0 => {}
            // O cannot block two; and O has no line of its own to complete (any it had was this
            // cell).
            2.. => return true,
            _ => {
                if threats_win(x2, o | threats, depth - 1, nodes) {
                    return true;
                }
            }
        }
    }
    false
}

/// What a verification saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// X-to-move positions checked (one per symmetry class).
    pub positions: u64,
    /// Of those, the ones answered by the book.
    pub book_moves: u64,
    /// Of those, the ones won by a threat sequence the book does not spell out.
    pub threat_leaves: u64,
    /// The most plies from the starting position to X's win, over every line.
    pub plies: u32,
}

/// A line of play in which X's win is not shown: the position (X's marks, O's marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotShown {
    pub x: u64,
    pub o: u64,
}

/// The walk over a book.
struct Walk<'a> {
    book: &'a Book,
    symmetries: &'static Symmetries,
    /// Canonical X-to-move positions shown won, and the most plies to the win from them.
    done: std::collections::HashMap<(u64, u64), u32>,
    /// When sampling: follow only this many O replies per position, chosen by the generator.
    sample: Option<(usize, fastrand::Rng)>,
    checked: Checked,
}

impl Walk<'_> {
    /// X to move in (x, o): the most plies to X's win, or the position where it is not shown.
    fn x_to_move(&mut self, x: u64, o: u64) -> Result<u32, NotShown> {
        let empty = Variant::Qubic.full_mask() & !(x | o);
        if completing(x, o) & empty != 0 {
            return Ok(1);
        }
        let (cx, co, _) = self.symmetries.canonical(x, o);
        if let Some(&plies) = self.done.get(&(cx, co)) {
            return Ok(plies);
        }
        self.checked.positions += 1;
        let plies = match self.book.lookup(x, o) {
            Some(cell) => {
                self.checked.book_moves += 1;
                1 + self.o_to_move(x | 1 << cell, o)?
            }
            None => {
                let mut nodes = 0;
                if !threats_win(x, o, 8, &mut nodes) {
                    return Err(NotShown { x, o });
                }
                self.checked.threat_leaves += 1;
                // Eight threats of X's at most, each a pair of plies, and the win.
                17
            }
        };
        self.done.insert((cx, co), plies);
        Ok(plies)
    }

    /// O to move in (x, o) after X's book move: every reply must leave X winning.
    fn o_to_move(&mut self, x: u64, o: u64) -> Result<u32, NotShown> {
        let full = Variant::Qubic.full_mask();
        if Variant::Qubic.lines().iter().any(|&l| l & !x == 0) {
            return Ok(0);
        }
        let empty = full & !(x | o);
        if empty == 0 || completing(o, x) & empty != 0 {
            // A draw, or O wins on the spot.
            return Err(NotShown { x, o });
        }
        let mut seen = HashSet::new();
        let mut replies: Vec<u64> = Vec::new();
        let mut rest = empty;
        while rest != 0 {
            let cell = rest.trailing_zeros();
            rest &= rest - 1;
            let o2 = o | 1 << cell;
            if seen.insert(self.symmetries.canonical(x, o2)) {
                replies.push(o2);
            }
        }
        if let Some((per_node, rng)) = &mut self.sample {
            rng.shuffle(&mut replies);
            replies.truncate(*per_node);
        }
        let mut most = 0;
        for o2 in replies {
            most = most.max(1 + self.x_to_move(x, o2)?);
        }
        Ok(most)
    }
}

/// Checks that X, to move in (`x`, `o`), wins by `book` against every defence. With `sample`,
/// follows only `sample.0` random O replies in each position (seeded by `sample.1`), which
/// checks a sample of the lines in a fraction of the time.
pub fn verify(
    book: &Book,
    x: u64,
    o: u64,
    sample: Option<(usize, u64)>,
) -> Result<Checked, NotShown> {
    let mut walk = Walk {
        book,
        symmetries: Symmetries::of(Variant::Qubic),
        done: Default::default(),
        sample: sample.map(|(n, seed)| (n, fastrand::Rng::with_seed(seed))),
        checked: Checked::default(),
    };
    let plies = walk.x_to_move(x, o)?;
    walk.checked.plies = plies;
    Ok(walk.checked)
}

/// Checks that X, having just moved to (`x`, `o`) with O to move, wins by `book` against every
/// reply; the most plies to the win from here.
pub fn verify_o_to_move(book: &Book, x: u64, o: u64) -> Result<u32, NotShown> {
    let mut walk = Walk {
        book,
        symmetries: Symmetries::of(Variant::Qubic),
        done: Default::default(),
        sample: None,
        checked: Checked::default(),
    };
    walk.o_to_move(x, o)
}

/// Checks every entry of `book` as a starting position: the whole book is a set of proven wins.
/// The answer sums the walks (positions shared between entries are counted once).
pub fn verify_all(book: &Book) -> Result<Checked, NotShown> {
    let mut walk = Walk {
        book,
        symmetries: Symmetries::of(Variant::Qubic),
        done: Default::default(),
        sample: None,
        checked: Checked::default(),
    };
    for &((x, o), _) in book.entries() {
        let plies = walk.x_to_move(x, o)?;
        walk.checked.plies = walk.checked.plies.max(plies);
    }
    Ok(walk.checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threat_check_finds_a_fork_and_refuses_a_quiet_position() {
        // X on two cells of each of two lines through cell 0 (a row and a column of layer 0):
        // playing 3 makes one threat... here simply: X holds 1, 2 and 4, 8; cell 0 completes
        // neither, but makes two threats at once (row 0..3 and column 0,4,8,12).
        let x = 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8;
        let o = 1 << 20 | 1 << 40 | 1 << 50 | 1 << 60;
        let mut nodes = 0;
        assert!(threats_win(x, o, 2, &mut nodes));
        assert!(!threats_win(1 << 1, 1 << 2, 4, &mut nodes));
    }

    #[test]
    fn an_empty_book_shows_nothing_from_the_empty_board() {
        assert_eq!(
            verify(&Book::default(), 0, 0, None),
            Err(NotShown { x: 0, o: 0 })
        );
    }
}
