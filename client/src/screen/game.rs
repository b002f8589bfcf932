//! The game screen: the board in the middle, the players, clocks and chat beside it; its keys.

use noughts_protocol::{EndReason, GameKind, Mark, Variant};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::board::{self, Geometry, Marks};
use std::time::Instant;

use noughts_protocol::ClientMessage;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::action::Action;
use super::modal::Modal;
use super::theme::Theme;
use super::widgets::{GUEST_MARK, body_of, cols, person, split, truncate};
use crate::game::{GameView, format_clock};
use crate::notation::cell_name;

/// What the game screen is drawn among: the time, and the box over it (a chat line being typed
/// shows in the chat panel).
#[derive(Debug, Clone, Copy)]
pub struct Around<'a> {
    pub now: Instant,
    pub modal: &'a Option<Modal>,
}

/// Why a move on `cell` would be refused, as far as the client can tell by itself.
pub fn refusal(game: &GameView, cell: usize) -> Option<&'static str> {
    if game.you().is_none() {
        Some("You are watching this game.")
    } else if game.is_over() {
        Some("The game is over: r for a rematch, q for the lobby.")
    } else if !game.my_turn() {
        Some("Not your move yet.")
    } else if game.board.get(cell).is_some() {
        Some("That cell is taken.")
    } else {
        None
    }
}

/// What a key does on the game screen (no box up).
pub fn on_key(game: &mut GameView, key: KeyEvent, now: Instant) -> Vec<Action> {
    if let KeyCode::Char(c) = key.code
        && let Some(action) = super::offers::on_key(game, c, now)
    {
        return vec![action];
    }
    let dims = game.state.variant.dims();
    let (row, col) = (dims - 2, dims - 1);
    let action = match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Action::LeaveGame,
        KeyCode::Up | KeyCode::Char('k') => {
            game.move_cursor(row, -1);
            return Vec::new();
        }
        KeyCode::Down | KeyCode::Char('j') => {
            game.move_cursor(row, 1);
            return Vec::new();
        }
        KeyCode::Left | KeyCode::Char('h') => {
            game.move_cursor(col, -1);
            return Vec::new();
        }
        KeyCode::Right | KeyCode::Char('l') => {
            game.move_cursor(col, 1);
            return Vec::new();
        }
        KeyCode::Char('[') | KeyCode::PageUp | KeyCode::BackTab => {
            game.change_layer(-1);
            return Vec::new();
        }
        KeyCode::Char(']') | KeyCode::PageDown | KeyCode::Tab => {
            game.change_layer(1);
            return Vec::new();
        }
        KeyCode::Enter | KeyCode::Char(' ') => Action::Place(game.cursor),
        KeyCode::Char(d @ '1'..='9') if game.state.variant == Variant::Classic => {
            let cell = d as usize - '1' as usize;
            game.cursor = cell;
            Action::Place(cell)
        }
        KeyCode::Char('r') => {
            if game.you().is_none() {
                Action::Say("Watchers cannot resign or offer a rematch.".into())
            } else if game.is_over() {
                game.rematch_sent = true;
                Action::Send(ClientMessage::Rematch { game: game.id() })
            } else {
                Action::Open(Modal::ConfirmResign)
            }
        }
        KeyCode::Char('c') => Action::Open(Modal::Chat(String::new())),
        KeyCode::Char(c @ ('d' | 'u' | 'a')) if game.you().is_some() && !game.is_over() => {
            let game = game.id();
            Action::Send(match c {
                'd' => ClientMessage::OfferDraw { game },
                'u' => ClientMessage::Takeback { game },
                _ => ClientMessage::Abort { game },
            })
        }
        KeyCode::Char('i') if game.state.kind == GameKind::Ai && game.my_turn() => {
            // A hint from the local engine, in games against the AI only.
            match crate::verdict::hint(&game.board) {
                Some(cell) => {
                    game.cursor = cell;
                    Action::Say(format!(
                        "Hint: cell {} (the cursor is on it)",
                        cell_name(game.state.variant, cell)
                    ))
                }
                None => Action::Say("No hint: the engine sees nothing better.".into()),
            }
        }
        KeyCode::Char(':') if game.my_turn() => Action::Open(Modal::Cell {
            variant: game.state.variant,
            text: String::new(),
        }),
        KeyCode::Char('t') if game.you().is_none() => {
            game.spectators_chat = !game.spectators_chat;
            return Vec::new();
        }
        KeyCode::Char('v') if game.is_over() => Action::OpenReplay(game.id()),
        KeyCode::Char('g') if game.you().is_some() && !game.is_over() => {
            Action::Say("Finish this game first (q goes back to the lobby).".into())
        }
        KeyCode::Char('g') => Action::WatchWarGame,
        _ => return Vec::new(),
    };
    vec![action]
}

/// Where the board goes when the whole terminal is `area`: shared with mouse hit-testing.
pub fn board_area(area: Rect) -> Rect {
    split(body_of(area)).0
}

pub fn render(app: &Around<'_>, game: &GameView, theme: Theme, body: Rect, buf: &mut Buffer) {
    let (board_area, side) = split(body);
    let geometry = Geometry::new(game.state.variant, board_area);
    let marks = Marks {
        cursor: (game.you().is_some() && !game.is_over()).then_some(game.cursor),
        last: game.last_move(),
        winning: game.result().map_or(0, |r| board::cell_mask(&r.cells)),
        digits: game.my_turn(),
    };
    board::draw(&game.board, &geometry, marks, theme, buf);
    let panel = player_lines(app, game, theme, usize::from(side.width.saturating_sub(2)));
    // The players' panel as tall as its lines (at least 9 rows, as the chat needs room too);
    // the moves as many rows as they take, up to half of what is left; the chat the rest.
    let players_height = u16::try_from(panel.len() + 2)
        .unwrap_or(u16::MAX)
        .clamp(9, side.height.saturating_sub(7).max(9));
    let rest = side.height.saturating_sub(players_height);
    let move_rows =
        u16::try_from(move_lines(game, usize::from(side.width.saturating_sub(2))).len())
            .unwrap_or(u16::MAX);
    let moves_height = (move_rows + 2).clamp(4, (rest / 2).max(4));
    let [players, moves, chat] = Layout::vertical([
        Constraint::Length(players_height),
        Constraint::Length(moves_height),
        Constraint::Min(3),
    ])
    .areas(side);
    render_players(game, panel, theme, players, buf);
    render_moves(game, theme, moves, buf);
    render_chat(app, game, theme, chat, buf);
}

/// The players' panel, its lines drawn in a box titled with the game.
fn render_players(
    game: &GameView,
    lines: Vec<Line<'static>>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let block = Block::bordered()
        .title(Span::styled(
            match game.state.kind {
                GameKind::Human if game.state.rated => format!(" Game #{} · rated ", game.id()),
                GameKind::Human => format!(" Game #{} ", game.id()),
                GameKind::Ai => format!(" Game #{} · vs AI ", game.id()),
                GameKind::War => format!(" Game #{} · war game ", game.id()),
            },
            theme.title(),
        ))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    Paragraph::new(lines).render(inner, buf);
}

/// The players' panel's lines at `width` columns: the seats with their clocks, the status,
/// the offers and absences, and the move count.
fn player_lines(
    app: &Around<'_>,
    game: &GameView,
    theme: Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for mark in [Mark::X, Mark::O] {
        let seat = game.seat(mark);
        let mut name = seat.name.clone();
        if seat.level.is_some() && !name.contains("AI") {
            name.push_str(" (AI)");
        }
        if seat.guest {
            // An account's name is its username; a guest's is marked, so that it cannot pass for
            // the account's.
            name.push_str(GUEST_MARK);
        } else if seat.bot {
            name.insert_str(0, crate::names::BOT_MARK);
        }
        if game.you() == Some(mark) {
            name.push_str(" (you)");
        }
        let clock = game
            .clock_ms(mark, app.now)
            .map(format_clock)
            .unwrap_or_default();
        let to_move = game.state.to_move == Some(mark);
        let pointer = if to_move { "▸" } else { " " };
        let rating = seat.rating.map(|r| format!(" {r}")).unwrap_or_default();
        let room = width.saturating_sub(4 + cols(&clock) + 1);
        let name = truncate(&name, room);
        // The rating goes beside the name when there is room for it.
        let rating = if cols(&name) + cols(&rating) <= room {
            rating
        } else {
            String::new()
        };
        let pad = width.saturating_sub(4 + cols(&name) + cols(&rating) + cols(&clock));
        let low = game.clock_ms(mark, app.now).is_some_and(|ms| ms < 10_000);
        let clock_style = match (low, to_move) {
            (true, _) => theme.bad(),
            (false, true) => theme.key(),
            (false, false) => theme.dim(),
        };
        lines.push(Line::from(vec![
            Span::styled(pointer, theme.key()),
            Span::styled(format!("{} ", mark.symbol()), theme.mark(mark)),
            Span::raw(" "),
            Span::styled(name, theme.text()),
            Span::styled(rating, theme.dim()),
            Span::raw(" ".repeat(pad)),
            Span::styled(clock, clock_style),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(status_line(game, theme));
    lines.extend(super::offers::lines(game, theme, app.now, width));
    lines.push(Line::styled(
        format!(
            "move {} · {} watching",
            game.state.moves.len(),
            game.state.watchers
        ),
        theme.dim(),
    ));
    lines
}

/// The moves so far in numbered pairs, as people name the cells ("1. X b2 O a1"), as many
/// pairs to a row as `width` takes, the latest last.
fn move_lines(game: &GameView, width: usize) -> Vec<String> {
    let variant = game.state.variant;
    let pairs: Vec<String> = game
        .state
        .moves
        .chunks(2)
        .enumerate()
        .map(|(turn, pair)| {
            let mut text = format!("{}. X {}", turn + 1, cell_name(variant, pair[0]));
            if let Some(&reply) = pair.get(1) {
                text.push_str(&format!(" O {}", cell_name(variant, reply)));
            }
            text
        })
        .collect();
    let item = pairs.iter().map(|pair| cols(pair)).max().unwrap_or(0) + 2;
    let per_line = (width / item.max(1)).max(1);
    pairs
        .chunks(per_line)
        .map(|row| {
            row.iter()
                .map(|pair| format!("{pair:<item$}"))
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// The moves panel: the numbered pairs, the latest rows when they do not all fit.
fn render_moves(game: &GameView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Moves ", theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let rows = move_lines(game, usize::from(inner.width));
    if rows.is_empty() {
        Paragraph::new(Line::styled("none yet", theme.dim())).render(inner, buf);
        return;
    }
    let skip = rows.len().saturating_sub(usize::from(inner.height));
    let lines: Vec<Line<'_>> = rows
        .into_iter()
        .skip(skip)
        .map(|row| Line::styled(row, theme.text()))
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

/// A player as the panel's lines name them: by name (cut short), not by mark.
fn who(game: &GameView, mark: Mark) -> String {
    truncate(&game.seat(mark).name, 12)
}

/// A finished rated game's line with the player's new rating and the change ("1512 +12").
fn with_rating_change(line: Line<'static>, game: &GameView, theme: Theme) -> Line<'static> {
    let (Some(changes), Some(you)) = (game.ratings, game.you()) else {
        return line;
    };
    let mine = match you {
        Mark::X => changes.x,
        Mark::O => changes.o,
    };
    let mut spans = line.spans;
    spans.push(Span::styled(
        format!("  {} {:+}", mine.rating, mine.change),
        theme.dim(),
    ));
    Line::from(spans)
}

/// "Your move", "bob to move", "You win", …
fn status_line(game: &GameView, theme: Theme) -> Line<'static> {
    if let Some(result) = game.result() {
        let how = match result.reason {
            EndReason::Line => "three in a row",
            EndReason::Draw => "board full",
            EndReason::Resign => "resignation",
            EndReason::Timeout => "time",
            EndReason::Abandon => "abandonment",
            EndReason::Aborted => "aborted",
            EndReason::Agreement => "agreement",
        };
        let how = if result.reason == EndReason::Line && game.state.variant.side() == 4 {
            "four in a row"
        } else {
            how
        };
        let line = match (result.winner, game.you()) {
            (None, _) if result.reason == EndReason::Aborted => {
                Line::styled("Game aborted", theme.bad())
            }
            (None, _) => Line::styled(format!("Draw ({how})"), theme.key()),
            (Some(w), Some(you)) if w == you => {
                Line::styled(format!("You win! ({how})"), theme.good())
            }
            (Some(_), Some(_)) => Line::styled(format!("You lose ({how})"), theme.bad()),
            (Some(w), None) => Line::styled(format!("{} wins ({how})", who(game, w)), theme.good()),
        };
        return with_rating_change(line, game, theme);
    }
    match game.state.to_move {
        Some(_) if game.my_turn() => Line::styled("Your move", theme.good()),
        Some(mark) => {
            let name = truncate(&game.seat(mark).name, 16);
            Line::styled(
                format!("{} ({}) to move…", name, mark.symbol()),
                theme.text(),
            )
        }
        None => Line::raw(""),
    }
}

fn render_chat(app: &Around<'_>, game: &GameView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let title = if game.you().is_some() {
        Line::from(Span::styled(" Chat ", theme.title()))
    } else {
        // A watcher's two chats, the one shown highlighted; `t` switches.
        let tab = |name: &'static str, on: bool| {
            Span::styled(name, if on { theme.title() } else { theme.dim() })
        };
        Line::from(vec![
            Span::raw(" "),
            tab("Players", !game.spectators_chat),
            Span::styled(" │ ", theme.dim()),
            tab("Spectators", game.spectators_chat),
            Span::styled(" (t) ", theme.dim()),
        ])
    };
    let block = Block::bordered().title(title).border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let typing = match &app.modal {
        Some(Modal::Chat(text)) => Some(text),
        _ => None,
    };
    let input_height = u16::from(typing.is_some());
    let [log, input] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(input_height)]).areas(inner);
    let lines: Vec<Line<'_>> = game
        .shown_chat()
        .map(|line| {
            let style = line.mark.map_or(theme.dim(), |m| theme.mark(m));
            Line::from(vec![
                Span::styled(
                    format!("{}: ", person(&line.from, line.guest, line.bot, 20)),
                    style,
                ),
                Span::styled(line.text.clone(), theme.text()),
            ])
        })
        .collect();
    if lines.is_empty() && typing.is_none() {
        Paragraph::new(Line::styled("c to chat", theme.dim())).render(log, buf);
    } else {
        // Show the newest lines: count wrapped lines from the end.
        let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
        let width = usize::from(log.width.max(1));
        let total: usize = game
            .shown_chat()
            .map(|line| {
                (cols(&person(&line.from, line.guest, line.bot, 20)) + 2 + cols(&line.text))
                    .div_ceil(width)
                    .max(1)
            })
            .sum();
        let total = u16::try_from(total).unwrap_or(u16::MAX);
        paragraph
            .scroll((total.saturating_sub(log.height), 0))
            .render(log, buf);
    }
    if let Some(text) = typing {
        let room = input.width.saturating_sub(3) as usize;
        let shown: String = {
            let count = text.chars().count();
            text.chars().skip(count.saturating_sub(room)).collect()
        };
        Line::from(vec![
            Span::styled("> ", theme.key()),
            Span::styled(format!("{shown}▏"), theme.text()),
        ])
        .render(input, buf);
    }
}
