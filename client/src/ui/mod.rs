//! Drawing: `impl Widget for &App` turns the state into a screen. Nothing here changes the state,
//! so any state can be rendered into a test buffer.

pub mod board;
pub mod game;
mod help;
pub mod lobby;
mod modal;
mod replay;
mod tabs;
pub mod theme;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use crate::app::{App, Connection, Screen};
use crate::tabs::Tab;
use theme::Theme;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme { color: self.color };
        Clear.render(area, buf);
        let [title, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        title_bar(self, theme, title, buf);
        match (self.screen, &self.game, &self.replay) {
            (Screen::Game, Some(game), _) => game::render(self, game, theme, body, buf),
            (Screen::Replay, _, Some(view)) => replay::render(view, theme, body, buf),
            _ => lobby::render(self, theme, body, buf),
        }
        footer_bar(self, theme, footer, buf);
        if let Some(modal) = &self.modal {
            modal::render(self, modal, theme, area, buf);
        }
        if self.help {
            help::render(self, theme, area, buf);
        }
    }
}

fn title_bar(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let mut left = vec![Span::styled(" noughts", theme.title())];
    if let (Screen::Game, Some(game)) = (app.screen, &app.game) {
        left.push(Span::styled(
            format!("  game #{} · {}", game.id(), game.state.variant),
            theme.text(),
        ));
        if game.you().is_none() {
            left.push(Span::styled("  watching", theme.dim()));
        }
    }
    if let (Screen::Replay, Some(view)) = (app.screen, &app.replay) {
        let what = match view.id().0 {
            0 => format!("  replay · {}", view.record.variant),
            id => format!("  replay of game #{id} · {}", view.record.variant),
        };
        left.push(Span::styled(what, theme.text()));
    }
    let left = Line::from(left);
    let left_width = left.width() as u16;
    left.render(area, buf);
    if app.replay_only {
        return;
    }
    let (dot, text, style) = match &app.connection {
        Connection::Connecting => ("○", "connecting…".to_owned(), theme.dim()),
        Connection::Online => ("●", "online".to_owned(), theme.good()),
        Connection::Retrying { retry_at, .. } => {
            let secs = retry_at.saturating_duration_since(app.now).as_secs();
            ("○", format!("reconnecting in {secs}s"), theme.bad())
        }
        Connection::Closed(_) => ("✕", "offline".to_owned(), theme.bad()),
    };
    let mut right = Line::from(vec![
        Span::styled(format!("{} ", app.name), theme.text()),
        Span::styled(format!("{dot} {text} "), style),
    ]);
    if left_width + right.width() as u16 >= area.width {
        right = Line::from(Span::styled(format!("{dot} "), style));
    }
    let width = right.width() as u16;
    if width < area.width {
        right.render(
            Rect::new(area.x + area.width - width, area.y, width, 1),
            buf,
        );
    }
}

fn footer_bar(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    if let Some((text, _)) = &app.status {
        Line::from(Span::styled(format!(" {text}"), theme.key())).render(area, buf);
        return;
    }
    if let Connection::Retrying { reason, .. } | Connection::Closed(reason) = &app.connection
        && !app.replay_only
    {
        Line::from(Span::styled(format!(" {reason}"), theme.bad())).render(area, buf);
        return;
    }
    let hints = hints(app);
    let mut spans = vec![Span::raw(" ")];
    for (key, what) in hints {
        spans.push(Span::styled(key, theme.key()));
        spans.push(Span::styled(format!(" {what}  "), theme.dim()));
    }
    Line::from(spans).render(area, buf);
}

/// The key hints for the footer, by context.
fn hints(app: &App) -> Vec<(&'static str, &'static str)> {
    if app.screen == Screen::Replay && app.replay.is_some() {
        let back = if app.replay_only { "quit" } else { "back" };
        return vec![
            ("←→", "step"),
            ("↑↓", "5 moves"),
            ("Home End", "start/end"),
            ("?", "help"),
            ("q", back),
        ];
    }
    match (app.screen, &app.game) {
        (Screen::Game, Some(game)) => {
            let mut hints = Vec::new();
            if game.you().is_none() {
                hints.push(("g", "next war game"));
            } else if game.is_over() {
                hints.push(("r", "rematch"));
                hints.push(("v", "replay"));
            } else {
                hints.push(("←↑↓→", "move"));
                hints.push(("⏎", "place"));
                if game.state.variant.dims() == 3 {
                    hints.push(("[ ]", "layer"));
                }
                hints.push(("r", "resign"));
            }
            hints.extend([("c", "chat"), ("?", "help"), ("q", "lobby")]);
            hints
        }
        _ => match app.tab {
            Tab::Games => vec![
                ("⇥", "tabs"),
                ("⏎", "join/watch"),
                ("m", "match"),
                ("a", "AI"),
                ("c", "room"),
                ("i", "code"),
                ("g", "war"),
                ("?", "help"),
                ("q", "quit"),
            ],
            Tab::Leaderboard => vec![
                ("⇥", "tabs"),
                ("←→", "variant"),
                ("↑↓", "select"),
                ("⏎", "their games"),
                ("?", "help"),
                ("q", "lobby"),
            ],
            Tab::History => vec![
                ("⇥", "tabs"),
                ("↑↓", "select"),
                ("⏎", "replay"),
                ("?", "help"),
                ("q", "back"),
            ],
        },
    }
}

/// A rectangle of at most `width`×`height` centred in `area`.
/// The body of the screen when the whole terminal is `area`: all but the title bar and the
/// footer, as [`App`]'s `render` lays them out.
pub(crate) fn body_of(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    )
}

pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// Cuts `text` to at most `max` characters, marking the cut with an ellipsis.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}
