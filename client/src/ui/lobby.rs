//! The lobby screen: open rooms, live games and war games, and what you can do.

use noughts_protocol::{GameInfo, GameKind, RoomInfo, SeatInfo};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::theme::Theme;
use super::truncate;
use crate::app::{App, Entry};
use crate::form::CLOCKS;

pub fn render(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let menu_width = if area.width >= 70 { 28 } else { 0 };
    let [list, menu] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(menu_width)]).areas(area);
    render_list(app, theme, list, buf);
    if menu_width > 0 {
        render_menu(app, theme, menu, buf);
    }
}

fn render_list(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Lobby ", theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let width = inner.width as usize;
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut selected_line = None;
    if !app.lobby.loaded {
        lines.push(Line::styled(" Waiting for the server…", theme.dim()));
    }
    let entries = app.lobby.entries();
    let mut section = None;
    for (index, entry) in entries.iter().enumerate() {
        let (heading, text) = match entry {
            Entry::Room(room) => ("Open rooms", room_row(room)),
            Entry::Game(game) if game.kind == GameKind::War => ("War games", game_row(game)),
            Entry::Game(game) => ("Live games", game_row(game)),
        };
        if section != Some(heading) {
            section = Some(heading);
            if !lines.is_empty() {
                lines.push(Line::raw(""));
            }
            let columns = if heading == "Open rooms" {
                String::new()
            } else {
                "moves watching".to_owned()
            };
            lines.push(Line::styled(
                truncate(&format!(" {heading:<35}{columns}"), width),
                theme.title(),
            ));
        }
        let text = truncate(&format!("  {text}"), width);
        let style = if index == app.lobby.selected {
            selected_line = Some(lines.len());
            theme.selected()
        } else {
            theme.text()
        };
        lines.push(Line::styled(format!("{text:<width$}"), style));
    }
    let people = app.lobby.rooms.len()
        + app
            .lobby
            .games
            .iter()
            .filter(|g| g.kind != GameKind::War)
            .count();
    if app.lobby.loaded && people == 0 {
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        for text in [
            " Nobody else is playing yet.",
            " a  play the AI",
            " m  wait for an opponent (quick match)",
            " c  open a room and share its code",
            " ⏎  watch the selected war game",
        ] {
            lines.push(Line::styled(text, theme.dim()));
        }
    }
    // Keep the selection in view.
    let height = inner.height as usize;
    let scroll = selected_line.map_or(0, |line| (line + 2).saturating_sub(height));
    Paragraph::new(lines)
        .scroll((scroll as u16, 0))
        .render(inner, buf);
}

fn room_row(room: &RoomInfo) -> String {
    let clock = CLOCKS
        .iter()
        .find(|(_, spec)| *spec == room.clock)
        .map_or_else(
            || custom_clock(room.clock),
            |(label, _)| (*label).to_owned(),
        );
    format!(
        "{:<12} {:<8} {:<12} {}",
        room.code,
        room.variant.name(),
        clock,
        truncate(&room.host, 12)
    )
}

fn custom_clock(clock: Option<noughts_protocol::ClockSpec>) -> String {
    clock.map_or_else(
        || "no clock".to_owned(),
        |c| format!("{}+{}s", c.initial_ms / 1000, c.increment_ms / 1000),
    )
}

fn game_row(game: &GameInfo) -> String {
    let war = game.kind == GameKind::War;
    let players = format!("{} vs {}", seat_name(&game.x, war), seat_name(&game.o, war));
    format!(
        "#{:<4} {:<8}{:<20}{:>5}{:>9}",
        game.game.0,
        game.variant.name(),
        truncate(&players, 19),
        game.moves,
        game.watchers
    )
}

/// A seat as the lobby shows it: AI seats by their level ("perfect" in a war game, "hard AI"
/// against a person).
fn seat_name(seat: &SeatInfo, war: bool) -> String {
    let name = match seat.level {
        Some(level) if war => level.name().to_owned(),
        Some(level) => format!("{level} AI"),
        None => truncate(&seat.name, 9),
    };
    if seat.connected {
        name
    } else {
        format!("{name}?")
    }
}

fn render_menu(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Play ", theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let item = |key: &'static str, what: &'static str| {
        Line::from(vec![
            Span::styled(format!(" {key:<3}"), theme.key()),
            Span::styled(what, theme.text()),
        ])
    };
    let mut lines = vec![
        item("m", "quick match"),
        item("a", "play the AI"),
        item("c", "create a room"),
        item("i", "join by invite code"),
        item("g", "watch the war games"),
        item("⏎", "join or watch selected"),
        Line::raw(""),
        item("?", "help"),
        item("q", "quit"),
        Line::raw(""),
    ];
    let live = app.lobby.games.len();
    let rooms = app.lobby.rooms.len();
    lines.push(Line::styled(
        format!(" {live} live, {rooms} open"),
        theme.dim(),
    ));
    if let Some(player) = app.player {
        lines.push(Line::styled(
            format!(" you are player {player}"),
            theme.dim(),
        ));
    }
    Paragraph::new(lines).render(inner, buf);
}
