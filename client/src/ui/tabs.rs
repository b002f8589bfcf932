//! The lobby's leaderboard and history tabs, drawn inside the lobby's frame.

use noughts_protocol::{GameKind, Variant};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::truncate;
use crate::app::App;
use crate::history::{date_time, outcome_word, seat_name, side_of};
use crate::tabs::Tab;

/// A tab's lines, where its selected row is, and the line of its first row.
struct Lines<'a> {
    lines: Vec<Line<'a>>,
    selected: Option<usize>,
    first_row: usize,
    rows: usize,
}

impl Lines<'_> {
    /// How far the lines scroll in `height` rows so that the selected one stays in view.
    fn scroll(&self, height: u16) -> usize {
        self.selected
            .map_or(0, |line| (line + 2).saturating_sub(usize::from(height)))
    }

    fn render(self, area: Rect, buf: &mut Buffer) {
        let scroll = self.scroll(area.height);
        Paragraph::new(self.lines)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(area, buf);
    }

    /// The row drawn on line `y` of `area`.
    fn row_at(&self, area: Rect, y: u16) -> Option<usize> {
        if y >= area.y + area.height {
            return None;
        }
        let line = usize::from(y.checked_sub(area.y)?) + self.scroll(area.height);
        let row = line.checked_sub(self.first_row)?;
        (row < self.rows).then_some(row)
    }
}

/// The row of the tab shown at screen line `y`, when the tab's list fills `area`.
pub fn row_at(app: &App, area: Rect, y: u16) -> Option<usize> {
    let theme = Theme { color: false };
    let width = usize::from(area.width);
    match app.tab {
        Tab::Games => None,
        Tab::Leaderboard => leaderboard_lines(app, theme, width).row_at(area, y),
        Tab::History => history_lines(app, theme, width).row_at(area, y),
    }
}

/// A row, padded to the width, highlighted when selected.
fn row<'a>(text: String, selected: bool, width: usize, theme: Theme) -> Line<'a> {
    let text = truncate(&text, width);
    let style = if selected {
        theme.selected()
    } else {
        theme.text()
    };
    Line::styled(format!("{text:<width$}"), style)
}

pub fn render_leaderboard(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    leaderboard_lines(app, theme, usize::from(area.width)).render(area, buf);
}

pub fn render_history(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    history_lines(app, theme, usize::from(area.width)).render(area, buf);
}

fn leaderboard_lines(app: &App, theme: Theme, width: usize) -> Lines<'static> {
    let board = &app.leaderboard;
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
    let mut lines = vec![Line::from(variants), Line::raw("")];
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
                let you = Some(entry.player) == app.player;
                let text = format!(
                    "{}{:>4} {:<16}{:>6} ±{:<3}{:>5}{:>4}{:>4}{:>4}",
                    if you { "▸" } else { " " },
                    entry.rank,
                    truncate(&entry.name, 15),
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

fn history_lines(app: &App, theme: Theme, width: usize) -> Lines<'static> {
    let history = &app.history;
    let whose = match (&history.player, &history.name) {
        (Some(player), Some(name)) => format!(" Games of {} (player {player})", truncate(name, 20)),
        (Some(player), None) => format!(" Games of player {player}"),
        (None, _) => " Your games".to_owned(),
    };
    let mut lines = vec![Line::styled(truncate(&whose, width), theme.title())];
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
            let me = history.player.or(app.player);
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
                    " #{:<5}{:<8}{:<5}{:<14}{:>4} {}",
                    game.game.0,
                    game.variant.name(),
                    outcome_word(game, side),
                    truncate(&opponent, 13),
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
