//! The terminal: raw mode, the alternate screen and mouse capture on the way in, all undone on the
//! way out, on error, and on panic (a panic hook restores the terminal before the message prints).

use std::io::{self, Stdout, stdout};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

/// The terminal the client draws on.
pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Takes over the terminal. Call [`restore`] when done; a panic restores it too.
pub fn init() -> io::Result<Tui> {
    install_panic_hook();
    enable_raw_mode()?;
    if let Err(err) = execute!(stdout(), EnterAlternateScreen, EnableMouseCapture) {
        restore();
        return Err(err);
    }
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    terminal.hide_cursor()?;
    terminal.clear()?;
    Ok(terminal)
}

/// Gives the terminal back: cooked mode, main screen, no mouse capture, visible cursor. Safe to
/// call more than once.
pub fn restore() {
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
