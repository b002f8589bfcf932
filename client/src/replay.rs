//! Replays: a stored game stepped through move by move. [`ReplayView`] is the state of the replay
//! screen; [`fetch_record`] asks the server for a game's record; [`print_record`] is
//! `noughts replay --plain`, every position as text.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context as _, bail};
use noughts_engine::{Board, Outcome, Variant};
use noughts_protocol::{
    ClientMessage, GameId, GameKind, GameRecord, GameResult, Mark, MoveAnalysis, MoveRecord,
    RecordSeat, ServerMessage, Verdict,
};

use crate::net::Link;
use crate::notation::cell_name;
use crate::plain::{result_text, write_board};
use crate::verdict::{self, MoveVerdict};

/// A stored game on screen, at one position of its move list.
#[derive(Debug, Clone)]
pub struct ReplayView {
    /// The record as the server sent it, names sanitised.
    pub record: GameRecord,
    /// Every position: the empty board first, then the one after each move.
    pub boards: Vec<Board>,
    /// How many moves are played on the position shown.
    pub ply: usize,
    /// The local engine's verdict on each move, worked out as the move is shown (`None` until
    /// then; `Some(None)` where the engine cannot tell).
    verdicts: Vec<Option<Option<MoveVerdict>>>,
    /// The server's judgement of each move (`game_analysis`), as it fills in; empty until it
    /// comes (and for a game the server does not hold).
    pub analysis: Vec<MoveAnalysis>,
    /// Whether the server's analysis is complete.
    pub complete: bool,
}

impl ReplayView {
    /// A view of `record` at its final position. Errors if a move is not legal where it stands.
    pub fn new(record: GameRecord) -> anyhow::Result<ReplayView> {
        let mut boards = vec![Board::new(record.variant)];
        for (index, step) in record.moves.iter().enumerate() {
            let board = boards[index].play(step.cell).with_context(|| {
                format!(
                    "move {} (cell {}) is not legal",
                    index + 1,
                    cell_name(record.variant, step.cell)
                )
            })?;
            boards.push(board);
        }
        let ply = record.moves.len();
        let mut view = ReplayView {
            verdicts: vec![None; record.moves.len()],
            analysis: Vec::new(),
            complete: false,
            record,
            boards,
            ply,
        };
        view.judge_shown();
        Ok(view)
    }

    /// A record made from a list of cells alone (`noughts replay --moves`), with no server.
    pub fn offline(variant: Variant, cells: &[usize]) -> anyhow::Result<ReplayView> {
        let mut board = Board::new(variant);
        let mut moves = Vec::with_capacity(cells.len());
        for &cell in cells {
            moves.push(MoveRecord {
                mark: board.to_move(),
                cell,
                at_ms: 0,
                clock_ms: None,
            });
            match board.play(cell) {
                Ok(next) => board = next,
                // ReplayView::new says which move it was.
                Err(_) => break,
            }
        }
        let seat = |name: &str| RecordSeat {
            name: name.to_owned(),
            player: None,
            level: None,
            rating: None,
            rating_change: None,
            guest: false,
            bot: false,
        };
        let result = board.outcome().map(|outcome| match outcome {
            Outcome::Win { mark, cells } => GameResult {
                winner: Some(mark),
                reason: noughts_protocol::EndReason::Line,
                cells: noughts_engine::cells_of(cells).collect(),
            },
            Outcome::Draw => GameResult {
                winner: None,
                reason: noughts_protocol::EndReason::Draw,
                cells: Vec::new(),
            },
        });
        ReplayView::new(GameRecord {
            game: GameId(0),
            variant,
            kind: GameKind::Human,
            x: seat("X"),
            o: seat("O"),
            clock: None,
            rated: false,
            started_ms: 0,
            ended_ms: None,
            moves,
            board: board.to_compact(),
            result,
            rematch_of: None,
        })
    }

    /// The game's id.
    pub fn id(&self) -> GameId {
        self.record.game
    }

    /// The position shown.
    pub fn board(&self) -> &Board {
        &self.boards[self.ply]
    }

    /// The number of moves in the game.
    pub fn len(&self) -> usize {
        self.record.moves.len()
    }

    /// Whether the game has no moves.
    pub fn is_empty(&self) -> bool {
        self.record.moves.is_empty()
    }

    /// The move that led to the position shown, if any.
    pub fn last_move(&self) -> Option<&MoveRecord> {
        self.ply.checked_sub(1).map(|i| &self.record.moves[i])
    }

    /// Whether the final position is shown.
    pub fn at_end(&self) -> bool {
        self.ply == self.len()
    }

    /// The result, shown only on the final position.
    pub fn result(&self) -> Option<&GameResult> {
        self.record.result.as_ref().filter(|_| self.at_end())
    }

    /// Steps `delta` moves forward (or back, when negative), stopping at either end.
    pub fn step(&mut self, delta: isize) {
        self.ply = self.ply.saturating_add_signed(delta).min(self.len());
        self.judge_shown();
    }

    /// Jumps to the empty board (`false`) or the final position (`true`).
    pub fn jump(&mut self, to_end: bool) {
        self.ply = if to_end { self.len() } else { 0 };
        self.judge_shown();
    }

    /// Takes in the server's analysis of this game (ignored if it is of another game).
    pub fn analysed(&mut self, game: GameId, moves: Vec<MoveAnalysis>, complete: bool) {
        if game == self.record.game && moves.len() == self.len() {
            self.analysis = moves;
            self.complete = complete;
        }
    }

    /// The server's judgement of move `ply` (1-based), once it has come.
    pub fn judged(&self, ply: usize) -> Option<&MoveAnalysis> {
        self.analysis.get(ply.checked_sub(1)?)
    }

    /// The engine's verdict on move `ply` (1-based), if it has been worked out and told: the
    /// server's once it has judged the move, else the local engine's.
    pub fn verdict(&self, ply: usize) -> Option<MoveVerdict> {
        if let Some(judged) = self.judged(ply).filter(|j| j.not_judged.is_none()) {
            return match judged.verdict {
                Verdict::Best => Some(MoveVerdict::Best),
                Verdict::Inaccuracy => Some(MoveVerdict::Inaccuracy),
                Verdict::Blunder => Some(MoveVerdict::Blunder),
                Verdict::Unknown => None,
            };
        }
        self.verdicts
            .get(ply.checked_sub(1)?)
            .copied()
            .flatten()
            .flatten()
    }

    /// Works out the verdict on the move that led to the position shown, once.
    fn judge_shown(&mut self) {
        let Some(index) = self.ply.checked_sub(1) else {
            return;
        };
        if self.verdicts.len() < self.len() {
            self.verdicts.resize(self.len(), None);
        }
        if self.verdicts[index].is_none() {
            let cell = self.record.moves[index].cell;
            self.verdicts[index] = Some(verdict::judge(&self.boards[index], cell));
        }
    }

    /// The seat of `mark`.
    pub fn seat(&self, mark: Mark) -> &RecordSeat {
        match mark {
            Mark::X => &self.record.x,
            Mark::O => &self.record.o,
        }
    }
}

/// A seat as text: the name, the rating it had and what the game changed.
pub fn seat_text(seat: &RecordSeat) -> String {
    let mut text = crate::names::shown(&seat.name, seat.guest, seat.bot);
    if let Some(rating) = seat.rating {
        text.push_str(&format!(" {rating}"));
    }
    if let Some(change) = seat.rating_change {
        text.push_str(&format!(" ({change:+})"));
    }
    text
}

/// Asks the server for a game's record and waits for it.
pub async fn fetch_record(link: &mut Link, game: GameId) -> anyhow::Result<GameRecord> {
    loop {
        let message = link.next_message().await?;
        match message {
            ServerMessage::Welcome { .. } => link.send(ClientMessage::GameRecord { game }),
            ServerMessage::GameRecord(record) if record.game == game => return Ok(*record),
            ServerMessage::Error { code, message } => {
                bail!("the server refused: {} ({code})", message)
            }
            _ => {}
        }
    }
}

/// Asks the server for its analysis of the finished game `view` shows and takes it in: the
/// pushes too, until it is complete or `wait` has passed (what is known by then is kept).
pub async fn fetch_analysis(link: &mut Link, view: &mut ReplayView, wait: Duration) {
    let game = view.record.game;
    link.send(ClientMessage::AnalyseGame { game });
    let _ = tokio::time::timeout(wait, async {
        while let Ok(message) = link.next_message().await {
            match message {
                ServerMessage::GameAnalysis {
                    game: of,
                    moves,
                    complete,
                    ..
                } if of == game => {
                    view.analysed(game, moves, complete);
                    if complete {
                        return;
                    }
                }
                ServerMessage::Error { .. } => return,
                _ => {}
            }
        }
    })
    .await;
}

/// Prints every position of a replay, `delay` apart, then how it ended.
pub async fn print_record(
    view: &ReplayView,
    delay: Duration,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let record = &view.record;
    if record.game != GameId(0) {
        let rated = if record.rated { "rated" } else { "casual" };
        let kind = match record.kind {
            GameKind::Human => rated,
            GameKind::Ai => "against the AI",
            GameKind::War => "AI against AI",
        };
        writeln!(
            out,
            "game {}: X {} vs O {} ({kind})",
            record.game,
            seat_text(&record.x),
            seat_text(&record.o),
        )?;
    }
    writeln!(out, "{}, {} moves", record.variant, view.len())?;
    write_board(&view.boards[0], out)?;
    for (index, step) in record.moves.iter().enumerate() {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        writeln!(
            out,
            "move {}: {} on cell {}",
            index + 1,
            step.mark.symbol(),
            cell_name(record.variant, step.cell)
        )?;
        write_board(&view.boards[index + 1], out)?;
    }
    let board = view.boards.last().expect("there is always a first board");
    let end = match (&record.result, board.outcome()) {
        (Some(result), _) => result_text(record.variant, result),
        (None, Some(Outcome::Win { mark, .. })) => format!("{} wins", mark.symbol()),
        (None, Some(Outcome::Draw)) => "draw".to_owned(),
        (None, None) => format!("not over: {} to move", board.to_move().symbol()),
    };
    writeln!(out, "result: {end}")?;
    out.flush()?;
    Ok(())
}

/// `m:ss` from milliseconds, for move times.
pub fn format_elapsed(ms: u64) -> String {
    let secs = ms / 1000;
    format!("{}:{:02}", secs / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn prints_a_move_list() {
        let view = ReplayView::offline(Variant::Classic, &[4, 0, 8]).unwrap();
        let mut out = Vec::new();
        print_record(&view, Duration::ZERO, &mut out).await.unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("classic, 3 moves\n"), "{text}");
        assert!(
            text.contains("move 3: X on cell 9\n  O..\n  .X.\n  ..X\n"),
            "{text}"
        );
        assert!(text.ends_with("result: not over: O to move\n"), "{text}");
        let err = ReplayView::offline(Variant::Classic, &[4, 4]).unwrap_err();
        assert!(
            err.to_string().contains("move 2 (cell 5) is not legal"),
            "{err}"
        );
    }

    #[test]
    fn steps_stop_at_either_end() {
        let mut view = ReplayView::offline(Variant::Classic, &[0, 3, 1, 4, 2]).unwrap();
        assert!(view.at_end());
        assert_eq!(view.result().unwrap().winner, Some(Mark::X));
        view.step(1);
        assert_eq!(view.ply, 5);
        view.step(-2);
        assert_eq!(view.ply, 3);
        assert!(view.result().is_none(), "the result shows at the end only");
        assert_eq!(view.last_move().unwrap().cell, 1);
        view.jump(false);
        view.step(-1);
        assert_eq!(view.ply, 0);
        assert!(view.last_move().is_none());
    }
}
