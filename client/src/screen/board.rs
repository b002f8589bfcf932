//! The board: where each cell goes for a given area (shared by drawing and mouse hit-testing) and
//! how it is drawn. The flat boards are one grid; the cubes are one grid per layer, side by side
//! when they fit, stacked when the terminal is narrow.

use noughts_engine::{Board, Mark, Variant, cells_of};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::theme::Theme;

/// How big the cells are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellSize {
    /// 7×3 cells with grid lines; marks drawn as 3×3 glyphs.
    Large,
    /// 3×1 cells with grid lines.
    Medium,
    /// 3×1 cells inside one frame, no inner lines.
    Compact,
}

impl CellSize {
    /// Inner width and height of a cell.
    fn cell(self) -> (u16, u16) {
        match self {
            CellSize::Large => (7, 3),
            CellSize::Medium | CellSize::Compact => (3, 1),
        }
    }

    /// Distance from one cell to the next, horizontally and vertically.
    fn pitch(self) -> (u16, u16) {
        match self {
            CellSize::Large => (8, 4),
            CellSize::Medium => (4, 2),
            CellSize::Compact => (3, 1),
        }
    }

    /// Width and height of one layer's frame.
    fn frame(self, n: u16) -> (u16, u16) {
        let (px, py) = self.pitch();
        match self {
            CellSize::Compact => (px * n + 2, py * n + 2),
            _ => (px * n + 1, py * n + 1),
        }
    }
}

/// Gap between layers side by side.
const GAP_X: u16 = 3;
/// Gap between stacked layers.
const GAP_Y: u16 = 0;

/// Where everything of one board goes inside an area.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// The variant laid out.
    pub variant: Variant,
    /// The cell size chosen.
    pub size: CellSize,
    /// Each layer's frame (one for the flat boards).
    pub layers: Vec<Rect>,
    /// Each cell's inner area, by cell number.
    pub cells: Vec<Rect>,
}

impl Geometry {
    /// Lays `variant` out in `area`, with the largest cells that fit.
    pub fn new(variant: Variant, area: Rect) -> Geometry {
        let n = variant.side() as u16;
        let count = if variant.dims() == 3 { n } else { 1 };
        let label = u16::from(variant.dims() == 3);
        let fit = [CellSize::Large, CellSize::Medium, CellSize::Compact]
            .into_iter()
            .find_map(|size| {
                let (w, h) = size.frame(n);
                let columns = ((area.width + GAP_X) / (w + GAP_X)).min(count);
                if columns == 0 {
                    return None;
                }
                let rows = count.div_ceil(columns);
                let height = rows * (h + label) + (rows - 1) * GAP_Y;
                (height <= area.height).then_some((size, columns, rows))
            });
        let (size, columns, rows) = fit.unwrap_or((CellSize::Compact, 1, count));
        let (w, h) = size.frame(n);
        let total_w = columns * w + (columns - 1) * GAP_X;
        let total_h = rows * (h + label) + (rows - 1) * GAP_Y;
        let x0 = area.x + area.width.saturating_sub(total_w) / 2;
        let y0 = area.y + area.height.saturating_sub(total_h) / 2;
        let layers: Vec<Rect> = (0..count)
            .map(|layer| {
                let (col, row) = (layer % columns, layer / columns);
                Rect::new(
                    x0 + col * (w + GAP_X),
                    y0 + row * (h + label + GAP_Y) + label,
                    w,
                    h,
                )
            })
            .collect();
        let (cw, ch) = size.cell();
        let (px, py) = size.pitch();
        let cells = (0..variant.cells())
            .map(|cell| {
                let coords = variant.coords(cell);
                let (layer, row, col) = match coords.as_slice() {
                    [r, c] => (0, *r, *c),
                    [z, r, c] => (*z, *r, *c),
                    _ => unreachable!("boards have two or three dimensions"),
                };
                let frame = layers[layer];
                Rect::new(
                    frame.x + 1 + col as u16 * px,
                    frame.y + 1 + row as u16 * py,
                    cw,
                    ch,
                )
            })
            .collect();
        Geometry {
            variant,
            size,
            layers,
            cells,
        }
    }

    /// The cell drawn at a screen position, if any.
    pub fn cell_at(&self, x: u16, y: u16) -> Option<usize> {
        self.cells
            .iter()
            .position(|r| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
    }
}

/// What to draw besides the marks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Marks {
    /// The cursor's cell, when the player can move.
    pub cursor: Option<usize>,
    /// The last move's cell.
    pub last: Option<usize>,
    /// The winning cells, as a mask.
    pub winning: u64,
    /// Name empty cells as people type them (1–9 on classic, `b3` on the bigger boards, where
    /// the layer is the frame's), to go with the digit keys and `:`.
    pub digits: bool,
}

/// Draws `board` laid out by `geometry`.
pub fn draw(board: &Board, geometry: &Geometry, marks: Marks, theme: Theme, buf: &mut Buffer) {
    let n = geometry.variant.side() as u16;
    let clip = buf.area;
    for (index, frame) in geometry.layers.iter().enumerate() {
        if geometry.variant.dims() == 3 && frame.y > clip.y {
            let on_layer = marks
                .cursor
                .is_some_and(|c| geometry.variant.coords(c)[0] == index);
            let text = if on_layer {
                format!("▸ layer {} ◂", index + 1)
            } else {
                format!("layer {}", index + 1)
            };
            let x = frame.x + frame.width.saturating_sub(text.chars().count() as u16) / 2;
            let style = if on_layer { theme.title() } else { theme.dim() };
            put(buf, x, frame.y - 1, &text, style);
        }
        draw_grid(*frame, geometry.size, n, theme.grid(), buf);
    }
    let winning: Vec<usize> = cells_of(marks.winning).collect();
    for (cell, area) in geometry.cells.iter().enumerate() {
        let mark = board.get(cell);
        let is_winning = winning.contains(&cell);
        let is_cursor = marks.cursor == Some(cell);
        let mut style = match mark {
            Some(mark) => theme.mark(mark),
            None => theme.dim(),
        };
        if marks.last == Some(cell) {
            style = style.patch(theme.last_move());
        }
        if is_winning {
            style = style.patch(theme.winning());
        }
        let fill = if is_winning { '░' } else { ' ' };
        let background = if is_winning {
            theme.winning()
        } else if is_cursor {
            theme.cursor()
        } else {
            Style::new()
        };
        for y in area.y..area.y + area.height {
            put(
                buf,
                area.x,
                y,
                &fill.to_string().repeat(area.width as usize),
                background,
            );
        }
        if marks.last == Some(cell) && geometry.size == CellSize::Large {
            put(buf, area.x, area.y, "•", style);
        }
        let label = (marks.digits && mark.is_none()).then(|| label(geometry.variant, cell));
        if is_cursor {
            style = style.patch(theme.cursor());
            // Brackets round the cursor, unless a label fills a small cell: then its colours
            // alone show it.
            if label.is_none() || geometry.size == CellSize::Large {
                let mid = area.y + area.height / 2;
                put(buf, area.x, mid, "[", theme.cursor());
                put(buf, area.x + area.width - 1, mid, "]", theme.cursor());
            }
        }
        let glyph = glyph(mark, geometry.size, label);
        let top = area.y + (area.height - glyph.len() as u16) / 2;
        for (i, line) in glyph.iter().enumerate() {
            let width = line.chars().count() as u16;
            let x = area.x + (area.width - width) / 2;
            let mut line_style = style;
            if mark.is_none() && !marks.digits {
                line_style = background;
            }
            if !line.trim().is_empty() {
                put(buf, x, top + i as u16, line, line_style);
            }
        }
    }
}

/// The text of one cell's content: its mark, else its label if it has one.
fn glyph(mark: Option<Mark>, size: CellSize, label: Option<String>) -> Vec<String> {
    match (mark, size) {
        (Some(Mark::X), CellSize::Large) => vec!["╲ ╱".into(), " ╳ ".into(), "╱ ╲".into()],
        (Some(Mark::O), CellSize::Large) => vec!["╭─╮".into(), "│ │".into(), "╰─╯".into()],
        (Some(mark), _) => vec![mark.symbol().to_string()],
        (None, _) => vec![label.unwrap_or_else(|| " ".into())],
    }
}

/// An empty cell's label: its name, less the layer, which the frame's label gives.
fn label(variant: noughts_engine::Variant, cell: usize) -> String {
    let name = crate::notation::cell_name(variant, cell);
    if variant.dims() == 3 {
        name[1..].to_owned()
    } else {
        name
    }
}

/// Draws one layer's frame and, unless compact, its inner grid lines.
fn draw_grid(frame: Rect, size: CellSize, n: u16, style: Style, buf: &mut Buffer) {
    if size == CellSize::Compact {
        let (w, h) = (frame.width, frame.height);
        for x in 0..w {
            for y in [0, h - 1] {
                let c = match (x, y) {
                    (0, 0) => '┌',
                    (0, _) => '└',
                    (x, 0) if x == w - 1 => '┐',
                    (x, _) if x == w - 1 => '┘',
                    _ => '─',
                };
                put(buf, frame.x + x, frame.y + y, &c.to_string(), style);
            }
        }
        for y in 1..h - 1 {
            put(buf, frame.x, frame.y + y, "│", style);
            put(buf, frame.x + w - 1, frame.y + y, "│", style);
        }
        return;
    }
    let (px, py) = size.pitch();
    for dy in 0..frame.height {
        for dx in 0..frame.width {
            let on_h = dy % py == 0;
            let on_v = dx % px == 0;
            if !on_h && !on_v {
                continue;
            }
            let (top, bottom) = (dy == 0, dy == py * n);
            let (left, right) = (dx == 0, dx == px * n);
            let c = match (on_h, on_v) {
                (true, false) => '─',
                (false, true) => '│',
                _ => match (top, bottom, left, right) {
                    (true, _, true, _) => '┌',
                    (true, _, _, true) => '┐',
                    (_, true, true, _) => '└',
                    (_, true, _, true) => '┘',
                    (true, _, _, _) => '┬',
                    (_, true, _, _) => '┴',
                    (_, _, true, _) => '├',
                    (_, _, _, true) => '┤',
                    _ => '┼',
                },
            };
            put(buf, frame.x + dx, frame.y + dy, &c.to_string(), style);
        }
    }
}

/// The cells as a mask, as [`Marks::winning`] takes them; cells off any board are left out.
pub fn cell_mask(cells: &[usize]) -> u64 {
    cells
        .iter()
        .filter_map(|&c| 1u64.checked_shl(u32::try_from(c).ok()?))
        .fold(0, |mask, bit| mask | bit)
}

/// Writes text if it starts inside the buffer.
fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, style: Style) {
    let area = buf.area;
    if x >= area.x && y >= area.y && x < area.x + area.width && y < area.y + area.height {
        buf.set_stringn(x, y, text, (area.x + area.width - x) as usize, style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_largest_cells_that_fit() {
        let area = Rect::new(0, 1, 50, 22);
        assert_eq!(Geometry::new(Variant::Classic, area).size, CellSize::Large);
        assert_eq!(Geometry::new(Variant::Four, area).size, CellSize::Large);
        let cube = Geometry::new(Variant::Cube, area);
        assert_eq!(cube.size, CellSize::Medium);
        assert!(
            cube.layers.windows(2).all(|w| w[0].y == w[1].y),
            "the cube's layers sit side by side"
        );
        let narrow = Geometry::new(Variant::Cube, Rect::new(0, 0, 20, 30));
        assert!(
            narrow.layers.windows(2).all(|w| w[0].x == w[1].x),
            "stacked when narrow"
        );
        let qubic = Geometry::new(Variant::Qubic, area);
        assert!(qubic.layers.iter().all(|l| l.y + l.height <= 23));
    }

    #[test]
    fn cells_off_the_board_leave_the_mask_alone() {
        assert_eq!(cell_mask(&[0, 2, 64, usize::MAX]), 0b101);
    }

    #[test]
    fn hit_testing_finds_the_cell_drawn_there() {
        for variant in Variant::ALL {
            let geometry = Geometry::new(variant, Rect::new(0, 1, 50, 22));
            for (cell, rect) in geometry.cells.iter().enumerate() {
                assert_eq!(
                    geometry.cell_at(rect.x + rect.width / 2, rect.y),
                    Some(cell)
                );
            }
            assert_eq!(geometry.cell_at(0, 0), None);
        }
    }
}
