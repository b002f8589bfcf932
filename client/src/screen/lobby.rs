//! The lobby screen: seeks, open rooms, our games, the featured and war games, the site's
//! totals, the all-games, leaderboard and history tabs, and what you can do; its keys, where its
//! rows are on screen, and its drawing.

use noughts_protocol::{GameInfo, RoomInfo, SeekInfo, Watch};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use noughts_protocol::{ClientMessage, PlayerId, Rating};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::action::Action;
use super::browse::{self, Browse};
use super::history::{self, History};
use super::leaderboard::{self, Leaderboard};
pub use super::listing::{Entry, Lobby};
use super::listing::{arena_row, game_row};
use super::modal::Modal;
use super::tab::Tab;
use super::theme::Theme;
use super::widgets::{body_of, fit, person, truncate};
use crate::form::{CLOCKS, Form, FormKind};

/// What the lobby screen shows: its lists and tabs, and who is looking.
#[derive(Debug, Clone, Copy)]
pub struct LobbyView<'a> {
    pub lobby: &'a Lobby,
    pub tab: Tab,
    pub player: Option<PlayerId>,
    pub ratings: &'a [Rating],
    pub leaderboard: &'a Leaderboard,
    pub history: &'a History,
    pub browse: &'a Browse,
}

/// What a key does in the lobby (no box up): the menu's letters, the tabs, and the list shown.
pub fn on_key(
    key: KeyEvent,
    tab: Tab,
    lobby: &mut Lobby,
    leaderboard: &mut Leaderboard,
    history: &mut History,
    browse: &mut Browse,
    me: Option<PlayerId>,
) -> Vec<Action> {
    let open = |modal| vec![Action::Open(modal)];
    match key.code {
        KeyCode::Tab => vec![Action::ShowTab(tab.cycle(1))],
        KeyCode::BackTab => vec![Action::ShowTab(tab.cycle(-1))],
        KeyCode::Char('b') => vec![Action::ShowTab(Tab::Browse)],
        KeyCode::Char('L') => vec![Action::ShowTab(Tab::Leaderboard)],
        KeyCode::Char('H') => vec![Action::ShowTab(Tab::History)],
        KeyCode::Char('m') => open(Modal::Form(Form::new(FormKind::QuickMatch))),
        KeyCode::Char('a') => open(Modal::Form(Form::new(FormKind::PlayAi))),
        KeyCode::Char('c') => open(Modal::Form(Form::new(FormKind::CreateRoom))),
        KeyCode::Char('i') => open(Modal::JoinCode(String::new())),
        KeyCode::Char('g') => vec![Action::WatchWarGame],
        _ => match tab {
            Tab::Games => on_games_key(lobby, key, me),
            Tab::Browse => browse::on_key(browse, key),
            Tab::Leaderboard => leaderboard::on_key(leaderboard, key, me),
            Tab::History => history::on_key(history, key),
        },
    }
}

/// Keys on the games list: move the selection, join a room or watch a game.
fn on_games_key(lobby: &mut Lobby, key: KeyEvent, me: Option<PlayerId>) -> Vec<Action> {
    let len = lobby.rows();
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => return vec![Action::Quit],
        KeyCode::Up | KeyCode::Char('k') => lobby.selected = lobby.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => {
            lobby.selected = (lobby.selected + 1).min(len.saturating_sub(1));
        }
        KeyCode::Home => lobby.selected = 0,
        KeyCode::End => lobby.selected = len.saturating_sub(1),
        KeyCode::Enter | KeyCode::Char('w') => match lobby.entries().get(lobby.selected) {
            Some(Entry::Seek(seek)) if key.code == KeyCode::Enter && Some(seek.player) != me => {
                return vec![Action::Send(ClientMessage::AcceptSeek { seek: seek.seek })];
            }
            Some(Entry::Room(room)) if key.code == KeyCode::Enter => {
                return vec![Action::Send(ClientMessage::JoinRoom {
                    code: room.code.clone(),
                })];
            }
            Some(Entry::Arena(arena)) if key.code == KeyCode::Enter => {
                return vec![Action::OpenArena(arena.arena)];
            }
            Some(Entry::Mine(game) | Entry::Featured(game) | Entry::War(game)) => {
                return vec![Action::Send(ClientMessage::Watch(Watch {
                    game: game.game,
                    code: None,
                }))];
            }
            _ => {}
        },
        _ => {}
    }
    Vec::new()
}

pub fn render(app: &LobbyView<'_>, theme: Theme, area: Rect, buf: &mut Buffer) {
    let (list, menu) = split(area);
    render_list(app, theme, list, buf);
    if menu.width > 0 {
        render_menu(app, theme, menu, buf);
    }
}

/// The list's area and the menu's (empty when the terminal is narrow).
fn split(area: Rect) -> (Rect, Rect) {
    let menu_width = if area.width >= 70 { 28 } else { 0 };
    let [list, menu] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(menu_width)]).areas(area);
    (list, menu)
}

/// The list's lines, each with the entry it shows (headings and blanks show none), and the line
/// of the selected entry.
fn list_lines<'a>(
    app: &LobbyView<'_>,
    theme: Theme,
    width: usize,
) -> (Vec<(Line<'a>, Option<usize>)>, Option<usize>) {
    let mut lines: Vec<(Line<'a>, Option<usize>)> = Vec::new();
    let mut selected_line = None;
    if !app.lobby.loaded {
        lines.push((Line::styled(" Waiting for the server…", theme.dim()), None));
    }
    let entries = app.lobby.entries();
    let now_ms = super::arena::wall_ms();
    let mut section = None;
    for (index, entry) in entries.iter().enumerate() {
        let (heading, text) = match entry {
            Entry::Seek(seek) => (SEEKS, seek_row(seek, app.player)),
            Entry::Room(room) => (ROOMS, room_row(room)),
            Entry::Mine(game) => ("Your games (▸ your move)", game_row(game)),
            Entry::Featured(game) => ("Featured games", game_row(game)),
            Entry::War(game) => ("War games", game_row(game)),
            Entry::Arena(arena) => (ARENAS, arena_row(arena, now_ms)),
        };
        if section != Some(heading) {
            more_line(app, section, theme, &mut lines);
            section = Some(heading);
            if !lines.is_empty() {
                lines.push((Line::raw(""), None));
            }
            let columns = if heading.starts_with("Open") || heading == ARENAS {
                ""
            } else {
                "moves seen"
            };
            lines.push((
                Line::styled(
                    truncate(&format!(" {heading:<39}{columns}"), width),
                    theme.title(),
                ),
                None,
            ));
        }
        let pointer = match entry {
            Entry::Mine(game) if my_turn(app, game) => "▸ ",
            _ => "  ",
        };
        let text = truncate(&format!("{pointer}{text}"), width);
        let style = if index == app.lobby.selected {
            selected_line = Some(lines.len());
            theme.selected()
        } else {
            theme.text()
        };
        lines.push((Line::styled(fit(&text, width), style), Some(index)));
    }
    more_line(app, section, theme, &mut lines);
    let people = app.lobby.seeks.len()
        + app.lobby.rooms.len()
        + app.lobby.mine.len()
        + entries
            .iter()
            .filter(|e| matches!(e, Entry::Featured(_)))
            .count();
    if app.lobby.loaded && people == 0 {
        if !lines.is_empty() {
            lines.push((Line::raw(""), None));
        }
        for text in [
            " Nobody else is playing yet.",
            " a  play the AI",
            " m  wait for an opponent (quick match)",
            " c  open a room and share its code",
            " ⏎  watch the selected war game",
        ] {
            lines.push((Line::styled(text, theme.dim()), None));
        }
    }
    (lines, selected_line)
}

/// The headings of the seeks and the rooms, which the lobby may hold only the newest of.
const SEEKS: &str = "Open seeks (⏎ to play)";
const ROOMS: &str = "Open rooms";
const ARENAS: &str = "Arenas (⏎ for the standings)";

/// "and 12 more" under the seeks or the rooms when the lobby holds only the newest of them.
fn more_line<'a>(
    app: &LobbyView<'_>,
    section: Option<&str>,
    theme: Theme,
    lines: &mut Vec<(Line<'a>, Option<usize>)>,
) {
    let more = match section {
        Some(SEEKS) => app.lobby.more_seeks(),
        Some(ROOMS) => app.lobby.more_rooms(),
        _ => 0,
    };
    if more > 0 {
        lines.push((
            Line::styled(format!("  and {more} more"), theme.dim()),
            None,
        ));
    }
}

/// How far the list scrolls so that the selected line stays in view.
fn scroll(selected_line: Option<usize>, height: u16) -> usize {
    selected_line.map_or(0, |line| (line + 2).saturating_sub(usize::from(height)))
}

/// The list's area inside its frame, when the lobby body is `body`.
fn list_inner(body: Rect) -> Rect {
    Block::bordered().inner(split(body).0)
}

/// The tab whose title is drawn at a screen position, when the whole terminal is `area`.
pub fn tab_at(area: Rect, x: u16, y: u16) -> Option<Tab> {
    let list = split(body_of(area)).0;
    if y != list.y {
        return None;
    }
    // The titles start after the frame's corner: " Lobby │ Leaderboard │ History ".
    let mut left = list.x + 1;
    for tab in Tab::ALL {
        let width = tab.title().chars().count() as u16 + 2;
        if (left..left + width).contains(&x) {
            return Some(tab);
        }
        left += width + 1;
    }
    None
}

/// The row of the leaderboard or history tab drawn at a screen position, when the whole terminal
/// is `area`.
pub fn tab_row_at(app: &LobbyView<'_>, area: Rect, x: u16, y: u16) -> Option<usize> {
    let inner = list_inner(body_of(area));
    if x < inner.x || x >= inner.x + inner.width {
        return None;
    }
    let theme = Theme {
        color: false,
        contrast: false,
    };
    let width = usize::from(inner.width);
    match app.tab {
        Tab::Games => None,
        Tab::Browse => browse::lines(app.browse, theme, width).row_at(inner, y),
        Tab::Leaderboard => {
            leaderboard::lines(app.leaderboard, app.player, theme, width).row_at(inner, y)
        }
        Tab::History => history::lines(app.history, app.player, theme, width).row_at(inner, y),
    }
}

/// The entry drawn at a screen position, when the whole terminal is `area`.
pub fn entry_at(app: &LobbyView<'_>, area: Rect, x: u16, y: u16) -> Option<usize> {
    let inner = list_inner(body_of(area));
    if x < inner.x || x >= inner.x + inner.width || y < inner.y || y >= inner.y + inner.height {
        return None;
    }
    let theme = Theme {
        color: false,
        contrast: false,
    };
    let (lines, selected_line) = list_lines(app, theme, usize::from(inner.width));
    let line = usize::from(y - inner.y) + scroll(selected_line, inner.height);
    lines.get(line).and_then(|(_, entry)| *entry)
}

/// The frame's title: every tab, the one shown highlighted.
fn tab_titles(app: &LobbyView<'_>, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (index, tab) in Tab::ALL.iter().enumerate() {
        if index > 0 {
            spans.push(Span::styled("│", theme.grid()));
        }
        let style = if *tab == app.tab {
            theme.title()
        } else {
            theme.dim()
        };
        spans.push(Span::styled(format!(" {} ", tab.title()), style));
    }
    Line::from(spans)
}

fn render_list(app: &LobbyView<'_>, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(tab_titles(app, theme))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    match app.tab {
        Tab::Games => {}
        Tab::Browse => {
            return browse::lines(app.browse, theme, usize::from(inner.width)).render(inner, buf);
        }
        Tab::Leaderboard => {
            return leaderboard::lines(
                app.leaderboard,
                app.player,
                theme,
                usize::from(inner.width),
            )
            .render(inner, buf);
        }
        Tab::History => {
            return history::lines(app.history, app.player, theme, usize::from(inner.width))
                .render(inner, buf);
        }
    }
    let (lines, selected_line) = list_lines(app, theme, usize::from(inner.width));
    let lines: Vec<Line<'_>> = lines.into_iter().map(|(line, _)| line).collect();
    Paragraph::new(lines)
        .scroll((scroll(selected_line, inner.height) as u16, 0))
        .render(inner, buf);
}

fn seek_row(seek: &SeekInfo, me: Option<PlayerId>) -> String {
    let rated = if seek.rated { "*" } else { " " };
    let clock = CLOCKS
        .iter()
        .find(|(_, spec)| *spec == seek.clock)
        .map_or_else(
            || custom_clock(seek.clock),
            |(label, _)| (*label).to_owned(),
        );
    let who = if Some(seek.player) == me {
        "(yours)".to_owned()
    } else {
        format!(
            "{} ({})",
            person(&seek.name, seek.guest, seek.bot, 12),
            seek.rating
        )
    };
    format!("{}{rated}{:<8} {clock}", fit(&who, 19), seek.variant.name())
}

fn room_row(room: &RoomInfo) -> String {
    let rated = if room.rated { "*" } else { " " };
    let clock = CLOCKS
        .iter()
        .find(|(_, spec)| *spec == room.clock)
        .map_or_else(
            || custom_clock(room.clock),
            |(label, _)| (*label).to_owned(),
        );
    format!(
        "{:<12}{rated}{:<8} {:<12} {}",
        room.code,
        room.variant.name(),
        clock,
        person(&room.host, room.guest, room.bot, 12)
    )
}

fn custom_clock(clock: Option<noughts_protocol::ClockSpec>) -> String {
    clock.map_or_else(
        || "no clock".to_owned(),
        |c| format!("{}+{}s", c.initial_ms / 1000, c.increment_ms / 1000),
    )
}

/// Whether it is this client's move in the game (X moves when the count of moves is even).
fn my_turn(app: &LobbyView<'_>, game: &GameInfo) -> bool {
    let seat = if game.moves.is_multiple_of(2) {
        &game.x
    } else {
        &game.o
    };
    app.player.is_some() && seat.player == app.player
}

fn render_menu(app: &LobbyView<'_>, theme: Theme, area: Rect, buf: &mut Buffer) {
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
        item("b", "browse all games"),
        item("⏎", "join or watch selected"),
        Line::raw(""),
        item("?", "help"),
        item("q", "quit"),
        Line::raw(""),
    ];
    let totals = app.lobby.totals;
    lines.push(Line::styled(
        format!(" {} online, {} playing", totals.online, totals.games),
        theme.dim(),
    ));
    if let Some(player) = app.player {
        lines.push(Line::styled(
            format!(" you are player {player}"),
            theme.dim(),
        ));
    }
    if !app.ratings.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(" Your ratings", theme.title()));
        for rating in app.ratings {
            // As on lichess: a rating still this uncertain is provisional.
            let provisional = if rating.deviation > 110 { "?" } else { " " };
            lines.push(Line::from(vec![
                Span::styled(format!(" {:<8}", rating.variant.name()), theme.text()),
                Span::styled(format!("{:>5}{provisional}", rating.rating), theme.key()),
                Span::styled(format!("{:>4} rated", rating.games), theme.dim()),
            ]));
        }
    }
    if app.lobby.games.iter().any(|g| g.rated) || app.lobby.rooms.iter().any(|r| r.rated) {
        lines.push(Line::styled(" * rated game", theme.dim()));
    }
    Paragraph::new(lines).render(inner, buf);
}
