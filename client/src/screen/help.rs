//! The `?` overlay: every key, by screen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::theme::Theme;
use super::widgets::{centered, clear_band};

/// The keys, in sections.
const SECTIONS: &[(&str, &[(&str, &str)])] = &[
    (
        "Lobby",
        &[
            ("↑↓ j k", "select a room or game"),
            (
                "⏎ or click",
                "join the room / watch the game / open the arena",
            ),
            ("m  a  c", "quick match / play the AI / create room"),
            ("i", "join a room by its invite code"),
            ("g", "watch the AI war games"),
            ("P", "mute, block or report who is selected"),
            (
                "Tab b L H",
                "tabs: all games (b), leaderboard (L), history (H)",
            ),
        ],
    ),
    (
        "All games, leaderboard and history",
        &[
            ("←→", "the variant shown"),
            ("n p PgDn PgUp", "all games: next / previous page"),
            ("⏎", "a player's games / replay the game"),
            ("e", "leaderboard: the engines' league / the players"),
            ("P", "mute, block or report the selected player"),
            ("q Esc", "back"),
        ],
    ),
    (
        "Arena",
        &[
            ("j", "join (again, after withdrawing: the score stays)"),
            ("x", "withdraw: no more pairings"),
            ("w", "watch the arena's best game"),
            ("⏎", "back to your game in play"),
            ("n p PgDn PgUp", "next / previous page of the standings"),
            ("↑↓", "scroll the standings"),
            ("q Esc", "back to the lobby"),
        ],
    ),
    (
        "Replay",
        &[
            ("←→ h l", "one move back / forward"),
            ("↑↓ PgUp PgDn", "five moves back / forward"),
            ("Home End", "the empty board / the final position"),
            ("P", "mute, block or report a player"),
            ("q Esc", "back"),
        ],
    ),
    (
        "Game",
        &[
            ("←↑↓→ hjkl", "move the cursor"),
            ("⏎ space", "place your mark (or click a cell)"),
            ("1…9", "classic: place on that cell, 1 top-left"),
            (":", "type a cell: 5, b3, 2b3 (layer, column, row)"),
            ("[ ] PgUp PgDn", "cubes: previous / next layer"),
            ("r", "resign (asks first); rematch when over"),
            ("d u", "offer or accept a draw / a takeback"),
            ("n  x", "decline their offer / withdraw your own"),
            ("w  =", "opponent gone: claim the win / a draw"),
            ("a", "abort, before both sides have moved"),
            ("v", "once over: replay the game move by move"),
            ("c", "chat (⏎ send, Esc cancel)"),
            ("t", "watching: players' / spectators' chat"),
            ("P", "mute, block or report a player or speaker"),
            ("i", "against the AI: a hint from the engine"),
            ("g", "watching: next war game"),
            ("q Esc", "back to the lobby (your game goes on)"),
        ],
    ),
    (
        "Anywhere",
        &[("?", "this help"), ("ctrl-c", "quit at once")],
    ),
];

/// The screen the help is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Lobby,
    Game,
    Replay,
    Arena,
}

/// The sections that matter on the screen shown.
fn sections(
    page: Page,
) -> impl Iterator<Item = &'static (&'static str, &'static [(&'static str, &'static str)])> {
    let wanted: &[&str] = match page {
        Page::Lobby => &["Lobby", "All games, leaderboard and history", "Anywhere"],
        Page::Game => &["Game", "Anywhere"],
        Page::Replay => &["Replay", "Anywhere"],
        Page::Arena => &["Arena", "Anywhere"],
    };
    SECTIONS
        .iter()
        .filter(move |(title, _)| wanted.contains(title))
}

pub fn render(page: Page, theme: Theme, area: Rect, buf: &mut Buffer) {
    let mut lines = Vec::new();
    for (title, keys) in sections(page) {
        lines.push(Line::styled(format!(" {title}"), theme.title()));
        for (key, what) in *keys {
            lines.push(Line::from(vec![
                Span::styled(format!("  {key:<14}"), theme.key()),
                Span::styled(*what, theme.text()),
            ]));
        }
    }
    // As wide as the longest line, within the terminal; a line still too long wraps.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let width = u16::try_from(widest + 3)
        .unwrap_or(u16::MAX)
        .min(area.width);
    let height = lines.len() as u16 + 2;
    let rect = centered(area, width, height);
    clear_band(rect, area, buf);
    let block = Block::bordered()
        .title(Span::styled(" Help · any key closes ", theme.title()))
        .border_style(theme.title());
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block)
        .render(rect, buf);
}
