//! Arenas in the store: [`ArenaBackend`], what each database keeps of them (the arena, each
//! player's score and streak, each game it started with whether it has counted, and the podium),
//! and the points a counted game adds to a line ([`count`]), which the store applies in the
//! transaction that stores the game's end.

use noughts_protocol::{
    ARENA_QUICK_DRAW_MOVES, ArenaId, ClockSpec, EndReason, GameId, Mark, PlayerId, Variant,
};

use super::records::{Ending, StoreError, StoredPodium};

/// An arena as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredArena {
    pub(crate) id: ArenaId,
    pub(crate) name: String,
    pub(crate) variant: Variant,
    pub(crate) clock: ClockSpec,
    pub(crate) start_ms: u64,
    pub(crate) end_ms: u64,
    /// The invite code of a private arena.
    pub(crate) code: Option<String>,
    /// The account that created it, and its name then; `None` for the server's own.
    pub(crate) creator: Option<(PlayerId, String)>,
    /// The schedule's slot of a scheduled arena: one arena a slot.
    pub(crate) slot: Option<String>,
    /// Kept for arenas only bots may join; always false for now.
    pub(crate) bots_only: bool,
    /// When every game had counted and the podium was kept.
    pub(crate) finished_ms: Option<u64>,
}

/// A player's line in an arena, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entrant {
    pub(crate) player: PlayerId,
    pub(crate) name: String,
    pub(crate) score: u32,
    /// Wins in a row.
    pub(crate) streak: u32,
    pub(crate) games: u32,
    pub(crate) wins: u32,
    pub(crate) draws: u32,
    pub(crate) withdrawn: bool,
    pub(crate) joined_ms: u64,
    /// The opponent of their last game.
    pub(crate) last_opponent: Option<PlayerId>,
}

/// An arena as its director writes it: in a cluster, with the fencing epoch under which it was
/// taken to be directed (the store refuses the write under an older epoch than the arena's);
/// `None` on a lone server, whose director is the only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArenaHold {
    pub(crate) arena: ArenaId,
    pub(crate) epoch: Option<u64>,
}

/// A game an arena started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArenaGame {
    pub(crate) game: GameId,
    pub(crate) x: PlayerId,
    pub(crate) o: PlayerId,
    pub(crate) counted: bool,
}

/// The most podium places a profile shows.
pub(crate) const PROFILE_PODIUMS: u32 = 20;

/// What one database keeps of arenas. Every write runs inside the store's transaction.
pub(super) trait ArenaBackend {
    /// Stores a new arena; false (and nothing stored) when its slot is taken already.
    fn add_arena(&mut self, arena: &StoredArena) -> Result<bool, StoreError>;
    /// Every arena not finished, by id.
    fn unfinished_arenas(&mut self) -> Result<Vec<StoredArena>, StoreError>;
    /// An arena's players, in the order they joined.
    fn entrants(&mut self, arena: ArenaId) -> Result<Vec<Entrant>, StoreError>;
    /// Writes a player's line, new or changed.
    fn save_entrant(&mut self, arena: ArenaId, entrant: &Entrant) -> Result<(), StoreError>;
    /// Every game the arena started, by game id.
    fn arena_games(&mut self, arena: ArenaId) -> Result<Vec<ArenaGame>, StoreError>;
    fn add_arena_game(&mut self, arena: ArenaId, game: &ArenaGame) -> Result<(), StoreError>;
    /// Checks a director's write of `arena` made under `epoch`, in one statement: false if the
    /// arena was taken under a higher epoch since (or is not stored); otherwise the epoch is kept
    /// as the arena's (on PostgreSQL, its row locked until the transaction ends, so that a
    /// taking waits for the write to commit, and reads it).
    fn fence_arena(&mut self, arena: ArenaId, epoch: u64) -> Result<bool, StoreError>;
    /// Takes an unfinished `arena` for a new director: raises its fencing epoch by one and
    /// returns the new one, so that every write under an older epoch is refused from now on;
    /// `None` if it is not stored or has finished.
    fn claim_arena(&mut self, arena: ArenaId) -> Result<Option<u64>, StoreError>;
    /// Marks a game counted; false if it had counted already (or is not an arena's).
    fn count_arena_game(&mut self, game: GameId) -> Result<bool, StoreError>;
    /// A player's line in an arena (on PostgreSQL, locked until the transaction ends).
    fn entrant(&mut self, arena: ArenaId, player: PlayerId) -> Result<Option<Entrant>, StoreError>;
    /// The arena that started `game`, and its row (on PostgreSQL, locked until the
    /// transaction ends); `None` if no arena did.
    fn arena_of_game(&mut self, game: GameId) -> Result<Option<(ArenaId, ArenaGame)>, StoreError>;
    /// Marks the arena finished with its podium (`(place, player, score)`); false if it was
    /// already.
    fn finish_arena(
        &mut self,
        arena: ArenaId,
        podium: &[Place],
        now: u64,
    ) -> Result<bool, StoreError>;
    /// A player's places on podiums, the latest first, at most `limit`.
    fn podiums_of(&mut self, player: PlayerId, limit: u32)
    -> Result<Vec<StoredPodium>, StoreError>;
    /// The arenas not finished that a player is in (joined, not withdrawn), by id.
    fn arenas_joined(&mut self, player: PlayerId) -> Result<Vec<ArenaId>, StoreError>;
}

/// One place on a podium as the director hands it to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) place: u32,
    pub(crate) player: PlayerId,
    pub(crate) score: u32,
}

/// How a finished arena game went for one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Win,
    Draw,
    Loss,
    /// Nothing was played (aborted): the game does not count.
    Void,
}

/// Whether a player is on fire: two wins in a row or more, so their next win or draw scores
/// double.
pub(crate) fn on_fire(entrant: &Entrant) -> bool {
    entrant.streak >= 2
}

/// Counts one game of `moves` moves (both sides') into a player's line (2 a win, 1 a draw, 0 a
/// loss, doubled on fire; a draw of fewer than [`ARENA_QUICK_DRAW_MOVES`] moves scores nothing);
/// returns the points it scored.
pub(crate) fn count(entrant: &mut Entrant, outcome: Outcome, moves: u32) -> u32 {
    let double = if on_fire(entrant) { 2 } else { 1 };
    let points = match outcome {
        Outcome::Void => return 0,
        Outcome::Win => {
            entrant.streak += 1;
            entrant.wins += 1;
            2 * double
        }
        Outcome::Draw => {
            entrant.streak = 0;
            entrant.draws += 1;
            if moves < ARENA_QUICK_DRAW_MOVES {
                0
            } else {
                double
            }
        }
        Outcome::Loss => {
            entrant.streak = 0;
            0
        }
    };
    entrant.games += 1;
    entrant.score += points;
    points
}

/// Refuses a director's write of an arena taken since by another director (a higher epoch).
pub(super) fn check_arena_fence(
    db: &mut (impl ArenaBackend + ?Sized),
    hold: ArenaHold,
) -> Result<(), StoreError> {
    match hold.epoch {
        Some(epoch) if !db.fence_arena(hold.arena, epoch)? => {
            Err(StoreError::FencedArena(hold.arena))
        }
        _ => Ok(()),
    }
}

/// Counts `row`'s game, whose end of `moves` moves is being stored, in `arena`, which started
/// it: its row marked counted and both players' lines scored (each noting the other as their
/// last opponent), in the transaction that stores the end, so that an end counts exactly when
/// it is stored, and once, whichever node directs the arena (or none does just then). Returns the
/// lines as scored; none if the game had counted already.
pub(super) fn count_in_arena(
    db: &mut (impl ArenaBackend + ?Sized),
    arena: ArenaId,
    row: ArenaGame,
    ending: &Ending,
    moves: u32,
) -> Result<Vec<Entrant>, StoreError> {
    let mut counted = Vec::new();
    if !db.count_arena_game(row.game)? {
        return Ok(counted);
    }
    // Locked lower player id first, as ratings are, so that two ends take rows in one order.
    let mut sides = [(row.x, Mark::X, row.o), (row.o, Mark::O, row.x)];
    sides.sort_by_key(|(player, _, _)| player.0);
    for (player, mark, opponent) in sides {
        let outcome = match ending.winner {
            _ if ending.reason == EndReason::Aborted => Outcome::Void,
            None => Outcome::Draw,
            Some(winner) if winner == mark => Outcome::Win,
            Some(_) => Outcome::Loss,
        };
        if let Some(mut line) = db.entrant(arena, player)? {
            count(&mut line, outcome, moves);
            line.last_opponent = Some(opponent);
            db.save_entrant(arena, &line)?;
            counted.push(line);
        }
    }
    Ok(counted)
}
