//! The position: whose marks are where, whose turn it is, and whether the game is over.
//!
//! A [`Board`] is two bit masks (one per side) and its variant. It is `Copy`, cheap to hash and
//! compare, and only ever holds a legal position: [`Board::parse`] and [`Board::play`] are the only
//! ways to make one, and both refuse anything that could not arise in a game.

use std::fmt;

use crate::variant::Variant;

/// A side, and the mark it puts on the board. X always moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Mark {
    X,
    O,
}

impl Mark {
    /// The other side.
    pub const fn opponent(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }

    /// `'X'` or `'O'`.
    pub const fn symbol(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// How a finished game ended on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `mark` completed a line; `cells` is the union of every line it completed (a single move on
    /// the cubes can complete several at once).
    Win { mark: Mark, cells: u64 },
    /// The board is full and nobody has a line.
    Draw,
}

/// Why a board text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    /// The text does not have one character per cell.
    WrongLength { expected: usize, found: usize },
    /// A character other than `X`, `O`, `.` (or the ignored `/` and whitespace).
    BadCharacter { character: char, position: usize },
    /// O has more marks than X; X always moves first.
    OAhead { x: u32, o: u32 },
    /// X has two or more marks more than O; the sides alternate.
    XTooFarAhead { x: u32, o: u32 },
    /// Both sides have completed a line.
    BothWin,
    /// A side has a line, but moves were made after it was completed.
    PlayAfterWin { winner: Mark },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::WrongLength { expected, found } => {
                write!(f, "wrong length: expected {expected} cells, found {found}")
            }
            BoardError::BadCharacter {
                character,
                position,
            } => write!(
                f,
                "bad character {character:?} at position {position} (expected X, O or .)"
            ),
            BoardError::OAhead { x, o } => {
                write!(
                    f,
                    "impossible counts: O has {o} marks but X has only {x}; X moves first"
                )
            }
            BoardError::XTooFarAhead { x, o } => write!(
                f,
                "impossible counts: X has {x} marks but O has only {o}; the sides alternate"
            ),
            BoardError::BothWin => write!(f, "both X and O have a line"),
            BoardError::PlayAfterWin { winner } => {
                write!(f, "play went on after {winner} had already won")
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// Why a move was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveError {
    /// The cell number is not on this board.
    OffBoard { cell: usize, cells: usize },
    /// The cell already holds a mark.
    Occupied { cell: usize },
    /// The game has already ended.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::OffBoard { cell, cells } => {
                write!(
                    f,
                    "cell {cell} is off the board (cells are 0 to {})",
                    cells - 1
                )
            }
            MoveError::Occupied { cell } => write!(f, "cell {cell} is already taken"),
            MoveError::GameOver => write!(f, "the game is already over"),
        }
    }
}

impl std::error::Error for MoveError {}

/// A legal position of one of the variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    variant: Variant,
    x: u64,
    o: u64,
}

impl Board {
    /// The empty board.
    pub const fn new(variant: Variant) -> Board {
        Board {
            variant,
            x: 0,
            o: 0,
        }
    }

    /// Reads board text: one character per cell in cell order, `X`, `O` or `.` (lower case
    /// accepted); `/` and whitespace are ignored, so `X.O/.X./..O` reads as classic.
    pub fn parse(variant: Variant, text: &str) -> Result<Board, BoardError> {
        let (mut x, mut o, mut cell) = (0u64, 0u64, 0usize);
        for (position, character) in text.chars().enumerate() {
            if character == '/' || character.is_whitespace() {
                continue;
            }
            let side = match character {
                'X' | 'x' => Some(&mut x),
                'O' | 'o' => Some(&mut o),
                '.' => None,
                _ => {
                    return Err(BoardError::BadCharacter {
                        character,
                        position,
                    });
                }
            };
            if let Some(mask) = side
                && cell < variant.cells()
            {
                *mask |= 1 << cell;
            }
            cell += 1;
        }
        if cell != variant.cells() {
            return Err(BoardError::WrongLength {
                expected: variant.cells(),
                found: cell,
            });
        }
        Board::from_masks(variant, x, o)
    }

    /// Builds a board from the two sides' masks, with the same checks as [`Board::parse`].
    pub fn from_masks(variant: Variant, x: u64, o: u64) -> Result<Board, BoardError> {
        debug_assert_eq!(x & o, 0, "a cell holds two marks");
        debug_assert_eq!((x | o) & !variant.full_mask(), 0, "mark off the board");
        let (xs, os) = (x.count_ones(), o.count_ones());
        if os > xs {
            return Err(BoardError::OAhead { x: xs, o: os });
        }
        if xs > os + 1 {
            return Err(BoardError::XTooFarAhead { x: xs, o: os });
        }
        let board = Board { variant, x, o };
        let (x_lines, o_lines) = (board.completed(Mark::X), board.completed(Mark::O));
        match (x_lines.is_empty(), o_lines.is_empty()) {
            (false, false) => return Err(BoardError::BothWin),
            (true, true) => {}
            (x_won, _) => {
                let (winner, lines) = if x_won {
                    (Mark::O, &o_lines)
                } else {
                    (Mark::X, &x_lines)
                };
                // The winner must have moved last, and every line it holds must pass through that
                // last move: lines with no common cell mean the game went on after a win.
                let moved_last = match winner {
                    Mark::X => xs == os + 1,
                    Mark::O => xs == os,
                };
                let common = lines.iter().fold(u64::MAX, |acc, line| acc & line);
                if !moved_last || common == 0 {
                    return Err(BoardError::PlayAfterWin { winner });
                }
            }
        }
        Ok(board)
    }

    /// The variant this board belongs to.
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The mask of `mark`'s cells.
    pub const fn mask(&self, mark: Mark) -> u64 {
        match mark {
            Mark::X => self.x,
            Mark::O => self.o,
        }
    }

    /// The mask of empty cells.
    pub const fn empty(&self) -> u64 {
        self.variant.full_mask() & !(self.x | self.o)
    }

    /// Number of marks on the board (moves played so far).
    pub const fn ply(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// The side whose turn it is (follows from the counts).
    pub const fn to_move(&self) -> Mark {
        if self.x.count_ones() > self.o.count_ones() {
            Mark::O
        } else {
            Mark::X
        }
    }

    /// The mark on `cell`, if any. Cells off the board read as empty.
    pub fn get(&self, cell: usize) -> Option<Mark> {
        let bit = 1u64.checked_shl(cell as u32).unwrap_or(0);
        if self.x & bit != 0 {
            Some(Mark::X)
        } else if self.o & bit != 0 {
            Some(Mark::O)
        } else {
            None
        }
    }

    /// The empty cells in increasing order; empty once the game is over.
    pub fn legal_moves(&self) -> impl Iterator<Item = usize> + use<> {
        cells_of(if self.outcome().is_some() {
            0
        } else {
            self.empty()
        })
    }

    /// The position after the side to move puts its mark on `cell`.
    pub fn play(&self, cell: usize) -> Result<Board, MoveError> {
        let cells = self.variant.cells();
        if cell >= cells {
            return Err(MoveError::OffBoard { cell, cells });
        }
        if self.get(cell).is_some() {
            return Err(MoveError::Occupied { cell });
        }
        if self.outcome().is_some() {
            return Err(MoveError::GameOver);
        }
        Ok(self.play_unchecked(cell))
    }

    /// [`Board::play`] without the checks, for search. The cell must be empty and on the board and
    /// the game not over.
    #[inline]
    pub fn play_unchecked(&self, cell: usize) -> Board {
        debug_assert!(self.get(cell).is_none() && cell < self.variant.cells());
        let mut next = *self;
        match self.to_move() {
            Mark::X => next.x |= 1 << cell,
            Mark::O => next.o |= 1 << cell,
        }
        next
    }

    /// Whether `mark` has completed a line through `cell` (a fast test after a move).
    #[inline]
    pub fn wins_through(&self, mark: Mark, cell: usize) -> bool {
        let own = self.mask(mark);
        self.variant
            .lines_through(cell)
            .iter()
            .any(|&line| line & !own == 0)
    }

    /// The result, if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        for mark in [Mark::X, Mark::O] {
            let cells = self.completed(mark).iter().fold(0, |acc, line| acc | line);
            if cells != 0 {
                return Some(Outcome::Win { mark, cells });
            }
        }
        if self.empty() == 0 {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// The lines `mark` has completed.
    fn completed(&self, mark: Mark) -> Vec<u64> {
        let own = self.mask(mark);
        self.variant
            .lines()
            .iter()
            .copied()
            .filter(|&line| own & line == line)
            .collect()
    }

    /// The board as one character per cell and nothing else (`X.O.X...O`): the form the protocol
    /// carries.
    pub fn to_compact(&self) -> String {
        (0..self.variant.cells())
            .map(|cell| self.get(cell).map_or('.', Mark::symbol))
            .collect()
    }
}

/// Board text with rows separated by `/` and, on the cubes, layers by `//`: `X.O/.X./..O`.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.variant.side();
        for cell in 0..self.variant.cells() {
            if cell > 0 && cell % (n * n) == 0 {
                f.write_str("//")?;
            } else if cell > 0 && cell % n == 0 {
                f.write_str("/")?;
            }
            write!(f, "{}", self.get(cell).map_or('.', Mark::symbol))?;
        }
        Ok(())
    }
}

/// The cells of a mask in increasing order.
pub fn cells_of(mask: u64) -> impl Iterator<Item = usize> + use<> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(cell)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classic(text: &str) -> Result<Board, BoardError> {
        Board::parse(Variant::Classic, text)
    }

    #[test]
    fn parses_and_prints() {
        let board = classic("X.O/.X./..O").unwrap();
        assert_eq!(board.to_string(), "X.O/.X./..O");
        assert_eq!(board.to_compact(), "X.O.X...O");
        assert_eq!(board.to_move(), Mark::X);
        assert_eq!(board.ply(), 4);
        assert_eq!(classic("x.o .x. ..o").unwrap(), board);
        let cube = Board::new(Variant::Cube).play(13).unwrap();
        assert_eq!(cube.to_string(), ".../.../...//.../.X./...//.../.../...");
        assert_eq!(Board::parse(Variant::Cube, &cube.to_string()), Ok(cube));
    }

    #[test]
    fn refuses_bad_text() {
        assert_eq!(
            classic("X.O"),
            Err(BoardError::WrongLength {
                expected: 9,
                found: 3
            })
        );
        assert_eq!(
            classic("X.O.Z...."),
            Err(BoardError::BadCharacter {
                character: 'Z',
                position: 4
            })
        );
        assert_eq!(classic("OO.X....."), Err(BoardError::OAhead { x: 1, o: 2 }));
        assert_eq!(
            classic("XX......."),
            Err(BoardError::XTooFarAhead { x: 2, o: 0 })
        );
        assert_eq!(classic("XXX/OOO/X.."), Err(BoardError::BothWin));
        // X completed the top row, then O moved again.
        assert_eq!(
            classic("XXX/OO./O.."),
            Err(BoardError::PlayAfterWin { winner: Mark::X })
        );
        // Two disjoint X lines cannot come from one last move.
        assert_eq!(
            Board::parse(Variant::Four, "XXXX/OOO./XXXX/OOOO"),
            Err(BoardError::BothWin)
        );
    }

    #[test]
    fn a_double_line_through_the_last_move_is_legal() {
        // X's last move at the centre completed both diagonals... here: the top row and left column.
        let board = classic("XXX/XOO/XOO").unwrap();
        assert_eq!(
            board.outcome(),
            Some(Outcome::Win {
                mark: Mark::X,
                cells: 0b001_001_111
            })
        );
        assert_eq!(board.legal_moves().count(), 0);
    }

    #[test]
    fn moves_are_checked() {
        let board = Board::new(Variant::Classic);
        assert_eq!(
            board.play(9),
            Err(MoveError::OffBoard { cell: 9, cells: 9 })
        );
        let board = board.play(4).unwrap();
        assert_eq!(board.play(4), Err(MoveError::Occupied { cell: 4 }));
        let won = classic("XXX/OO./...").unwrap();
        assert_eq!(won.play(8), Err(MoveError::GameOver));
        assert!(won.wins_through(Mark::X, 1));
    }
}
