//! Watching the war games from the app: following the machines from one game to the next, and
//! the key that moves on to the next war game (or starts one).

use noughts_protocol::{ClientMessage, GameInfo, GameKind, Level, StartWar, Variant, Watch};

use crate::app::{App, Effect, Screen};
use crate::game::GameView;

impl App {
    /// Whether the screen shows a war game we watched to its end: the client follows the lobby
    /// until the next war game of its variant appears there.
    pub fn war_over(&self) -> bool {
        self.screen == Screen::Game
            && self.game.as_ref().is_some_and(|current| {
                current.state.kind == GameKind::War && current.you().is_none() && current.is_over()
            })
    }

    /// When the war game on screen has ended and the server starts the next one of the same
    /// variant, watch that one: watchers can leave the machines playing on and on.
    pub(crate) fn follow_war(&mut self, game: &GameInfo, effects: &mut Vec<Effect>) {
        let Some(current) = &self.game else { return };
        if self.war_over()
            && game.kind == GameKind::War
            && game.variant == current.state.variant
            && game.game > current.id()
        {
            effects.push(Effect::Send(ClientMessage::Watch(Watch {
                game: game.game,
                code: None,
            })));
        }
    }

    /// Watches the next war game after the one on screen, or starts one if none is running. The
    /// client follows the lobby only while it shows it: away from it, it follows it until the
    /// snapshot comes, and chooses then.
    pub(crate) fn watch_war_game(&mut self, effects: &mut Vec<Effect>) {
        if !self.lobby.loaded {
            self.war_pending = true;
            return;
        }
        let current = self.game.as_ref().map(GameView::id);
        match self.lobby.next_war(current) {
            Some(game) if Some(game) != current => {
                effects.push(Effect::Send(ClientMessage::Watch(Watch {
                    game,
                    code: None,
                })));
            }
            Some(_) => self.say("This is the only war game running."),
            None => {
                self.say("No war game is running: starting one.");
                effects.push(Effect::Send(ClientMessage::StartWar(StartWar {
                    variant: Variant::Classic,
                    x_level: Level::Perfect,
                    o_level: Level::Perfect,
                })));
            }
        }
    }
}
