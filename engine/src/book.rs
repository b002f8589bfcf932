//! The qubic opening books as data: X's winning move in each position of a proven strategy, and
//! O's stubborn replies in the early positions that strong X players reach.
//!
//! # Format
//!
//! A book is bytes: the magic `QBK1`, then the number of entries as a little-endian `u32`, then
//! that many entries of 17 bytes each, sorted by key:
//!
//! | bytes | holds |
//! |---|---|
//! | 0..8 | X's marks, a little-endian `u64` mask over the 64 cells |
//! | 8..16 | O's marks, likewise |
//! | 16 | X's move, a cell index 0..64 |
//!
//! Every key is the canonical form of a position with X to move (its smallest image under the
//! 192 symmetries of the 4×4×4 cube, compared as `(x, o)`, as [`Symmetries::canonical`] gives
//! it), and the move is in that image's coordinates. An entry says: from here, this move keeps a
//! win for X. Where a line of the strategy leaves the book, X wins by a forced sequence of
//! threats, which the book's builder also writes out move by move, so every X-to-move position of
//! the strategy that is not an immediate win is in the book.
//!
//! The book shipped with the engine is `engine/book/qubic.book`, built by `noughts-engine
//! book-build` and checked by `noughts-engine book-verify`.
//!
//! O's book ([`defence`], `engine/book/qubic-o.book`, built by `noughts-engine defence-build`)
//! has the same format with O to move in every key, and its moves are O's. They are no proof:
//! each is the strongest move a deep check did not show lost (see [`crate::defence_build`]).

use std::sync::OnceLock;

use crate::symmetry::Symmetries;
use crate::variant::Variant;

/// The magic bytes that open a book.
pub const MAGIC: &[u8; 4] = b"QBK1";

/// Bytes per entry.
const ENTRY: usize = 17;

/// A book's bytes do not follow the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadBook(pub &'static str);

impl std::fmt::Display for BadBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a qubic book: {}", self.0)
    }
}

impl std::error::Error for BadBook {}

/// An opening book: canonical positions of the side the book plays for, and its move in each.
#[derive(Debug, Clone, Default)]
pub struct Book {
    /// `((x, o), move)`, sorted by key.
    entries: Vec<((u64, u64), u8)>,
}

impl Book {
    /// A book of `entries` (keys canonical, moves in the keys' coordinates); sorted here.
    pub fn from_entries(mut entries: Vec<((u64, u64), u8)>) -> Book {
        entries.sort_unstable();
        entries.dedup_by_key(|e| e.0);
        Book { entries }
    }

    /// Reads a book in the format above.
    pub fn parse(bytes: &[u8]) -> Result<Book, BadBook> {
        let rest = bytes.strip_prefix(MAGIC).ok_or(BadBook("no magic"))?;
        let (count, rest) = rest.split_first_chunk::<4>().ok_or(BadBook("no count"))?;
        let count = u32::from_le_bytes(*count) as usize;
        if rest.len() != count * ENTRY {
            return Err(BadBook("length does not match the count"));
        }
        let mut entries = Vec::with_capacity(count);
        for chunk in rest.chunks_exact(ENTRY) {
            let x = u64::from_le_bytes(chunk[0..8].try_into().expect("8 bytes"));
            let o = u64::from_le_bytes(chunk[8..16].try_into().expect("8 bytes"));
            let cell = chunk[16];
            if cell >= 64 || (x | o) & 1 << cell != 0 || x & o != 0 {
                return Err(BadBook("an entry's move is not on an empty cell"));
            }
            entries.push(((x, o), cell));
        }
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            return Err(BadBook("entries are not sorted"));
        }
        Ok(Book { entries })
    }

    /// The book in the format above.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(8 + self.entries.len() * ENTRY);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for &((x, o), cell) in &self.entries {
            bytes.extend_from_slice(&x.to_le_bytes());
            bytes.extend_from_slice(&o.to_le_bytes());
            bytes.push(cell);
        }
        bytes
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, sorted by key.
    pub fn entries(&self) -> &[((u64, u64), u8)] {
        &self.entries
    }

    /// The book's move in the position (`x`, `o`), in the position's own coordinates.
    pub fn lookup(&self, x: u64, o: u64) -> Option<usize> {
        let symmetries = Symmetries::of(Variant::Qubic);
        let (cx, co, s) = symmetries.canonical(x, o);
        let at = self.entries.binary_search_by_key(&(cx, co), |e| e.0).ok()?;
        Some(symmetries.map_cell(symmetries.inverse(s), self.entries[at].1 as usize))
    }
}

/// The book built into the engine.
pub fn shipped() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| {
        Book::parse(include_bytes!("../book/qubic.book")).expect("the shipped book is well formed")
    })
}

/// O's book built into the engine.
pub fn defence() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| {
        Book::parse(include_bytes!("../book/qubic-o.book")).expect("O's book is well formed")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_survives_its_bytes_and_answers_in_every_image() {
        let symmetries = Symmetries::of(Variant::Qubic);
        // X on 0 and 21, O on 42: X to move; say 63.
        let (x, o) = (1u64 << 0 | 1 << 21, 1u64 << 42);
        let (cx, co, s) = symmetries.canonical(x, o);
        let book = Book::from_entries(vec![((cx, co), symmetries.map_cell(s, 63) as u8)]);
        let book = Book::parse(&book.to_bytes()).unwrap();
        for t in 0..symmetries.len() {
            let (ix, io) = (symmetries.map_mask(t, x), symmetries.map_mask(t, o));
            assert_eq!(book.lookup(ix, io), Some(symmetries.map_cell(t, 63)));
        }
        assert_eq!(book.lookup(x, o | 1 << 5), None);
        assert!(Book::parse(b"QBK1\x01\0\0\0").is_err());
        assert!(
            shipped()
                .entries()
                .iter()
                .all(|e| (e.0.0 | e.0.1) & 1 << e.1 == 0)
        );
    }
}
