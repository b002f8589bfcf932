//! The lobby's tabs: its games, every live game, the leaderboard and a player's history.

/// The tabs of the lobby.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    /// Open rooms, live games and war games.
    #[default]
    Games,
    /// Every live game, a page at a time.
    Browse,
    /// The best-rated players of a variant.
    Leaderboard,
    /// A player's finished games.
    History,
}

impl Tab {
    /// Every tab, in the order shown.
    pub const ALL: [Tab; 4] = [Tab::Games, Tab::Browse, Tab::Leaderboard, Tab::History];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Games => "Lobby",
            Tab::Browse => "All games",
            Tab::Leaderboard => "Leaderboard",
            Tab::History => "History",
        }
    }

    /// The next (`+1`) or previous (`-1`) tab, wrapping around.
    pub fn cycle(self, delta: isize) -> Tab {
        let index = Tab::ALL.iter().position(|&t| t == self).unwrap_or(0) as isize;
        Tab::ALL[(index + delta).rem_euclid(Tab::ALL.len() as isize) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_both_ways() {
        assert_eq!(Tab::Games.cycle(1), Tab::Browse);
        assert_eq!(Tab::Games.cycle(-1), Tab::History);
        assert_eq!(Tab::History.cycle(1), Tab::Games);
    }
}
