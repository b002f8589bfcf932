//! Mute, block and report from the terminal: the players this player mutes and blocks asked of
//! the server after every `welcome` and kept current from the answers to our own requests, the
//! people the `P` menu offers on each screen, and what an answer changes (a muted player's lines
//! leave the chat on show). The state itself is [`crate::screen::people::Moderation`].

use noughts_protocol::{ClientMessage, GameId, PlayerId, ServerFrame, ServerMessage};
use ratatui::crossterm::event::KeyEvent;

use crate::app::{App, Connection, Effect, Screen};
use crate::names::shown;
use crate::screen::action::Action;
use crate::screen::lobby::Entry;
use crate::screen::modal::Modal;
use crate::screen::people::{self, People, Person};
use crate::screen::tab::Tab;

/// How many of a game's latest chat speakers the menu offers beside its two seats.
const SPEAKERS: usize = 6;

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
        effects.push(Effect::Request(
            self.moderation.ask("", ClientMessage::ModerationList),
        ));
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
                    "Select a seek, a room or a game with other people in it."
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
        match asked {
            // The profile row: the player's ratings and games, on the history tab.
            Some((name, ClientMessage::Profile { player, .. })) => {
                // Off the game (which goes on, or is no longer watched) or the replay first.
                self.replay = None;
                if self.game.is_some() {
                    self.apply(Action::LeaveGame, effects);
                }
                self.screen = Screen::Lobby;
                let action = Action::ShowHistory {
                    player: player.filter(|&p| Some(p) != self.player),
                    name: Some(name),
                };
                self.apply(action, effects);
            }
            Some((name, message)) => {
                effects.push(Effect::Request(self.moderation.ask(&name, message)));
            }
            None => {}
        }
    }

    /// The players the screen on show names (id, name, where), and the game a report would
    /// point at; AI seats have no id and are left out.
    fn people_shown(&self) -> (Vec<(PlayerId, String, String)>, Option<GameId>) {
        let mut found = Vec::new();
        let mut seat = |seat: &noughts_protocol::SeatInfo, role: &str| {
            if let Some(player) = seat.player {
                found.push((
                    player,
                    shown(&seat.name, seat.guest, seat.bot),
                    role.to_owned(),
                ));
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
                    line.player.map(|player| {
                        (
                            player,
                            shown(&line.from, line.guest, line.bot),
                            "chat".to_owned(),
                        )
                    })
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
                        found.push((
                            player,
                            shown(&seat.name, seat.guest, seat.bot),
                            role.to_owned(),
                        ));
                    }
                }
                Some(replay.record.game)
            }
            (Screen::Lobby, Tab::Games) => match self.lobby.entries().get(self.lobby.selected) {
                Some(Entry::Seek(seek)) => {
                    found.push((
                        seek.player,
                        shown(&seek.name, seek.guest, seek.bot),
                        "seek".to_owned(),
                    ));
                    None
                }
                Some(Entry::Mine(info) | Entry::Featured(info) | Entry::War(info)) => {
                    seat(&info.x, "X");
                    seat(&info.o, "O");
                    Some(info.game)
                }
                Some(Entry::Room(room)) => {
                    // Servers older than moderation do not name a room's host by id.
                    if let Some(player) = room.player {
                        found.push((
                            player,
                            shown(&room.host, room.guest, room.bot),
                            "room".to_owned(),
                        ));
                    }
                    None
                }
                Some(Entry::Arena(_)) | None => None,
            },
            (Screen::Arena, _) => None,
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
                        found.push((
                            player,
                            shown(&seat.name, seat.guest, seat.bot),
                            role.to_owned(),
                        ));
                    }
                }
                summary.game
            }),
        };
        (found, game)
    }
}
