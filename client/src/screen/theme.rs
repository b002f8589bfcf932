//! Colours and emphasis in one place, so that NO_COLOR turns every colour into a modifier.

use noughts_protocol::Mark;
use ratatui::style::{Color, Modifier, Style};

/// The styles the screens draw with.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// False under NO_COLOR.
    pub color: bool,
}

impl Theme {
    /// Plain text.
    pub fn text(self) -> Style {
        Style::new()
    }

    /// Hints and secondary text.
    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Titles and headings.
    pub fn title(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.color {
            style.fg(Color::Cyan)
        } else {
            style
        }
    }

    /// Keys in hints.
    pub fn key(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.color {
            style.fg(Color::Yellow)
        } else {
            style
        }
    }

    /// A mark on the board or beside a name.
    pub fn mark(self, mark: Mark) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        match (self.color, mark) {
            (true, Mark::X) => style.fg(Color::LightBlue),
            (true, Mark::O) => style.fg(Color::LightMagenta),
            (false, _) => style,
        }
    }

    /// The grid lines of the board.
    pub fn grid(self) -> Style {
        self.dim()
    }

    /// The cell under the cursor.
    pub fn cursor(self) -> Style {
        if self.color {
            Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// The cell of the last move.
    pub fn last_move(self) -> Style {
        let style = Style::new().add_modifier(Modifier::UNDERLINED);
        if self.color {
            style.fg(Color::Yellow)
        } else {
            style
        }
    }

    /// The cells of the winning line.
    pub fn winning(self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }

    /// The selected row of a list.
    pub fn selected(self) -> Style {
        if self.color {
            Style::new().bg(Color::Blue).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// Good news: online, your move, a win.
    pub fn good(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.color {
            style.fg(Color::Green)
        } else {
            style
        }
    }

    /// Bad news: offline, errors, a loss.
    pub fn bad(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.color {
            style.fg(Color::Red)
        } else {
            style
        }
    }
}
