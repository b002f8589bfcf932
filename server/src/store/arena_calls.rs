//! The [`Store`]'s calls for arenas, each a read or a write of
//! [`super::arenas::ArenaBackend`]'s facts. A game counts once: its row is marked counted in the
//! same transaction that writes its players' new scores.

use noughts_protocol::{ArenaId, GameId};

use super::arenas::{ArenaGame, Entrant, Place, StoredArena};
use super::queue::Store;
use super::records::{StoreError, now_ms};

impl Store {
    /// Stores a new arena with the next arena id; `None` when its slot is taken already.
    /// Durable when it answers.
    pub(crate) async fn add_arena(
        &self,
        mut arena: StoredArena,
    ) -> Result<Option<StoredArena>, StoreError> {
        self.write("add arena", move |db| {
            arena.id = ArenaId(db.reserve_ids("arenas", 1, 0)?);
            Ok(db.add_arena(&arena)?.then_some(arena))
        })
        .await
    }

    pub(crate) async fn unfinished_arenas(&self) -> Result<Vec<StoredArena>, StoreError> {
        self.read(|db| db.unfinished_arenas()).await
    }

    /// An arena's players and the games it started.
    pub(crate) async fn arena_state(
        &self,
        arena: ArenaId,
    ) -> Result<(Vec<Entrant>, Vec<ArenaGame>), StoreError> {
        self.read(move |db| Ok((db.entrants(arena)?, db.arena_games(arena)?)))
            .await
    }

    /// Writes a player's line (joined, withdrawn, back). Durable when it answers.
    pub(crate) async fn save_entrant(
        &self,
        arena: ArenaId,
        entrant: Entrant,
    ) -> Result<(), StoreError> {
        self.write("save entrant", move |db| db.save_entrant(arena, &entrant))
            .await
    }

    /// Records a game the arena started, with its players' lines (each now has the other for
    /// last opponent). Durable when it answers.
    pub(crate) async fn add_arena_game(
        &self,
        arena: ArenaId,
        game: ArenaGame,
        players: [Entrant; 2],
    ) -> Result<(), StoreError> {
        self.write("add arena game", move |db| {
            db.add_arena_game(arena, &game)?;
            for entrant in &players {
                db.save_entrant(arena, entrant)?;
            }
            Ok(())
        })
        .await
    }

    /// Counts a finished game: marks it counted and writes its players' new lines, in one
    /// transaction; false (nothing written) if it had counted already.
    pub(crate) async fn count_arena_game(
        &self,
        arena: ArenaId,
        game: GameId,
        players: Vec<Entrant>,
    ) -> Result<bool, StoreError> {
        self.write("count arena game", move |db| {
            if !db.count_arena_game(game)? {
                return Ok(false);
            }
            for entrant in &players {
                db.save_entrant(arena, entrant)?;
            }
            Ok(true)
        })
        .await
    }

    /// Keeps an arena's podium for good and marks it finished; false if it was already.
    pub(crate) async fn finish_arena(
        &self,
        arena: ArenaId,
        podium: Vec<Place>,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        self.write("finish arena", move |db| {
            db.finish_arena(arena, &podium, now)
        })
        .await
    }
}
