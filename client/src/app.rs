//! The application state and the one function that changes it: [`App::update`] takes an
//! [`Event`] (a key, a mouse click, a tick, a message from the network) and returns the
//! [`Effect`]s to carry out. Nothing here touches a terminal or a socket, so the whole client can
//! be driven by tests.

use std::time::{Duration, Instant};

use noughts_protocol::{
    ClientMessage, ClockSpec, ErrorCode, GameId, GameInfo, GameKind, Level, PlayerId, Rating,
    RoomInfo, ServerMessage, Variant, sanitize,
};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use crate::form::{Form, FormKind};
use crate::net::NetEvent;
use crate::game::GameView;
use crate::replay::ReplayView;
use crate::tabs::{self, Tab};
use crate::ui;

/// How long a status line stays up.
const STATUS_FOR: Duration = Duration::from_secs(6);

/// Everything that can happen to the client, merged into one stream.
#[derive(Debug, Clone)]
pub enum Event {
    /// A key was pressed.
    Key(KeyEvent),
    /// The mouse was used.
    Mouse(MouseEvent),
    /// The terminal now has this many columns and rows.
    Resize(u16, u16),
    /// Time passed: clocks and countdowns move on.
    Tick(Instant),
    /// Something happened on the connection.
    Net(NetEvent),
}

/// What the caller must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this request to the server.
    Send(ClientMessage),
    /// Leave the program.
    Quit,
}

/// Which screen is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Lobby,
    Game,
    /// Stepping through a stored game.
    Replay,
}

/// The state of the connection, as shown in the title bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// Trying to connect.
    Connecting,
    /// Welcomed by the server.
    Online,
    /// Lost; trying again at `retry_at`.
    Retrying { reason: String, retry_at: Instant },
    /// Given up: the reason.
    Closed(String),
}

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
}

/// The lobby lists, kept current by the server's lobby messages.
#[derive(Debug, Clone, Default)]
pub struct Lobby {
    /// Public rooms waiting for an opponent.
    pub rooms: Vec<RoomInfo>,
    /// Games being played, war games included.
    pub games: Vec<GameInfo>,
    /// The highlighted row in [`Lobby::entries`].
    pub selected: usize,
    /// Whether the first snapshot has arrived.
    pub loaded: bool,
}

/// One row of the lobby list.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    Room(&'a RoomInfo),
    Game(&'a GameInfo),
}

impl Lobby {
    /// The rows in the order shown: rooms, then the games `me` plays in, then other games with
    /// people, then war games.
    pub fn entries(&self, me: Option<PlayerId>) -> Vec<Entry<'_>> {
        let mine = |g: &GameInfo| me.is_some() && (g.x.player == me || g.o.player == me);
        let mut entries: Vec<Entry<'_>> = self.rooms.iter().map(Entry::Room).collect();
        entries.extend(
            self.games
                .iter()
                .filter(|g| g.kind != GameKind::War && mine(g))
                .map(Entry::Game),
        );
        entries.extend(
            self.games
                .iter()
                .filter(|g| g.kind != GameKind::War && !mine(g))
                .map(Entry::Game),
        );
        entries.extend(
            self.games
                .iter()
                .filter(|g| g.kind == GameKind::War)
                .map(Entry::Game),
        );
        entries
    }

    fn clamp(&mut self) {
        let len = self.rooms.len() + self.games.len();
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    fn upsert_game(&mut self, mut game: GameInfo) {
        game.x.name = sanitize(&game.x.name);
        game.o.name = sanitize(&game.o.name);
        match self.games.iter_mut().find(|g| g.game == game.game) {
            Some(slot) => *slot = game,
            None => {
                self.games.push(game);
                self.games.sort_by_key(|g| g.game);
            }
        }
    }

    fn upsert_room(&mut self, mut room: RoomInfo) {
        room.host = sanitize(&room.host);
        room.code = sanitize(&room.code);
        match self.rooms.iter_mut().find(|r| r.code == room.code) {
            Some(slot) => *slot = room,
            None => self.rooms.push(room),
        }
    }
}

/// The whole client.
#[derive(Debug)]
pub struct App {
    /// The name we asked for; the server's welcome may adjust it.
    pub name: String,
    /// Our public id once welcomed.
    pub player: Option<PlayerId>,
    /// Where the connection stands.
    pub connection: Connection,
    /// The screen that is up.
    pub screen: Screen,
    /// The lobby lists.
    pub lobby: Lobby,
    /// The game on the game screen.
    pub game: Option<GameView>,
    /// The box over the screen, if any.
    pub modal: Option<Modal>,
    /// Whether the help overlay is up.
    pub help: bool,
    /// A line for the footer (an error or a notice) and when it was set.
    pub status: Option<(String, Instant)>,
    /// The latest time the app knows of; set by ticks, so updates are deterministic.
    pub now: Instant,
    /// The terminal size, for mouse hit-testing and layout.
    pub size: (u16, u16),
    /// False under NO_COLOR: draw with modifiers only.
    pub color: bool,
    /// Set once the user asked to leave.
    pub quitting: bool,
    /// A war game of this variant to watch as soon as the lobby arrives (`noughts watch --war`).
    pub want_war: Option<Variant>,
    /// The lobby tab shown.
    pub tab: Tab,
    /// The leaderboard tab.
    pub leaderboard: tabs::Leaderboard,
    /// The history tab.
    pub history: tabs::History,
    /// Our ratings, one per variant: from `welcome`, refreshed after each rated game.
    pub ratings: Vec<Rating>,
    /// The stored game on the replay screen.
    pub replay: Option<ReplayView>,
    /// A game whose record we asked for, to replay when it arrives.
    pub replay_wanted: Option<GameId>,
    /// Whether the client only replays one game (`noughts replay`): leaving the replay quits.
    pub replay_only: bool,
}

impl App {
    /// A client that has not connected yet.
    pub fn new(name: impl Into<String>, now: Instant, color: bool) -> App {
        App {
            name: name.into(),
            player: None,
            connection: Connection::Connecting,
            screen: Screen::Lobby,
            lobby: Lobby::default(),
            game: None,
            modal: None,
            help: false,
            status: None,
            now,
            size: (80, 24),
            color,
            quitting: false,
            want_war: None,
            tab: Tab::Games,
            leaderboard: tabs::Leaderboard::default(),
            history: tabs::History::default(),
            ratings: Vec::new(),
            replay: None,
            replay_wanted: None,
            replay_only: false,
        }
    }

    /// A client that only replays one stored game, with no connection (`noughts replay`).
    pub fn replaying(view: ReplayView, now: Instant, color: bool) -> App {
        let mut app = App::new("", now, color);
        app.replay = Some(view);
        app.replay_only = true;
        app.screen = Screen::Replay;
        app.connection = Connection::Closed(String::new());
        app
    }

    /// Our rating in `variant`, if the server told us.
    pub fn rating(&self, variant: Variant) -> Option<&Rating> {
        self.ratings.iter().find(|r| r.variant == variant)
    }

    /// Handles one event and says what to do about it.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        let mut effects = Vec::new();
        match event {
            Event::Tick(now) => {
                self.now = self.now.max(now);
                if self
                    .status
                    .as_ref()
                    .is_some_and(|(_, at)| self.now.duration_since(*at) > STATUS_FOR)
                {
                    self.status = None;
                }
            }
            Event::Resize(w, h) => self.size = (w, h),
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key, &mut effects),
            Event::Key(_) => {}
            Event::Mouse(mouse) => self.on_mouse(mouse, &mut effects),
            Event::Net(net) => self.on_net(net, &mut effects),
        }
        if self.quitting {
            effects.push(Effect::Quit);
        }
        effects
    }

    /// Shows a line in the footer for a few seconds.
    pub fn say(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), self.now));
    }

    fn on_net(&mut self, net: NetEvent, effects: &mut Vec<Effect>) {
        match net {
            NetEvent::Connecting => {
                if !matches!(self.connection, Connection::Retrying { .. }) {
                    self.connection = Connection::Connecting;
                }
            }
            NetEvent::Lost { reason, retry_in } => {
                self.connection = Connection::Retrying {
                    reason: sanitize(&reason),
                    retry_at: self.now + retry_in,
                };
            }
            NetEvent::Closed(reason) => self.connection = Connection::Closed(sanitize(&reason)),
            NetEvent::Frame(frame) => self.on_message(frame.message, effects),
        }
    }

    fn on_message(&mut self, message: ServerMessage, effects: &mut Vec<Effect>) {
        match message {
            ServerMessage::Welcome {
                player,
                name,
                resumed,
                ratings,
                ..
            } => {
                let again = self.player.is_some();
                self.player = Some(player);
                self.ratings = ratings;
                self.name = sanitize(&name);
                self.connection = Connection::Online;
                if again {
                    self.say(if resumed {
                        "Reconnected."
                    } else {
                        "Reconnected as a new session."
                    });
                }
                // A resumed session keeps its games, subscriptions and rooms, but not its seek.
                if let Some(Modal::Seeking {
                    variant,
                    clock,
                    rated,
                    ..
                }) = &self.modal
                    && again
                {
                    effects.push(Effect::Send(ClientMessage::Seek {
                        variant: *variant,
                        clock: *clock,
                        rated: *rated,
                    }));
                }
                // The tab on show lists what this identity has now.
                if self.tab != Tab::Games && self.screen == Screen::Lobby {
                    self.show_tab(self.tab, effects);
                }
                // A session this client did not start (`noughts history` or a bot with the same
                // identity) may never have subscribed to the lobby.
                if resumed && !again {
                    effects.push(Effect::Send(ClientMessage::SubscribeLobby));
                }
                // A new session starts from nothing: what the old one played or opened is gone.
                if !resumed {
                    effects.push(Effect::Send(ClientMessage::SubscribeLobby));
                    if matches!(self.modal, Some(Modal::Room { .. })) {
                        self.modal = None;
                    }
                    match &self.game {
                        Some(game) if game.is_over() => {}
                        Some(game) if game.you().is_none() => {
                            effects.push(Effect::Send(ClientMessage::Watch {
                                game: game.id(),
                                code: None,
                            }));
                        }
                        Some(game) => {
                            self.say(format!(
                                "The server did not know us any more: game #{} is lost.",
                                game.id()
                            ));
                            self.game = None;
                            self.screen = Screen::Lobby;
                        }
                        None => {}
                    }
                }
            }
            ServerMessage::Error { code, message } => self.on_error(code, &message),
            ServerMessage::Ok | ServerMessage::Pong => {}
            ServerMessage::Lobby { rooms, games } => {
                self.lobby.rooms.clear();
                self.lobby.games.clear();
                for room in rooms {
                    self.lobby.upsert_room(room);
                }
                for game in games {
                    self.lobby.upsert_game(game);
                }
                self.lobby.loaded = true;
                self.lobby.clamp();
                if let Some(variant) = self.want_war.take() {
                    let war = self
                        .lobby
                        .games
                        .iter()
                        .find(|g| g.kind == GameKind::War && g.variant == variant);
                    effects.push(Effect::Send(match war {
                        Some(game) => ClientMessage::Watch {
                            game: game.game,
                            code: None,
                        },
                        None => ClientMessage::StartWar {
                            variant,
                            x_level: Level::Perfect,
                            o_level: Level::Perfect,
                        },
                    }));
                }
            }
            ServerMessage::LobbyGame { game } => {
                self.follow_war(&game, effects);
                self.lobby.upsert_game(game);
            }
            ServerMessage::LobbyGameRemoved { game } => {
                self.lobby.games.retain(|g| g.game != game);
                self.lobby.clamp();
            }
            ServerMessage::LobbyRoom { room } => self.lobby.upsert_room(room),
            ServerMessage::LobbyRoomRemoved { code } => {
                self.lobby.rooms.retain(|r| r.code != code);
                self.lobby.clamp();
            }
            ServerMessage::Seeking { variant, clock } => {
                let rated = matches!(self.modal, Some(Modal::Seeking { rated: true, .. }));
                self.modal = Some(Modal::Seeking {
                    variant,
                    clock,
                    rated,
                    confirmed: true,
                });
            }
            ServerMessage::RoomCreated { code, variant, .. } => {
                let rated = matches!(self.modal, Some(Modal::Room { rated: true, .. }));
                self.modal = Some(Modal::Room {
                    variant,
                    rated,
                    code: Some(sanitize(&code)),
                });
            }
            ServerMessage::Leaderboard {
                variant,
                offset,
                players,
            } => self.leaderboard.receive(variant, offset, players),
            ServerMessage::History {
                player,
                games,
                more,
            } => self.history.receive(player, self.player, games, more),
            ServerMessage::GameRecord(record) => {
                if self.replay_wanted == Some(record.game) {
                    self.replay_wanted = None;
                    match ReplayView::new(*record) {
                        Ok(view) => {
                            self.replay = Some(view);
                            self.screen = Screen::Replay;
                        }
                        Err(err) => self.say(format!("Cannot replay: {err}")),
                    }
                }
            }
            ServerMessage::Profile(profile) => {
                if Some(profile.player) == self.player {
                    self.ratings = profile
                        .variants
                        .iter()
                        .map(|stats| Rating {
                            variant: stats.variant,
                            rating: stats.rating,
                            deviation: stats.deviation,
                            games: stats.rated_games,
                        })
                        .collect();
                }
            }
            ServerMessage::GameState(state) => self.on_game_state(*state, effects),
            ServerMessage::Shutdown { message } => {
                self.say(format!("Server: {}", sanitize(&message)));
            }
            other => {
                let now = self.now;
                if let Some(game) = self.game.as_mut()
                    && game.apply(&other, now)
                    && matches!(other, ServerMessage::GameOver { .. })
                    && game.state.rated
                    && game.you().is_some()
                {
                    // Our ratings moved: ask for them.
                    effects.push(Effect::Send(ClientMessage::Profile { player: None }));
                }
            }
        }
    }

    fn on_game_state(&mut self, state: noughts_protocol::GameState, effects: &mut Vec<Effect>) {
        let Some(view) = GameView::new(state, self.now) else {
            self.say("The server sent a board this client cannot read.");
            return;
        };
        if let Some(old) = &self.game
            && old.id() != view.id()
            && old.you().is_none()
            && !old.is_over()
        {
            effects.push(Effect::Send(ClientMessage::Unwatch { game: old.id() }));
        }
        // A game we play or asked to watch: whatever box was waiting for it is done.
        if matches!(
            self.modal,
            Some(Modal::Seeking { .. } | Modal::Room { .. } | Modal::Form(_) | Modal::JoinCode(_))
        ) {
            self.modal = None;
        }
        self.game = Some(view);
        self.screen = Screen::Game;
        self.status = None;
    }

    fn on_error(&mut self, code: ErrorCode, message: &str) {
        self.say(format!("{}: {}", code, sanitize(message)));
        if code == ErrorCode::NoSuchGame {
            self.replay_wanted = None;
        }
        match (&self.modal, code) {
            (
                Some(Modal::Seeking {
                    confirmed: false, ..
                }),
                _,
            )
            | (Some(Modal::Room { code: None, .. }), _) => self.modal = None,
            (Some(Modal::Seeking { .. }), ErrorCode::NotSeeking) => self.modal = None,
            _ => {}
        }
    }

    fn on_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quitting = true;
            return;
        }
        if self.help {
            if matches!(
                key.code,
                KeyCode::Esc | KeyCode::Char('?' | 'q') | KeyCode::Enter
            ) {
                self.help = false;
            }
            return;
        }
        if let Some(modal) = self.modal.take() {
            self.modal = self.on_modal_key(modal, key, effects);
            return;
        }
        if key.code == KeyCode::Char('?') {
            self.help = true;
            return;
        }
        match self.screen {
            Screen::Lobby => self.on_lobby_key(key, effects),
            Screen::Game => self.on_game_key(key, effects),
            Screen::Replay => self.on_replay_key(key),
        }
    }

    /// Keys while a modal is up; returns the modal that stays up, if any.
    fn on_modal_key(
        &mut self,
        modal: Modal,
        key: KeyEvent,
        effects: &mut Vec<Effect>,
    ) -> Option<Modal> {
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
                        ClientMessage::Seek {
                            variant,
                            clock,
                            rated,
                        } => Some(Modal::Seeking {
                            variant: *variant,
                            clock: *clock,
                            rated: *rated,
                            confirmed: false,
                        }),
                        ClientMessage::CreateRoom { variant, rated, .. } => Some(Modal::Room {
                            variant: *variant,
                            rated: *rated,
                            code: None,
                        }),
                        _ => {
                            self.say("Starting a game against the AI…");
                            None
                        }
                    };
                    effects.push(Effect::Send(request));
                    next
                }
                _ => Some(Modal::Form(form)),
            },
            Modal::JoinCode(mut code) => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter if !code.is_empty() => {
                    effects.push(Effect::Send(ClientMessage::JoinRoom { code }));
                    None
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
                effects.push(Effect::Send(ClientMessage::CancelSeek));
                None
            }
            Modal::Room {
                code: Some(code), ..
            } if matches!(key.code, KeyCode::Esc | KeyCode::Char('q')) => {
                effects.push(Effect::Send(ClientMessage::CloseRoom { code }));
                None
            }
            Modal::Room { code: None, .. } if key.code == KeyCode::Esc => None,
            Modal::ConfirmResign => {
                if let (KeyCode::Char('y' | 'Y') | KeyCode::Enter, Some(game)) =
                    (key.code, &self.game)
                {
                    effects.push(Effect::Send(ClientMessage::Resign { game: game.id() }));
                }
                None
            }
            Modal::Chat(mut text) => match key.code {
                KeyCode::Esc => None,
                KeyCode::Enter => {
                    if let (false, Some(game)) = (text.trim().is_empty(), &self.game) {
                        effects.push(Effect::Send(ClientMessage::Chat {
                            game: game.id(),
                            text,
                        }));
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
            other => Some(other),
        }
    }

    fn on_lobby_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        match key.code {
            KeyCode::Tab => self.show_tab(self.tab.cycle(1), effects),
            KeyCode::BackTab => self.show_tab(self.tab.cycle(-1), effects),
            KeyCode::Char('L') => self.show_tab(Tab::Leaderboard, effects),
            KeyCode::Char('H') => self.show_tab(Tab::History, effects),
            KeyCode::Char('m') => self.modal = Some(Modal::Form(Form::new(FormKind::QuickMatch))),
            KeyCode::Char('a') => self.modal = Some(Modal::Form(Form::new(FormKind::PlayAi))),
            KeyCode::Char('c') => self.modal = Some(Modal::Form(Form::new(FormKind::CreateRoom))),
            KeyCode::Char('i') => self.modal = Some(Modal::JoinCode(String::new())),
            KeyCode::Char('g') => self.watch_war_game(effects),
            _ => match self.tab {
                Tab::Games => self.on_games_key(key, effects),
                Tab::Leaderboard => self.on_leaderboard_key(key, effects),
                Tab::History => self.on_history_key(key, effects),
            },
        }
    }

    /// Shows a lobby tab, asking the server for what it lists.
    pub fn show_tab(&mut self, tab: Tab, effects: &mut Vec<Effect>) {
        self.tab = tab;
        match tab {
            Tab::Games => {}
            Tab::Leaderboard => effects.push(Effect::Send(self.leaderboard.request())),
            Tab::History => {
                let (player, name) = (self.history.player, self.history.name.clone());
                effects.push(Effect::Send(self.history.show(player, name)));
            }
        }
    }

    /// Asks for a stored game's record, to replay it when it arrives.
    pub fn open_replay(&mut self, game: GameId, effects: &mut Vec<Effect>) {
        self.replay_wanted = Some(game);
        effects.push(Effect::Send(ClientMessage::GameRecord { game }));
    }

    fn on_leaderboard_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let step = match key.code {
            KeyCode::Up | KeyCode::Char('k') => Some(-1),
            KeyCode::Down | KeyCode::Char('j') => Some(1),
            KeyCode::PageUp => Some(-10),
            KeyCode::PageDown => Some(10),
            KeyCode::Home => Some(isize::MIN / 2),
            KeyCode::End => Some(isize::MAX / 2),
            _ => None,
        };
        if let Some(delta) = step {
            if let Some(request) = self.leaderboard.move_selection(delta) {
                effects.push(Effect::Send(request));
            }
            return;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.tab = Tab::Games,
            KeyCode::Left | KeyCode::Char('h') => {
                effects.push(Effect::Send(self.leaderboard.change_variant(-1)));
            }
            KeyCode::Right | KeyCode::Char('l') => {
                effects.push(Effect::Send(self.leaderboard.change_variant(1)));
            }
            KeyCode::Enter => {
                if let Some(entry) = self.leaderboard.selected_player() {
                    let player = (Some(entry.player) != self.player).then_some(entry.player);
                    let name = player.map(|_| entry.name.clone());
                    self.tab = Tab::History;
                    effects.push(Effect::Send(self.history.show(player, name)));
                }
            }
            _ => {}
        }
    }

    fn on_history_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let more = match key.code {
            KeyCode::Char('q') | KeyCode::Esc if self.history.player.is_some() => {
                // Back from someone else's games to ours.
                effects.push(Effect::Send(self.history.show(None, None)));
                None
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                self.tab = Tab::Games;
                None
            }
            KeyCode::Up | KeyCode::Char('k') => self.history.move_selection(-1),
            KeyCode::Down | KeyCode::Char('j') => self.history.move_selection(1),
            KeyCode::PageUp => self.history.move_selection(-10),
            KeyCode::PageDown => self.history.move_selection(10),
            KeyCode::Home => self.history.move_selection(isize::MIN / 2),
            KeyCode::End => self.history.move_selection(isize::MAX / 2),
            KeyCode::Enter | KeyCode::Char('r') => {
                if let Some(game) = self.history.selected_game().map(|g| g.game) {
                    self.open_replay(game, effects);
                }
                None
            }
            _ => None,
        };
        if let Some(request) = more {
            effects.push(Effect::Send(request));
        }
    }

    fn on_replay_key(&mut self, key: KeyEvent) {
        // Back to the game when it is the one replayed (`v` once it was over), else the lobby.
        let back = match (&self.game, &self.replay) {
            (Some(game), Some(replay)) if game.id() == replay.id() => Screen::Game,
            _ => Screen::Lobby,
        };
        let Some(replay) = self.replay.as_mut() else {
            self.screen = back;
            return;
        };
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc if self.replay_only => self.quitting = true,
            KeyCode::Char('q') | KeyCode::Esc => {
                self.replay = None;
                self.screen = back;
            }
            KeyCode::Left | KeyCode::Char('h' | 'p') | KeyCode::Backspace => replay.step(-1),
            KeyCode::Right | KeyCode::Char('l' | 'n' | ' ') | KeyCode::Enter => replay.step(1),
            KeyCode::Up | KeyCode::Char('k') | KeyCode::PageUp => replay.step(-5),
            KeyCode::Down | KeyCode::Char('j') | KeyCode::PageDown => replay.step(5),
            KeyCode::Home | KeyCode::Char('g') => replay.jump(false),
            KeyCode::End | KeyCode::Char('G') => replay.jump(true),
            _ => {}
        }
    }

    fn on_games_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let len = self.lobby.rooms.len() + self.lobby.games.len();
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quitting = true,
            KeyCode::Up | KeyCode::Char('k') => {
                self.lobby.selected = self.lobby.selected.saturating_sub(1);
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.lobby.selected = (self.lobby.selected + 1).min(len.saturating_sub(1));
            }
            KeyCode::Home => self.lobby.selected = 0,
            KeyCode::End => self.lobby.selected = len.saturating_sub(1),
            KeyCode::Enter | KeyCode::Char('w') => {
                match self.lobby.entries(self.player).get(self.lobby.selected) {
                    Some(Entry::Room(room)) if key.code == KeyCode::Enter => {
                        effects.push(Effect::Send(ClientMessage::JoinRoom {
                            code: room.code.clone(),
                        }));
                    }
                    Some(Entry::Game(game)) => {
                        effects.push(Effect::Send(ClientMessage::Watch {
                            game: game.game,
                            code: None,
                        }));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn on_game_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let Some(game) = self.game.as_mut() else {
            self.screen = Screen::Lobby;
            return;
        };
        let dims = game.state.variant.dims();
        let (row, col) = (dims - 2, dims - 1);
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.leave_game(effects),
            KeyCode::Up | KeyCode::Char('k') => game.move_cursor(row, -1),
            KeyCode::Down | KeyCode::Char('j') => game.move_cursor(row, 1),
            KeyCode::Left | KeyCode::Char('h') => game.move_cursor(col, -1),
            KeyCode::Right | KeyCode::Char('l') => game.move_cursor(col, 1),
            KeyCode::Char('[') | KeyCode::PageUp | KeyCode::BackTab => game.change_layer(-1),
            KeyCode::Char(']') | KeyCode::PageDown | KeyCode::Tab => game.change_layer(1),
            KeyCode::Enter | KeyCode::Char(' ') => {
                let cell = game.cursor;
                self.place(cell, effects);
            }
            KeyCode::Char(d @ '1'..='9') if game.state.variant == Variant::Classic => {
                let cell = d as usize - '1' as usize;
                game.cursor = cell;
                self.place(cell, effects);
            }
            KeyCode::Char('r') => {
                if game.you().is_none() {
                    self.say("Watchers cannot resign or offer a rematch.");
                } else if game.is_over() {
                    game.rematch_sent = true;
                    effects.push(Effect::Send(ClientMessage::Rematch { game: game.id() }));
                } else {
                    self.modal = Some(Modal::ConfirmResign);
                }
            }
            KeyCode::Char('c') => self.modal = Some(Modal::Chat(String::new())),
            KeyCode::Char('v') if game.is_over() => {
                let id = game.id();
                self.open_replay(id, effects);
            }
            KeyCode::Char('g') if game.you().is_some() && !game.is_over() => {
                self.say("Finish this game first (q goes back to the lobby).");
            }
            KeyCode::Char('g') => self.watch_war_game(effects),
            _ => {}
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, effects: &mut Vec<Effect>) {
        if self.modal.is_some() || self.help {
            return;
        }
        let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        if self.screen == Screen::Replay {
            match mouse.kind {
                MouseEventKind::ScrollDown => self.on_replay_key(KeyEvent::from(KeyCode::Right)),
                MouseEventKind::ScrollUp => self.on_replay_key(KeyEvent::from(KeyCode::Left)),
                _ => {}
            }
            return;
        }
        if self.screen == Screen::Lobby
            && mouse.kind == MouseEventKind::Down(MouseButton::Left)
            && let Some(tab) = ui::lobby::tab_at(area, mouse.column, mouse.row)
        {
            if tab != self.tab {
                self.show_tab(tab, effects);
            }
            return;
        }
        if self.screen == Screen::Lobby && self.tab != Tab::Games {
            match mouse.kind {
                MouseEventKind::ScrollDown => {
                    self.on_lobby_key(KeyEvent::from(KeyCode::Down), effects)
                }
                MouseEventKind::ScrollUp => self.on_lobby_key(KeyEvent::from(KeyCode::Up), effects),
                MouseEventKind::Down(MouseButton::Left) => {
                    // As in the games list: a click selects a row, a second click opens it.
                    let Some(row) = ui::lobby::tab_row_at(self, area, mouse.column, mouse.row)
                    else {
                        return;
                    };
                    let selected = match self.tab {
                        Tab::Leaderboard => &mut self.leaderboard.selected,
                        _ => &mut self.history.selected,
                    };
                    if *selected == row {
                        self.on_lobby_key(KeyEvent::from(KeyCode::Enter), effects);
                    } else {
                        *selected = row;
                    }
                }
                _ => {}
            }
            return;
        }
        if self.screen == Screen::Lobby {
            match mouse.kind {
                MouseEventKind::ScrollDown => {
                    self.on_lobby_key(KeyEvent::from(KeyCode::Down), effects)
                }
                MouseEventKind::ScrollUp => self.on_lobby_key(KeyEvent::from(KeyCode::Up), effects),
                MouseEventKind::Down(MouseButton::Left) => {
                    // A click selects a row; a click on the selected row opens it.
                    if let Some(entry) = ui::lobby::entry_at(self, area, mouse.column, mouse.row) {
                        if entry == self.lobby.selected {
                            self.on_lobby_key(KeyEvent::from(KeyCode::Enter), effects);
                        } else {
                            self.lobby.selected = entry;
                        }
                    }
                }
                _ => {}
            }
            return;
        }
        if mouse.kind != MouseEventKind::Down(MouseButton::Left) {
            return;
        }
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let geometry = ui::board::Geometry::new(game.state.variant, ui::game::board_area(area));
        if let Some(cell) = geometry.cell_at(mouse.column, mouse.row) {
            game.cursor = cell;
            self.place(cell, effects);
        }
    }

    /// Asks to put our mark on `cell`, after the checks the client can make itself.
    fn place(&mut self, cell: usize, effects: &mut Vec<Effect>) {
        let Some(game) = &self.game else { return };
        let refusal = if game.you().is_none() {
            Some("You are watching this game.")
        } else if game.is_over() {
            Some("The game is over: r for a rematch, q for the lobby.")
        } else if !game.my_turn() {
            Some("Not your move yet.")
        } else if game.board.get(cell).is_some() {
            Some("That cell is taken.")
        } else {
            None
        };
        match refusal {
            Some(text) => self.say(text),
            None => effects.push(Effect::Send(ClientMessage::Move {
                game: game.id(),
                cell,
            })),
        }
    }

    /// Back to the lobby; stops watching if we were only watching.
    fn leave_game(&mut self, effects: &mut Vec<Effect>) {
        if let Some(game) = self.game.take() {
            match game.you() {
                None if !game.is_over() => {
                    effects.push(Effect::Send(ClientMessage::Unwatch { game: game.id() }));
                }
                Some(_) if !game.is_over() => self.say(format!(
                    "Game #{} goes on (its clock too): select it in the lobby to return.",
                    game.id()
                )),
                _ => {}
            }
        }
        self.screen = Screen::Lobby;
    }

    /// When the war game on screen has ended and the server starts the next one of the same
    /// variant, watch that one: watchers can leave the machines playing on and on.
    fn follow_war(&mut self, game: &GameInfo, effects: &mut Vec<Effect>) {
        let Some(current) = &self.game else { return };
        let ended_war = self.screen == Screen::Game
            && current.state.kind == GameKind::War
            && current.you().is_none()
            && current.is_over();
        if ended_war
            && game.kind == GameKind::War
            && game.variant == current.state.variant
            && game.game > current.id()
            && !self.lobby.games.iter().any(|g| g.game == game.game)
        {
            effects.push(Effect::Send(ClientMessage::Watch {
                game: game.game,
                code: None,
            }));
        }
    }

    /// Watches the next war game after the one on screen, or starts one if none is running.
    fn watch_war_game(&mut self, effects: &mut Vec<Effect>) {
        let current = self.game.as_ref().map(GameView::id);
        let wars: Vec<GameId> = self
            .lobby
            .games
            .iter()
            .filter(|g| g.kind == GameKind::War)
            .map(|g| g.game)
            .collect();
        let next = wars
            .iter()
            .find(|&&id| current.is_some_and(|c| id > c))
            .or(wars.first())
            .copied();
        match next {
            Some(game) if Some(game) != current => {
                effects.push(Effect::Send(ClientMessage::Watch { game, code: None }));
            }
            Some(_) => self.say("This is the only war game running."),
            None => {
                self.say("No war game is running: starting one.");
                effects.push(Effect::Send(ClientMessage::StartWar {
                    variant: Variant::Classic,
                    x_level: Level::Perfect,
                    o_level: Level::Perfect,
                }));
            }
        }
    }
}
