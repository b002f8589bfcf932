//! Arenas in SQLite: the arenas, their players' lines, the games they started and their podiums.

use noughts_protocol::{ArenaId, ClockSpec, GameId, PlayerId};
use rusqlite::{Row, params};

use super::Sqlite;
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

/// An arena, with its variant as stored (checked by the caller).
fn arena(row: &Row<'_>) -> rusqlite::Result<(StoredArena, String)> {
    let creator = match (
        row.get::<_, Option<i64>>(8)?,
        row.get::<_, Option<String>>(9)?,
    ) {
        (Some(player), name) => Some((PlayerId(uint(player)), name.unwrap_or_default())),
        _ => None,
    };
    Ok((
        StoredArena {
            id: ArenaId(uint(row.get(0)?)),
            name: row.get(1)?,
            variant: noughts_protocol::Variant::Classic,
            clock: ClockSpec {
                initial_ms: uint(row.get(3)?),
                increment_ms: uint(row.get(4)?),
            },
            start_ms: uint(row.get(5)?),
            end_ms: uint(row.get(6)?),
            code: row.get(7)?,
            creator,
            slot: row.get(10)?,
            bots_only: row.get::<_, i64>(11)? != 0,
            finished_ms: row.get::<_, Option<i64>>(12)?.map(uint),
        },
        row.get(2)?,
    ))
}

/// The arena with its stored variant read.
fn checked(mut arena: StoredArena, variant: &str) -> Result<StoredArena, StoreError> {
    arena.variant = parse(variant)?;
    Ok(arena)
}

fn entrant(row: &Row<'_>) -> rusqlite::Result<Entrant> {
    Ok(Entrant {
        player: PlayerId(uint(row.get(0)?)),
        name: row.get(1)?,
        score: count(row.get(2)?),
        streak: count(row.get(3)?),
        games: count(row.get(4)?),
        wins: count(row.get(5)?),
        draws: count(row.get(6)?),
        withdrawn: row.get::<_, i64>(7)? != 0,
        joined_ms: uint(row.get(8)?),
        last_opponent: row.get::<_, Option<i64>>(9)?.map(|p| PlayerId(uint(p))),
    })
}

impl ArenaBackend for Sqlite {
    fn add_arena(&mut self, arena: &StoredArena) -> Result<bool, StoreError> {
        let added = self
            .db
            .prepare_cached(&format!(
                "INSERT INTO arenas ({ARENA_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
                 ON CONFLICT DO NOTHING"
            ))?
            .execute(params![
                int(arena.id.0),
                arena.name,
                text(arena.variant),
                int(arena.clock.initial_ms),
                int(arena.clock.increment_ms),
                int(arena.start_ms),
                int(arena.end_ms),
                arena.code,
                arena.creator.as_ref().map(|(player, _)| int(player.0)),
                arena.creator.as_ref().map(|(_, name)| name.clone()),
                arena.slot,
                i64::from(arena.bots_only),
                arena.finished_ms.map(int),
            ])?;
        Ok(added == 1)
    }

    fn unfinished_arenas(&mut self) -> Result<Vec<StoredArena>, StoreError> {
        let rows = self
            .db
            .prepare_cached(&format!(
                "SELECT {ARENA_COLUMNS} FROM arenas WHERE finished_ms IS NULL ORDER BY id"
            ))?
            .query_map([], arena)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(arena, variant)| checked(arena, &variant))
            .collect()
    }

    fn entrants(&mut self, arena: ArenaId) -> Result<Vec<Entrant>, StoreError> {
        Ok(self
            .db
            .prepare_cached(&format!(
                "SELECT {ENTRANT_COLUMNS} FROM arena_players WHERE arena = ?1 \
                 ORDER BY joined_ms, player"
            ))?
            .query_map(params![int(arena.0)], entrant)?
            .collect::<Result<Vec<_>, _>>()?)
    }

    fn save_entrant(&mut self, arena: ArenaId, e: &Entrant) -> Result<(), StoreError> {
        self.db
            .prepare_cached(&format!(
                "INSERT INTO arena_players (arena, {ENTRANT_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
                 ON CONFLICT (arena, player) DO UPDATE SET name = ?3, score = ?4, streak = ?5, \
                 games = ?6, wins = ?7, draws = ?8, withdrawn = ?9, last_opponent = ?11"
            ))?
            .execute(params![
                int(arena.0),
                int(e.player.0),
                e.name,
                i64::from(e.score),
                i64::from(e.streak),
                i64::from(e.games),
                i64::from(e.wins),
                i64::from(e.draws),
                i64::from(e.withdrawn),
                int(e.joined_ms),
                e.last_opponent.map(|p| int(p.0)),
            ])?;
        Ok(())
    }

    fn arena_games(&mut self, arena: ArenaId) -> Result<Vec<ArenaGame>, StoreError> {
        Ok(self
            .db
            .prepare_cached(
                "SELECT game, x, o, counted FROM arena_games WHERE arena = ?1 ORDER BY game",
            )?
            .query_map(params![int(arena.0)], |row| {
                Ok(ArenaGame {
                    game: GameId(uint(row.get(0)?)),
                    x: PlayerId(uint(row.get(1)?)),
                    o: PlayerId(uint(row.get(2)?)),
                    counted: row.get::<_, i64>(3)? != 0,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?)
    }

    fn add_arena_game(&mut self, arena: ArenaId, game: &ArenaGame) -> Result<(), StoreError> {
        self.db
            .prepare_cached(
                "INSERT INTO arena_games (game, arena, x, o, counted) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                int(game.game.0),
                int(arena.0),
                int(game.x.0),
                int(game.o.0),
                i64::from(game.counted)
            ])?;
        Ok(())
    }

    fn fence_arena(&mut self, arena: ArenaId, epoch: u64) -> Result<bool, StoreError> {
        let kept = self
            .db
            .prepare_cached(
                "UPDATE arenas SET director_epoch = ?2 WHERE id = ?1 AND director_epoch <= ?2",
            )?
            .execute(params![int(arena.0), int(epoch)])?;
        Ok(kept == 1)
    }

    fn claim_arena(&mut self, arena: ArenaId) -> Result<Option<u64>, StoreError> {
        use rusqlite::OptionalExtension;
        let epoch = self
            .db
            .prepare_cached(
                "UPDATE arenas SET director_epoch = director_epoch + 1 \
                 WHERE id = ?1 AND finished_ms IS NULL RETURNING director_epoch",
            )?
            .query_row(params![int(arena.0)], |row| row.get::<_, i64>(0))
            .optional()?;
        Ok(epoch.map(uint))
    }

    fn count_arena_game(&mut self, game: GameId) -> Result<bool, StoreError> {
        let changed = self
            .db
            .prepare_cached("UPDATE arena_games SET counted = 1 WHERE game = ?1 AND counted = 0")?
            .execute(params![int(game.0)])?;
        Ok(changed == 1)
    }

    fn entrant(&mut self, arena: ArenaId, player: PlayerId) -> Result<Option<Entrant>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .db
            .prepare_cached(&format!(
                "SELECT {ENTRANT_COLUMNS} FROM arena_players WHERE arena = ?1 AND player = ?2"
            ))?
            .query_row(params![int(arena.0), int(player.0)], entrant)
            .optional()?)
    }

    fn arena_of_game(&mut self, game: GameId) -> Result<Option<(ArenaId, ArenaGame)>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .db
            .prepare_cached("SELECT arena, x, o, counted FROM arena_games WHERE game = ?1")?
            .query_row(params![int(game.0)], |row| {
                Ok((
                    ArenaId(uint(row.get(0)?)),
                    ArenaGame {
                        game,
                        x: PlayerId(uint(row.get(1)?)),
                        o: PlayerId(uint(row.get(2)?)),
                        counted: row.get::<_, i64>(3)? != 0,
                    },
                ))
            })
            .optional()?)
    }

    fn finish_arena(
        &mut self,
        arena: ArenaId,
        podium: &[Place],
        now: u64,
    ) -> Result<bool, StoreError> {
        let changed = self
            .db
            .prepare_cached(
                "UPDATE arenas SET finished_ms = ?2 WHERE id = ?1 AND finished_ms IS NULL",
            )?
            .execute(params![int(arena.0), int(now)])?;
        if changed == 0 {
            return Ok(false);
        }
        for place in podium {
            self.db
                .prepare_cached(
                    "INSERT INTO arena_podiums (arena, place, player, score) \
                     VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![
                    int(arena.0),
                    i64::from(place.place),
                    int(place.player.0),
                    i64::from(place.score)
                ])?;
        }
        Ok(true)
    }

    fn podiums_of(
        &mut self,
        player: PlayerId,
        limit: u32,
    ) -> Result<Vec<StoredPodium>, StoreError> {
        let rows = self
            .db
            .prepare_cached(
                "SELECT a.id, a.name, a.variant, p.place, p.score, a.finished_ms \
                 FROM arena_podiums p JOIN arenas a ON a.id = p.arena \
                 WHERE p.player = ?1 ORDER BY p.arena DESC LIMIT ?2",
            )?
            .query_map(params![int(player.0), i64::from(limit)], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, Option<i64>>(5)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(arena, name, variant, place, score, ended)| {
                Ok(StoredPodium {
                    arena: ArenaId(uint(arena)),
                    name,
                    variant: parse(&variant)?,
                    place: count(place),
                    score: count(score),
                    ended_ms: ended.map(uint).unwrap_or_default(),
                })
            })
            .collect()
    }

    fn arenas_joined(&mut self, player: PlayerId) -> Result<Vec<ArenaId>, StoreError> {
        // From the few arenas not finished (their own index), each looked up by its key.
        Ok(self
            .db
            .prepare_cached(
                "SELECT a.id FROM arenas a \
                 JOIN arena_players p ON p.arena = a.id AND p.player = ?1 \
                 WHERE a.finished_ms IS NULL AND p.withdrawn = 0 ORDER BY a.id",
            )?
            .query_map(params![int(player.0)], |row| Ok(ArenaId(uint(row.get(0)?))))?
            .collect::<Result<Vec<_>, _>>()?)
    }
}
