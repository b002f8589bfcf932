//! Arenas in PostgreSQL: the same rows as SQLite's. One node directs an arena at a time; a game
//! counts once across every node by the `counted` flag its row flips in the counting transaction.

use noughts_protocol::{ArenaId, ClockSpec, GameId, PlayerId};
use postgres::Row;

use super::Postgres;
use crate::store::arenas::{ArenaBackend, ArenaGame, Entrant, Place, StoredArena};
use crate::store::records::StoreError;
use crate::store::records::StoredPodium;
use crate::store::rows::{count, int, parse, text, uint};

/// The columns of `arenas` that [`arena`] reads, in its order.
const ARENA_COLUMNS: &str = "id, name, variant, initial_ms, increment_ms, start_ms, end_ms, code, \
     creator, creator_name, slot, bots_only, finished_ms";

/// The columns of `arena_players` that [`entrant`] reads, in its order.
const ENTRANT_COLUMNS: &str =
    "player, name, score, streak, games, wins, draws, withdrawn, joined_ms, last_opponent";

fn arena(row: &Row) -> Result<StoredArena, StoreError> {
    let creator = match (
        row.try_get::<_, Option<i64>>(8)?,
        row.try_get::<_, Option<String>>(9)?,
    ) {
        (Some(player), name) => Some((PlayerId(uint(player)), name.unwrap_or_default())),
        _ => None,
    };
    Ok(StoredArena {
        id: ArenaId(uint(row.try_get(0)?)),
        name: row.try_get(1)?,
        variant: parse(&row.try_get::<_, String>(2)?)?,
        clock: ClockSpec {
            initial_ms: uint(row.try_get(3)?),
            increment_ms: uint(row.try_get(4)?),
        },
        start_ms: uint(row.try_get(5)?),
        end_ms: uint(row.try_get(6)?),
        code: row.try_get(7)?,
        creator,
        slot: row.try_get(10)?,
        bots_only: row.try_get::<_, i64>(11)? != 0,
        finished_ms: row.try_get::<_, Option<i64>>(12)?.map(uint),
    })
}

fn entrant(row: &Row) -> Result<Entrant, StoreError> {
    Ok(Entrant {
        player: PlayerId(uint(row.try_get(0)?)),
        name: row.try_get(1)?,
        score: count(row.try_get(2)?),
        streak: count(row.try_get(3)?),
        games: count(row.try_get(4)?),
        wins: count(row.try_get(5)?),
        draws: count(row.try_get(6)?),
        withdrawn: row.try_get::<_, i64>(7)? != 0,
        joined_ms: uint(row.try_get(8)?),
        last_opponent: row.try_get::<_, Option<i64>>(9)?.map(|p| PlayerId(uint(p))),
    })
}

impl ArenaBackend for Postgres {
    fn add_arena(&mut self, a: &StoredArena) -> Result<bool, StoreError> {
        let added = self.conn.execute(
            &format!(
                "INSERT INTO arenas ({ARENA_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
                 ON CONFLICT DO NOTHING"
            ),
            &[
                &int(a.id.0),
                &a.name,
                &text(a.variant),
                &int(a.clock.initial_ms),
                &int(a.clock.increment_ms),
                &int(a.start_ms),
                &int(a.end_ms),
                &a.code,
                &a.creator.as_ref().map(|(player, _)| int(player.0)),
                &a.creator.as_ref().map(|(_, name)| name.clone()),
                &a.slot,
                &i64::from(a.bots_only),
                &a.finished_ms.map(int),
            ],
        )?;
        Ok(added == 1)
    }

    fn unfinished_arenas(&mut self) -> Result<Vec<StoredArena>, StoreError> {
        self.conn
            .query(
                &format!(
                    "SELECT {ARENA_COLUMNS} FROM arenas WHERE finished_ms IS NULL ORDER BY id"
                ),
                &[],
            )?
            .iter()
            .map(arena)
            .collect()
    }

    fn entrants(&mut self, arena: ArenaId) -> Result<Vec<Entrant>, StoreError> {
        self.conn
            .query(
                &format!(
                    "SELECT {ENTRANT_COLUMNS} FROM arena_players WHERE arena = $1 \
                     ORDER BY joined_ms, player"
                ),
                &[&int(arena.0)],
            )?
            .iter()
            .map(entrant)
            .collect()
    }

    fn save_entrant(&mut self, arena: ArenaId, e: &Entrant) -> Result<(), StoreError> {
        self.conn.execute(
            &format!(
                "INSERT INTO arena_players (arena, {ENTRANT_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                 ON CONFLICT (arena, player) DO UPDATE SET name = $3, score = $4, streak = $5, \
                 games = $6, wins = $7, draws = $8, withdrawn = $9, last_opponent = $11"
            ),
            &[
                &int(arena.0),
                &int(e.player.0),
                &e.name,
                &i64::from(e.score),
                &i64::from(e.streak),
                &i64::from(e.games),
                &i64::from(e.wins),
                &i64::from(e.draws),
                &i64::from(e.withdrawn),
                &int(e.joined_ms),
                &e.last_opponent.map(|p| int(p.0)),
            ],
        )?;
        Ok(())
    }

    fn arena_games(&mut self, arena: ArenaId) -> Result<Vec<ArenaGame>, StoreError> {
        self.conn
            .query(
                "SELECT game, x, o, counted FROM arena_games WHERE arena = $1 ORDER BY game",
                &[&int(arena.0)],
            )?
            .iter()
            .map(|row| {
                Ok(ArenaGame {
                    game: GameId(uint(row.try_get(0)?)),
                    x: PlayerId(uint(row.try_get(1)?)),
                    o: PlayerId(uint(row.try_get(2)?)),
                    counted: row.try_get::<_, i64>(3)? != 0,
                })
            })
            .collect()
    }

    fn add_arena_game(&mut self, arena: ArenaId, game: &ArenaGame) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO arena_games (game, arena, x, o, counted) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT DO NOTHING",
            &[
                &int(game.game.0),
                &int(arena.0),
                &int(game.x.0),
                &int(game.o.0),
                &i64::from(game.counted),
            ],
        )?;
        Ok(())
    }

    fn fence_arena(&mut self, arena: ArenaId, epoch: u64) -> Result<bool, StoreError> {
        let kept = self.conn.execute(
            "UPDATE arenas SET director_epoch = $2 WHERE id = $1 AND director_epoch <= $2",
            &[&int(arena.0), &int(epoch)],
        )?;
        Ok(kept == 1)
    }

    fn claim_arena(&mut self, arena: ArenaId) -> Result<Option<u64>, StoreError> {
        // Takes the row's lock, as every fenced write does: a write under way commits before
        // (and is read by the new director) or is refused after.
        let row = self.conn.query_opt(
            "UPDATE arenas SET director_epoch = director_epoch + 1 \
             WHERE id = $1 AND finished_ms IS NULL RETURNING director_epoch",
            &[&int(arena.0)],
        )?;
        row.map(|row| Ok(uint(row.try_get(0)?))).transpose()
    }

    fn count_arena_game(&mut self, game: GameId) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE arena_games SET counted = 1 WHERE game = $1 AND counted = 0",
            &[&int(game.0)],
        )?;
        Ok(changed == 1)
    }

    fn entrant(&mut self, arena: ArenaId, player: PlayerId) -> Result<Option<Entrant>, StoreError> {
        self.conn
            .query_opt(
                &format!(
                    "SELECT {ENTRANT_COLUMNS} FROM arena_players \
                     WHERE arena = $1 AND player = $2 FOR UPDATE"
                ),
                &[&int(arena.0), &int(player.0)],
            )?
            .as_ref()
            .map(entrant)
            .transpose()
    }

    fn arena_of_game(&mut self, game: GameId) -> Result<Option<(ArenaId, ArenaGame)>, StoreError> {
        let Some(row) = self.conn.query_opt(
            "SELECT arena, x, o, counted FROM arena_games WHERE game = $1 FOR UPDATE",
            &[&int(game.0)],
        )?
        else {
            return Ok(None);
        };
        Ok(Some((
            ArenaId(uint(row.try_get(0)?)),
            ArenaGame {
                game,
                x: PlayerId(uint(row.try_get(1)?)),
                o: PlayerId(uint(row.try_get(2)?)),
                counted: row.try_get::<_, i64>(3)? != 0,
            },
        )))
    }

    fn finish_arena(
        &mut self,
        arena: ArenaId,
        podium: &[Place],
        now: u64,
    ) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE arenas SET finished_ms = $2 WHERE id = $1 AND finished_ms IS NULL",
            &[&int(arena.0), &int(now)],
        )?;
        if changed == 0 {
            return Ok(false);
        }
        for place in podium {
            self.conn.execute(
                "INSERT INTO arena_podiums (arena, place, player, score) VALUES ($1, $2, $3, $4)",
                &[
                    &int(arena.0),
                    &i64::from(place.place),
                    &int(place.player.0),
                    &i64::from(place.score),
                ],
            )?;
        }
        Ok(true)
    }

    fn podiums_of(
        &mut self,
        player: PlayerId,
        limit: u32,
    ) -> Result<Vec<StoredPodium>, StoreError> {
        self.conn
            .query(
                "SELECT a.id, a.name, a.variant, p.place, p.score, a.finished_ms \
                 FROM arena_podiums p JOIN arenas a ON a.id = p.arena \
                 WHERE p.player = $1 ORDER BY p.arena DESC LIMIT $2",
                &[&int(player.0), &i64::from(limit)],
            )?
            .iter()
            .map(|row| {
                Ok(StoredPodium {
                    arena: ArenaId(uint(row.try_get(0)?)),
                    name: row.try_get(1)?,
                    variant: parse(&row.try_get::<_, String>(2)?)?,
                    place: count(row.try_get(3)?),
                    score: count(row.try_get(4)?),
                    ended_ms: row
                        .try_get::<_, Option<i64>>(5)?
                        .map(uint)
                        .unwrap_or_default(),
                })
            })
            .collect()
    }

    fn arenas_joined(&mut self, player: PlayerId) -> Result<Vec<ArenaId>, StoreError> {
        // From the few arenas not finished (their own index), each looked up by its key.
        self.conn
            .query(
                "SELECT a.id FROM arenas a \
                 JOIN arena_players p ON p.arena = a.id AND p.player = $1 \
                 WHERE a.finished_ms IS NULL AND p.withdrawn = 0 ORDER BY a.id",
                &[&int(player.0)],
            )?
            .iter()
            .map(|row| Ok(ArenaId(uint(row.try_get(0)?))))
            .collect()
    }
}
