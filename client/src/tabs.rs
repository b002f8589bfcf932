//! The lobby's other tabs: the leaderboard of a variant and a player's history. Pure state, kept
//! current by the server's replies; no drawing.

use noughts_protocol::{ClientMessage, GameSummary, LeaderboardEntry, PlayerId, Variant, sanitize};

/// How many entries one request asks for.
pub const PAGE: u32 = 50;

/// The tabs of the lobby.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    /// Open rooms, live games and war games.
    #[default]
    Games,
    /// The best-rated players of a variant.
    Leaderboard,
    /// A player's finished games.
    History,
}

impl Tab {
    /// Every tab, in the order shown.
    pub const ALL: [Tab; 3] = [Tab::Games, Tab::Leaderboard, Tab::History];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Games => "Lobby",
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

/// The leaderboard tab.
#[derive(Debug, Clone, Default)]
pub struct Leaderboard {
    /// Index into [`Variant::ALL`] of the variant shown.
    pub variant: usize,
    /// The players listed, best first; names sanitised. `None` until the server has answered.
    pub players: Option<Vec<LeaderboardEntry>>,
    /// The highlighted row.
    pub selected: usize,
    /// Whether a request for the next places is on its way.
    pub loading_more: bool,
    /// Whether the last page was full, so more places may follow.
    pub more: bool,
}

impl Leaderboard {
    /// The variant shown.
    pub fn variant(&self) -> Variant {
        Variant::ALL[self.variant]
    }

    /// Shows the next (`+1`) or previous (`-1`) variant; returns the request for its list.
    pub fn change_variant(&mut self, delta: isize) -> ClientMessage {
        let len = Variant::ALL.len() as isize;
        self.variant = (self.variant as isize + delta).rem_euclid(len) as usize;
        self.players = None;
        self.selected = 0;
        self.loading_more = false;
        self.request()
    }

    /// The request for the list shown.
    pub fn request(&self) -> ClientMessage {
        ClientMessage::Leaderboard {
            variant: self.variant(),
            offset: None,
            limit: Some(PAGE),
        }
    }

    /// Takes the server's list, if it is for the variant shown: the first page replaces the
    /// list, a later one goes on its end.
    pub fn receive(&mut self, variant: Variant, offset: u32, mut players: Vec<LeaderboardEntry>) {
        if variant != self.variant() {
            return;
        }
        for entry in &mut players {
            entry.name = sanitize(&entry.name);
        }
        self.more = players.len() >= PAGE as usize;
        let shown = self.players.as_ref().map_or(0, Vec::len);
        match &mut self.players {
            Some(list) if offset > 0 && offset as usize == shown => list.extend(players),
            _ if offset > 0 => return,
            slot => *slot = Some(players),
        }
        self.loading_more = false;
        let len = self.players.as_ref().map_or(0, Vec::len);
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// The highlighted player.
    pub fn selected_player(&self) -> Option<&LeaderboardEntry> {
        self.players.as_ref()?.get(self.selected)
    }

    /// Moves the highlight by `delta` rows, staying on the list; returns the request for the next
    /// places when it reaches the end of a full list.
    pub fn move_selection(&mut self, delta: isize) -> Option<ClientMessage> {
        let len = self.players.as_ref().map_or(0, Vec::len);
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
        if self.selected + 1 < len || !self.more || self.loading_more {
            return None;
        }
        self.loading_more = true;
        Some(ClientMessage::Leaderboard {
            variant: self.variant(),
            offset: Some(u32::try_from(len).unwrap_or(u32::MAX)),
            limit: Some(PAGE),
        })
    }
}

/// The history tab.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// Whose games: `None` for this client's player.
    pub player: Option<PlayerId>,
    /// Their name, when it is someone else (from the leaderboard).
    pub name: Option<String>,
    /// The games listed, newest first. `None` until the server has answered.
    pub games: Option<Vec<GameSummary>>,
    /// Whether older games can be loaded.
    pub more: bool,
    /// Whether a request for older games is on its way.
    pub loading_more: bool,
    /// The highlighted row.
    pub selected: usize,
}

impl History {
    /// Starts over with `player`'s games (`None`: ours); returns the request for them.
    pub fn show(&mut self, player: Option<PlayerId>, name: Option<String>) -> ClientMessage {
        *self = History {
            player,
            name,
            ..History::default()
        };
        ClientMessage::History {
            player,
            before: None,
            limit: Some(PAGE),
        }
    }

    /// The request for the next page of older games, if there is one and none is on its way.
    pub fn more(&mut self) -> Option<ClientMessage> {
        if !self.more || self.loading_more {
            return None;
        }
        let last = self.games.as_ref()?.last()?.game;
        self.loading_more = true;
        Some(ClientMessage::History {
            player: self.player,
            before: Some(last),
            limit: Some(PAGE),
        })
    }

    /// Takes a page from the server, if it is for the player shown (`me` is this client's id).
    pub fn receive(
        &mut self,
        player: PlayerId,
        me: Option<PlayerId>,
        page: Vec<GameSummary>,
        more: bool,
    ) {
        if self.player.or(me) != Some(player) {
            return;
        }
        let games = self.games.get_or_insert_with(Vec::new);
        let newest_kept = games.last().map(|g| g.game);
        // A page is either the first or follows the last game listed.
        if self.loading_more {
            games.extend(
                page.into_iter()
                    .filter(|g| newest_kept.is_none_or(|k| g.game < k)),
            );
        } else {
            *games = page;
        }
        for game in games.iter_mut() {
            game.x.name = sanitize(&game.x.name);
            game.o.name = sanitize(&game.o.name);
        }
        self.more = more;
        self.loading_more = false;
        self.selected = self.selected.min(games.len().saturating_sub(1));
    }

    /// The highlighted game.
    pub fn selected_game(&self) -> Option<&GameSummary> {
        self.games.as_ref()?.get(self.selected)
    }

    /// Moves the highlight by `delta` rows; returns the request for older games when it reaches
    /// the end of the list and there are more.
    pub fn move_selection(&mut self, delta: isize) -> Option<ClientMessage> {
        let len = self.games.as_ref().map_or(0, Vec::len);
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
        if self.selected + 1 >= len {
            self.more()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_both_ways() {
        assert_eq!(Tab::Games.cycle(1), Tab::Leaderboard);
        assert_eq!(Tab::Games.cycle(-1), Tab::History);
        assert_eq!(Tab::History.cycle(1), Tab::Games);
    }
}
