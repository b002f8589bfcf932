//! The all-games tab: every live listed game, a page at a time by `list_games`, filtered by
//! variant; its keys and its drawing.

use noughts_protocol::{ClientMessage, GameId, GameInfo, ListGames, Variant, Watch};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use super::action::Action;
use super::listing::game_row;
use super::rows::{Lines, row};
use super::tab::Tab;
use super::theme::Theme;
use super::widgets::truncate;

/// How many games a page lists unless told otherwise.
pub const BROWSE_PAGE: u32 = 20;

/// The all-games tab.
#[derive(Debug, Clone)]
pub struct Browse {
    /// Only games of this variant; `None`: every variant.
    pub variant: Option<Variant>,
    /// The cursors (`after`) of the pages before the one shown, oldest first: what `p` goes back to.
    pub back: Vec<Option<GameId>>,
    /// The cursor of the page shown.
    pub after: Option<GameId>,
    /// The games of the page shown; `None` until the server has answered.
    pub games: Option<Vec<GameInfo>>,
    /// The cursor of the next page; `None` on the last page.
    pub next: Option<GameId>,
    /// The highlighted row.
    pub selected: usize,
    /// How many games a page asks for (1 to 100).
    pub limit: u32,
}

impl Default for Browse {
    fn default() -> Browse {
        Browse {
            variant: None,
            back: Vec::new(),
            after: None,
            games: None,
            next: None,
            selected: 0,
            limit: BROWSE_PAGE,
        }
    }
}

impl Browse {
    /// The request for the page shown.
    pub fn request(&self) -> ClientMessage {
        ClientMessage::ListGames(ListGames {
            variant: self.variant,
            after: self.after,
            limit: Some(self.limit),
        })
    }

    /// Takes the server's page.
    pub fn receive(&mut self, games: Vec<GameInfo>, next: Option<GameId>) {
        self.selected = self.selected.min(games.len().saturating_sub(1));
        self.games = Some(games);
        self.next = next;
    }

    /// The page number shown, from 1.
    pub fn page(&self) -> usize {
        self.back.len() + 1
    }

    /// Shows the page at cursor `after`; returns its request.
    fn show(&mut self, after: Option<GameId>) -> ClientMessage {
        self.after = after;
        self.games = None;
        self.next = None;
        self.selected = 0;
        self.request()
    }

    /// The next page, if there is one.
    pub fn next_page(&mut self) -> Option<ClientMessage> {
        let next = self.next?;
        self.back.push(self.after);
        Some(self.show(Some(next)))
    }

    /// The previous page, if this is not the first.
    pub fn previous_page(&mut self) -> Option<ClientMessage> {
        let after = self.back.pop()?;
        Some(self.show(after))
    }

    /// Filters by the next (`+1`) or previous (`-1`) variant (every variant counts as one);
    /// back to the first page.
    pub fn change_variant(&mut self, delta: isize) -> ClientMessage {
        let choices: Vec<Option<Variant>> = std::iter::once(None)
            .chain(Variant::ALL.into_iter().map(Some))
            .collect();
        let index = choices.iter().position(|&v| v == self.variant).unwrap_or(0) as isize;
        self.variant = choices[(index + delta).rem_euclid(choices.len() as isize) as usize];
        self.back.clear();
        self.show(None)
    }
}

/// What a key does on the all-games tab.
pub fn on_key(browse: &mut Browse, key: KeyEvent) -> Vec<Action> {
    let len = browse.games.as_ref().map_or(0, Vec::len);
    let send = |request: Option<ClientMessage>| request.map(Action::Send).into_iter().collect();
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => return vec![Action::ShowTab(Tab::Games)],
        KeyCode::Up | KeyCode::Char('k') => browse.selected = browse.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => {
            browse.selected = (browse.selected + 1).min(len.saturating_sub(1));
        }
        KeyCode::Home => browse.selected = 0,
        KeyCode::End => browse.selected = len.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char('n') => return send(browse.next_page()),
        KeyCode::PageUp | KeyCode::Char('p') => return send(browse.previous_page()),
        KeyCode::Left | KeyCode::Char('h') => return vec![Action::Send(browse.change_variant(-1))],
        KeyCode::Right | KeyCode::Char('l') => return vec![Action::Send(browse.change_variant(1))],
        KeyCode::Char('r') => return vec![Action::Send(browse.request())],
        KeyCode::Enter | KeyCode::Char('w') => {
            if let Some(game) = browse.games.as_ref().and_then(|g| g.get(browse.selected)) {
                return vec![Action::Send(ClientMessage::Watch(Watch {
                    game: game.game,
                    code: None,
                }))];
            }
        }
        _ => {}
    }
    Vec::new()
}

pub(super) fn lines(browse: &Browse, theme: Theme, width: usize) -> Lines<'static> {
    let mut filter = vec![Span::raw(" ")];
    let choices = std::iter::once(None).chain(Variant::ALL.into_iter().map(Some));
    for variant in choices {
        let style = if variant == browse.variant {
            theme.selected()
        } else {
            theme.dim()
        };
        let name = variant.map_or("all", Variant::name);
        filter.push(Span::styled(format!(" {name} "), style));
        filter.push(Span::raw(" "));
    }
    filter.push(Span::styled(" ←→", theme.key()));
    let mut lines = vec![Line::from(filter), Line::raw("")];
    let (mut selected, mut first_row, mut rows) = (None, 0, 0);
    match &browse.games {
        None => lines.push(Line::styled(" Asking the server…", theme.dim())),
        Some(games) if games.is_empty() && browse.page() == 1 => {
            lines.push(Line::styled(" No game is being played.", theme.dim()));
        }
        Some(games) => {
            let more = if browse.next.is_some() {
                ", more: n"
            } else {
                ""
            };
            let back = if browse.page() > 1 { ", back: p" } else { "" };
            let heading = format!(" Page {}{more}{back}", browse.page());
            lines.push(Line::styled(
                truncate(&format!("{heading:<40}moves seen"), width),
                theme.title(),
            ));
            first_row = lines.len();
            rows = games.len();
            for (index, game) in games.iter().enumerate() {
                if index == browse.selected {
                    selected = Some(lines.len());
                }
                let text = format!("  {}", game_row(game));
                lines.push(row(text, index == browse.selected, width, theme));
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
