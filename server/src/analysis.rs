//! The engine's verdicts on finished games (`analyse_game`): worked out on the blocking pool, a
//! few games at a time, within a budget per variant, and kept per game so that asking again
//! costs nothing.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use noughts_engine::{Budget, Variant, review};
use noughts_protocol::{GameId, Verdict};
use tokio::sync::Semaphore;

/// Games judged at once across the node: each holds a blocking thread for as long as it takes.
const AT_ONCE: usize = 1;
/// Games whose verdicts are kept; the oldest kept gives way to the next.
const KEPT: usize = 1024;

/// How long the engine may think about each move of a game of `variant`. Classic, four and cube
/// are judged exactly (the search ignores the budget there); on qubic a move whose position is
/// not proven within it is `unknown`.
fn budget(variant: Variant) -> Budget {
    match variant {
        Variant::Qubic => Budget {
            time: Some(Duration::from_millis(150)),
            nodes: Some(2_000_000),
        },
        _ => Budget::DEFAULT,
    }
}

/// Each judged game's verdicts, and the order the games were judged in (oldest first).
#[derive(Debug, Default)]
struct Kept {
    by_game: HashMap<GameId, Arc<[Verdict]>>,
    order: VecDeque<GameId>,
}

/// The verdicts worked out so far, and the permits to work out more.
#[derive(Debug)]
pub(crate) struct Analyses {
    /// The games judged so far.
    kept: Mutex<Kept>,
    /// Permits to judge a game ([`AT_ONCE`]).
    permits: Semaphore,
}

impl Default for Analyses {
    fn default() -> Analyses {
        Analyses {
            kept: Mutex::default(),
            permits: Semaphore::new(AT_ONCE),
        }
    }
}

impl Analyses {
    /// The verdicts on the moves `cells` of the finished game `game` of `variant`: kept ones, or
    /// worked out now (waiting for a permit first). `None` if the search's thread failed.
    pub(crate) async fn verdicts(
        &self,
        game: GameId,
        variant: Variant,
        cells: Vec<usize>,
    ) -> Option<Arc<[Verdict]>> {
        if let Some(kept) = self.kept(game) {
            return Some(kept);
        }
        // The semaphore is never closed, so a permit always comes.
        let _permit = self.permits.acquire().await.ok()?;
        // Someone else may have judged it while this waited.
        if let Some(kept) = self.kept(game) {
            return Some(kept);
        }
        let verdicts: Arc<[Verdict]> = tokio::task::spawn_blocking(move || {
            review(variant, &cells, budget(variant))
                .into_iter()
                .map(Verdict::from)
                .collect()
        })
        .await
        .ok()?;
        self.keep(game, verdicts.clone());
        Some(verdicts)
    }

    fn kept(&self, game: GameId) -> Option<Arc<[Verdict]>> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.by_game.get(&game).cloned()
    }

    fn keep(&self, game: GameId, verdicts: Arc<[Verdict]>) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Kept { by_game, order } = &mut *kept;
        if by_game.insert(game, verdicts).is_none() {
            order.push_back(game);
        }
        while order.len() > KEPT {
            if let Some(oldest) = order.pop_front() {
                by_game.remove(&oldest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_game_is_judged_once_and_kept() {
        let analyses = Analyses::default();
        let verdicts = analyses
            .verdicts(GameId(1), Variant::Classic, vec![4, 1, 0, 8, 6, 2, 3])
            .await
            .unwrap();
        assert_eq!(verdicts.len(), 7);
        assert_eq!(verdicts[1], Verdict::Blunder);
        // Kept: the moves asked with are not judged again.
        let again = analyses
            .verdicts(GameId(1), Variant::Classic, Vec::new())
            .await
            .unwrap();
        assert_eq!(again, verdicts);
    }

    #[test]
    fn the_oldest_game_gives_way() {
        let analyses = Analyses::default();
        for game in 0..=KEPT as u64 {
            analyses.keep(GameId(game), Arc::from(vec![Verdict::Best]));
        }
        assert!(analyses.kept(GameId(0)).is_none());
        assert!(analyses.kept(GameId(KEPT as u64)).is_some());
    }
}
