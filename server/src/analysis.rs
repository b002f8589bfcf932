//! The engine's judgements on finished games (`analyse_game`): worked out on the blocking pool,
//! one game at a time per kind of search, and kept per game so that asking again costs nothing.
//! Classic, four and cube are judged exactly at once; qubic is judged in the background within a
//! bounded budget per game, a first quick pass over every move and then a longer look at the
//! moves it did not prove, and its progress is watched as it fills in.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use noughts_engine::{Board, Budget, Judgement, Variant, judge};
use noughts_protocol::{GameId, MoveAnalysis, NotJudged, ServerMessage, Verdict};
use tokio::sync::{Semaphore, watch};
use tokio::task::AbortHandle;
use tracing::error;

/// The task pushing a game's analysis to a connection as it fills in; ended when dropped.
#[derive(Debug)]
pub(crate) struct Following(pub AbortHandle);

impl Drop for Following {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Games whose judgements are kept; the oldest kept gives way to the next.
const KEPT: usize = 1024;

/// How long qubic's search may look at each move, and at a game in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budgets {
    /// Per move, in the first pass over every move.
    pub first: Duration,
    /// Per move, in the second pass over the moves the first did not prove.
    pub second: Duration,
    /// For the whole game, both passes together: what is not proven by then is `not_proven`.
    pub game: Duration,
}

impl Budgets {
    /// What a node gives each qubic game.
    pub(crate) const QUBIC: Budgets = Budgets {
        first: Duration::from_millis(150),
        second: Duration::from_millis(1_000),
        game: Duration::from_secs(30),
    };
}

/// A game's judgements so far: one per move, and whether every move is settled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Progress {
    pub moves: Vec<MoveAnalysis>,
    pub complete: bool,
}

impl Progress {
    /// The `game_analysis` message for `game` as it stands.
    pub(crate) fn message(&self, game: GameId) -> ServerMessage {
        ServerMessage::GameAnalysis {
            game,
            verdicts: self.moves.iter().map(|m| m.verdict).collect(),
            moves: self.moves.clone(),
            complete: self.complete,
        }
    }
}

/// Where a game's progress can be watched.
pub(crate) type Watch = watch::Receiver<Arc<Progress>>;

/// Each game's progress, and the order the games were asked for in (oldest first).
#[derive(Debug, Default)]
struct Kept {
    by_game: HashMap<GameId, Watch>,
    order: VecDeque<GameId>,
}

/// The judgements worked out so far, and the permits to work out more.
#[derive(Debug)]
pub(crate) struct Analyses {
    kept: Mutex<Kept>,
    /// One qubic game judged at a time on the node: each holds a blocking thread for as long as
    /// its budget allows.
    qubic: Arc<Semaphore>,
    /// One exactly judged game at a time (quick), so that these never wait behind qubic.
    exact: Arc<Semaphore>,
    budgets: Budgets,
}

impl Default for Analyses {
    fn default() -> Analyses {
        Analyses::new(Budgets::QUBIC)
    }
}

impl Analyses {
    pub(crate) fn new(budgets: Budgets) -> Analyses {
        Analyses {
            kept: Mutex::default(),
            qubic: Arc::new(Semaphore::new(1)),
            exact: Arc::new(Semaphore::new(1)),
            budgets,
        }
    }

    /// The progress of judging the moves `cells` of the finished game `game` of `variant`: kept,
    /// or started now in the background.
    pub(crate) fn start(&self, game: GameId, variant: Variant, cells: Vec<usize>) -> Watch {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(progress) = kept.by_game.get(&game) {
            return progress.clone();
        }
        let pending = Progress {
            moves: cells
                .iter()
                .map(|&cell| MoveAnalysis::pending(cell))
                .collect(),
            complete: cells.is_empty(),
        };
        let (tx, rx) = watch::channel(Arc::new(pending));
        let permits = if variant == Variant::Qubic {
            self.qubic.clone()
        } else {
            self.exact.clone()
        };
        let budgets = self.budgets;
        tokio::spawn(async move {
            // The semaphore is never closed, so a permit always comes.
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            let tx = Arc::new(tx);
            let judging = tx.clone();
            let done =
                tokio::task::spawn_blocking(move || judge_game(variant, &cells, budgets, &judging))
                    .await;
            if done.is_err() {
                error!(%game, "judging a game failed");
                tx.send_modify(|progress| finish(Arc::make_mut(progress)));
            }
        });
        kept.by_game.insert(game, rx.clone());
        kept.order.push_back(game);
        while kept.order.len() > KEPT {
            if let Some(oldest) = kept.order.pop_front() {
                kept.by_game.remove(&oldest);
            }
        }
        rx
    }
}

/// Judges the moves `cells` of a game of `variant` in turn, telling `tx` after each: every move
/// once with `budgets.first`, then the ones not proven again with `budgets.second`, all within
/// `budgets.game`; what is still not proven is `not_proven`.
fn judge_game(
    variant: Variant,
    cells: &[usize],
    budgets: Budgets,
    tx: &watch::Sender<Arc<Progress>>,
) {
    let started = Instant::now();
    let mut boards = Vec::with_capacity(cells.len());
    let mut board = Board::new(variant);
    for &cell in cells {
        let Ok(next) = board.play(cell) else { break };
        boards.push(board);
        board = next;
    }
    let pass = |per_move: Duration, again: bool| {
        for (index, before) in boards.iter().enumerate() {
            let settled = tx.borrow().moves[index].not_judged.is_none();
            if again && settled {
                continue;
            }
            let left = budgets.game.saturating_sub(started.elapsed());
            if left.is_zero() {
                return;
            }
            let budget = Budget {
                time: Some(per_move.min(left)),
                nodes: None,
            };
            let judged = judge(before, cells[index], budget)
                .map(|judged| without_bounds(before, judged))
                .map(MoveAnalysis::from);
            tx.send_modify(|progress| {
                let moves = &mut Arc::make_mut(progress).moves;
                moves[index] = judged.unwrap_or(MoveAnalysis {
                    not_judged: Some(NotJudged::NotProven),
                    ..MoveAnalysis::pending(cells[index])
                });
            });
        }
    };
    pass(budgets.first, false);
    if variant == Variant::Qubic {
        pass(budgets.second, true);
    }
    tx.send_modify(|progress| finish(Arc::make_mut(progress)));
}

/// `judged` without the plies that are only a bound: qubic's book proves a win or a loss but
/// gives as its length the most the game can last (the empty cells), which is not how long it
/// lasts with best play.
fn without_bounds(before: &Board, mut judged: Judgement) -> Judgement {
    if before.variant() != Variant::Qubic {
        return judged;
    }
    let bound = Some(before.empty().count_ones());
    for (_, plies) in [&mut judged.before, &mut judged.after] {
        if *plies == bound {
            *plies = None;
        }
    }
    judged
}

/// Gives up on the moves still pending, and marks the analysis complete.
fn finish(progress: &mut Progress) {
    for judged in &mut progress.moves {
        if !judged.is_settled() {
            judged.not_judged = Some(NotJudged::NotProven);
        }
        debug_assert!(judged.not_judged.is_none() || judged.verdict == Verdict::Unknown);
    }
    progress.complete = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn complete(mut progress: Watch) -> Arc<Progress> {
        progress
            .wait_for(|p| p.complete)
            .await
            .expect("the judging ends")
            .clone()
    }

    #[tokio::test]
    async fn a_game_is_judged_once_and_kept() {
        let analyses = Analyses::default();
        let cells = vec![4, 1, 0, 8, 6, 2, 3];
        let done = complete(analyses.start(GameId(1), Variant::Classic, cells)).await;
        assert_eq!(done.moves.len(), 7);
        assert_eq!(done.moves[1].verdict, Verdict::Blunder);
        assert!(done.moves[1].best.is_some_and(|best| best != 1));
        assert!(done.moves.iter().all(|m| m.not_judged.is_none()));
        // Kept: the moves asked with are not judged again.
        let again = analyses.start(GameId(1), Variant::Classic, Vec::new());
        assert_eq!(*again.borrow().clone(), *done);
    }

    #[tokio::test]
    async fn qubic_fills_in_within_its_budget() {
        let analyses = Analyses::new(Budgets {
            first: Duration::from_millis(20),
            second: Duration::from_millis(40),
            game: Duration::from_millis(400),
        });
        let cells = vec![0, 21, 63, 42, 3, 1, 2];
        let progress = analyses.start(GameId(2), Variant::Qubic, cells);
        let first = progress.borrow().clone();
        assert!(!first.complete);
        assert!(first.moves.iter().all(|m| !m.is_settled()));
        let done = complete(progress).await;
        assert!(done.moves.iter().all(MoveAnalysis::is_settled));
    }

    /// The figure in BENCHMARKS.md: games of qubic between the medium and hard levels judged in
    /// full at the node's budgets, with the time each took and the share of its moves proven.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "a benchmark: about half a minute a game"]
    async fn judging_qubic_games_in_full() {
        use noughts_engine::{Level, Rng, choose_move};
        let analyses = Analyses::default();
        for seed in 0..3 {
            let mut rng = Rng::with_seed(seed);
            let mut board = Board::new(Variant::Qubic);
            let mut cells = Vec::new();
            while !board.is_over() {
                let level = [Level::Hard, Level::Medium][board.ply() as usize % 2];
                let choice = choose_move(&board, level, &mut rng, Budget::millis(100)).unwrap();
                cells.push(choice.cell);
                board = board.play(choice.cell).unwrap();
            }
            let started = Instant::now();
            let progress = analyses.start(GameId(seed), Variant::Qubic, cells.clone());
            let done = complete(progress).await;
            let proven = done.moves.iter().filter(|m| m.not_judged.is_none()).count();
            let blunders = done
                .moves
                .iter()
                .filter(|m| m.verdict == Verdict::Blunder)
                .count();
            println!(
                "game {seed}: {} moves judged in {:.1} s, {proven} proven ({:.0}%), {blunders} blunders",
                cells.len(),
                started.elapsed().as_secs_f64(),
                100.0 * proven as f64 / cells.len() as f64
            );
        }
    }

    #[test]
    fn the_oldest_game_gives_way() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _guard = runtime.enter();
        let analyses = Analyses::default();
        for game in 0..=KEPT as u64 {
            analyses.start(GameId(game), Variant::Classic, Vec::new());
        }
        let kept = analyses.kept.lock().unwrap();
        assert!(!kept.by_game.contains_key(&GameId(0)));
        assert!(kept.by_game.contains_key(&GameId(KEPT as u64)));
    }
}
