//! Following the lobby only while it is on show: subscribing when the lobby's live view comes up
//! and unsubscribing when the player leaves it, the lobby messages taken in meanwhile, and the
//! player's own live games kept current while another screen is up (the lobby lists only a few
//! games, so it cannot tell us ours).

use noughts_protocol::{
    ClientMessage, GameInfo, GameKind, Level, LobbyUpdate, ServerMessage, StartWar, Watch,
};

use crate::app::{App, Connection, Effect, Screen};
use crate::game::GameView;
use crate::screen::listing::Snapshot;
use crate::screen::tab::Tab;

impl App {
    /// Whether the client has reason to follow the lobby now: the lobby's live view is on show,
    /// or a war game is being looked for (the next one after the war game on screen ended, the
    /// `g` key, or `noughts watch --war`).
    pub fn wants_lobby(&self) -> bool {
        let online = self.connection == Connection::Online && self.player.is_some();
        let shown = self.screen == Screen::Lobby && self.tab == Tab::Games;
        online && (shown || self.war_over() || self.war_pending || self.want_war.is_some())
    }

    /// Subscribes to the lobby or unsubscribes from it when what the client wants and what the
    /// server holds for it differ. Run after every event.
    pub(crate) fn follow_lobby(&mut self, effects: &mut Vec<Effect>) {
        let wanted = self.wants_lobby();
        if self.connection != Connection::Online || self.following == Some(wanted) {
            return;
        }
        self.following = Some(wanted);
        effects.push(Effect::Send(if wanted {
            ClientMessage::SubscribeLobby
        } else {
            // What the client holds goes stale from now on; the next snapshot replaces it.
            self.lobby.loaded = false;
            ClientMessage::UnsubscribeLobby
        }));
    }

    /// `lobby`: the snapshot replaces everything held.
    pub(crate) fn on_lobby(&mut self, snapshot: Snapshot, effects: &mut Vec<Effect>) {
        let games = snapshot.games.clone();
        self.lobby.replace(snapshot);
        for game in &games {
            self.follow_war(game, effects);
        }
        if std::mem::take(&mut self.war_pending) {
            self.watch_war_game(effects);
        }
        if let Some(variant) = self.want_war.take() {
            let war = self
                .lobby
                .games
                .iter()
                .find(|g| g.kind == GameKind::War && g.variant == variant);
            effects.push(Effect::Send(match war {
                Some(game) => ClientMessage::Watch(Watch {
                    game: game.game,
                    code: None,
                }),
                None => ClientMessage::StartWar(StartWar {
                    variant,
                    x_level: Level::Perfect,
                    o_level: Level::Perfect,
                }),
            }));
        }
    }

    /// `lobby_update`: what changed since the last frame.
    pub(crate) fn on_lobby_update(&mut self, update: LobbyUpdate, effects: &mut Vec<Effect>) {
        for game in &update.games {
            if !self.lobby.games.iter().any(|g| g.game == game.game) {
                self.follow_war(game, effects);
            }
        }
        self.lobby.apply(update);
    }

    /// Our game on screen is left for the lobby while it goes on: keep it, to list it there.
    pub(crate) fn keep_own(&mut self, game: GameView) {
        if game.you().is_some() && !game.is_over() {
            self.own.retain(|g| g.id() != game.id());
            self.own.push(game);
        }
    }

    /// A message about one of our games kept off screen; ended games leave the list.
    pub(crate) fn update_own(&mut self, message: &ServerMessage) {
        let now = self.now;
        for game in &mut self.own {
            game.apply(message, now);
        }
        self.own.retain(|g| !g.is_over());
    }

    /// Our own live games as the lobby lists them, from what the client knows of them.
    pub(crate) fn list_own(&mut self) {
        self.lobby.mine = self.own.iter().map(game_info).collect();
        self.lobby.clamp();
    }
}

/// A game as the lobby lists it, from its state.
fn game_info(view: &GameView) -> GameInfo {
    let state = &view.state;
    GameInfo {
        game: state.game,
        variant: state.variant,
        kind: state.kind,
        x: state.x.clone(),
        o: state.o.clone(),
        moves: u32::try_from(state.moves.len()).unwrap_or(u32::MAX),
        board: state.board.clone(),
        watchers: state.watchers,
        clock: state.clock,
        rated: state.rated,
    }
}
