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
use crate::store::Entrant;

/// What a game tells whoever waits for its end, once the end is stored: its players' arena lines
/// as the end's count scored them (none unless it counted in an arena just then).
pub(crate) type Counted = Vec<Entrant>;
/// Where a game tells of its end.
pub(crate) type OnEnd = oneshot::Sender<Counted>;
/// Where a game's end is waited for: closed without a word if the game stopped here unended.
pub(crate) type EndWait = oneshot::Receiver<Counted>;

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
    /// Told when the game ends (the war-game keeper and an arena's director wait on it).
    pub on_end: Option<OnEnd>,
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
