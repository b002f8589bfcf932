//! The app's side of an arena: opening its screen (following its standings) and leaving it
//! (`unwatch_arena`), taking its frames, and, while we are in it, the game the server pairs us
//! into opening by itself and giving way to the standings again a moment after it ends, ready for
//! the next pairing (as lichess does).

use std::time::Duration;

use noughts_protocol::{ArenaId, ArenaLine, ArenaView, ClientMessage};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::app::{App, Effect, Screen};
use crate::game::GameView;
use crate::screen::arena::Arena;

/// How long the end of our arena game stays on screen before the standings come back.
pub const BACK_AFTER: Duration = Duration::from_secs(3);

impl App {
    /// Opens an arena's screen and follows its standings.
    pub(crate) fn open_arena(&mut self, id: ArenaId, effects: &mut Vec<Effect>) {
        if let Some(old) = self.arena.take()
            && old.id != id
        {
            effects.push(Effect::Send(ClientMessage::UnwatchArena { arena: old.id }));
        }
        self.arena = Some(Arena::new(id));
        self.screen = Screen::Arena;
        effects.push(Effect::Send(ClientMessage::Arena {
            arena: id,
            code: None,
        }));
    }

    /// Back to the lobby from the arena's screen; its standings are not followed any more.
    pub(crate) fn leave_arena(&mut self, effects: &mut Vec<Effect>) {
        if let Some(arena) = self.arena.take() {
            effects.push(Effect::Send(ClientMessage::UnwatchArena {
                arena: arena.id,
            }));
            if arena.playing_in() {
                self.say(format!(
                    "You are still in {}: open it and press x to withdraw.",
                    arena.name()
                ));
            }
        }
        self.screen = Screen::Lobby;
    }

    /// An `arena` frame, for the arena on screen (a frame for another is one sent before our
    /// `unwatch_arena` arrived).
    pub(crate) fn on_arena(&mut self, view: ArenaView) {
        if let Some(arena) = self.arena.as_mut().filter(|a| a.id == view.info.arena) {
            arena.receive(view);
        }
    }

    /// An `arena_page`, for the arena on screen.
    pub(crate) fn on_arena_page(&mut self, id: ArenaId, offset: u32, lines: Vec<ArenaLine>) {
        if let Some(arena) = self.arena.as_mut().filter(|a| a.id == id) {
            arena.receive_page(offset, lines);
        }
    }

    /// A game of ours starts while we are in the arena: the pairing. Remember it, so that its
    /// end brings the standings back.
    pub(crate) fn arena_game(&mut self, game: &GameView) {
        if let Some(arena) = self.arena.as_mut()
            && arena.playing_in()
            && game.you().is_some()
            && !game.is_over()
        {
            arena.game = Some(game.id());
            arena.back_at = None;
        }
    }

    /// A tick: a moment after our arena game ended, back to the standings.
    pub(crate) fn arena_tick(&mut self) {
        let Some(arena) = self.arena.as_mut() else {
            return;
        };
        let over = self.game.as_ref().is_some_and(|game| {
            game.is_over() && Some(game.id()) == arena.game && game.you().is_some()
        });
        if self.screen != Screen::Game || !over {
            arena.back_at = None;
            return;
        }
        match arena.back_at {
            None => {
                arena.back_at = Some(self.now + BACK_AFTER);
                let text = format!("Back to {} in a moment (q: now).", arena.name());
                self.say(text);
            }
            Some(at) if self.now >= at => {
                arena.back_at = None;
                arena.game = None;
                self.game = None;
                self.screen = Screen::Arena;
                self.status = None;
            }
            Some(_) => {}
        }
    }

    /// Whether the game on screen is the one the arena paired us into.
    pub fn in_arena_game(&self) -> bool {
        let on_screen = self.game.as_ref().map(GameView::id);
        self.arena
            .as_ref()
            .is_some_and(|a| a.game.is_some() && a.game == on_screen)
    }

    /// A key the arena answers itself on our arena game's screen: no rematch once it is over,
    /// as the arena pairs us again. True when it was.
    pub(crate) fn arena_refuses(&mut self, key: KeyEvent) -> bool {
        let over = self.game.as_ref().is_some_and(GameView::is_over);
        let refused = self.screen == Screen::Game
            && key.code == KeyCode::Char('r')
            && over
            && self.in_arena_game();
        if refused {
            self.say("No rematch in an arena: it pairs you again.");
        }
        refused
    }

    /// A welcome again: a new session follows nothing, so the arena on screen is asked again.
    pub(crate) fn arena_welcome(&mut self, resumed: bool, effects: &mut Vec<Effect>) {
        if let Some(arena) = &self.arena
            && !resumed
        {
            effects.push(Effect::Send(ClientMessage::Arena {
                arena: arena.id,
                code: None,
            }));
        }
    }
}
