//! Who plays in the league: an entrant, named as the store keeps it (`medium`, `bot:7`) and
//! shown as a seat is (`AI (medium)`, or the bot's name): the AI levels and bot accounts.

use noughts_protocol::{Level, PlayerId};

use crate::rules::sitter::Sitter;

/// One entrant of the league.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Entrant {
    /// The engine at one of its levels.
    Level(Level),
    /// A bot account, playing its games over the protocol.
    Bot(PlayerId),
}

impl Entrant {
    /// The entrant the store's `key` names (a level's name, or `bot:` and a player id), if it
    /// is one.
    pub(crate) fn from_key(key: &str) -> Option<Entrant> {
        match key.strip_prefix("bot:") {
            Some(id) => id.parse().ok().map(|id| Entrant::Bot(PlayerId(id))),
            None => key.parse().ok().map(Entrant::Level),
        }
    }

    /// The entrant that sits in a league game's seat.
    pub(crate) fn of_seat(seat: Sitter) -> Entrant {
        match seat {
            Sitter::Ai(level) => Entrant::Level(level),
            Sitter::Human(player) => Entrant::Bot(player),
        }
    }

    /// As a seat shows it; a bot by `name`.
    pub(crate) fn shown(self, name: Option<&str>) -> String {
        match (self, name) {
            (Entrant::Level(level), _) => format!("AI ({level})"),
            (Entrant::Bot(_), Some(name)) => name.to_owned(),
            (Entrant::Bot(player), None) => format!("bot {player}"),
        }
    }

    /// As the protocol says it.
    pub(crate) fn wire(self) -> noughts_protocol::Entrant {
        match self {
            Entrant::Level(level) => noughts_protocol::Entrant {
                level: Some(level),
                bot: None,
            },
            Entrant::Bot(player) => noughts_protocol::Entrant {
                level: None,
                bot: Some(player),
            },
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
        assert_eq!(Entrant::from_key("bot:7"), Some(Entrant::Bot(PlayerId(7))));
        assert_eq!(Entrant::from_key("bot:x"), None);
        assert_eq!(Entrant::from_key("grandmaster"), None);
        assert_eq!(Entrant::Level(Level::Medium).shown(None), "AI (medium)");
        assert_eq!(Entrant::Bot(PlayerId(7)).shown(Some("deep-o")), "deep-o");
    }
}
