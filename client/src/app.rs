//! The application state and the one function that changes it: [`App::update`] takes an
//! [`Event`] (a key, a mouse click, a tick, a message from the network) and returns the
//! [`Effect`]s to carry out. Nothing here touches a terminal or a socket, so the whole client can
//! be driven by tests.

use std::time::{Duration, Instant};

use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, GameId, PlayerId, Rating, ServerMessage, Variant,
};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub use crate::event::Event;
use crate::game::GameView;
use crate::net::NetEvent;
use crate::replay::ReplayView;
use crate::screen::action::Action;
use crate::screen::arena::Arena;
use crate::screen::browse::Browse;
use crate::screen::history::History;
use crate::screen::leaderboard::Leaderboard;
use crate::screen::listing::Snapshot;
use crate::screen::lobby::{Lobby, LobbyView};
use crate::screen::modal::Modal;
use crate::screen::people::Moderation;
use crate::screen::tab::Tab;
use crate::screen::{arena, game, lobby, modal, replay};

/// How long a status line stays up.
const STATUS_FOR: Duration = Duration::from_secs(6);

/// What the caller must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this request to the server.
    Send(ClientMessage),
    /// Send this request with its id, for an answer that must be told apart.
    Request(ClientFrame),
    /// Put this text on the clipboard, through the terminal (OSC 52), where it allows that.
    Copy(String),
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
    /// An arena's standings.
    Arena,
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

/// The whole client.
#[derive(Debug)]
pub struct App {
    /// The name we asked for; the server's welcome may adjust it (an account's is its username).
    pub name: String,
    /// Whether we play as an account (the welcome carried its username), not as a guest.
    pub account: bool,
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
    /// The high-contrast colours (`--theme high-contrast`).
    pub contrast: bool,
    /// Set once the user asked to leave.
    pub quitting: bool,
    /// A war game of this variant to watch as soon as the lobby arrives (`noughts watch --war`).
    pub want_war: Option<Variant>,
    /// The lobby tab shown.
    pub tab: Tab,
    /// The leaderboard tab.
    pub leaderboard: Leaderboard,
    /// The history tab.
    pub history: History,
    /// Our ratings, one per variant: from `welcome`, refreshed after each rated game.
    pub ratings: Vec<Rating>,
    /// The stored game on the replay screen.
    pub replay: Option<ReplayView>,
    /// A game whose record we asked for, to replay when it arrives.
    pub replay_wanted: Option<GameId>,
    /// Whether the client only replays one game (`noughts replay`): leaving the replay quits.
    pub replay_only: bool,
    /// The all-games tab.
    pub browse: Browse,
    /// Whether the server sends us the lobby, as far as we know (`None`: unknown, after resuming
    /// a session this client did not start).
    pub following: Option<bool>,
    /// The `g` key was pressed away from the lobby: the war game is chosen when the lobby comes.
    pub war_pending: bool,
    /// Our live games not on screen, kept current from their updates to list them in the lobby.
    pub own: Vec<GameView>,
    /// Whom we mute and block, and our moderation requests waiting for an answer.
    pub moderation: Moderation,
    /// The arena whose screen is open (up, or under the game it paired us into).
    pub arena: Option<Arena>,
}

impl App {
    /// A client that has not connected yet.
    pub fn new(name: impl Into<String>, now: Instant, color: bool) -> App {
        App {
            name: name.into(),
            account: false,
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
            contrast: false,
            quitting: false,
            want_war: None,
            tab: Tab::Games,
            leaderboard: Leaderboard::default(),
            history: History::default(),
            ratings: Vec::new(),
            replay: None,
            replay_wanted: None,
            replay_only: false,
            browse: Browse::default(),
            following: Some(false),
            war_pending: false,
            own: Vec::new(),
            moderation: Moderation::default(),
            arena: None,
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
                self.arena_tick();
            }
            Event::Resize(w, h) => self.size = (w, h),
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key, &mut effects),
            Event::Key(_) => {}
            Event::Mouse(mouse) => self.on_mouse(mouse, &mut effects),
            Event::Net(net) => self.on_net(net, &mut effects),
        }
        self.follow_lobby(&mut effects);
        self.list_own();
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
                    reason,
                    retry_at: self.now + retry_in,
                };
            }
            NetEvent::Closed(reason) => self.connection = Connection::Closed(reason),
            NetEvent::Frame(frame) => {
                if let Some(frame) = self.moderation_frame(frame) {
                    self.on_message(frame.message, effects);
                }
            }
        }
    }

    fn on_message(&mut self, message: ServerMessage, effects: &mut Vec<Effect>) {
        match message {
            ServerMessage::Welcome {
                player,
                name,
                resumed,
                ratings,
                username,
                ..
            } => {
                self.account = username.is_some();
                self.on_welcome(player, name, resumed, ratings, effects);
            }
            ServerMessage::Error { code, message } => self.on_error(code, &message),
            ServerMessage::Ok | ServerMessage::Pong => {}
            ServerMessage::Lobby {
                seeks,
                seeks_total,
                rooms,
                rooms_total,
                games,
                totals,
                arenas,
            } => {
                // The levels' ratings, for the AI's form: the tables of the war variants.
                let asks = self.leaderboard.league.wanted(&games);
                effects.extend(asks.into_iter().map(Effect::Send));
                let snapshot = Snapshot {
                    seeks,
                    seeks_total,
                    rooms,
                    rooms_total,
                    games,
                    totals,
                    arenas,
                };
                self.on_lobby(snapshot, effects);
            }
            ServerMessage::LobbyUpdate(update) => {
                // A war game listed since the snapshot (it came between two games) counts too.
                let asks = self.leaderboard.league.wanted(&update.games);
                effects.extend(asks.into_iter().map(Effect::Send));
                self.on_lobby_update(*update, effects);
            }
            ServerMessage::GameList { games, next } => self.browse.receive(games, next),
            ServerMessage::Seeking { variant, clock, .. } => {
                let rated = matches!(self.modal, Some(Modal::Seeking { rated: true, .. }));
                let bots = matches!(self.modal, Some(Modal::Seeking { bots: true, .. }));
                self.modal = Some(Modal::Seeking {
                    variant,
                    clock,
                    rated,
                    bots,
                    confirmed: true,
                });
            }
            ServerMessage::RoomCreated { code, variant, .. } => {
                effects.push(Effect::Copy(code.clone()));
                let rated = matches!(self.modal, Some(Modal::Room { rated: true, .. }));
                self.modal = Some(Modal::Room {
                    variant,
                    rated,
                    code: Some(code),
                });
            }
            ServerMessage::Leaderboard {
                variant,
                offset,
                players,
            } => self.leaderboard.receive(variant, offset, players),
            ServerMessage::LeagueTable(table) => {
                self.leaderboard.league.receive(*table);
                self.rate_levels();
            }
            ServerMessage::History {
                player,
                games,
                more,
            } => self.history.receive(player, self.player, games, more),
            ServerMessage::GameRecord(record) => self.on_record(*record, effects),
            ServerMessage::GameAnalysis {
                game,
                moves,
                complete,
                ..
            } => self.on_analysis(game, moves, complete),
            ServerMessage::Profile(profile) => {
                self.history.receive_profile(&profile, self.player);
                if Some(profile.player) == self.player {
                    self.account = !profile.guest;
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
            ServerMessage::Arena(view) => self.on_arena(*view),
            ServerMessage::ArenaPage {
                arena,
                offset,
                lines,
            } => self.on_arena_page(arena, offset, lines),
            ServerMessage::Renamed { name } => self.on_renamed(name, effects),
            ServerMessage::Shutdown { message } => {
                self.say(format!("Server: {}", message));
            }
            ServerMessage::GamePaused { message, .. } => {
                self.say(format!("Paused: {message}"));
            }
            other => {
                self.update_own(&other);
                let now = self.now;
                if let Some(game) = self.game.as_mut()
                    && game.apply(&other, now)
                    && matches!(other, ServerMessage::GameOver { .. })
                    && game.state.rated
                    && game.you().is_some()
                {
                    // Our ratings moved: ask for them.
                    effects.push(Effect::Send(ClientMessage::Profile {
                        player: None,
                        username: None,
                    }));
                }
            }
        }
    }

    /// `renamed`: our name changed (a `register` or a rename from another client of ours). The
    /// header shows it at once, and our profile (which says whether we are an account now) is
    /// asked for again, with our history when it is shown, since it names us too. A game being played keeps the names it started with, as the
    /// server keeps them.
    fn on_renamed(&mut self, name: String, effects: &mut Vec<Effect>) {
        if name == self.name {
            return;
        }
        self.say(format!("You are now {name}."));
        self.name = name;
        if self.tab == Tab::History
            && (self.history.player.is_none() || self.history.player == self.player)
        {
            let (player, shown) = (self.history.player, self.history.name.clone());
            effects.extend(self.history.show(player, shown).map(Effect::Send));
        } else {
            // Our profile says whether we are an account now (after a `register`).
            effects.push(Effect::Send(ClientMessage::Profile {
                player: None,
                username: None,
            }));
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
        self.own.retain(|g| g.id() != view.id());
        self.arena_game(&view);
        self.game = Some(view);
        self.screen = Screen::Game;
        self.status = None;
    }

    fn on_error(&mut self, code: ErrorCode, message: &str) {
        self.say(format!("{}: {}", code, message));
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

    pub(crate) fn on_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
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
        if matches!(self.modal, Some(Modal::People(_))) {
            self.people_key(key, effects);
            return;
        }
        if let Some(modal) = self.modal.take() {
            let game = self.game.as_ref().map(GameView::id);
            let outcome = modal::on_key(modal, key, game);
            self.modal = outcome.stay;
            if let Some(text) = outcome.say {
                self.say(text);
            }
            effects.extend(outcome.send.map(Effect::Send));
            return;
        }
        if key.code == KeyCode::Char('?') {
            self.help = true;
            return;
        }
        if key.code == KeyCode::Char('P') {
            self.open_people();
            return;
        }
        if self.arena_refuses(key) {
            return;
        }
        let actions = match self.screen {
            Screen::Lobby => lobby::on_key(
                key,
                self.tab,
                &mut self.lobby,
                &mut self.leaderboard,
                &mut self.history,
                &mut self.browse,
                self.player,
            ),
            Screen::Game => match self.game.as_mut() {
                Some(game) => game::on_key(game, key, self.now),
                None => {
                    self.screen = Screen::Lobby;
                    Vec::new()
                }
            },
            Screen::Replay => match self.replay.as_mut() {
                Some(view) => replay::on_key(view, key, self.replay_only)
                    .into_iter()
                    .collect(),
                None => vec![Action::LeaveReplay],
            },
            Screen::Arena => match self.arena.as_mut() {
                Some(view) => arena::on_key(view, key),
                None => vec![Action::LeaveArena],
            },
        };
        for action in actions {
            self.apply(action, effects);
        }
    }

    /// Does what a screen asked.
    pub(crate) fn apply(&mut self, action: Action, effects: &mut Vec<Effect>) {
        match action {
            Action::Send(request) => effects.push(Effect::Send(request)),
            Action::Say(text) => self.say(text),
            Action::Open(modal) => {
                self.modal = Some(modal);
                self.rate_levels();
            }
            Action::ShowTab(tab) => self.show_tab(tab, effects),
            Action::ShowHistory { player, name } => {
                self.tab = Tab::History;
                effects.extend(self.history.show(player, name).map(Effect::Send));
            }
            Action::OpenReplay(game) => self.open_replay(game, effects),
            Action::Place(cell) => self.place(cell, effects),
            Action::LeaveGame => self.leave_game(effects),
            Action::LeaveReplay => {
                // Back to the game when it is the one replayed (`v` once it was over), else
                // the lobby.
                self.screen = match (&self.game, &self.replay) {
                    (Some(game), Some(replay)) if game.id() == replay.id() => Screen::Game,
                    _ => Screen::Lobby,
                };
                self.replay = None;
            }
            Action::WatchWarGame => self.watch_war_game(effects),
            Action::OpenArena(id) => self.open_arena(id, effects),
            Action::LeaveArena => self.leave_arena(effects),
            Action::Quit => self.quitting = true,
        }
    }

    /// What the lobby screen shows.
    pub fn lobby_view(&self) -> LobbyView<'_> {
        LobbyView {
            lobby: &self.lobby,
            tab: self.tab,
            player: self.player,
            ratings: &self.ratings,
            leaderboard: &self.leaderboard,
            history: &self.history,
            browse: &self.browse,
        }
    }

    /// Shows a lobby tab, asking the server for what it lists.
    pub fn show_tab(&mut self, tab: Tab, effects: &mut Vec<Effect>) {
        self.tab = tab;
        // The league is followed only while its table is on show.
        let variant = self.leaderboard.variant();
        let league = &mut self.leaderboard.league;
        let follow = match tab {
            Tab::Leaderboard => league.follow(variant),
            _ => league.leave(),
        };
        effects.extend(follow.map(Effect::Send));
        match tab {
            Tab::Games => {}
            Tab::Browse => effects.push(Effect::Send(self.browse.request())),
            Tab::Leaderboard => effects.push(Effect::Send(self.leaderboard.request())),
            Tab::History => {
                let (player, name) = (self.history.player, self.history.name.clone());
                effects.extend(self.history.show(player, name).map(Effect::Send));
            }
        }
    }

    /// Gives the AI's form, if open, the league's ratings of the levels.
    fn rate_levels(&mut self) {
        if let Some(Modal::Form(form)) = &mut self.modal {
            form.ratings = self.leaderboard.league.ratings();
        }
    }

    /// Asks for a stored game's record, to replay it when it arrives.
    pub fn open_replay(&mut self, game: GameId, effects: &mut Vec<Effect>) {
        self.replay_wanted = Some(game);
        effects.push(Effect::Send(ClientMessage::GameRecord { game }));
    }

    /// Asks to put our mark on `cell`, after the checks the client can make itself.
    pub(crate) fn place(&mut self, cell: usize, effects: &mut Vec<Effect>) {
        let Some(game) = &self.game else { return };
        match game::refusal(game, cell) {
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
                Some(_) if !game.is_over() => {
                    self.say(format!(
                        "Game #{} goes on (its clock too): select it in the lobby to return.",
                        game.id()
                    ));
                    self.keep_own(game);
                }
                _ => {}
            }
        }
        self.screen = match self.arena {
            Some(_) => Screen::Arena,
            None => Screen::Lobby,
        };
    }
}
