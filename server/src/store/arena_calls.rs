//! The [`Store`]'s calls for arenas, each a read or a write of
//! [`super::arenas::ArenaBackend`]'s facts. A game counts once: its row is marked counted in the
//! transaction that stores its end and writes its players' new scores
//! ([`super::arenas::count_in_arena`]); the director's writes (joining, leaving, pairing, the
//! podium) read the line in their own transaction and change only what is theirs, never a
//! score, and each carries the director's fencing epoch ([`ArenaHold`]): refused, as
//! [`StoreError::FencedArena`], once another director has taken the arena.

use noughts_protocol::{ArenaId, GameId, PlayerId};

use super::arenas::{ArenaGame, ArenaHold, Entrant, Place, StoredArena, check_arena_fence};
use super::queue::Store;
use super::records::{GameStart, StoreError, now_ms};

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

    /// Takes an unfinished `arena` for a new director (see [`ArenaHold`]): its new fencing
    /// epoch, its players and the games it started, read under that epoch (whatever the last
    /// director stored is in it); `None` if it has finished. Durable when it answers.
    pub(crate) async fn take_arena(
        &self,
        arena: ArenaId,
    ) -> Result<Option<(u64, Vec<Entrant>, Vec<ArenaGame>)>, StoreError> {
        self.write("take arena", move |db| {
            let Some(epoch) = db.claim_arena(arena)? else {
                return Ok(None);
            };
            Ok(Some((epoch, db.entrants(arena)?, db.arena_games(arena)?)))
        })
        .await
    }

    /// Confirms that `hold` is still its arena's: [`StoreError::FencedArena`] if another
    /// director has taken it since.
    pub(crate) async fn check_arena(&self, hold: ArenaHold) -> Result<(), StoreError> {
        self.write("check arena", move |db| check_arena_fence(db, hold))
            .await
    }

    /// A player joins `arena`, or comes back (their line kept, as the store has it now): their
    /// line as stored. Durable when it answers.
    pub(crate) async fn enter_arena(
        &self,
        hold: ArenaHold,
        player: PlayerId,
        name: String,
    ) -> Result<Entrant, StoreError> {
        let now = now_ms();
        let arena = hold.arena;
        self.write("enter arena", move |db| {
            check_arena_fence(db, hold)?;
            let line = match db.entrant(arena, player)? {
                Some(line) => Entrant {
                    withdrawn: false,
                    name,
                    ..line
                },
                None => Entrant {
                    player,
                    name,
                    score: 0,
                    streak: 0,
                    games: 0,
                    wins: 0,
                    draws: 0,
                    withdrawn: false,
                    joined_ms: now,
                    last_opponent: None,
                },
            };
            db.save_entrant(arena, &line)?;
            Ok(line)
        })
        .await
    }

    /// A player stops being paired in `arena`: their line as stored, `None` if they never
    /// joined. Durable when it answers.
    pub(crate) async fn leave_arena(
        &self,
        hold: ArenaHold,
        player: PlayerId,
    ) -> Result<Option<Entrant>, StoreError> {
        let arena = hold.arena;
        self.write("leave arena", move |db| {
            check_arena_fence(db, hold)?;
            let Some(line) = db.entrant(arena, player)? else {
                return Ok(None);
            };
            let line = Entrant {
                withdrawn: true,
                ..line
            };
            db.save_entrant(arena, &line)?;
            Ok(Some(line))
        })
        .await
    }

    /// Stores a game `arena` has just started and its row in the arena, in one transaction: a
    /// game an arena started is never found without its row. (Each player's last opponent is
    /// stored with the game's count, as their lines are written then anyway; until then the
    /// director has it, and the game keeps its players from being paired.) Durable when it
    /// answers.
    pub(crate) async fn start_arena_game(
        &self,
        start: GameStart,
        hold: ArenaHold,
    ) -> Result<(), StoreError> {
        let arena = hold.arena;
        self.write("start arena game", move |db| {
            check_arena_fence(db, hold)?;
            db.start_game(&start)?;
            let (Some(&x), Some(&o)) = (start.seats[0].human(), start.seats[1].human()) else {
                return Ok(());
            };
            let game = ArenaGame {
                game: start.game,
                x,
                o,
                counted: false,
            };
            db.add_arena_game(arena, &game)
        })
        .await
    }

    /// An arena's game as stored (counted or not) and its players' lines; `None` if the arena
    /// did not start it.
    pub(crate) async fn arena_game(
        &self,
        arena: ArenaId,
        game: GameId,
    ) -> Result<Option<(ArenaGame, Vec<Entrant>)>, StoreError> {
        self.read(move |db| {
            let Some((of, row)) = db.arena_of_game(game)?.filter(|(of, _)| *of == arena) else {
                return Ok(None);
            };
            let mut lines = Vec::new();
            for player in [row.x, row.o] {
                lines.extend(db.entrant(of, player)?);
            }
            Ok(Some((row, lines)))
        })
        .await
    }

    /// Marks a game that ended without its end being stored (it never was: the node that
    /// played it died before its first write) counted, for nothing; false if it had counted.
    pub(crate) async fn void_arena_game(
        &self,
        hold: ArenaHold,
        game: GameId,
    ) -> Result<bool, StoreError> {
        self.write("void arena game", move |db| {
            check_arena_fence(db, hold)?;
            db.count_arena_game(game)
        })
        .await
    }

    /// The arenas not finished that `player` is in (joined, not withdrawn), by id.
    pub(crate) async fn arenas_joined(&self, player: PlayerId) -> Result<Vec<ArenaId>, StoreError> {
        self.read(move |db| db.arenas_joined(player)).await
    }

    /// Keeps an arena's podium for good and marks it finished; false if it was already.
    pub(crate) async fn finish_arena(
        &self,
        hold: ArenaHold,
        podium: Vec<Place>,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        self.write("finish arena", move |db| {
            check_arena_fence(db, hold)?;
            db.finish_arena(hold.arena, &podium, now)
        })
        .await
    }
}
