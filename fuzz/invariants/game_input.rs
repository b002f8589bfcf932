//! The inputs a game's rules are fed, and the table they start from, as the fuzzer's bytes pick
//! them (see `game.rs` for what must hold).

use std::time::Duration;

use arbitrary::{Result, Unstructured};
use noughts_engine::{Level, Mark, Variant};
use noughts_protocol::{ClockSpec, GameId, GameKind, PlayerId};
use noughts_server::rules::{Sitter, Table};

/// The most time a restored clock holds.
pub const MAX_STORED_CLOCK_MS: u64 = 20_000;
/// X's player, when X is a person.
pub const X_PLAYER: PlayerId = PlayerId(1);
/// O's player, when O is a person.
pub const O_PLAYER: PlayerId = PlayerId(2);
/// Someone who does not play.
pub const STRANGER: PlayerId = PlayerId(3);

/// One thing that happens to a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// Time passes.
    Wait(Duration),
    /// The actor's timer fires at the deadline (time moves on to it).
    Timer,
    /// `player` moves at `cell`; `stored` is whether the store keeps the move.
    Move {
        player: PlayerId,
        cell: usize,
        stored: bool,
    },
    /// The AI's move for the ply `back` plies before the current one.
    Ai {
        back: u32,
        cell: usize,
        stored: bool,
    },
    Resign {
        player: PlayerId,
    },
    /// A rematch request; `starts` is whether starting the rematch succeeds.
    Rematch {
        player: PlayerId,
        starts: bool,
    },
    Chat {
        player: PlayerId,
        watching: bool,
    },
    /// The number of watchers is now this.
    Watchers(usize),
    /// The batch is over: the actor settles (a `watchers` update may go out).
    Settle,
    Leave(Mark),
    Return(Mark),
    /// The server stops and keeps nothing.
    Abort,
    /// `offer_draw`, `takeback`, `decline`, `abort`, `cancel_offer` or `claim` from `player` (0
    /// to 5 in `what`); `stored` is whether the store keeps an agreed takeback (and, for a
    /// claim, whether the win is claimed rather than a draw).
    Agree {
        player: PlayerId,
        what: u8,
        stored: bool,
    },
}

fn player(u: &mut Unstructured) -> Result<PlayerId> {
    Ok(*u.choose(&[X_PLAYER, O_PLAYER, STRANGER])?)
}

fn cell(u: &mut Unstructured, variant: Variant) -> Result<usize> {
    let byte: u8 = u.arbitrary()?;
    Ok(if byte == u8::MAX {
        usize::MAX
    } else {
        usize::from(byte) % (variant.cells() + 1)
    })
}

fn mark(u: &mut Unstructured) -> Result<Mark> {
    Ok(if u.arbitrary()? { Mark::X } else { Mark::O })
}

impl Input {
    /// One input, mostly moves.
    pub fn arbitrary(u: &mut Unstructured, variant: Variant) -> Result<Input> {
        Ok(match u.int_in_range(0..=19u8)? {
            0 => Input::Wait(Duration::from_millis(u.int_in_range(0..=3_000)?)),
            1 | 2 => Input::Timer,
            3..=8 => Input::Move {
                player: player(u)?,
                cell: cell(u, variant)?,
                stored: u.ratio(15, 16)?,
            },
            9 => Input::Ai {
                back: u.int_in_range(0..=1)?,
                cell: cell(u, variant)?,
                stored: u.ratio(15, 16)?,
            },
            10 => Input::Resign { player: player(u)? },
            11 => Input::Rematch {
                player: player(u)?,
                starts: u.ratio(7, 8)?,
            },
            12 => Input::Chat {
                player: player(u)?,
                watching: u.arbitrary()?,
            },
            13 => Input::Watchers(u.int_in_range(0..=5_000)?),
            14 | 15 => Input::Settle,
            16 => Input::Leave(mark(u)?),
            17 => Input::Return(mark(u)?),
            18 => Input::Abort,
            _ => Input::Agree {
                player: player(u)?,
                what: u.int_in_range(0..=5)?,
                stored: u.ratio(15, 16)?,
            },
        })
    }
}

/// A game's setup.
#[derive(Debug, Clone)]
pub struct Setup {
    pub table: Table,
    /// Which seats' players have a connection at the start.
    pub connected: [bool; 2],
    /// Who watches from the start (as the player who starts a war game does).
    pub watchers: usize,
    /// For a restored game: what the store kept.
    pub restored: Option<Restored>,
}

/// A game as the store kept it.
#[derive(Debug, Clone)]
pub struct Restored {
    /// Each move's cell, with the mover's time left in a timed game.
    pub moves: Vec<(usize, Option<u64>)>,
    /// The latest `seq`.
    pub seq: u64,
}

impl Setup {
    pub fn arbitrary(u: &mut Unstructured) -> Result<Setup> {
        let variant = *u.choose(&Variant::ALL)?;
        let mut sitter = |player| -> Result<Sitter> {
            Ok(if u.ratio(2, 3)? {
                Sitter::Human(player)
            } else {
                Sitter::Ai(*u.choose(&Level::ALL)?)
            })
        };
        let seats = [sitter(X_PLAYER)?, sitter(O_PLAYER)?];
        let kind = match seats {
            [Sitter::Human(_), Sitter::Human(_)] => GameKind::Human,
            [Sitter::Ai(_), Sitter::Ai(_)] => GameKind::War,
            _ => GameKind::Ai,
        };
        let clock = if u.arbitrary()? {
            Some(ClockSpec {
                initial_ms: u.int_in_range(1..=10_000)?,
                increment_ms: u.int_in_range(0..=2_000)?,
            })
        } else {
            None
        };
        let table = Table {
            id: GameId(1),
            variant,
            kind,
            seats,
            clock,
            rated: kind == GameKind::Human && u.arbitrary()?,
            rematch_of: None,
            grace: Duration::from_millis(u.int_in_range(0..=5_000)?),
            claim_after: Duration::from_millis(u.int_in_range(0..=5_000)?),
            linger: Duration::from_millis(u.int_in_range(0..=5_000)?),
            first_move: Duration::from_millis(u.int_in_range(0..=5_000)?),
        };
        let connected = [u.arbitrary()?, u.arbitrary()?];
        let watchers = u.int_in_range(0..=1)?;
        let restored = if u.ratio(1, 4)? {
            let count = u.int_in_range(0..=variant.cells())?;
            let mut moves = Vec::with_capacity(count);
            for _ in 0..count {
                let left = match clock {
                    Some(_) if u.arbitrary()? => Some(u.int_in_range(0..=MAX_STORED_CLOCK_MS)?),
                    _ => None,
                };
                moves.push((cell(u, variant)?, left));
            }
            let seq = u.int_in_range(0..=1_000)?;
            Some(Restored { moves, seq })
        } else {
            None
        };
        Ok(Setup {
            table,
            connected,
            watchers,
            restored,
        })
    }
}
