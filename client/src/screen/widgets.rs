//! Pieces every screen draws with: the body between the title and footer bars, a centred box,
//! text cut to a width, and the split of a body into a board and a side panel.

use ratatui::layout::{Constraint, Layout, Rect};

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

/// Cuts `text` to at most `max` characters, marking the cut with an ellipsis.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Splits the body into the board's area and the side panel's.
pub fn split(body: Rect) -> (Rect, Rect) {
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
