//! The game screen: the board in the middle, the players, clocks and chat beside it.

use noughts_protocol::{EndReason, GameKind, Mark, Variant};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::board::{self, Geometry, Marks};
use super::theme::Theme;
use super::{body_of, truncate};
use crate::app::{App, Modal};
use crate::game::{GameView, format_clock, format_countdown};

/// Width of the side panel.
const SIDE_WIDTH: u16 = 30;

/// Splits the body into the board's area and the side panel's.
pub(crate) fn split(body: Rect) -> (Rect, Rect) {
    if body.width >= 64 {
        let [board, side] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(SIDE_WIDTH)]).areas(body);
        (board, side)
    } else {
        let [board, side] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(9)]).areas(body);
        (board, side)
    }
}

/// Where the board goes when the whole terminal is `area`: shared with mouse hit-testing.
pub fn board_area(area: Rect) -> Rect {
    split(body_of(area)).0
}

pub fn render(app: &App, game: &GameView, theme: Theme, body: Rect, buf: &mut Buffer) {
    let (board_area, side) = split(body);
    let geometry = Geometry::new(game.state.variant, board_area);
    let marks = Marks {
        cursor: (game.you().is_some() && !game.is_over()).then_some(game.cursor),
        last: game.last_move(),
        winning: game.result().map_or(0, |r| board::cell_mask(&r.cells)),
        digits: game.state.variant == Variant::Classic && game.my_turn(),
    };
    board::draw(&game.board, &geometry, marks, theme, buf);
    let [players, chat] = Layout::vertical([Constraint::Length(9), Constraint::Min(3)]).areas(side);
    render_players(app, game, theme, players, buf);
    render_chat(app, game, theme, chat, buf);
}

fn render_players(app: &App, game: &GameView, theme: Theme, area: Rect, buf: &mut Buffer) {
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
    let width = inner.width as usize;
    let mut lines = Vec::new();
    for mark in [Mark::X, Mark::O] {
        let seat = game.seat(mark);
        let mut name = seat.name.clone();
        if seat.level.is_some() && !name.contains("AI") {
            name.push_str(" (AI)");
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
        let room = width.saturating_sub(4 + clock.chars().count() + 1);
        let name = truncate(&name, room);
        // The rating goes beside the name when there is room for it.
        let rating = if name.chars().count() + rating.chars().count() <= room {
            rating
        } else {
            String::new()
        };
        let pad = width.saturating_sub(
            4 + name.chars().count() + rating.chars().count() + clock.chars().count(),
        );
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
    for mark in [Mark::X, Mark::O] {
        let seat = game.seat(mark);
        if !seat.connected && seat.level.is_none() && !game.is_over() {
            let text = match game.grace_ms(mark, app.now) {
                Some(ms) => format!(
                    "{} offline: {} to return",
                    mark.symbol(),
                    format_countdown(ms)
                ),
                None => format!("{} offline", mark.symbol()),
            };
            lines.push(Line::styled(text, theme.bad()));
        }
    }
    if let Some(by) = game.rematch_offer {
        let text = if game.you() == Some(by) {
            "Rematch offered…".to_owned()
        } else if game.you().is_some() {
            format!("{} offers a rematch: r", by.symbol())
        } else {
            format!("{} offers a rematch", by.symbol())
        };
        lines.push(Line::styled(text, theme.key()));
    } else if game.rematch_sent {
        lines.push(Line::styled("Rematch offered…", theme.dim()));
    }
    lines.push(Line::styled(
        format!(
            "move {} · {} watching",
            game.state.moves.len(),
            game.state.watchers
        ),
        theme.dim(),
    ));
    Paragraph::new(lines).render(inner, buf);
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
            EndReason::Aborted => "server stopped",
        };
        let how = if result.reason == EndReason::Line && game.state.variant.side() == 4 {
            "four in a row"
        } else {
            how
        };
        return match (result.winner, game.you()) {
            (None, _) if result.reason == EndReason::Aborted => {
                Line::styled("Game aborted", theme.bad())
            }
            (None, _) => Line::styled(format!("Draw ({how})"), theme.key()),
            (Some(w), Some(you)) if w == you => {
                Line::styled(format!("You win! ({how})"), theme.good())
            }
            (Some(_), Some(_)) => Line::styled(format!("You lose ({how})"), theme.bad()),
            (Some(w), None) => Line::styled(format!("{} wins ({how})", w.symbol()), theme.good()),
        };
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

fn render_chat(app: &App, game: &GameView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Chat ", theme.title()))
        .border_style(theme.grid());
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
        .state
        .chat
        .iter()
        .map(|line| {
            let style = line.mark.map_or(theme.dim(), |m| theme.mark(m));
            Line::from(vec![
                Span::styled(format!("{}: ", truncate(&line.from, 12)), style),
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
            .state
            .chat
            .iter()
            .map(|line| {
                (truncate(&line.from, 12).chars().count() + 2 + line.text.chars().count())
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
