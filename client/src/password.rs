//! Asking for a username and passwords: from the terminal with the typed password never echoed
//! (the terminal in raw mode through crossterm, which the screens already use), or, when standard
//! input is not a terminal (a script, a test), one line each from standard input.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context as _, bail};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal;

/// Where answers come from: the terminal (prompts, no echo for passwords) or standard input's
/// lines (no prompts).
#[derive(Debug)]
pub struct Asker {
    /// Whether standard input is a terminal.
    terminal: bool,
    /// Standard input's lines, when it is not one.
    lines: std::io::Lines<std::io::StdinLock<'static>>,
}

impl Default for Asker {
    fn default() -> Self {
        Self::new()
    }
}

impl Asker {
    /// Asks the terminal if standard input is one, else reads standard input's lines.
    pub fn new() -> Asker {
        Asker {
            terminal: std::io::stdin().is_terminal(),
            lines: std::io::stdin().lock().lines(),
        }
    }

    /// A line typed in the open (a username).
    pub fn line(&mut self, prompt: &str) -> anyhow::Result<String> {
        if self.terminal {
            print!("{prompt}");
            std::io::stdout().flush()?;
        }
        let line = self
            .lines
            .next()
            .with_context(|| format!("no answer to {prompt:?} on standard input"))??;
        Ok(line.trim().to_owned())
    }

    /// A password: typed without echo on a terminal, else a line of standard input.
    pub fn password(&mut self, prompt: &str) -> anyhow::Result<String> {
        let password = if self.terminal {
            hidden(prompt)?
        } else {
            let line = self
                .lines
                .next()
                .with_context(|| format!("no answer to {prompt:?} on standard input"))??;
            line.trim_end_matches(['\r', '\n']).to_owned()
        };
        if password.is_empty() {
            bail!("no password given");
        }
        Ok(password)
    }

    /// A new password: asked twice on a terminal (the two must agree), once from standard input.
    pub fn new_password(&mut self, prompt: &str) -> anyhow::Result<String> {
        let password = self.password(prompt)?;
        if self.terminal && self.password("Type it again: ")? != password {
            bail!("the two passwords differ; nothing was changed");
        }
        Ok(password)
    }
}

/// Reads a password from the terminal with echo off: raw mode, so nothing typed is shown;
/// Backspace deletes, Enter ends, Ctrl-C, Ctrl-D (on an empty line) and Esc give up.
fn hidden(prompt: &str) -> anyhow::Result<String> {
    print!("{prompt}");
    std::io::stdout().flush()?;
    terminal::enable_raw_mode().context("cannot turn the terminal's echo off")?;
    let read = read_hidden();
    let _ = terminal::disable_raw_mode();
    println!();
    read?.context("cancelled")
}

/// The keys up to Enter; `None` when given up.
fn read_hidden() -> anyhow::Result<Option<String>> {
    let mut password = String::new();
    loop {
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match edit(&mut password, key) {
            Edit::More => {}
            Edit::Done => return Ok(Some(password)),
            Edit::Cancelled => return Ok(None),
        }
    }
}

/// What a key did to a password being typed.
#[derive(Debug, PartialEq, Eq)]
enum Edit {
    More,
    Done,
    Cancelled,
}

/// Applies one key to `password`.
fn edit(password: &mut String, key: KeyEvent) -> Edit {
    let control = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Enter => Edit::Done,
        KeyCode::Esc => Edit::Cancelled,
        KeyCode::Char('c') if control => Edit::Cancelled,
        KeyCode::Char('d') if control && password.is_empty() => Edit::Cancelled,
        KeyCode::Char('u') if control => {
            password.clear();
            Edit::More
        }
        KeyCode::Char(c) if !control => {
            password.push(c);
            Edit::More
        }
        KeyCode::Backspace => {
            password.pop();
            Edit::More
        }
        _ => Edit::More,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn keys_edit_a_password_as_a_line_is_edited() {
        let mut password = String::new();
        for c in "secrex".chars() {
            assert_eq!(
                edit(&mut password, key(KeyCode::Char(c), KeyModifiers::NONE)),
                Edit::More
            );
        }
        edit(&mut password, key(KeyCode::Backspace, KeyModifiers::NONE));
        edit(&mut password, key(KeyCode::Char('T'), KeyModifiers::SHIFT));
        assert_eq!(password, "secreT");
        assert_eq!(
            edit(&mut password, key(KeyCode::Enter, KeyModifiers::NONE)),
            Edit::Done
        );
        edit(
            &mut password,
            key(KeyCode::Char('u'), KeyModifiers::CONTROL),
        );
        assert_eq!(password, "");
        assert_eq!(
            edit(
                &mut password,
                key(KeyCode::Char('d'), KeyModifiers::CONTROL)
            ),
            Edit::Cancelled
        );
        assert_eq!(
            edit(
                &mut password,
                key(KeyCode::Char('c'), KeyModifiers::CONTROL)
            ),
            Edit::Cancelled
        );
    }
}
