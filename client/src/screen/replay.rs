//! The replay screen: a stored game's board at one move, its players and its list of moves; its
//! keys.

use noughts_protocol::{GameKind, Mark};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::board::{self, Geometry, Marks};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::action::Action;
use super::theme::Theme;
use super::widgets::{cols, split, truncate};
use crate::evaluation;
use crate::notation::cell_name;
use crate::plain::result_text;
use crate::replay::{ReplayView, format_elapsed};
use crate::verdict::MoveVerdict;

/// What a key does on the replay screen: step through the game, or leave (quit, when the client
/// only replays).
pub fn on_key(replay: &mut ReplayView, key: KeyEvent, replay_only: bool) -> Option<Action> {
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc if replay_only => return Some(Action::Quit),
        KeyCode::Char('q') | KeyCode::Esc => return Some(Action::LeaveReplay),
        KeyCode::Left | KeyCode::Char('h' | 'p') | KeyCode::Backspace => replay.step(-1),
        KeyCode::Right | KeyCode::Char('l' | 'n' | ' ') | KeyCode::Enter => replay.step(1),
        KeyCode::Up | KeyCode::Char('k') | KeyCode::PageUp => replay.step(-5),
        KeyCode::Down | KeyCode::Char('j') | KeyCode::PageDown => replay.step(5),
        KeyCode::Home | KeyCode::Char('g') => replay.jump(false),
        KeyCode::End | KeyCode::Char('G') => replay.jump(true),
        _ => {}
    }
    None
}

pub fn render(replay: &ReplayView, theme: Theme, body: Rect, buf: &mut Buffer) {
    let (board_area, side) = split(body);
    let geometry = Geometry::new(replay.record.variant, board_area);
    let marks = Marks {
        cursor: None,
        last: replay.last_move().map(|m| m.cell),
        winning: replay.result().map_or(0, |r| board::cell_mask(&r.cells)),
        digits: false,
    };
    board::draw(replay.board(), &geometry, marks, theme, buf);
    let analysed = if replay.analysis.is_empty() { 0 } else { 10 };
    let [players, analysis, moves] = Layout::vertical([
        Constraint::Length(9),
        Constraint::Length(analysed),
        Constraint::Min(3),
    ])
    .areas(side);
    render_players(replay, theme, players, buf);
    if analysed > 0 {
        render_analysis(replay, theme, analysis, buf);
    }
    render_moves(replay, theme, moves, buf);
}

/// The server's analysis: the move shown in plain words, the value row and each side's accuracy.
fn render_analysis(replay: &ReplayView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Analysis ", theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let mut lines = Vec::new();
    if let (Some(judged), Some(step)) = (replay.judged(replay.ply), replay.last_move()) {
        let said = evaluation::verdict_text(judged, step.mark, replay.record.variant);
        let mark = evaluation::mark(judged.verdict);
        let style = match replay.verdict(replay.ply) {
            Some(MoveVerdict::Best) => theme.good(),
            Some(MoveVerdict::Inaccuracy) => theme.key(),
            Some(MoveVerdict::Blunder) => theme.bad(),
            None => theme.dim(),
        };
        lines.push(Line::styled(
            format!("{mark} {said}").trim_start().to_owned(),
            style,
        ));
    }
    {
        let row = evaluation::graph_row(&replay.analysis);
        let at = row
            .chars()
            .take(replay.ply)
            .map(char::len_utf8)
            .sum::<usize>();
        let (done, rest) = row.split_at(at);
        let mut rest = rest.chars();
        let shown = rest.next().map(String::from).unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled("value ", theme.dim()),
            Span::styled(done.to_owned(), theme.text()),
            Span::styled(shown, theme.selected()),
            Span::styled(rest.collect::<String>(), theme.text()),
        ]));
        for side in evaluation::accuracy_text(&replay.analysis).split(" · ") {
            lines.push(Line::styled(side.to_owned(), theme.text()));
        }
        if !replay.complete {
            lines.push(Line::styled("the engine is still judging…", theme.dim()));
        }
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

fn render_players(replay: &ReplayView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let record = &replay.record;
    let title = match (record.game.0, record.kind, record.rated) {
        (0, ..) => " Replay ".to_owned(),
        (_, GameKind::Human, true) => format!(" Game #{} · rated ", record.game),
        (_, GameKind::Human, false) => format!(" Game #{} · casual ", record.game),
        (_, GameKind::Ai, _) => format!(" Game #{} · vs AI ", record.game),
        (_, GameKind::War, _) => format!(" Game #{} · war game ", record.game),
    };
    let block = Block::bordered()
        .title(Span::styled(title, theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let width = usize::from(inner.width);
    let mut lines = Vec::new();
    let to_move = (!replay.board().is_over() && !replay.at_end()).then(|| replay.board().to_move());
    for mark in [Mark::X, Mark::O] {
        let seat = replay.seat(mark);
        let mut rating = String::new();
        if let Some(r) = seat.rating {
            rating = format!("{r}");
            if let Some(change) = seat.rating_change {
                rating.push_str(&format!(" {change:+}"));
            }
        }
        let name = crate::history::seat_name(seat);
        let room = width.saturating_sub(4 + cols(&rating) + 1);
        let name = truncate(&name, room);
        let pad = width.saturating_sub(4 + cols(&name) + cols(&rating));
        let pointer = if to_move == Some(mark) { "▸" } else { " " };
        lines.push(Line::from(vec![
            Span::styled(pointer, theme.key()),
            Span::styled(format!("{} ", mark.symbol()), theme.mark(mark)),
            Span::raw(" "),
            Span::styled(name, theme.text()),
            Span::raw(" ".repeat(pad)),
            Span::styled(rating, theme.dim()),
        ]));
    }
    lines.push(Line::raw(""));
    match replay.last_move() {
        Some(step) => {
            lines.push(Line::styled(
                format!(
                    "move {} of {}: {} on cell {}",
                    replay.ply,
                    replay.len(),
                    step.mark.symbol(),
                    cell_name(replay.record.variant, step.cell)
                ),
                theme.text(),
            ));
            let style = match replay.verdict(replay.ply) {
                Some(MoveVerdict::Best) => theme.good(),
                Some(MoveVerdict::Inaccuracy) => theme.key(),
                Some(MoveVerdict::Blunder) => theme.bad(),
                None => theme.dim(),
            };
            if replay.judged(replay.ply).is_some() {
                // Said in full in the analysis box.
            } else if let Some(verdict) = replay.verdict(replay.ply) {
                lines.push(Line::styled(
                    format!("the engine: {}", verdict.word()),
                    style,
                ));
            }
            let mut when = String::new();
            if record.game.0 != 0 {
                when = format!("played at {}", format_elapsed(step.at_ms));
            }
            if let Some(ms) = step.clock_ms {
                when.push_str(&format!(", {} left", format_elapsed(ms)));
            }
            lines.push(Line::styled(when, theme.dim()));
        }
        None => {
            lines.push(Line::styled(
                format!("start · {} moves", replay.len()),
                theme.text(),
            ));
            lines.push(Line::raw(""));
        }
    }
    match replay.result() {
        Some(result) => lines.push(Line::styled(
            result_text(record.variant, result),
            theme.good(),
        )),
        None if replay.at_end() => lines.push(Line::styled("not finished", theme.dim())),
        None => {}
    }
    Paragraph::new(lines).render(inner, buf);
}

/// The moves, numbered, several to a line; the one shown is highlighted.
fn render_moves(replay: &ReplayView, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(" Moves ", theme.title()))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    const ITEM: usize = 9;
    let per_line = (usize::from(inner.width) / ITEM).max(1);
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut current_line = 0;
    for (chunk_index, chunk) in replay.record.moves.chunks(per_line).enumerate() {
        let mut spans = Vec::new();
        for (offset, step) in chunk.iter().enumerate() {
            let number = chunk_index * per_line + offset + 1;
            let marker = if number == replay.ply { "▸" } else { " " };
            let cell = cell_name(replay.record.variant, step.cell);
            let note = replay.verdict(number).map_or("", MoveVerdict::mark);
            let text = format!(
                "{marker}{number:>2}.{}{:<3}",
                step.mark.symbol(),
                format!("{cell}{note}")
            );
            let style = if number == replay.ply {
                current_line = chunk_index;
                theme.selected()
            } else {
                theme.mark(step.mark)
            };
            spans.push(Span::styled(text, style));
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    }
    let height = usize::from(inner.height);
    let scroll = (current_line + 1).saturating_sub(height);
    Paragraph::new(lines)
        .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
        .render(inner, buf);
}
