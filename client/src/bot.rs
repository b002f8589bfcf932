//! `noughts bot`: a player driven by the engine. It seeks a game, plays it, and seeks again until
//! it has played the number of games asked for.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::bail;
use noughts_engine::{Board, Budget, Level, Rng, Variant, choose_move};
use noughts_protocol::{ClientMessage, ErrorCode, GameId, Mark, Seek, ServerMessage};

use crate::net::Link;
use crate::net::NetEvent;
use crate::plain::result_text;

/// How long to wait before asking again after the server's rate limit refused a request.
const RATE_LIMITED_PAUSE: Duration = Duration::from_secs(1);

/// What the bot is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct BotPlan {
    /// How strongly it plays.
    pub level: Level,
    /// The game it seeks.
    pub variant: Variant,
    /// How many games it plays before leaving.
    pub games: u32,
    /// The least time it takes over a move, so that people can follow its games.
    pub think: Duration,
    /// Whether it seeks rated games.
    pub rated: bool,
}

/// The game being played.
struct Current {
    game: GameId,
    you: Mark,
    board: Board,
}

/// The game being played may have ended while the bot was away: coming back, it gets the final
/// snapshot instead of `game_over`, and takes it as the end.
fn final_as_end(message: ServerMessage, current: Option<&Current>) -> ServerMessage {
    match message {
        ServerMessage::GameState(mut state) if current.is_some_and(|c| c.game == state.game) => {
            match state.result.take() {
                Some(result) => ServerMessage::GameOver {
                    game: state.game,
                    seq: state.seq,
                    board: std::mem::take(&mut state.board),
                    result,
                    ratings: None,
                    clocks: state.clocks,
                },
                None => ServerMessage::GameState(state),
            }
        }
        other => other,
    }
}

/// Plays `plan.games` games, printing one line per game to `out`.
pub async fn run(mut link: Link, plan: BotPlan, out: &mut impl Write) -> anyhow::Result<()> {
    let mut rng = Rng::new();
    let mut played = 0;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut current: Option<Current> = None;
    let seek = ClientMessage::Seek(Seek {
        variant: plan.variant,
        clock: None,
        rated: plan.rated,
        bots: false,
    });
    while played < plan.games {
        let message = match link.next().await {
            None => bail!("the connection ended"),
            Some(NetEvent::Closed(reason)) => bail!("{reason}"),
            Some(NetEvent::Lost { reason, retry_in }) => {
                eprintln!("{reason}; retrying in {:.1}s", retry_in.as_secs_f32());
                continue;
            }
            Some(NetEvent::Connecting) => continue,
            Some(NetEvent::Frame(frame)) => frame.message,
        };
        let to_play = match final_as_end(message, current.as_ref()) {
            ServerMessage::Welcome { resumed, .. } => {
                if current.is_none() || !resumed {
                    current = None;
                    link.send(seek.clone());
                }
                None
            }
            ServerMessage::GameState(state) => {
                let (Some(you), None) = (state.you, &state.result) else {
                    continue;
                };
                let board = Board::parse(state.variant, &state.board)?;
                writeln!(
                    out,
                    "game {}: playing {} against {}",
                    state.game,
                    you.symbol(),
                    if you == Mark::X { state.o } else { state.x }.name
                )?;
                current = Some(Current {
                    game: state.game,
                    you,
                    board,
                });
                (state.to_move == Some(you)).then_some(board)
            }
            ServerMessage::Moved {
                game,
                board,
                to_move,
                ..
            } => {
                let Some(cur) = current.as_mut().filter(|c| c.game == game) else {
                    continue;
                };
                cur.board = Board::parse(cur.board.variant(), &board)?;
                (to_move == Some(cur.you)).then_some(cur.board)
            }
            ServerMessage::GameOver { game, result, .. } => {
                let Some(cur) = current.take_if(|c| c.game == game) else {
                    continue;
                };
                played += 1;
                let outcome = match result.winner {
                    Some(w) if w == cur.you => {
                        wins += 1;
                        "won"
                    }
                    Some(_) => {
                        losses += 1;
                        "lost"
                    }
                    None => {
                        draws += 1;
                        "drew"
                    }
                };
                writeln!(
                    out,
                    "game {game}: {outcome}: {}",
                    result_text(cur.board.variant(), &result)
                )?;
                if played < plan.games {
                    link.send(seek.clone());
                }
                None
            }
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => {
                // The request was dropped: wait, then ask again for whatever is pending.
                tokio::time::sleep(RATE_LIMITED_PAUSE).await;
                match &current {
                    Some(cur) if cur.board.to_move() == cur.you && !cur.board.is_over() => {
                        Some(cur.board)
                    }
                    Some(_) => None,
                    None => {
                        link.send(seek.clone());
                        None
                    }
                }
            }
            ServerMessage::Error { code, message } => {
                match code {
                    ErrorCode::AlreadySeeking | ErrorCode::NotYourTurn => {}
                    ErrorCode::IllegalMove | ErrorCode::GameOver => {}
                    _ => eprintln!("server: {} ({code})", message),
                }
                None
            }
            ServerMessage::Shutdown { message } => {
                bail!("the server is shutting down: {}", message)
            }
            _ => None,
        };
        if let (Some(board), Some(cur)) = (to_play, &current) {
            let level = plan.level;
            let seed = rng.u64(..);
            let started = Instant::now();
            let choice = tokio::task::spawn_blocking(move || {
                choose_move(&board, level, &mut Rng::with_seed(seed), Budget::DEFAULT)
            })
            .await?;
            tokio::time::sleep(plan.think.saturating_sub(started.elapsed())).await;
            if let Some(choice) = choice {
                link.send(ClientMessage::Move {
                    game: cur.game,
                    cell: choice.cell,
                });
            }
        }
    }
    writeln!(
        out,
        "{played} games: {wins} won, {draws} drawn, {losses} lost"
    )?;
    Ok(())
}
