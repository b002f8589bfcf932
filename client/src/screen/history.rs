//! The history tab: a player's finished games, newest first, a page at a time; its keys and its
//! drawing.

use noughts_protocol::{ClientMessage, GameKind, GameSummary, PlayerId, Profile};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use super::action::Action;
use super::rows::{Lines, PAGE, row};
use super::tab::Tab;
use super::theme::Theme;
use super::widgets::{fit, truncate};
use crate::history::{date_time, outcome_word, seat_name, side_of};

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
    /// The player's profile (name, ratings, results), once the server has answered.
    pub profile: Option<Profile>,
}

impl History {
    /// Starts over with `player`'s profile and games (`None`: ours); returns the requests for
    /// them.
    pub fn show(&mut self, player: Option<PlayerId>, name: Option<String>) -> [ClientMessage; 2] {
        *self = History {
            player,
            name,
            ..History::default()
        };
        [
            ClientMessage::Profile {
                player,
                username: None,
            },
            ClientMessage::History(noughts_protocol::History {
                player,
                before: None,
                limit: Some(PAGE),
            }),
        ]
    }

    /// Takes a profile from the server, if it is of the player shown (`me` is this client's id).
    pub fn receive_profile(&mut self, profile: &Profile, me: Option<PlayerId>) {
        if self.player.or(me) == Some(profile.player) {
            self.profile = Some(profile.clone());
        }
    }

    /// The request for the next page of older games, if there is one and none is on its way.
    pub fn more(&mut self) -> Option<ClientMessage> {
        if !self.more || self.loading_more {
            return None;
        }
        let last = self.games.as_ref()?.last()?.game;
        self.loading_more = true;
        Some(ClientMessage::History(noughts_protocol::History {
            player: self.player,
            before: Some(last),
            limit: Some(PAGE),
        }))
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
        for _game in games.iter_mut() {}
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

/// What a key does on the history tab.
pub fn on_key(history: &mut History, key: KeyEvent) -> Vec<Action> {
    let more = match key.code {
        KeyCode::Char('q') | KeyCode::Esc if history.player.is_some() => {
            // Back from someone else's games to ours.
            return history.show(None, None).map(Action::Send).into();
        }
        KeyCode::Char('q') | KeyCode::Esc => return vec![Action::ShowTab(Tab::Games)],
        KeyCode::Up | KeyCode::Char('k') => history.move_selection(-1),
        KeyCode::Down | KeyCode::Char('j') => history.move_selection(1),
        KeyCode::PageUp => history.move_selection(-10),
        KeyCode::PageDown => history.move_selection(10),
        KeyCode::Home => history.move_selection(isize::MIN / 2),
        KeyCode::End => history.move_selection(isize::MAX / 2),
        KeyCode::Enter | KeyCode::Char('r') => {
            return history
                .selected_game()
                .map(|g| Action::OpenReplay(g.game))
                .into_iter()
                .collect();
        }
        _ => None,
    };
    more.map(Action::Send).into_iter().collect()
}

pub(super) fn lines(
    history: &History,
    me: Option<PlayerId>,
    theme: Theme,
    width: usize,
) -> Lines<'static> {
    let whose = match (&history.player, &history.name) {
        (Some(_), Some(name)) => format!(" Games of {}", truncate(name, 28)),
        (Some(player), None) => format!(" Games of player {player}"),
        (None, _) => " Your games".to_owned(),
    };
    let mut lines = match &history.profile {
        Some(profile) => {
            let games = history.games.as_deref().unwrap_or_default();
            let variant = history.selected_game().map(|game| game.variant);
            super::profile::lines(profile, games, variant, theme, width)
        }
        None => vec![Line::styled(truncate(&whose, width), theme.title())],
    };
    let mut selected = None;
    let mut first_row = 0;
    let mut rows = 0;
    match &history.games {
        None => lines.push(Line::styled(" Asking the server…", theme.dim())),
        Some(games) if games.is_empty() => {
            lines.push(Line::raw(""));
            lines.push(Line::styled(" No finished games yet.", theme.dim()));
        }
        Some(games) => {
            let me = history.player.or(me);
            lines.push(Line::styled(
                truncate(
                    &format!(
                        " {:<6}{:<8}{:<5}{:<14}{:>4} {}",
                        "game", "variant", "", "opponent", "±", "ended (UTC)"
                    ),
                    width,
                ),
                theme.dim(),
            ));
            first_row = lines.len();
            rows = games.len();
            for (index, game) in games.iter().enumerate() {
                let side = me.and_then(|me| side_of(game, me));
                let opponent = match side {
                    Some(noughts_protocol::Mark::X) => seat_name(&game.o),
                    Some(noughts_protocol::Mark::O) => seat_name(&game.x),
                    None => format!("{} vs {}", seat_name(&game.x), seat_name(&game.o)),
                };
                let seat = match side {
                    Some(noughts_protocol::Mark::X) => Some(&game.x),
                    Some(noughts_protocol::Mark::O) => Some(&game.o),
                    None => None,
                };
                let change = match (seat.and_then(|s| s.rating_change), game.kind) {
                    (Some(change), _) => format!("{change:+}"),
                    (None, GameKind::Human) if game.rated => "·".to_owned(),
                    _ => String::new(),
                };
                let date = date_time(game.ended_ms);
                let text = format!(
                    " #{:<5}{:<8}{:<5}{} {:>4} {}",
                    game.game.0,
                    game.variant.name(),
                    outcome_word(game, side),
                    fit(&opponent, 13),
                    change,
                    &date[5..]
                );
                if index == history.selected {
                    selected = Some(lines.len());
                }
                lines.push(row(text, index == history.selected, width, theme));
            }
            if history.loading_more {
                lines.push(Line::styled(" Loading older games…", theme.dim()));
            } else if history.more {
                lines.push(Line::styled(" ↓ older games", theme.dim()));
            }
        }
    }
    Lines {
        lines,
        selected,
        first_row,
        rows,
    }
}
