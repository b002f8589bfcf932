//! Colours and emphasis in one place: the usual colours, a high-contrast set (bright colours on
//! the terminal's background, nothing dim, the cursor and selection in black on white), and none
//! at all (NO_COLOR, or `--theme no-colour`), where every colour becomes a modifier.

use noughts_protocol::Mark;
use ratatui::style::{Color, Modifier, Style};

/// The styles the screens draw with.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// False under NO_COLOR.
    pub color: bool,
    /// The high-contrast colours (with `color`).
    pub contrast: bool,
}

/// The themes a player may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Palette {
    /// The usual colours.
    #[default]
    Normal,
    /// Bright colours only, nothing dim; the cursor and selection in black on white.
    HighContrast,
    /// No colour at all: bold, underline and reverse video instead (as NO_COLOR asks).
    #[value(alias = "no-color")]
    NoColour,
}

impl Palette {
    /// The theme it draws with.
    pub fn theme(self) -> Theme {
        Theme {
            color: self != Palette::NoColour,
            contrast: self == Palette::HighContrast,
        }
    }
}

impl Theme {
    /// Plain text.
    pub fn text(self) -> Style {
        Style::new()
    }

    /// Hints and secondary text.
    pub fn dim(self) -> Style {
        if self.contrast {
            Style::new().fg(Color::Gray)
        } else if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Titles and headings.
    pub fn title(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.contrast {
            style.fg(Color::White).add_modifier(Modifier::UNDERLINED)
        } else if self.color {
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
            (true, Mark::X) if self.contrast => style.fg(Color::LightCyan),
            (true, Mark::O) if self.contrast => style.fg(Color::LightYellow),
            (true, Mark::X) => style.fg(Color::LightBlue),
            (true, Mark::O) => style.fg(Color::LightMagenta),
            (false, _) => style,
        }
    }

    /// The grid lines of the board.
    pub fn grid(self) -> Style {
        if self.contrast {
            Style::new().fg(Color::White)
        } else {
            self.dim()
        }
    }

    /// The cell under the cursor.
    pub fn cursor(self) -> Style {
        if self.contrast {
            Style::new()
                .bg(Color::White)
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD)
        } else if self.color {
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
        if self.contrast {
            Style::new()
                .bg(Color::White)
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD)
        } else if self.color {
            Style::new().bg(Color::Blue).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// Good news: online, your move, a win.
    pub fn good(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.contrast {
            style.fg(Color::LightGreen)
        } else if self.color {
            style.fg(Color::Green)
        } else {
            style
        }
    }

    /// Bad news: offline, errors, a loss.
    pub fn bad(self) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.contrast {
            style.fg(Color::LightRed)
        } else if self.color {
            style.fg(Color::Red)
        } else {
            style
        }
    }
}
