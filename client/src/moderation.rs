//! Mute, block and report from the terminal: the players this player mutes and blocks (asked of
//! the server after every `welcome`, kept current from the answers to our own requests), the
//! requests waiting for their `ok`, the people the `P` menu offers on each screen, and what an
//! answer changes (a muted player's lines leave the chat on show).

use std::collections::BTreeSet;

use noughts_protocol::{
    ClientFrame, ClientMessage, GameId, PlayerId, RequestId, ServerFrame, ServerMessage,
};
use ratatui::crossterm::event::KeyEvent;

use crate::app::{App, Connection, Effect, Screen};
use crate::screen::lobby::Entry;
use crate::screen::modal::Modal;
use crate::screen::people::{self, People, Person};
use crate::screen::tab::Tab;

/// How many of a game's latest chat speakers the menu offers beside its two seats.
const SPEAKERS: usize = 6;

/// What this player mutes and blocks, and the moderation requests still waiting for an answer.
#[derive(Debug, Default)]
pub struct Moderation {
    /// The players whose chat the server no longer sends us.
    pub muted: BTreeSet<PlayerId>,
    /// The players we are never paired with.
    pub blocked: BTreeSet<PlayerId>,
    /// Our requests not yet answered, by request id, with the name of the player each is about
    /// (for the status line).
    waiting: Vec<(u64, String, ClientMessage)>,
    /// The id the next request carries.
    next_id: u64,
}

impl Moderation {
    /// A request with an id of its own, remembered until its answer comes.
    pub fn ask(&mut self, name: &str, message: ClientMessage) -> Effect {
        self.next_id += 1;
        self.waiting
            .push((self.next_id, name.to_owned(), message.clone()));
        Effect::Request(ClientFrame {
            id: Some(RequestId::Number(self.next_id)),
            message,
        })
    }

    /// Takes the request `id` answers off the waiting list: its player's name and the request.
    fn answered(&mut self, id: &Option<RequestId>) -> Option<(String, ClientMessage)> {
        let Some(RequestId::Number(id)) = id else {
            return None;
        };
        let at = self.waiting.iter().position(|(n, _, _)| n == id)?;
        let (_, name, message) = self.waiting.remove(at);
        Some((name, message))
    }

    /// What an `ok` to `message` changes, and the line that says so.
    fn done(&mut self, name: &str, message: &ClientMessage) -> Option<String> {
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
            ClientMessage::Report { .. } => {
                format!("Reported {name} to the server's operator. Thank you.")
            }
            _ => return None,
        })
    }
}

impl App {
    /// Handles a frame that concerns moderation (the answer to one of our requests, the list of
    /// those we mute and block, a chat line of a muted player) and passes any other on.
    pub(crate) fn moderation_frame(&mut self, frame: ServerFrame) -> Option<ServerFrame> {
        match &frame.message {
            ServerMessage::ModerationList { muted, blocked } => {
                self.moderation.muted = muted.iter().map(|p| p.player).collect();
                self.moderation.blocked = blocked.iter().map(|p| p.player).collect();
                self.moderation.answered(&frame.id);
                self.drop_muted_chat();
                None
            }
            ServerMessage::Chat { line, .. }
                if line
                    .player
                    .is_some_and(|p| self.moderation.muted.contains(&p)) =>
            {
                None
            }
            ServerMessage::Ok => {
                let (name, message) = self.moderation.answered(&frame.id)?;
                if let Some(text) = self.moderation.done(&name, &message) {
                    self.say(text);
                }
                self.drop_muted_chat();
                None
            }
            ServerMessage::Error { .. } => {
                // Refused: nothing changed; the error shows in the status line as any other.
                self.moderation.answered(&frame.id);
                Some(frame)
            }
            _ => Some(frame),
        }
    }

    /// Asks for the players we mute and block (after every `welcome`: the identity may differ).
    /// What was asked on a lost connection will not be answered.
    pub(crate) fn ask_moderation_list(&mut self, effects: &mut Vec<Effect>) {
        self.moderation.waiting.clear();
        effects.push(self.moderation.ask("", ClientMessage::ModerationList));
    }

    /// Takes the lines of players we mute out of every game's chat we hold, as the server
    /// would not send them now.
    fn drop_muted_chat(&mut self) {
        let muted = &self.moderation.muted;
        for game in self.game.iter_mut().chain(self.own.iter_mut()) {
            game.state
                .chat
                .retain(|line| !line.player.is_some_and(|p| muted.contains(&p)));
        }
    }

    /// The `P` key: the menu for the players on show, or a line saying there is nobody.
    pub(crate) fn open_people(&mut self) {
        if self.connection != Connection::Online {
            self.say("Not connected: mute, block and report need the server.");
            return;
        }
        let (found, game) = self.people_shown();
        let people: Vec<Person> = found
            .into_iter()
            .filter(|(player, _, _)| Some(*player) != self.player)
            .fold(Vec::new(), |mut people, (player, name, role)| {
                if !people.iter().any(|p: &Person| p.player == player) {
                    people.push(Person {
                        player,
                        name,
                        role,
                        muted: self.moderation.muted.contains(&player),
                        blocked: self.moderation.blocked.contains(&player),
                    });
                }
                people
            });
        match People::new(people, game) {
            Some(menu) => self.modal = Some(Modal::People(menu)),
            None => self.say(match (self.screen, self.tab) {
                (Screen::Lobby, Tab::Games) => {
                    "Select a seek or a game with other people in it (a room's host shows once \
                     you play them)."
                }
                _ => "Nobody here to mute, block or report (never yourself nor the AI).",
            }),
        }
    }

    /// A key while the `P` menu is up.
    pub(crate) fn people_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let Some(Modal::People(menu)) = self.modal.take() else {
            return;
        };
        let (stay, asked) = people::on_key(menu, key);
        self.modal = stay.map(Modal::People);
        if let Some((name, message)) = asked {
            effects.push(self.moderation.ask(&name, message));
        }
    }

    /// The players the screen on show names (id, name, where), and the game a report would
    /// point at; AI seats have no id and are left out.
    fn people_shown(&self) -> (Vec<(PlayerId, String, String)>, Option<GameId>) {
        let mut found = Vec::new();
        let mut seat = |seat: &noughts_protocol::SeatInfo, role: &str| {
            if let Some(player) = seat.player {
                found.push((player, seat.name.clone(), role.to_owned()));
            }
        };
        let game = match (self.screen, self.tab) {
            (Screen::Game, _) => {
                let Some(view) = &self.game else {
                    return (found, None);
                };
                seat(&view.state.x, "X");
                seat(&view.state.o, "O");
                let speakers = view.state.chat.iter().rev().filter_map(|line| {
                    line.player
                        .map(|player| (player, line.from.clone(), "chat".to_owned()))
                });
                let seats = found.len();
                for speaker in speakers {
                    if found.len() >= seats + SPEAKERS {
                        break;
                    }
                    if !found.iter().any(|(p, _, _)| *p == speaker.0) {
                        found.push(speaker);
                    }
                }
                Some(view.id())
            }
            (Screen::Replay, _) => {
                let Some(replay) = &self.replay else {
                    return (found, None);
                };
                for (seat, role) in [(&replay.record.x, "X"), (&replay.record.o, "O")] {
                    if let Some(player) = seat.player {
                        found.push((player, seat.name.clone(), role.to_owned()));
                    }
                }
                Some(replay.record.game)
            }
            (Screen::Lobby, Tab::Games) => match self.lobby.entries().get(self.lobby.selected) {
                Some(Entry::Seek(seek)) => {
                    found.push((seek.player, seek.name.clone(), "seek".to_owned()));
                    None
                }
                Some(Entry::Mine(info) | Entry::Featured(info) | Entry::War(info)) => {
                    seat(&info.x, "X");
                    seat(&info.o, "O");
                    Some(info.game)
                }
                Some(Entry::Room(_)) | None => None,
            },
            (Screen::Lobby, Tab::Browse) => {
                let info = self
                    .browse
                    .games
                    .as_ref()
                    .and_then(|games| games.get(self.browse.selected));
                info.map(|info| {
                    seat(&info.x, "X");
                    seat(&info.o, "O");
                    info.game
                })
            }
            (Screen::Lobby, Tab::Leaderboard) => {
                if let Some(entry) = self.leaderboard.selected_player() {
                    let role = format!("rank {}", entry.rank);
                    found.push((entry.player, entry.name.clone(), role));
                }
                None
            }
            (Screen::Lobby, Tab::History) => self.history.selected_game().map(|summary| {
                for (seat, role) in [(&summary.x, "X"), (&summary.o, "O")] {
                    if let Some(player) = seat.player {
                        found.push((player, seat.name.clone(), role.to_owned()));
                    }
                }
                summary.game
            }),
        };
        (found, game)
    }
}
