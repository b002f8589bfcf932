//! `noughts replay`: step through a game move by move, from the server (any game it still holds,
//! live or recently finished) or offline from a list of cells.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context as _, bail};
use noughts_engine::{Board, Outcome, Variant};
use noughts_protocol::{ClientMessage, GameId, GameResult, GameState, ServerMessage, sanitize};

use crate::app::NetEvent;
use crate::net::Link;
use crate::plain::{result_text, write_board};

/// Asks the server for a game's record: its snapshot, which lists every move.
pub async fn fetch(mut link: Link, game: GameId) -> anyhow::Result<GameState> {
    loop {
        let message = match link.next().await {
            None => bail!("the connection ended"),
            Some(NetEvent::Closed(reason) | NetEvent::Lost { reason, .. }) => bail!("{reason}"),
            Some(NetEvent::Connecting) => continue,
            Some(NetEvent::Frame(frame)) => frame.message,
        };
        match message {
            ServerMessage::Welcome { .. } => link.send(ClientMessage::Watch { game }),
            ServerMessage::GameState(state) if state.game == game => {
                if state.result.is_none() && state.you.is_none() {
                    link.send(ClientMessage::Unwatch { game });
                }
                return Ok(*state);
            }
            ServerMessage::Error { code, message } => {
                bail!("the server refused: {} ({code})", sanitize(&message))
            }
            _ => {}
        }
    }
}

/// Prints the game's positions one move at a time, `delay` apart, then how it ended.
pub async fn play_back(
    variant: Variant,
    moves: &[usize],
    result: Option<&GameResult>,
    delay: Duration,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut board = Board::new(variant);
    writeln!(out, "{variant}, {} moves", moves.len())?;
    write_board(&board, out)?;
    for (index, &cell) in moves.iter().enumerate() {
        let mover = board.to_move();
        board = board
            .play(cell)
            .with_context(|| format!("move {} (cell {cell}) is not legal", index + 1))?;
        tokio::time::sleep(delay).await;
        writeln!(out, "move {}: {} on cell {cell}", index + 1, mover.symbol())?;
        write_board(&board, out)?;
    }
    let end = match (result, board.outcome()) {
        (Some(result), _) => result_text(variant, result),
        (None, Some(Outcome::Win { mark, .. })) => format!("{} wins", mark.symbol()),
        (None, Some(Outcome::Draw)) => "draw".to_owned(),
        (None, None) => format!("not over: {} to move", board.to_move().symbol()),
    };
    writeln!(out, "result: {end}")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn plays_a_move_list_back() {
        let mut out = Vec::new();
        play_back(Variant::Classic, &[4, 0, 8], None, Duration::ZERO, &mut out)
            .await
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("move 3: X on cell 8\n  O..\n  .X.\n  ..X\n"),
            "{text}"
        );
        assert!(text.ends_with("result: not over: O to move\n"), "{text}");
        let err = play_back(
            Variant::Classic,
            &[4, 4],
            None,
            Duration::ZERO,
            &mut Vec::new(),
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("move 2 (cell 4) is not legal"));
    }
}
