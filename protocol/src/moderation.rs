//! Moderation on the wire: what a player reports another for, and the players one mutes or blocks.

use serde::{Deserialize, Serialize};

use crate::ids::{GameId, PlayerId};

/// What a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportCategory {
    /// Insults, threats, harassment in chat.
    Abuse,
    /// Flooding the chat or the lobby.
    Spam,
    /// An offensive or misleading name.
    Name,
    /// Playing with help, or stalling on purpose.
    Cheating,
    /// Anything else; the reason says what.
    Other,
}

impl ReportCategory {
    /// Every category, in the order clients may offer them.
    pub const ALL: [ReportCategory; 5] = [
        ReportCategory::Abuse,
        ReportCategory::Spam,
        ReportCategory::Name,
        ReportCategory::Cheating,
        ReportCategory::Other,
    ];

    /// The category as it appears on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportCategory::Abuse => "abuse",
            ReportCategory::Spam => "spam",
            ReportCategory::Name => "name",
            ReportCategory::Cheating => "cheating",
            ReportCategory::Other => "other",
        }
    }

    /// The category of a stored name, if it is one.
    pub fn from_name(name: &str) -> Option<ReportCategory> {
        ReportCategory::ALL
            .into_iter()
            .find(|category| category.as_str() == name)
    }
}

/// The `report` request: a player told to the server's operator, with what they did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Who is reported.
    pub player: PlayerId,
    pub category: ReportCategory,
    /// What they did, in the reporter's words.
    pub reason: String,
    /// The game it happened in, if any: the report is kept with that game's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameId>,
}

/// A player one mutes or blocks, as `moderation_list` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratedPlayer {
    pub player: PlayerId,
    /// Their display name, as the server last knew it (empty if it knows none).
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_names_are_the_serde_names() {
        for category in ReportCategory::ALL {
            assert_eq!(
                serde_json::to_string(&category).unwrap(),
                format!("\"{}\"", category.as_str())
            );
            assert_eq!(ReportCategory::from_name(category.as_str()), Some(category));
        }
        assert_eq!(ReportCategory::from_name("rude"), None);
    }
}
