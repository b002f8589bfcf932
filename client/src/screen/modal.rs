//! The boxes over a screen: forms, the invite code, waiting for an opponent, confirmations, a chat
//! line being typed. What each one is, what its keys do, and how it is drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use noughts_protocol::{ClientMessage, ClockSpec, CreateRoom, GameId, Seek, Variant};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::people::{self, People};
use super::theme::Theme;
use super::widgets::{dialog, hint_line};
use crate::form::{CLOCKS, Form};

/// A box over the screen that takes the keys until it is closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Modal {
    /// Choosing what to ask for.
    Form(Form),
    /// Typing an invite code.
    JoinCode(String),
    /// Waiting for a quick-match opponent.
    Seeking {
        variant: Variant,
        clock: Option<ClockSpec>,
        /// Whether the game will count for ratings.
        rated: bool,
        /// Whether a bot account may be the opponent.
        bots: bool,
        /// Whether the server has confirmed the seek.
        confirmed: bool,
    },
    /// A room is open (or being opened) and waits for someone to join.
    Room {
        variant: Variant,
        /// Whether the game will count for ratings.
        rated: bool,
        /// The invite code, once the server has sent it.
        code: Option<String>,
    },
    /// "Resign this game?"
    ConfirmResign,
    /// Typing a chat line.
    Chat(String),
    /// Typing a cell's name (`:` in a game): 1 to 9, `b3`, `2b3`.
    Cell { variant: Variant, text: String },
    /// Mute, block or report one of the players on show (`P`); its keys are the app's, which
    /// knows whom we mute and block.
    People(People),
}

/// What a key did to a box: the box that stays up, a request to send, a line to show.
#[derive(Debug)]
pub struct ModalKey {
    pub stay: Option<Modal>,
    pub send: Option<ClientMessage>,
    pub say: Option<&'static str>,
}

/// What a key does while a box is up: the box that stays up (if any), the request to send and the
/// line to show. `game` is the game on screen, which a resignation or a chat line is for.
pub fn on_key(modal: Modal, key: KeyEvent, game: Option<GameId>) -> ModalKey {
    let mut send = None;
    let mut say = None;
    let stay = {
        match modal {
            Modal::Form(mut form) => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => None,
                KeyCode::Up | KeyCode::Char('k') | KeyCode::BackTab => {
                    form.move_focus(-1);
                    Some(Modal::Form(form))
                }
                KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                    form.move_focus(1);
                    Some(Modal::Form(form))
                }
                KeyCode::Left | KeyCode::Char('h') => {
                    form.change(-1);
                    Some(Modal::Form(form))
                }
                KeyCode::Right | KeyCode::Char('l' | ' ') => {
                    form.change(1);
                    Some(Modal::Form(form))
                }
                KeyCode::Enter => {
                    let request = form.request();
                    let next = match &request {
                        ClientMessage::Seek(Seek {
                            variant,
                            clock,
                            rated,
                            bots,
                        }) => Some(Modal::Seeking {
                            variant: *variant,
                            clock: *clock,
                            rated: *rated,
                            bots: *bots,
                            confirmed: false,
                        }),
                        ClientMessage::CreateRoom(CreateRoom { variant, rated, .. }) => {
                            Some(Modal::Room {
                                variant: *variant,
                                rated: *rated,
                                code: None,
                            })
                        }
                        _ => {
                            say = Some("Starting a game against the AI…");
                            None
                        }
                    };
                    send = Some(request);
                    next
                }
                _ => Some(Modal::Form(form)),
            },
            Modal::JoinCode(mut code) => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter if !code.is_empty() => {
                    // The box stays with what was typed: a mistyped code is corrected, not
                    // typed again; the game, when it starts, closes it.
                    send = Some(ClientMessage::JoinRoom { code: code.clone() });
                    Some(Modal::JoinCode(code))
                }
                KeyCode::Backspace => {
                    code.pop();
                    Some(Modal::JoinCode(code))
                }
                KeyCode::Char(c) if (c.is_ascii_alphanumeric() || c == '-') && code.len() < 16 => {
                    code.push(c.to_ascii_uppercase());
                    Some(Modal::JoinCode(code))
                }
                _ => Some(Modal::JoinCode(code)),
            },
            Modal::Seeking { .. } if matches!(key.code, KeyCode::Esc | KeyCode::Char('q')) => {
                send = Some(ClientMessage::CancelSeek);
                None
            }
            Modal::Room {
                code: Some(code), ..
            } if matches!(key.code, KeyCode::Esc | KeyCode::Char('q')) => {
                send = Some(ClientMessage::CloseRoom { code });
                None
            }
            Modal::Room { code: None, .. } if key.code == KeyCode::Esc => None,
            Modal::ConfirmResign => {
                if let (KeyCode::Char('y' | 'Y') | KeyCode::Enter, Some(game)) = (key.code, game) {
                    send = Some(ClientMessage::Resign { game });
                }
                None
            }
            Modal::Chat(mut text) => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter => {
                    if let (false, Some(game)) = (text.trim().is_empty(), game) {
                        send = Some(ClientMessage::Chat { game, text });
                    }
                    None
                }
                KeyCode::Backspace => {
                    text.pop();
                    Some(Modal::Chat(text))
                }
                KeyCode::Char(c)
                    if !c.is_control()
                        && text.chars().count() < noughts_protocol::MAX_CHAT_CHARS =>
                {
                    text.push(c);
                    Some(Modal::Chat(text))
                }
                _ => Some(Modal::Chat(text)),
            },
            Modal::Cell { variant, mut text } => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter => match (crate::notation::parse_cell(variant, &text), game) {
                    (Some(cell), Some(game)) => {
                        send = Some(ClientMessage::Move { game, cell });
                        None
                    }
                    (Some(_), None) => None,
                    (None, _) => {
                        say = Some(crate::notation::cell_hint(variant));
                        Some(Modal::Cell { variant, text })
                    }
                },
                KeyCode::Backspace => {
                    text.pop();
                    Some(Modal::Cell { variant, text })
                }
                KeyCode::Char(c) if c.is_ascii_alphanumeric() && text.len() < 4 => {
                    text.push(c.to_ascii_lowercase());
                    Some(Modal::Cell { variant, text })
                }
                _ => Some(Modal::Cell { variant, text }),
            },
            other => Some(other),
        }
    };
    ModalKey { stay, send, say }
}

pub fn render(modal: &Modal, theme: Theme, area: Rect, buf: &mut Buffer) {
    let (title, lines, width): (&str, Vec<Line<'_>>, u16) = match modal {
        Modal::Form(form) => (form.kind.title(), form_lines(form, theme), 46),
        Modal::JoinCode(code) => (
            "Join a room",
            vec![
                Line::raw(""),
                Line::from(vec![
                    Span::styled(" Invite code: ", theme.text()),
                    Span::styled(format!("{code}▏"), theme.key()),
                ]),
                Line::raw(""),
                hint_line(&[("⏎", "join"), ("Esc", "cancel")], theme),
            ],
            40,
        ),
        Modal::Seeking {
            variant,
            clock,
            rated,
            confirmed,
            ..
        } => {
            let rated = if *rated { "rated" } else { "casual" };
            let clock = CLOCKS
                .iter()
                .find(|(_, c)| c == clock)
                .map_or("custom clock", |(label, _)| label);
            let state = if *confirmed {
                "Looking for an opponent…"
            } else {
                "Asking the server…"
            };
            (
                "Quick match",
                vec![
                    Line::raw(""),
                    Line::styled(format!(" {state}"), theme.text()),
                    Line::styled(format!(" {variant}, {clock}, {rated}"), theme.dim()),
                    Line::raw(""),
                    hint_line(&[("Esc", "stop looking")], theme),
                ],
                40,
            )
        }
        Modal::Room {
            variant,
            rated,
            code,
        } => {
            let mut lines = vec![Line::raw("")];
            let rated = if *rated { "rated" } else { "casual" };
            match code {
                Some(code) => {
                    lines.push(Line::styled(
                        format!(" Your {rated} {variant} room is open. Invite code:"),
                        theme.text(),
                    ));
                    lines.push(Line::raw(""));
                    lines.extend(
                        big_text(code)
                            .into_iter()
                            .map(|row| Line::styled(format!("   {row}"), theme.key())),
                    );
                    lines.push(Line::raw(""));
                    lines.push(Line::from(vec![
                        Span::styled(format!("   {code}"), theme.title()),
                        Span::styled("  (they press i and type it)", theme.dim()),
                    ]));
                    lines.push(Line::styled(
                        "   Also copied to your clipboard, if allowed.",
                        theme.dim(),
                    ));
                    lines.push(Line::raw(""));
                    lines.push(Line::styled(
                        " The game starts when they join.",
                        theme.dim(),
                    ));
                    lines.push(hint_line(&[("Esc", "close the room")], theme));
                }
                None => {
                    lines.push(Line::styled(" Opening a room…", theme.text()));
                    lines.push(Line::raw(""));
                }
            }
            ("Room", lines, 56)
        }
        Modal::ConfirmResign => (
            "Resign?",
            vec![
                Line::raw(""),
                Line::styled(" Resign this game? The opponent wins.", theme.text()),
                Line::raw(""),
                hint_line(&[("y", "resign"), ("n Esc", "keep playing")], theme),
            ],
            42,
        ),
        // Chat is typed into the chat pane itself.
        Modal::Chat(_) => return,
        Modal::People(menu) => return people::render(menu, theme, area, buf),
        Modal::Cell { variant, text } => (
            "Play on",
            vec![
                Line::raw(""),
                Line::from(vec![
                    Span::styled(" Cell: ", theme.text()),
                    Span::styled(format!("{text}▏"), theme.key()),
                ]),
                Line::styled(
                    format!(" {}", crate::notation::cell_hint(*variant)),
                    theme.dim(),
                ),
                hint_line(&[("⏎", "play"), ("Esc", "cancel")], theme),
            ],
            58,
        ),
    };
    dialog(title, lines, width, theme, area, buf);
}

fn form_lines<'a>(form: &Form, theme: Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::raw("")];
    for (index, field) in form.fields().iter().enumerate() {
        let focused = index == form.focus;
        let value = form.value(*field);
        let value = if focused {
            format!("‹ {value} ›")
        } else {
            format!("  {value}  ")
        };
        let style = if focused {
            theme.selected()
        } else {
            theme.text()
        };
        let mut spans = vec![
            Span::styled(format!(" {:<9}", field.label()), theme.dim()),
            Span::styled(value, style),
        ];
        if *field == crate::form::Field::Level
            && let Some(rated) = form.level_rating()
        {
            spans.push(Span::styled(format!(" {rated}"), theme.dim()));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    lines.push(hint_line(
        &[
            ("↑↓", "field"),
            ("←→", "change"),
            ("⏎", "go"),
            ("Esc", "cancel"),
        ],
        theme,
    ));
    lines
}

/// The text in a 3-row block font (letters and digits; anything else as a blank).
fn big_text(text: &str) -> [String; 3] {
    let mut rows = [String::new(), String::new(), String::new()];
    for c in text.chars() {
        let glyph = big_glyph(c.to_ascii_uppercase());
        for (row, part) in rows.iter_mut().zip(glyph) {
            row.push_str(part);
            row.push(' ');
        }
    }
    rows
}

fn big_glyph(c: char) -> [&'static str; 3] {
    match c {
        'A' => ["▄▀▄", "█▀█", "▀ ▀"],
        'B' => ["█▀▄", "█▀▄", "▀▀ "],
        'C' => ["█▀▀", "█  ", "▀▀▀"],
        'D' => ["█▀▄", "█ █", "▀▀ "],
        'E' => ["█▀▀", "█▀▀", "▀▀▀"],
        'F' => ["█▀▀", "█▀ ", "▀  "],
        'G' => ["█▀▀", "█ █", "▀▀▀"],
        'H' => ["█ █", "█▀█", "▀ ▀"],
        'I' => ["▀█▀", " █ ", "▀▀▀"],
        'J' => ["  █", "  █", "▀▀ "],
        'K' => ["█ █", "█▀▄", "▀ ▀"],
        'L' => ["█  ", "█  ", "▀▀▀"],
        'M' => ["█▄█", "█ █", "▀ ▀"],
        'N' => ["█▀█", "█ █", "▀ ▀"],
        'O' | '0' => ["█▀█", "█ █", "▀▀▀"],
        'P' => ["█▀█", "█▀▀", "▀  "],
        'Q' => ["█▀█", "█ █", "▀▀█"],
        'R' => ["█▀█", "█▀▄", "▀ ▀"],
        'S' | '5' => ["█▀▀", "▀▀█", "▀▀▀"],
        'T' => ["▀█▀", " █ ", " ▀ "],
        'U' => ["█ █", "█ █", "▀▀▀"],
        'V' => ["█ █", "█ █", " ▀ "],
        'W' => ["█ █", "█ █", "▀▄▀"],
        'X' => ["▀▄▀", "▄▀▄", "▀ ▀"],
        'Y' => ["█ █", " █ ", " ▀ "],
        'Z' => ["▀▀█", "▄▀ ", "▀▀▀"],
        '-' => ["  ", "▀▀", "  "],
        '1' => ["▄█ ", " █ ", "▀▀▀"],
        '2' => ["▀▀█", "█▀▀", "▀▀▀"],
        '3' => ["▀▀█", " ▀█", "▀▀▀"],
        '4' => ["█ █", "▀▀█", "  ▀"],
        '6' => ["█▀▀", "█▀█", "▀▀▀"],
        '7' => ["▀▀█", "  █", "  ▀"],
        '8' => ["█▀█", "█▀█", "▀▀▀"],
        '9' => ["█▀█", "▀▀█", "▀▀▀"],
        _ => ["   ", "   ", "   "],
    }
}
