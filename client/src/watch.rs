//! `noughts watch --plain`: follow one game and print each position as it arrives, then the result.

use std::io::Write;

use anyhow::{Context as _, bail};
use noughts_engine::Board;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, GameKind, GameState, Level, ServerMessage, StartWar, Variant,
    Watch,
};

use crate::net::Link;
use crate::notation::cell_name;
use crate::plain::{result_text, write_board};

/// What to watch.
#[derive(Debug, Clone)]
pub enum Target {
    /// One game by id, with the invite code of its room if it is private.
    Game(GameId, Option<String>),
    /// A war game of this variant (one is started if none is running).
    War(Variant),
}

/// Watches until the game ends, printing to `out`. Errors if the server cannot be reached, refuses,
/// has no such game, or goes away before the end.
pub async fn run(mut link: Link, target: Target, out: &mut impl Write) -> anyhow::Result<()> {
    let mut watching: Option<(GameId, Variant)> = None;
    let mut asked_for_war = false;
    loop {
        let message = link.next_message().await?;
        match message {
            ServerMessage::Welcome { .. } => match &target {
                Target::Game(game, code) => link.send(ClientMessage::Watch(Watch {
                    game: *game,
                    code: code.clone(),
                })),
                Target::War(_) => link.send(ClientMessage::SubscribeLobby),
            },
            ServerMessage::Lobby { games, .. } if watching.is_none() => {
                let Target::War(variant) = target else {
                    continue;
                };
                let war = games
                    .iter()
                    .filter(|g| g.kind == GameKind::War && g.variant == variant)
                    .min_by_key(|g| g.game);
                match war {
                    Some(game) => link.send(ClientMessage::Watch(Watch {
                        game: game.game,
                        code: None,
                    })),
                    None if !asked_for_war => {
                        asked_for_war = true;
                        link.send(ClientMessage::StartWar(StartWar {
                            variant,
                            x_level: Level::Perfect,
                            o_level: Level::Perfect,
                        }));
                    }
                    None => {}
                }
            }
            ServerMessage::GameState(state) => {
                // The session's own games come too (this player may be playing elsewhere):
                // only the watched game counts.
                let wanted = match (&target, watching) {
                    (_, Some((id, _))) => id == state.game,
                    (Target::Game(id, _), None) => *id == state.game,
                    (Target::War(variant), None) => {
                        state.kind == GameKind::War && state.variant == *variant
                    }
                };
                if !wanted {
                    continue;
                }
                if watching.is_none() && matches!(target, Target::War(_)) {
                    link.send(ClientMessage::UnsubscribeLobby);
                }
                watching = Some((state.game, state.variant));
                print_state(&state, out)?;
                if let Some(result) = &state.result {
                    writeln!(out, "result: {}", result_text(state.variant, result))?;
                    return Ok(());
                }
            }
            ServerMessage::Moved {
                game,
                seq: _,
                mark,
                cell,
                board,
                ..
            } if watching.is_some_and(|(id, _)| id == game) => {
                let (_, variant) = watching.expect("checked above");
                let board = Board::parse(variant, &board).context("the server sent a bad board")?;
                writeln!(
                    out,
                    "move {}: {} on cell {}",
                    board.ply(),
                    mark.symbol(),
                    cell_name(variant, cell)
                )?;
                write_board(&board, out)?;
            }
            ServerMessage::GameOver { game, result, .. }
                if watching.is_some_and(|(id, _)| id == game) =>
            {
                let (_, variant) = watching.expect("checked above");
                writeln!(out, "result: {}", result_text(variant, &result))?;
                out.flush()?;
                return Ok(());
            }
            ServerMessage::Error { code, message } => match code {
                ErrorCode::NoSuchGame => bail!("no such game: {}", message),
                _ if watching.is_none() => {
                    bail!("the server refused: {} ({code})", message)
                }
                _ => eprintln!("server: {} ({code})", message),
            },
            ServerMessage::Shutdown { message } => {
                bail!("the server is shutting down: {}", message)
            }
            ServerMessage::GamePaused { message, .. } => eprintln!("paused: {message}"),
            _ => {}
        }
    }
}

fn print_state(state: &GameState, out: &mut impl Write) -> anyhow::Result<()> {
    let board = Board::parse(state.variant, &state.board).context("the server sent a bad board")?;
    writeln!(
        out,
        "game {} ({}): X {} vs O {}, {} moves played",
        state.game,
        state.variant,
        state.x.name,
        state.o.name,
        state.moves.len()
    )?;
    write_board(&board, out)?;
    Ok(())
}
