//! Drawing the whole app: `impl Widget for &App` puts the title bar, the screen that is up, the
//! footer and any box or help over it. Nothing here changes the state, so any state can be drawn
//! into a test buffer.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use crate::app::{App, Connection, Screen};
use crate::screen::game::Around;
use crate::screen::help::Page;
use crate::screen::lobby::Entry;
use crate::screen::tab::Tab;
use crate::screen::theme::Theme;
use crate::screen::widgets::person;
use crate::screen::{arena, game, help, lobby, modal, replay};

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme {
            color: self.color,
            contrast: self.color && self.contrast,
        };
        Clear.render(area, buf);
        let [title, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        title_bar(self, theme, title, buf);
        match (self.screen, &self.game, &self.replay, &self.arena) {
            (Screen::Game, Some(game), _, _) => {
                let around = Around {
                    now: self.now,
                    modal: &self.modal,
                };
                game::render(&around, game, theme, body, buf)
            }
            (Screen::Replay, _, Some(view), _) => replay::render(view, theme, body, buf),
            (Screen::Arena, _, _, Some(view)) => {
                arena::render(view, arena::wall_ms(), theme, body, buf);
            }
            _ => lobby::render(&self.lobby_view(), theme, body, buf),
        }
        footer_bar(self, theme, footer, buf);
        if let Some(modal) = &self.modal {
            modal::render(modal, theme, area, buf);
        }
        if self.help {
            let page = match self.screen {
                Screen::Lobby => Page::Lobby,
                Screen::Game => Page::Game,
                Screen::Replay => Page::Replay,
                Screen::Arena => Page::Arena,
            };
            help::render(page, theme, area, buf);
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
    if let (Screen::Arena, Some(view)) = (app.screen, &app.arena) {
        left.push(Span::styled(format!("  arena #{}", view.id), theme.text()));
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
        Span::styled(
            format!("{} ", person(&app.name, !app.account, false, 40)),
            theme.text(),
        ),
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
    let mut room = usize::from(area.width).saturating_sub(1);
    for (key, what) in hints {
        // A hint shows whole or not at all.
        let width = key.chars().count() + what.chars().count() + 3;
        if width > room {
            break;
        }
        room -= width;
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
            ("P", "people"),
        ];
    }
    if let (Screen::Arena, Some(view)) = (app.screen, &app.arena) {
        return arena::hints(view);
    }
    match (app.screen, &app.game) {
        (Screen::Game, Some(game)) => {
            let mut hints = Vec::new();
            if game.you().is_none() {
                if game.state.kind == noughts_protocol::GameKind::War {
                    hints.push(("g", "next war game"));
                } else {
                    hints.push(("t", "chats"));
                }
            } else if game.is_over() {
                if !app.in_arena_game() {
                    hints.push(("r", "rematch"));
                }
                hints.push(("v", "replay"));
            } else {
                hints.push(("←↑↓→", "move"));
                hints.push(("⏎", "place"));
                if game.state.variant.dims() == 3 {
                    hints.push(("[ ]", "layer"));
                }
                hints.push(("r", "resign"));
            }
            let back = if app.arena.is_some() {
                "arena"
            } else {
                "lobby"
            };
            hints.extend([("c", "chat"), ("?", "help"), ("q", back), ("P", "people")]);
            hints
        }
        _ => match app.tab {
            Tab::Games => {
                let mut hints = vec![
                    ("⇥", "tabs"),
                    ("⏎", "join/watch"),
                    ("m", "match"),
                    ("a", "AI"),
                    ("c", "room"),
                    ("i", "code"),
                    ("g", "war"),
                    ("?", "help"),
                    ("q", "quit"),
                ];
                // Last, as it is not always there: the selection names someone else.
                let other = |player: Option<_>| player.is_some() && player != app.player;
                let people = match app.lobby.entries().get(app.lobby.selected) {
                    Some(Entry::Seek(seek)) => other(Some(seek.player)),
                    Some(Entry::Mine(g) | Entry::Featured(g) | Entry::War(g)) => {
                        other(g.x.player) || other(g.o.player)
                    }
                    _ => false,
                };
                if people {
                    hints.push(("P", "people"));
                }
                hints
            }
            Tab::Browse => vec![
                ("⇥", "tabs"),
                ("←→", "variant"),
                ("n p", "page"),
                ("⏎", "watch"),
                ("?", "help"),
                ("q", "lobby"),
                ("P", "people"),
            ],
            Tab::Leaderboard => vec![
                ("⇥", "tabs"),
                ("←→", "variant"),
                ("↑↓", "select"),
                ("⏎", "their games"),
                ("?", "help"),
                ("q", "lobby"),
                ("P", "people"),
            ],
            Tab::History => vec![
                ("⇥", "tabs"),
                ("↑↓", "select"),
                ("⏎", "replay"),
                ("?", "help"),
                ("q", "back"),
                ("P", "people"),
            ],
        },
    }
}
