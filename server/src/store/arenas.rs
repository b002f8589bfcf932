//! Arenas in the store: [`ArenaBackend`], what each database keeps of them (the arena, each
//! player's score and streak, each game it started with whether it has counted, and the podium).

use noughts_protocol::{ArenaId, ClockSpec, GameId, PlayerId, Variant};

use super::records::{StoreError, StoredPodium};

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
    /// Marks a game counted; false if it had counted already (or is not an arena's).
    fn count_arena_game(&mut self, game: GameId) -> Result<bool, StoreError>;
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
}

/// One place on a podium as the director hands it to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) place: u32,
    pub(crate) player: PlayerId,
    pub(crate) score: u32,
}
