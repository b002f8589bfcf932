//! The leaderboard tab: the best-rated players of a variant, a page at a time, kept current by
//! the server's replies, or (`e`) the engines' league's table of the variant; its keys and its
//! drawing.

use noughts_protocol::{ClientMessage, LeaderboardEntry, PlayerId, Variant};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use super::action::Action;
use super::league::{self, League};
use super::rows::{Lines, PAGE, row};
use super::tab::Tab;
use super::theme::Theme;
use super::widgets::{fit, truncate};

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
    /// The engines' league, shown instead of the players when asked.
    pub league: League,
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
        ClientMessage::Leaderboard(noughts_protocol::Leaderboard {
            variant: self.variant(),
            offset: None,
            limit: Some(PAGE),
        })
    }

    /// Takes the server's list, if it is for the variant shown: the first page replaces the
    /// list, a later one goes on its end.
    pub fn receive(&mut self, variant: Variant, offset: u32, mut players: Vec<LeaderboardEntry>) {
        if variant != self.variant() {
            return;
        }
        for _entry in &mut players {}
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
        Some(ClientMessage::Leaderboard(noughts_protocol::Leaderboard {
            variant: self.variant(),
            offset: Some(u32::try_from(len).unwrap_or(u32::MAX)),
            limit: Some(PAGE),
        }))
    }
}

/// What a key does on the leaderboard tab.
pub fn on_key(board: &mut Leaderboard, key: KeyEvent, me: Option<PlayerId>) -> Vec<Action> {
    let step = match key.code {
        KeyCode::Up | KeyCode::Char('k') => Some(-1),
        KeyCode::Down | KeyCode::Char('j') => Some(1),
        KeyCode::PageUp => Some(-10),
        KeyCode::PageDown => Some(10),
        KeyCode::Home => Some(isize::MIN / 2),
        KeyCode::End => Some(isize::MAX / 2),
        _ => None,
    };
    if let Some(delta) = step {
        return board
            .move_selection(delta)
            .map(Action::Send)
            .into_iter()
            .collect();
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => vec![Action::ShowTab(Tab::Games)],
        KeyCode::Left | KeyCode::Char('h') => variant_changed(board, -1),
        KeyCode::Right | KeyCode::Char('l') => variant_changed(board, 1),
        KeyCode::Char('e') => {
            let variant = board.variant();
            board
                .league
                .toggle(variant)
                .map(Action::Send)
                .into_iter()
                .collect()
        }
        KeyCode::Enter => match board.selected_player() {
            Some(entry) => {
                let player = (Some(entry.player) != me).then_some(entry.player);
                let name = player.map(|_| entry.name.clone());
                vec![Action::ShowHistory { player, name }]
            }
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Shows the next (`+1`) or previous (`-1`) variant: its players asked for, and its league
/// followed if the league is shown.
fn variant_changed(board: &mut Leaderboard, delta: isize) -> Vec<Action> {
    let mut actions = vec![Action::Send(board.change_variant(delta))];
    let variant = board.variant();
    // Following another variant's league stops following the first.
    actions.extend(board.league.follow(variant).map(Action::Send));
    actions
}

pub(super) fn lines(
    board: &Leaderboard,
    me: Option<PlayerId>,
    theme: Theme,
    width: usize,
) -> Lines<'static> {
    let mut variants = vec![Span::raw(" ")];
    for variant in Variant::ALL {
        let style = if variant == board.variant() {
            theme.selected()
        } else {
            theme.dim()
        };
        variants.push(Span::styled(format!(" {} ", variant.name()), style));
        variants.push(Span::raw(" "));
    }
    variants.push(Span::styled(" ←→", theme.key()));
    variants.push(Span::styled("  e", theme.key()));
    let other = if board.league.shown {
        " players"
    } else {
        " engines"
    };
    variants.push(Span::styled(other, theme.dim()));
    let mut lines = vec![Line::from(variants), Line::raw("")];
    if board.league.shown {
        return league::lines(&board.league, board.variant(), theme, width, lines);
    }
    let mut selected = None;
    let mut first_row = 0;
    let mut rows = 0;
    match &board.players {
        None => lines.push(Line::styled(" Asking the server…", theme.dim())),
        Some(players) if players.is_empty() => {
            lines.push(Line::styled(
                format!(" Nobody has played a rated {} game yet.", board.variant()),
                theme.dim(),
            ));
            lines.push(Line::styled(
                " Rated games are between people: choose rated",
                theme.dim(),
            ));
            lines.push(Line::styled(
                " when you seek (m) or open a room (c).",
                theme.dim(),
            ));
        }
        Some(players) => {
            lines.push(Line::styled(
                truncate(
                    &format!(
                        " {:>4} {:<16}{:>6} {:<4}{:>5}{:>4}{:>4}{:>4}",
                        "#", "player", "rating", "", "games", "W", "D", "L"
                    ),
                    width,
                ),
                theme.title(),
            ));
            first_row = lines.len();
            rows = players.len();
            for (index, entry) in players.iter().enumerate() {
                let you = Some(entry.player) == me;
                let text = format!(
                    "{}{:>4} {} {:>6} ±{:<3}{:>5}{:>4}{:>4}{:>4}",
                    if you { "▸" } else { " " },
                    entry.rank,
                    fit(&crate::names::shown(&entry.name, false, entry.bot), 15),
                    entry.rating,
                    entry.deviation,
                    entry.games,
                    entry.wins,
                    entry.draws,
                    entry.losses
                );
                if index == board.selected {
                    selected = Some(lines.len());
                }
                lines.push(row(text, index == board.selected, width, theme));
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
