//! Games a player starts for themselves: `play_ai` and `start_war`, within the limit of such games
//! one player may have running.

use std::sync::Arc;

use noughts_protocol::{ErrorCode, GameKind, PlayAi, SideChoice, StartWar};
use tokio::sync::oneshot;

use super::client::{Client, Reply, coin_toss, refuse};
use super::limits::{MAX_STARTED_GAMES, check_clock};
use crate::game::{self, Setup};
use crate::registry::games::Requester;
use crate::rules::sitter::Sitter;
use crate::session::Session;

impl Client {
    pub(super) fn play_ai(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        request: PlayAi,
    ) -> Reply {
        let PlayAi {
            variant,
            level,
            side,
            clock,
        } = request;
        check_clock(clock)?;
        let human_is_x = match side {
            SideChoice::X => true,
            SideChoice::O => false,
            SideChoice::Random => coin_toss(),
        };
        let human = Sitter::Human(session.clone());
        let ai = Sitter::Ai(level);
        let seats = if human_is_x { [human, ai] } else { [ai, human] };
        self.start_own_game(
            session,
            Setup {
                variant,
                kind: GameKind::Ai,
                seats,
                clock,
                owner: None,
                rated: false,
                listed: true,
                rematch_of: None,
                requester: Some(from),
                watcher: None,
                on_end: None,
            },
        )
    }

    pub(super) fn start_war(
        &mut self,
        session: &Arc<Session>,
        from: Requester,
        request: StartWar,
    ) -> Reply {
        self.start_own_game(
            session,
            Setup {
                watcher: Some((session.clone(), from)),
                ..Setup::war(request.variant, request.x_level, request.o_level)
            },
        )
    }

    /// Starts a game against the AI or between AIs for `session`, within its limit of such games.
    fn start_own_game(&mut self, session: &Arc<Session>, mut setup: Setup) -> Reply {
        if !session.start_game(MAX_STARTED_GAMES) {
            return refuse(
                ErrorCode::LimitReached,
                format!("you may have at most {MAX_STARTED_GAMES} AI games running at once"),
            );
        }
        let (on_end, ended) = oneshot::channel();
        setup.on_end = Some(on_end);
        setup.owner = Some(session.player);
        if let Err(refusal) = game::start(&self.shared, setup) {
            session.game_ended();
            return Err(refusal);
        }
        let session = session.clone();
        self.shared.lifecycle.tasks.spawn(async move {
            // Ended, or closed without ending (which only happens at shutdown).
            let _ = ended.await;
            session.game_ended();
        });
        Ok(())
    }
}
