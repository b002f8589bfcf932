//! Who plays in the league: an entrant, named as the store keeps it (`medium`) and shown as a
//! seat is (`AI (medium)`). Only the AI levels today; a bot account would be another kind.

use noughts_protocol::Level;

/// One entrant of the league.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Entrant {
    /// The engine at one of its levels.
    Level(Level),
}

impl Entrant {
    /// The entrant the store's `key` names (a level's name), if it is one.
    pub(crate) fn from_key(key: &str) -> Option<Entrant> {
        key.parse().ok().map(Entrant::Level)
    }

    /// As a seat shows it.
    pub(crate) fn shown(self) -> String {
        match self {
            Entrant::Level(level) => format!("AI ({level})"),
        }
    }

    /// The AI level it plays with, as its war game seats it.
    pub(crate) fn level(self) -> Level {
        match self {
            Entrant::Level(level) => level,
        }
    }

    /// As the protocol says it.
    pub(crate) fn wire(self) -> noughts_protocol::Entrant {
        match self {
            Entrant::Level(level) => noughts_protocol::Entrant { level: Some(level) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entrant_is_kept_by_its_key() {
        for level in Level::ALL {
            let entrant = Entrant::Level(level);
            assert_eq!(Entrant::from_key(level.name()), Some(entrant));
        }
        assert_eq!(Entrant::from_key("bot:7"), None);
        assert_eq!(Entrant::Level(Level::Medium).shown(), "AI (medium)");
    }
}
