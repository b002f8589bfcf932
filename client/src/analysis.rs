//! A replayed game's record and the server's analysis of it: the record opens the replay screen
//! and, for a finished game, asks for `analyse_game`; each `game_analysis` (the answer, then the
//! pushes while a qubic game's analysis fills in) is taken into the replay shown.

use noughts_protocol::{ClientMessage, GameId, GameRecord, MoveAnalysis};

use crate::app::{App, Effect, Screen};
use crate::replay::ReplayView;

impl App {
    /// A game's record came: replayed if we asked for it, and its analysis asked for.
    pub(crate) fn on_record(&mut self, record: GameRecord, effects: &mut Vec<Effect>) {
        if self.replay_wanted != Some(record.game) {
            return;
        }
        self.replay_wanted = None;
        let (game, over) = (record.game, record.result.is_some());
        match ReplayView::new(record) {
            Ok(view) => {
                if over {
                    effects.push(Effect::Send(ClientMessage::AnalyseGame { game }));
                }
                self.replay = Some(view);
                self.screen = Screen::Replay;
            }
            Err(err) => self.say(format!("Cannot replay: {err}")),
        }
    }

    /// The server's analysis of `game`, as far as it goes.
    pub(crate) fn on_analysis(&mut self, game: GameId, moves: Vec<MoveAnalysis>, complete: bool) {
        if let Some(replay) = &mut self.replay {
            replay.analysed(game, moves, complete);
        }
    }
}
