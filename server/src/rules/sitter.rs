//! Who sits in a seat: a person or the AI at a level. One type everywhere a seat is: the rules know
//! a person by id, a game being set up by their session, the actor by their connection, the store
//! by their stored record; `P` says which.

use noughts_protocol::{Level, PlayerId};

/// Who sits in a seat: a person, known as `P`, or the AI at `Level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sitter<P = PlayerId> {
    Human(P),
    Ai(Level),
}

impl<P> Sitter<P> {
    /// The same seat with the person known another way.
    pub fn map<Q>(self, f: impl FnOnce(P) -> Q) -> Sitter<Q> {
        match self {
            Sitter::Human(person) => Sitter::Human(f(person)),
            Sitter::Ai(level) => Sitter::Ai(level),
        }
    }

    /// The seat, borrowing the person.
    pub fn as_ref(&self) -> Sitter<&P> {
        match self {
            Sitter::Human(person) => Sitter::Human(person),
            Sitter::Ai(level) => Sitter::Ai(*level),
        }
    }

    /// The person, if a person sits here.
    pub fn human(&self) -> Option<&P> {
        match self {
            Sitter::Human(person) => Some(person),
            Sitter::Ai(_) => None,
        }
    }
}
