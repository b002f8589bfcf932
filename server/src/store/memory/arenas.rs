//! Arenas in memory: plain maps outside the undo log, as accounts are; each write checks
//! everything before it changes anything, so a refused write leaves nothing half done.

use noughts_protocol::{ArenaId, GameId, PlayerId};

use super::Memory;
use crate::store::arenas::{ArenaBackend, ArenaGame, Entrant, Place, StoredArena};
use crate::store::records::StoreError;
use crate::store::records::StoredPodium;

impl ArenaBackend for Memory {
    fn add_arena(&mut self, arena: &StoredArena) -> Result<bool, StoreError> {
        let arenas = &mut self.arenas;
        if arenas.arenas.contains_key(&arena.id)
            || arena
                .slot
                .as_ref()
                .is_some_and(|s| arenas.slots.contains(s))
        {
            return Ok(false);
        }
        if let Some(slot) = &arena.slot {
            arenas.slots.insert(slot.clone());
        }
        arenas.arenas.insert(arena.id, arena.clone());
        Ok(true)
    }

    fn unfinished_arenas(&mut self) -> Result<Vec<StoredArena>, StoreError> {
        Ok(self
            .arenas
            .arenas
            .values()
            .filter(|a| a.finished_ms.is_none())
            .cloned()
            .collect())
    }

    fn entrants(&mut self, arena: ArenaId) -> Result<Vec<Entrant>, StoreError> {
        Ok(self
            .arenas
            .entrants
            .get(&arena)
            .cloned()
            .unwrap_or_default())
    }

    fn save_entrant(&mut self, arena: ArenaId, entrant: &Entrant) -> Result<(), StoreError> {
        if !self.arenas.arenas.contains_key(&arena) {
            return Err(StoreError::Refused("no such arena".into()));
        }
        let lines = self.arenas.entrants.entry(arena).or_default();
        match lines.iter_mut().find(|e| e.player == entrant.player) {
            Some(line) => {
                *line = Entrant {
                    joined_ms: line.joined_ms,
                    ..entrant.clone()
                };
            }
            None => lines.push(entrant.clone()),
        }
        Ok(())
    }

    fn arena_games(&mut self, arena: ArenaId) -> Result<Vec<ArenaGame>, StoreError> {
        Ok(self
            .arenas
            .games
            .values()
            .filter(|(of, _)| *of == arena)
            .map(|(_, game)| *game)
            .collect())
    }

    fn add_arena_game(&mut self, arena: ArenaId, game: &ArenaGame) -> Result<(), StoreError> {
        if !self.arenas.arenas.contains_key(&arena) {
            return Err(StoreError::Refused("no such arena".into()));
        }
        self.arenas.games.entry(game.game).or_insert((arena, *game));
        Ok(())
    }

    fn fence_arena(&mut self, arena: ArenaId, epoch: u64) -> Result<bool, StoreError> {
        if !self.arenas.arenas.contains_key(&arena) {
            return Ok(false);
        }
        let held = self.arenas.epochs.entry(arena).or_default();
        if *held > epoch {
            return Ok(false);
        }
        *held = epoch;
        Ok(true)
    }

    fn claim_arena(&mut self, arena: ArenaId) -> Result<Option<u64>, StoreError> {
        let stored = self.arenas.arenas.get(&arena);
        if stored.is_none_or(|a| a.finished_ms.is_some()) {
            return Ok(None);
        }
        let held = self.arenas.epochs.entry(arena).or_default();
        *held += 1;
        Ok(Some(*held))
    }

    fn count_arena_game(&mut self, game: GameId) -> Result<bool, StoreError> {
        Ok(match self.arenas.games.get_mut(&game) {
            Some((_, row)) if !row.counted => {
                row.counted = true;
                true
            }
            _ => false,
        })
    }

    fn entrant(&mut self, arena: ArenaId, player: PlayerId) -> Result<Option<Entrant>, StoreError> {
        let lines = self.arenas.entrants.get(&arena);
        Ok(lines.and_then(|lines| lines.iter().find(|e| e.player == player).cloned()))
    }

    fn arena_of_game(&mut self, game: GameId) -> Result<Option<(ArenaId, ArenaGame)>, StoreError> {
        Ok(self.arenas.games.get(&game).copied())
    }

    fn finish_arena(
        &mut self,
        arena: ArenaId,
        podium: &[Place],
        now: u64,
    ) -> Result<bool, StoreError> {
        let Some(row) = self
            .arenas
            .arenas
            .get_mut(&arena)
            .filter(|a| a.finished_ms.is_none())
        else {
            return Ok(false);
        };
        row.finished_ms = Some(now);
        self.arenas
            .podiums
            .extend(podium.iter().map(|place| (arena, *place)));
        Ok(true)
    }

    fn podiums_of(
        &mut self,
        player: PlayerId,
        limit: u32,
    ) -> Result<Vec<StoredPodium>, StoreError> {
        let arenas = &self.arenas;
        let mut found: Vec<StoredPodium> = arenas
            .podiums
            .iter()
            .filter(|(_, place)| place.player == player)
            .filter_map(|(arena, place)| {
                let a = arenas.arenas.get(arena)?;
                Some(StoredPodium {
                    arena: *arena,
                    name: a.name.clone(),
                    variant: a.variant,
                    place: place.place,
                    score: place.score,
                    ended_ms: a.finished_ms.unwrap_or_default(),
                })
            })
            .collect();
        found.sort_by_key(|p| std::cmp::Reverse(p.arena));
        found.truncate(limit as usize);
        Ok(found)
    }

    fn arenas_joined(&mut self, player: PlayerId) -> Result<Vec<ArenaId>, StoreError> {
        let arenas = &self.arenas;
        let mut joined: Vec<ArenaId> = arenas
            .arenas
            .values()
            .filter(|a| a.finished_ms.is_none())
            .filter(|a| {
                let lines = arenas.entrants.get(&a.id);
                lines.is_some_and(|l| l.iter().any(|e| e.player == player && !e.withdrawn))
            })
            .map(|a| a.id)
            .collect();
        joined.sort();
        Ok(joined)
    }
}
