//! The `P` menu: pick one of the players on show, then mute or unmute, block or unblock, or
//! report them (a category and a few words, with the game it points at); its keys and drawing;
//! and whom the player mutes and blocks, with the requests waiting for their answer.

use std::collections::BTreeSet;

use noughts_protocol::{
    ClientFrame, ClientMessage, GameId, PlayerId, Report, ReportCategory, RequestId,
};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::widgets::{dialog, hint_line, truncate};

/// The report categories as the menu offers them, in the protocol's order.
const CATEGORIES: [(ReportCategory, &str); 5] = [
    (ReportCategory::Abuse, "Abuse in chat"),
    (ReportCategory::Spam, "Spam"),
    (ReportCategory::Name, "An offensive name"),
    (ReportCategory::Cheating, "Cheating or stalling"),
    (ReportCategory::Other, "Something else"),
];

/// The longest reason the server takes.
const MAX_REASON: usize = 500;

/// What this player mutes and blocks, and the moderation requests still waiting for an answer.
#[derive(Debug, Default)]
pub struct Moderation {
    /// The players whose chat the server no longer sends us.
    pub muted: BTreeSet<PlayerId>,
    /// The players we are never paired with.
    pub blocked: BTreeSet<PlayerId>,
    /// Our requests not yet answered, by request id, with the name of the player each is about
    /// (for the status line).
    pub(crate) waiting: Vec<(u64, String, ClientMessage)>,
    /// The id the next request carries.
    next_id: u64,
}

impl Moderation {
    /// A request with an id of its own, remembered until its answer comes.
    pub fn ask(&mut self, name: &str, message: ClientMessage) -> ClientFrame {
        self.next_id += 1;
        self.waiting
            .push((self.next_id, name.to_owned(), message.clone()));
        ClientFrame {
            id: Some(RequestId::Number(self.next_id)),
            message,
        }
    }

    /// Takes the request `id` answers off the waiting list: its player's name and the request.
    pub(crate) fn answered(&mut self, id: &Option<RequestId>) -> Option<(String, ClientMessage)> {
        let Some(RequestId::Number(id)) = id else {
            return None;
        };
        let at = self.waiting.iter().position(|(n, _, _)| n == id)?;
        let (_, name, message) = self.waiting.remove(at);
        Some((name, message))
    }

    /// What an `ok` to `message` changes, and the line that says so.
    pub(crate) fn done(&mut self, name: &str, message: &ClientMessage) -> Option<String> {
        Some(match message {
            ClientMessage::Mute { player } => {
                self.muted.insert(*player);
                format!("Muted {name}: their chat is hidden.")
            }
            ClientMessage::Unmute { player } => {
                self.muted.remove(player);
                format!("Unmuted {name}: you see their new chat lines.")
            }
            ClientMessage::Block { player } => {
                self.blocked.insert(*player);
                format!("Blocked {name}: you will not be paired nor join each other's rooms.")
            }
            ClientMessage::Unblock { player } => {
                self.blocked.remove(player);
                format!("Unblocked {name}.")
            }
            ClientMessage::Report(_) => {
                format!("Reported {name} to the server's operator. Thank you.")
            }
            _ => return None,
        })
    }
}

/// A player the menu offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub player: PlayerId,
    pub name: String,
    /// Where the screen shows them: `X`, `O`, `chat`, `seek`, `rank 3`.
    pub role: String,
    /// Whether we mute them, as known when the menu opened.
    pub muted: bool,
    /// Whether we block them, as known when the menu opened.
    pub blocked: bool,
}

impl Person {
    /// As the menu names them: an account by its username, a guest marked as one (the name the
    /// screen gave, mark included).
    fn label(&self) -> String {
        truncate(&self.name, 21)
    }
}

/// Which part of the menu is up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Choosing among several players.
    Pick,
    /// What to do about one player.
    Act(usize),
    /// Writing a report about one player: the category (index into the list) and the reason.
    Report {
        person: usize,
        category: usize,
        reason: String,
    },
}

/// The menu: the players offered, the game a report points at, the selected row and the stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct People {
    pub people: Vec<Person>,
    pub game: Option<GameId>,
    pub selected: usize,
    pub stage: Stage,
}

/// The rows of the `Act` stage, in order: mute, block, report, profile.
const ACTIONS: usize = 4;

impl People {
    /// The menu for `people` (at least one), straight to what to do when there is only one.
    pub fn new(people: Vec<Person>, game: Option<GameId>) -> Option<People> {
        let stage = match people.len() {
            0 => return None,
            1 => Stage::Act(0),
            _ => Stage::Pick,
        };
        Some(People {
            people,
            game,
            selected: 0,
            stage,
        })
    }

    /// Back one stage; `None` when the menu closes.
    fn back(mut self) -> Option<People> {
        self.stage = match self.stage {
            Stage::Report { person, .. } => Stage::Act(person),
            Stage::Act(_) if self.people.len() > 1 => Stage::Pick,
            _ => return None,
        };
        self.selected = 0;
        Some(self)
    }
}

/// The request the `Act` row `row` sends about `person`.
fn act(person: &Person, row: usize) -> Option<ClientMessage> {
    let player = person.player;
    match row {
        0 if person.muted => Some(ClientMessage::Unmute { player }),
        0 => Some(ClientMessage::Mute { player }),
        1 if person.blocked => Some(ClientMessage::Unblock { player }),
        1 => Some(ClientMessage::Block { player }),
        // Not sent as is: the app shows the profile (ratings and games) instead.
        3 => Some(ClientMessage::Profile {
            player: Some(player),
            username: None,
        }),
        _ => None,
    }
}

/// What a key does to the menu: the menu that stays up, and the request to send with the name
/// of the player it is about.
pub fn on_key(
    mut menu: People,
    key: KeyEvent,
) -> (Option<People>, Option<(String, ClientMessage)>) {
    let stay = |menu| (Some(menu), None);
    match menu.stage.clone() {
        Stage::Pick => match key.code {
            KeyCode::Esc | KeyCode::Char('q') => (None, None),
            KeyCode::Up | KeyCode::Char('k') => {
                menu.selected = menu.selected.saturating_sub(1);
                stay(menu)
            }
            KeyCode::Down | KeyCode::Char('j') => {
                menu.selected = (menu.selected + 1).min(menu.people.len() - 1);
                stay(menu)
            }
            KeyCode::Char(d @ '1'..='9') if (d as usize - '1' as usize) < menu.people.len() => {
                menu.stage = Stage::Act(d as usize - '1' as usize);
                menu.selected = 0;
                stay(menu)
            }
            KeyCode::Enter | KeyCode::Right | KeyCode::Char('l') => {
                menu.stage = Stage::Act(menu.selected);
                menu.selected = 0;
                stay(menu)
            }
            _ => stay(menu),
        },
        Stage::Act(index) => {
            let row = match key.code {
                KeyCode::Esc | KeyCode::Left | KeyCode::Char('h') => return (menu.back(), None),
                KeyCode::Char('q') => return (None, None),
                KeyCode::Up | KeyCode::Char('k') => {
                    menu.selected = menu.selected.saturating_sub(1);
                    return stay(menu);
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    menu.selected = (menu.selected + 1).min(ACTIONS - 1);
                    return stay(menu);
                }
                KeyCode::Char('m' | 'u') => 0,
                KeyCode::Char('b') => 1,
                KeyCode::Char('r') => 2,
                KeyCode::Char('p') => 3,
                KeyCode::Enter => menu.selected,
                _ => return stay(menu),
            };
            let person = &menu.people[index];
            match act(person, row) {
                Some(request) => (None, Some((person.name.clone(), request))),
                None => {
                    menu.stage = Stage::Report {
                        person: index,
                        category: 0,
                        reason: String::new(),
                    };
                    stay(menu)
                }
            }
        }
        Stage::Report {
            person,
            mut category,
            mut reason,
        } => {
            match key.code {
                KeyCode::Esc => return (menu.back(), None),
                KeyCode::Enter => {
                    let (category, what) = CATEGORIES[category];
                    // The reason is optional here; the server wants one, so the category's
                    // words stand in for it.
                    let reason = match reason.trim() {
                        "" => what.to_owned(),
                        typed => typed.to_owned(),
                    };
                    let who = &menu.people[person];
                    let request = ClientMessage::Report(Report {
                        player: who.player,
                        category,
                        reason,
                        game: menu.game,
                    });
                    return (None, Some((who.name.clone(), request)));
                }
                KeyCode::Up | KeyCode::Left => {
                    category = (category + CATEGORIES.len() - 1) % CATEGORIES.len();
                }
                KeyCode::Down | KeyCode::Right | KeyCode::Tab => {
                    category = (category + 1) % CATEGORIES.len();
                }
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if !c.is_control() && reason.chars().count() < MAX_REASON => {
                    reason.push(c);
                }
                _ => {}
            }
            menu.stage = Stage::Report {
                person,
                category,
                reason,
            };
            stay(menu)
        }
    }
}

/// Draws the menu in a box over the middle of `area`.
pub fn render(menu: &People, theme: Theme, area: Rect, buf: &mut Buffer) {
    let row = |selected: bool, key: String, text: String| {
        let style = if selected {
            theme.selected()
        } else {
            theme.text()
        };
        Line::from(vec![
            Span::styled(format!(" {key:<3}"), theme.key()),
            Span::styled(text, style),
        ])
    };
    let mut lines = vec![Line::raw("")];
    let (title, hints): (String, &[(&str, &str)]) = match &menu.stage {
        Stage::Pick => {
            for (index, person) in menu.people.iter().enumerate() {
                let text = format!("{:<22}{}", person.label(), person.role);
                lines.push(row(index == menu.selected, (index + 1).to_string(), text));
            }
            (
                "Profile, mute, block or report".to_owned(),
                &[("↑↓", "choose"), ("⏎", "open"), ("Esc", "close")],
            )
        }
        Stage::Act(index) => {
            let person = &menu.people[*index];
            let mute = if person.muted {
                "Unmute: see their chat again"
            } else {
                "Mute: hide their chat"
            };
            let block = if person.blocked {
                "Unblock"
            } else {
                "Block: never paired, no rooms"
            };
            let mute_key = if person.muted { "u" } else { "m" };
            let rows = [
                (mute_key, mute),
                ("b", block),
                ("r", "Report…"),
                ("p", "Profile: ratings and games"),
            ];
            for (i, (key, text)) in rows.into_iter().enumerate() {
                lines.push(row(i == menu.selected, key.to_owned(), text.to_owned()));
            }
            (
                person.label(),
                &[("↑↓", "choose"), ("⏎", "do"), ("Esc", "back")],
            )
        }
        Stage::Report {
            person,
            category,
            reason,
        } => {
            let person = &menu.people[*person];
            lines.push(Line::from(vec![
                Span::styled(" What     ", theme.dim()),
                Span::styled(format!("‹ {} ›", CATEGORIES[*category].1), theme.selected()),
            ]));
            let room = 30;
            let count = reason.chars().count();
            let shown: String = reason.chars().skip(count.saturating_sub(room)).collect();
            lines.push(Line::from(vec![
                Span::styled(" Details  ", theme.dim()),
                Span::styled(format!("{shown}▏"), theme.key()),
            ]));
            let about = match menu.game {
                Some(game) => format!(" (optional) · sent with game #{game}"),
                None => " (optional)".to_owned(),
            };
            lines.push(Line::styled(about, theme.dim()));
            (
                format!("Report {}", person.label()),
                &[("↑↓", "what"), ("⏎", "send"), ("Esc", "back")],
            )
        }
    };
    lines.push(Line::raw(""));
    lines.push(hint_line(hints, theme));
    dialog(&title, lines, 50, theme, area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bo(muted: bool) -> Person {
        Person {
            player: PlayerId(4),
            name: "bo".into(),
            role: "O".into(),
            muted,
            blocked: false,
        }
    }

    fn press(menu: People, code: KeyCode) -> (Option<People>, Option<(String, ClientMessage)>) {
        on_key(menu, KeyEvent::from(code))
    }

    #[test]
    fn one_player_goes_straight_to_what_to_do() {
        let menu = People::new(vec![bo(false)], Some(GameId(7))).unwrap();
        let (stay, sent) = press(menu.clone(), KeyCode::Char('m'));
        assert!(stay.is_none());
        assert_eq!(
            sent,
            Some((
                "bo".into(),
                ClientMessage::Mute {
                    player: PlayerId(4)
                }
            ))
        );
        let muted = People::new(vec![bo(true)], None).unwrap();
        let (_, sent) = press(muted, KeyCode::Enter);
        assert_eq!(
            sent.map(|s| s.1),
            Some(ClientMessage::Unmute {
                player: PlayerId(4)
            })
        );
        assert!(People::new(Vec::new(), None).is_none());
    }

    #[test]
    fn a_report_carries_its_category_reason_and_game() {
        let menu = People::new(vec![bo(false)], Some(GameId(7))).unwrap();
        let (menu, _) = press(menu, KeyCode::Char('r'));
        let (menu, _) = press(menu.unwrap(), KeyCode::Down);
        let mut menu = menu.unwrap();
        for c in "ads".chars() {
            menu = press(menu, KeyCode::Char(c)).0.unwrap();
        }
        let (stay, sent) = press(menu, KeyCode::Enter);
        assert!(stay.is_none());
        assert_eq!(
            sent.map(|s| s.1),
            Some(ClientMessage::Report(Report {
                player: PlayerId(4),
                category: ReportCategory::Spam,
                reason: "ads".into(),
                game: Some(GameId(7)),
            }))
        );
    }

    #[test]
    fn several_players_are_picked_first_and_esc_goes_back() {
        let mut cy = bo(false);
        cy.player = PlayerId(5);
        cy.name = "cy".into();
        let menu = People::new(vec![bo(false), cy], None).unwrap();
        assert_eq!(menu.stage, Stage::Pick);
        let (menu, _) = press(menu, KeyCode::Char('2'));
        let menu = menu.unwrap();
        assert_eq!(menu.stage, Stage::Act(1));
        let (menu, _) = press(menu, KeyCode::Esc);
        assert_eq!(menu.unwrap().stage, Stage::Pick);
    }
}
