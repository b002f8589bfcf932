//! Games against an AI seat (the `perfect` AI on the cube by default), paced like the human
//! games, with human-vs-human games running beside them: the human games' latency shows whether
//! the AI's thinking leaks into anyone else's moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use noughts_protocol::{ClientMessage, GameId, Level, Mark, Variant};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::client::{self, Peek, Read, Socket};
use crate::games::{self, SETUP_AT_ONCE, Tally};
use crate::pacer::{self, Pacer};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Run};

/// How an `ai` run is shaped.
#[derive(Debug, Clone)]
pub struct AiOptions {
    /// Games against the AI at once; one connection each.
    pub ai_games: usize,
    pub variant: Variant,
    pub level: Level,
    /// The person's moves per second in each AI game.
    pub ai_rate: f64,
    /// Human-vs-human games beside them (two connections each).
    pub games: usize,
    /// Moves per second per human game.
    pub rate: f64,
    /// The measured window.
    pub secs: f64,
}

/// What the AI games share.
#[derive(Debug, Default)]
struct AiTally {
    /// The person's scheduled move → the AI's answer read.
    reply: Recorder,
    errors: Errors,
    /// AI answers read.
    answers: AtomicU64,
}

/// A welcomed client playing X against the AI.
#[derive(Debug)]
struct AiSeat {
    ws: Socket,
    game: GameId,
    board: String,
}

async fn start_game(ws: &mut Socket, options: &AiOptions) -> anyhow::Result<(GameId, String)> {
    client::send(
        ws,
        client::request(serde_json::json!({
            "type": "play_ai",
            "variant": options.variant,
            "level": options.level,
            "side": "x",
        }))?,
    )
    .await?;
    let state = client::game_state(ws).await?;
    Ok((state.game, state.board))
}

async fn seat(url: &str, i: usize, options: &AiOptions) -> anyhow::Result<AiSeat> {
    let mut ws = client::join(url, &format!("p{i}")).await?;
    let (game, board) = start_game(&mut ws, options).await?;
    Ok(AiSeat { ws, game, board })
}

/// A random empty cell of a board text.
fn empty_cell(board: &str) -> Option<usize> {
    let empty: Vec<usize> = board
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'.')
        .map(|(i, _)| i)
        .collect();
    (!empty.is_empty()).then(|| empty[fastrand::usize(..empty.len())])
}

/// One AI game after another until `end`: the person moves on schedule, the AI answers.
async fn play(
    mut seat: AiSeat,
    options: Arc<AiOptions>,
    period: Duration,
    bell: Arc<Notify>,
    first: Instant,
    end: Instant,
    tally: Arc<AiTally>,
) {
    let mut next_at = first;
    let mut pending: Option<Instant> = None;
    let mut my_turn = true;
    loop {
        let can_move = my_turn && pending.is_none();
        let message = tokio::select! {
            () = sleep_until(end) => break,
            () = pacer::ring(&bell, next_at), if can_move => {
                let Some(cell) = empty_cell(&seat.board) else {
                    tally.errors.add("full_board");
                    break;
                };
                if client::send(&mut seat.ws, ClientMessage::Move { game: seat.game, cell }).await.is_err() {
                    tally.errors.add("send");
                    break;
                }
                pending = Some(next_at);
                my_turn = false;
                next_at += period;
                continue;
            }
            message = seat.ws.next() => message,
        };
        let text = match Read::of(message, &tally.errors) {
            Read::Text(text) => text,
            Read::Skip => continue,
            Read::End => break,
        };
        let Ok(peek) = Peek::of(text.as_str()) else {
            tally.errors.add("unparsable");
            break;
        };
        match peek.kind {
            "moved" if peek.game == Some(seat.game.0) => {
                if let Some(board) = peek.board {
                    board.clone_into(&mut seat.board);
                }
                if peek.mark == Some(Mark::O)
                    && let Some(scheduled) = pending.take()
                {
                    tally.reply.record(scheduled.elapsed());
                    tally.answers.fetch_add(1, Ordering::Relaxed);
                }
                my_turn = peek.to_move == Some(Mark::X);
            }
            "game_over" if peek.game == Some(seat.game.0) => {
                pending = None;
                match start_game(&mut seat.ws, &options).await {
                    Ok((game, board)) => {
                        seat.game = game;
                        seat.board = board;
                        my_turn = true;
                        let now = Instant::now();
                        while next_at < now {
                            next_at += period;
                        }
                    }
                    Err(err) => {
                        tally.errors.add_err(&err);
                        break;
                    }
                }
            }
            "error" => {
                tally.errors.add(peek.code.unwrap_or("error"));
                break;
            }
            _ => {}
        }
    }
    client::close(seat.ws).await;
}

/// Runs the `ai` scenario against `url`. The report's latency is the human games'; the AI
/// games' answer times are among its figures.
pub async fn run(url: &str, server: Probe, options: &AiOptions) -> anyhow::Result<Report> {
    let options = Arc::new(options.clone());
    let ai_tally = Arc::new(AiTally::default());
    let tally = Arc::new(Tally::default());
    let pairs = games::seat_pairs(url, options.games, &tally).await;
    let gate = Arc::new(Semaphore::new(SETUP_AT_ONCE));
    let mut set = JoinSet::new();
    for i in 0..options.ai_games {
        let (url, gate, options) = (url.to_owned(), gate.clone(), options.clone());
        set.spawn(async move {
            let _permit = gate.acquire_owned().await;
            seat(&url, i, &options).await
        });
    }
    let mut seats = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(Ok(seat)) => seats.push(seat),
            Ok(Err(err)) => ai_tally.errors.add_err(&err),
            Err(_) => ai_tally.errors.add("panic"),
        }
    }
    let connections = pairs.len() * 2 + seats.len();
    let period = Duration::from_secs_f64(1.0 / options.rate.max(1e-3));
    let ai_period = Duration::from_secs_f64(1.0 / options.ai_rate.max(1e-3));
    let Run {
        start,
        end,
        measured,
    } = Run::starting(server, options.secs).await;
    let count = seats.len();
    let pacer = Pacer::start(count, start, ai_period, end);
    let mut ai_set = JoinSet::new();
    for (i, seat) in seats.into_iter().enumerate() {
        let first = Pacer::first(start, ai_period, i, count);
        let bell = pacer.bell(i);
        ai_set.spawn(play(
            seat,
            options.clone(),
            ai_period,
            bell,
            first,
            end,
            ai_tally.clone(),
        ));
    }
    games::play_pairs(pairs, Some(period), start, end, &tally).await;
    while ai_set.join_next().await.is_some() {}
    let (elapsed, server, generator) = measured.await?;
    let secs = options.secs.min(elapsed.as_secs_f64());
    let moves = tally.moves.load(Ordering::Relaxed);
    let mut errors = tally.errors.snapshot();
    for (kind, n) in ai_tally.errors.snapshot() {
        *errors.entry(format!("ai_{kind}")).or_default() += n;
    }
    let mut report = Report {
        scenario: format!(
            "ai: {} {} games against the {} AI at {}/s, beside {} classic games at {}/s",
            options.ai_games,
            options.variant,
            options.level,
            options.ai_rate,
            options.games,
            options.rate
        ),
        connections,
        secs,
        unit: "moves".to_owned(),
        ops: moves,
        ops_per_sec: moves as f64 / secs,
        latency: tally.latency.latency(),
        errors,
        server,
        generator,
        ..Report::default()
    };
    let answers = ai_tally.answers.load(Ordering::Relaxed);
    report
        .figures
        .insert("ai_answers_per_sec".to_owned(), answers as f64 / secs);
    ai_tally.reply.add_figures("ai_answer", &mut report.figures);
    tally
        .from_send
        .add_figures("from_send", &mut report.figures);
    Ok(report)
}
