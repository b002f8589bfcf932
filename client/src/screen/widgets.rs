//! Pieces every screen draws with: the body between the title and footer bars, a centred box,
//! text cut to a width, and the split of a body into a board and a side panel.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::theme::Theme;

/// Width of the side panel beside a board.
const SIDE_WIDTH: u16 = 30;

/// The body of the screen when the whole terminal is `area`: all but the title bar and the
/// footer, as the app's view lays them out.
pub fn body_of(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    )
}

/// A rectangle of at most `width`×`height` centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// How many terminal columns `text` takes (a full-width character takes two).
pub fn cols(text: &str) -> usize {
    text.width()
}

pub use crate::names::{BOT_MARK, GUEST_MARK};

/// A person's name as every screen shows it, cut to `max` columns: an account's username as it
/// is, a guest's name followed by [`GUEST_MARK`], a bot's preceded by [`BOT_MARK`] (the mark
/// kept whole when the name is cut).
pub fn person(name: &str, guest: bool, bot: bool, max: usize) -> String {
    if bot && !guest {
        let room = max.saturating_sub(BOT_MARK.len()).max(1);
        return format!("{BOT_MARK}{}", truncate(name, room));
    }
    if !guest {
        return truncate(name, max);
    }
    let room = max.saturating_sub(GUEST_MARK.len()).max(1);
    format!("{}{GUEST_MARK}", truncate(name, room))
}

/// Cuts `text` to at most `max` columns, marking the cut with an ellipsis.
pub fn truncate(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        cut.push(c);
        used += w;
    }
    if max > 0 {
        cut.push('…');
    }
    cut
}

/// `text` in exactly `width` columns: cut as [`truncate`] does, then padded with spaces.
pub fn fit(text: &str, width: usize) -> String {
    let mut fitted = truncate(text, width);
    let used = fitted.width();
    fitted.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    fitted
}

/// Splits the body into the board's area and the side panel's: side by side down to 56 columns
/// (a narrower panel below 64, so that qubic's four compact layers, 31 columns, still fit beside
/// it at 60×20), stacked below that.
pub fn split(body: Rect) -> (Rect, Rect) {
    if body.width >= 56 {
        let side = if body.width >= 64 { SIDE_WIDTH } else { 26 };
        let [board, side] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(side)]).areas(body);
        (board, side)
    } else {
        let [board, side] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(9)]).areas(body);
        (board, side)
    }
}

/// A line of key hints: each key, then what it does.
pub fn hint_line<'a>(hints: &[(&'a str, &'a str)], theme: Theme) -> Line<'a> {
    let mut spans = vec![Span::raw(" ")];
    for (key, what) in hints {
        spans.push(Span::styled(*key, theme.key()));
        spans.push(Span::styled(format!(" {what}  "), theme.dim()));
    }
    Line::from(spans)
}

/// Clears the whole rows `rect` spans across `area`, so that a box drawn there cuts no word of
/// what is beside it in two (leaving "layer 6" of "you are player 6" beside its border).
pub fn clear_band(rect: Rect, area: Rect, buf: &mut Buffer) {
    Clear.render(Rect::new(area.x, rect.y, area.width, rect.height), buf);
}

/// Draws a dialog over `area`: `lines` in a double-bordered box `width` wide, titled `title`,
/// centred, the whole rows it spans cleared.
pub fn dialog(
    title: &str,
    lines: Vec<Line<'_>>,
    width: u16,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let rect = centered(area, width, lines.len() as u16 + 2);
    clear_band(rect, area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .title(Span::styled(format!(" {title} "), theme.title()))
        .border_style(theme.title());
    Paragraph::new(lines).block(block).render(rect, buf);
}
