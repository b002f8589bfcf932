//! What a new game is made of: its seats and settings, as whoever starts it (a handler, the war
//! keeper, a restart) describes them.

use std::sync::Arc;

use noughts_protocol::{ClockSpec, GameId, GameKind, Level, PlayerId, Variant};
use tokio::sync::oneshot;

use crate::error::Refusal;
use crate::registry::games::Requester;
use crate::rules::sitter::Sitter;
use crate::session::Session;
use crate::shared::Shared;

/// Everything needed to start a game.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The board to play on.
    pub variant: Variant,
    /// Human, AI or war.
    pub kind: GameKind,
    /// X first, then O.
    pub seats: [Sitter<Arc<Session>>; 2],
    /// The time control, if the game is timed.
    pub clock: Option<ClockSpec>,
    /// The player whose `play_ai` or `start_war` started it (it counts against their limit).
    pub owner: Option<PlayerId>,
    /// Whether the game counts for ratings (only ever between two people).
    pub rated: bool,
    /// Whether the lobby lists it (private-room games are not listed).
    pub listed: bool,
    /// The game this one is a rematch of.
    pub rematch_of: Option<GameId>,
    /// The player whose request started the game: their snapshot echoes the request id.
    pub requester: Option<Requester>,
    /// Someone who watches from the start (the player who started a war game).
    pub watcher: Option<(Arc<Session>, Requester)>,
    /// Told when the game ends (the war-game keeper waits on it).
    pub on_end: Option<oneshot::Sender<()>>,
}

impl Setup {
    /// An AI-vs-AI war game between `x` and `o`: listed, untimed, unrated, nobody watching yet.
    pub(crate) fn war(variant: Variant, x: Level, o: Level) -> Setup {
        Setup {
            variant,
            kind: GameKind::War,
            seats: [Sitter::Ai(x), Sitter::Ai(o)],
            clock: None,
            owner: None,
            rated: false,
            listed: true,
            rematch_of: None,
            requester: None,
            watcher: None,
            on_end: None,
        }
    }
}

/// How a game starts another (its rematch): [`super::start`], handed to the actor when it is made,
/// so that the actor does not reach back up to the module that spawns it.
pub(crate) type Starter = fn(&Arc<Shared>, Setup) -> Result<GameId, Refusal>;
