//! A list of rows as the leaderboard and history tabs draw it: the lines, the selected row kept in
//! view, and which row a screen line shows.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::widgets::truncate;

/// How many entries one request for a list asks for.
pub const PAGE: u32 = 50;

/// A tab's lines, where its selected row is, and the line of its first row.
#[derive(Debug)]
pub struct Lines<'a> {
    pub lines: Vec<Line<'a>>,
    pub selected: Option<usize>,
    pub first_row: usize,
    pub rows: usize,
}

impl Lines<'_> {
    /// How far the lines scroll in `height` rows so that the selected one stays in view.
    pub fn scroll(&self, height: u16) -> usize {
        self.selected
            .map_or(0, |line| (line + 2).saturating_sub(usize::from(height)))
    }

    pub fn render(self, area: Rect, buf: &mut Buffer) {
        let scroll = self.scroll(area.height);
        Paragraph::new(self.lines)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(area, buf);
    }

    /// The row drawn on line `y` of `area`.
    pub fn row_at(&self, area: Rect, y: u16) -> Option<usize> {
        if y >= area.y + area.height {
            return None;
        }
        let line = usize::from(y.checked_sub(area.y)?) + self.scroll(area.height);
        let row = line.checked_sub(self.first_row)?;
        (row < self.rows).then_some(row)
    }
}

/// A row, padded to the width, highlighted when selected.
pub fn row<'a>(text: String, selected: bool, width: usize, theme: Theme) -> Line<'a> {
    let text = truncate(&text, width);
    let style = if selected {
        theme.selected()
    } else {
        theme.text()
    };
    Line::styled(super::widgets::fit(&text, width), style)
}
