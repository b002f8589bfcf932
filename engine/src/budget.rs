//! How long a search may run: the [`Budget`] every search and level takes.

use std::time::Duration;

/// How long a search may run: wall time, nodes, or both (whichever runs out first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Stop deepening once this much time has passed.
    pub time: Option<Duration>,
    /// Stop deepening once this many nodes have been searched.
    pub nodes: Option<u64>,
}

impl Budget {
    /// One second: the default for the AI seat on qubic. The other variants are solved well within it.
    pub const DEFAULT: Budget = Budget {
        time: Some(Duration::from_secs(1)),
        nodes: None,
    };

    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        time: None,
        nodes: None,
    };

    /// A wall-time limit only.
    pub const fn millis(ms: u64) -> Budget {
        Budget {
            time: Some(Duration::from_millis(ms)),
            nodes: None,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}
