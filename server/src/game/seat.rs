//! Who sits in a game and who watches it, as the actor reaches them.

use std::sync::Arc;

use noughts_protocol::{Mark, SeatInfo, Variant};

use crate::net::outbound::{Frame, Outbound};
use crate::rules::sitter::Sitter;
use crate::session::Session;

/// A person's seat.
#[derive(Debug)]
pub(super) struct Human {
    /// The player: its id and rating for snapshots, and its set of games to leave when this
    /// closes.
    pub(super) session: Arc<Session>,
    /// The name this seat shows until the game ends: the player's when the game started (or was
    /// taken up here after a restart or from another node). A `rename` meanwhile is for what
    /// starts later, so every snapshot and lobby entry of one game names its players alike.
    name: String,
    /// Whether the player was a guest when the seat was taken: kept with the name.
    guest: bool,
    /// Whether the player is a bot account (for good once it is one).
    bot: bool,
    /// The connections to send to (a player may be connected from several places); none while
    /// the player is away.
    pub(super) outs: Vec<Outbound>,
}

impl Human {
    /// `session`'s player takes the seat, reached through `outs`, under the name it has now.
    pub(super) fn seated(session: Arc<Session>, outs: Vec<Outbound>) -> Human {
        Human {
            name: session.name(),
            guest: !session.is_account(),
            bot: session.is_bot(),
            session,
            outs,
        }
    }
}

impl Sitter<Human> {
    /// The seat as snapshots and the lobby show it, with a person's rating in `variant`.
    pub(super) fn info(&self, variant: Variant) -> SeatInfo {
        match self {
            Sitter::Human(human) => SeatInfo {
                name: human.name.clone(),
                player: Some(human.session.player),
                level: None,
                connected: !human.outs.is_empty(),
                rating: Some(crate::rules::rating::points(
                    human.session.ratings().get(variant).rating,
                )),
                guest: human.guest,
                bot: human.bot,
            },
            Sitter::Ai(level) => SeatInfo {
                name: format!("AI ({level})"),
                player: None,
                level: Some(*level),
                connected: true,
                rating: None,
                guest: false,
                bot: false,
            },
        }
    }

    /// Who sits here, as the rules know them.
    pub(super) fn sitter(&self) -> Sitter {
        self.as_ref().map(|human| human.session.player)
    }
}

/// Someone watching, from one connection (a player watching from two places is two watchers).
#[derive(Debug)]
pub(super) struct Watcher {
    /// The watcher's session, told when the game closes so a resume does not look for it.
    pub(super) session: Arc<Session>,
    /// Where this watcher's updates go.
    pub(super) out: Outbound,
}

/// A seat's place in `[x, o]`.
pub(super) fn index(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

/// The players' frames held back while a move that ends the game is told: each player's
/// connection then gets `moved` and `game_over` in one write (one system call and one TCP segment
/// where there would be two), and the watchers get them as before.
#[derive(Debug, Default)]
pub(super) struct Held {
    /// Each frame with its connection and the seat that connection plays for (if any), in order.
    pub(super) frames: Vec<(Option<Mark>, Outbound, Frame)>,
    /// The broadcasts held so far: the players' frames go out after the second, `game_over`,
    /// before its watchers' fan-out.
    pub(super) broadcasts: u8,
}
