//! What a `welcome` does: on the first connection, the player's id, name and ratings; after a
//! reconnection, a resumed session keeps its games and follows, while a new one starts from
//! nothing (a seek asked again, a watched game watched again, a game being played told lost).

use noughts_protocol::{ClientMessage, PlayerId, Rating, Seek, Watch};

use crate::app::{App, Connection, Effect, Screen};
use crate::screen::modal::Modal;
use crate::screen::tab::Tab;

impl App {
    /// `welcome`: on the first connection, and again after every reconnection (resumed or not).
    pub(crate) fn on_welcome(
        &mut self,
        player: PlayerId,
        name: String,
        resumed: bool,
        ratings: Vec<Rating>,
        effects: &mut Vec<Effect>,
    ) {
        let again = self.player.is_some();
        self.player = Some(player);
        self.ratings = ratings;
        self.name = name;
        self.connection = Connection::Online;
        self.ask_moderation_list(effects);
        self.arena_welcome(resumed, effects);
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
            bots,
            ..
        }) = &self.modal
            && again
        {
            effects.push(Effect::Send(ClientMessage::Seek(Seek {
                variant: *variant,
                clock: *clock,
                rated: *rated,
                bots: *bots,
            })));
        }
        // A connection follows no league until it asks (the tab on show asks again below).
        self.leaderboard.league.following = None;
        // The tab on show lists what this identity has now.
        if self.tab != Tab::Games && self.screen == Screen::Lobby {
            self.show_tab(self.tab, effects);
        }
        // A session this client did not start (`noughts history` or a bot with the same
        // identity) may or may not follow the lobby; a new session does not.
        if resumed && !again {
            self.following = None;
        }
        // A new session starts from nothing: what the old one played or opened is gone.
        if !resumed {
            self.following = Some(false);
            self.own.clear();
            if matches!(self.modal, Some(Modal::Room { .. })) {
                self.modal = None;
            }
            match &self.game {
                Some(game) if game.is_over() => {}
                Some(game) if game.you().is_none() => {
                    effects.push(Effect::Send(ClientMessage::Watch(Watch {
                        game: game.id(),
                        code: None,
                    })));
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
}
