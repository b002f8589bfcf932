//! An engine of one's own for `noughts bot --engine CMD`: a program started once (through
//! `sh -c`) that is given one line per position on its standard input and answers one line with
//! its move on its standard output.
//!
//! The position's line is `VARIANT BOARD`: the variant's name, a space, and the board text, one
//! character a cell (`X`, `O` or `.`) in cell order, rows separated by `/` (a cube's rows layer
//! after layer), e.g. `classic X.O/.X./..O`. X moves first, so whose turn it is follows from the
//! counts. The answer is the cell: its number as the protocol counts cells (0-based, row by row,
//! layer by layer), or on the bigger boards its name as the client writes it (`b3` on four, `2b3`
//! on the cubes). Whatever else the program writes on standard error reaches the terminal.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Context as _;
use noughts_engine::{Board, Variant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::notation;

/// A running engine program.
pub struct External {
    /// The command line, for messages and for starting it again.
    command: String,
    /// The process; killed when this is dropped.
    child: Child,
    /// Where positions go.
    stdin: ChildStdin,
    /// Where moves come from.
    lines: Lines<BufReader<ChildStdout>>,
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External")
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

/// Why the program gave no move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// It exited, or closed its output.
    Died,
    /// It did not answer in time.
    TooSlow(Duration),
    /// Its answer is not a cell of the board.
    Garbage(String),
    /// It named a cell that is taken.
    Taken(usize),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Died => f.write_str("the engine exited"),
            Fault::TooSlow(limit) => write!(f, "the engine did not answer within {limit:?}"),
            Fault::Garbage(line) => write!(f, "the engine answered {line:?}, which is not a cell"),
            Fault::Taken(cell) => write!(f, "the engine played cell {cell}, which is taken"),
        }
    }
}

impl External {
    /// Starts `command` through `sh -c`.
    pub fn start(command: &str) -> anyhow::Result<External> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start the engine {command:?}"))?;
        let stdin = child.stdin.take().context("the engine's standard input")?;
        let stdout = child
            .stdout
            .take()
            .context("the engine's standard output")?;
        Ok(External {
            command: command.to_owned(),
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
        })
    }

    /// The same command, started again (after a fault, whatever state it was left in).
    pub fn restart(&mut self) -> anyhow::Result<()> {
        let fresh = External::start(&self.command)?;
        let _ = self.child.start_kill();
        *self = fresh;
        Ok(())
    }

    /// The program's move on `board`, within `limit`.
    pub async fn choose(&mut self, board: &Board, limit: Duration) -> Result<usize, Fault> {
        let line = format!("{} {}\n", board.variant(), position_text(board));
        if self.stdin.write_all(line.as_bytes()).await.is_err() || self.stdin.flush().await.is_err()
        {
            return Err(Fault::Died);
        }
        let answer = match tokio::time::timeout(limit, self.lines.next_line()).await {
            Err(_) => return Err(Fault::TooSlow(limit)),
            Ok(Ok(Some(answer))) => answer,
            Ok(Ok(None) | Err(_)) => return Err(Fault::Died),
        };
        let cell = parse_move(board.variant(), &answer)
            .ok_or_else(|| Fault::Garbage(answer.chars().take(80).collect::<String>()))?;
        if board.get(cell).is_some() {
            return Err(Fault::Taken(cell));
        }
        Ok(cell)
    }
}

/// The board text the program reads: the cells in order, rows separated by `/`.
pub fn position_text(board: &Board) -> String {
    let compact = board.to_compact();
    let side = board.variant().side();
    let rows: Vec<&str> = (0..compact.len())
        .step_by(side)
        .map(|start| &compact[start..(start + side).min(compact.len())])
        .collect();
    rows.join("/")
}

/// The cell an answer names: a number (0-based), or a cell's name on the bigger boards.
pub fn parse_move(variant: Variant, answer: &str) -> Option<usize> {
    let answer = answer.trim();
    if let Ok(cell) = answer.parse::<usize>() {
        return (cell < variant.cells()).then_some(cell);
    }
    if variant == Variant::Classic {
        return None;
    }
    notation::parse_cell(variant, answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_rows_and_moves_are_numbers_or_names() {
        let board = Board::parse(Variant::Classic, "X.O.X...O").unwrap();
        assert_eq!(position_text(&board), "X.O/.X./..O");
        let cube = Board::new(Variant::Cube);
        assert_eq!(position_text(&cube).split('/').count(), 9);
        assert_eq!(parse_move(Variant::Classic, " 4 "), Some(4));
        assert_eq!(parse_move(Variant::Classic, "9"), None);
        assert_eq!(parse_move(Variant::Classic, "b2"), None);
        assert_eq!(parse_move(Variant::Four, "b3"), Some(9));
        assert_eq!(parse_move(Variant::Four, "15"), Some(15));
        assert_eq!(parse_move(Variant::Cube, "2b2"), Some(13));
        assert_eq!(parse_move(Variant::Qubic, "pass"), None);
    }

    #[tokio::test]
    async fn a_program_that_answers_dies_or_dawdles_is_told_apart() {
        let board = Board::parse(Variant::Classic, "X.O.X...O").unwrap();
        let second = Duration::from_secs(5);
        let mut first_empty = External::start(
            r#"while read v b; do echo "$b" | tr -d / | grep -o . | grep -n '\.' | head -n1 | cut -d: -f1 | awk '{print $1-1}'; done"#,
        )
        .unwrap();
        assert_eq!(first_empty.choose(&board, second).await, Ok(1));
        let mut liar = External::start("while read l; do echo nowhere; done").unwrap();
        assert!(matches!(
            liar.choose(&board, second).await,
            Err(Fault::Garbage(_))
        ));
        let mut taker = External::start("while read l; do echo 0; done").unwrap();
        assert_eq!(taker.choose(&board, second).await, Err(Fault::Taken(0)));
        let mut dead = External::start("exit 3").unwrap();
        assert_eq!(dead.choose(&board, second).await, Err(Fault::Died));
        let mut slow = External::start("sleep 30").unwrap();
        let short = Duration::from_millis(200);
        assert_eq!(slow.choose(&board, short).await, Err(Fault::TooSlow(short)));
        slow.restart().unwrap();
    }
}
