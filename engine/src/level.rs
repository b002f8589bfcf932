//! The playing strengths, named the same everywhere: protocol, command line, client.

use std::fmt;
use std::str::FromStr;

/// How strongly an AI seat plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Level {
    /// Uniformly random among the legal moves: a yardstick, not an opponent.
    Random,
    /// The two-ply player of the original R write-up: line scores, one reply ahead, centre over
    /// corners over edges with a little randomness. Falls to the opposite-corners trap.
    Easy,
    /// Never misses an immediate win or block; otherwise mostly perfect, sometimes a plausible slip.
    Medium,
    /// Depth-limited search: strong, but beatable on the big boards.
    Hard,
    /// The exact game value with optimal distance (classic, four, cube); best within the budget on
    /// qubic.
    Perfect,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [
        Level::Random,
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Perfect,
    ];

    /// The level's name.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Perfect => "perfect",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of `random`, `easy`, `medium`, `hard`, `perfect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLevel(pub String);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown level {:?} (expected random, easy, medium, hard or perfect)",
            self.0
        )
    }
}

impl std::error::Error for UnknownLevel {}

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| UnknownLevel(s.to_owned()))
    }
}
