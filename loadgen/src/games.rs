//! Human-vs-human classic games between pairs of clients. Each pair plays a drawn line of nine
//! moves, offers a rematch at the end, and plays again until the window closes.
//!
//! Paced, the games run open loop: every move has a time it is scheduled for, one per period per
//! game, and its latency runs from that time to the moment the mover's opponent reads the `moved`
//! update. A move that cannot be sent on time (the previous update was late) is sent as soon as
//! it can and still measured from its scheduled time, so a stall shows up in every move it
//! delays. Unpaced (saturation), each game sends its next move as soon as the last one arrives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use noughts_protocol::{ClientMessage, GameId, GameState, Mark, ServerMessage, Variant};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::client::{self, Peek, Read, Socket};
use crate::pacer::{self, Pacer};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Run};
use crate::timeline::Timeline;

/// A classic game that fills the board without a line: X and O alternate on these cells.
pub const CLASSIC_DRAW: [usize; 9] = [0, 4, 8, 2, 6, 3, 5, 7, 1];

/// Clients setting up at once (connect, hello, room), so the server's accept queue never
/// overflows.
pub const SETUP_AT_ONCE: usize = 64;

/// How a `games` run is shaped.
#[derive(Debug, Clone)]
pub struct GamesOptions {
    /// Games at once; each has two connections.
    pub games: usize,
    /// Moves per second per game; `None` plays as fast as the updates come back.
    pub rate: Option<f64>,
    /// The measured window.
    pub secs: f64,
}

/// What the games of a run share.
#[derive(Debug, Default)]
pub struct Tally {
    /// Scheduled send → opponent reads `moved`.
    pub latency: Recorder,
    /// The same latencies by the second of the run they were scheduled in (kept only once
    /// [`Timeline::start`] has been called).
    pub timeline: Timeline,
    /// Actual send → opponent reads `moved`: the same moves without the generator's timer
    /// (which fires up to a millisecond late) and without stalls; for diagnosis only.
    pub from_send: Recorder,
    /// Actual send → the kernel's receipt of `moved` at the opponent's socket, for pairs whose
    /// sockets are stamped ([`Pair::stamp`]): the server's part alone, without the time the
    /// generator takes to get round to reading; for diagnosis only.
    pub received: Recorder,
    pub errors: Errors,
    /// Moves whose update reached the opponent.
    pub moves: AtomicU64,
    /// Games finished.
    pub games: AtomicU64,
}

/// Two welcomed clients seated in one game.
#[derive(Debug)]
pub struct Pair {
    a: Socket,
    b: Socket,
    game: GameId,
    /// A's mark; B has the other.
    a_mark: Mark,
}

/// Sets up `count` pairs, each in a private room's game; failures are counted in `tally`.
pub async fn seat_pairs(url: &str, count: usize, tally: &Arc<Tally>) -> Vec<Pair> {
    let places = vec![(url.to_owned(), url.to_owned()); count];
    seat_pairs_named(places, "", tally).await
}

/// Sets up a pair for each `(a, b)` of `places`: A connects to server `a` and opens a private
/// room, B connects to server `b` and joins it by its code (in a cluster, the game is on A's
/// node and B's moves are forwarded there when `b` is another node). The players are named by
/// `prefix` and their index in `places`; failures are counted in `tally`.
pub async fn seat_pairs_named(
    places: Vec<(String, String)>,
    prefix: &str,
    tally: &Arc<Tally>,
) -> Vec<Pair> {
    let count = places.len();
    let gate = Arc::new(Semaphore::new(SETUP_AT_ONCE));
    let mut set = JoinSet::new();
    for (i, (a, b)) in places.into_iter().enumerate() {
        let gate = gate.clone();
        let prefix = prefix.to_owned();
        set.spawn(async move {
            let _permit = gate.acquire_owned().await;
            seat_pair(&a, &b, &format!("{prefix}{i}")).await
        });
    }
    let mut pairs = Vec::with_capacity(count);
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(Ok(pair)) => pairs.push(pair),
            Ok(Err(err)) => tally.errors.add_err(&err),
            Err(_) => tally.errors.add("panic"),
        }
    }
    pairs
}

impl Pair {
    /// Has the kernel stamp what both sockets receive, for [`Tally::received`].
    pub fn stamp(&mut self) -> std::io::Result<()> {
        self.a.get_mut().stamp()?;
        self.b.get_mut().stamp()
    }
}

async fn seat_pair(a_url: &str, b_url: &str, i: &str) -> anyhow::Result<Pair> {
    let mut a = client::join(a_url, &format!("a{i}")).await?;
    let mut b = client::join(b_url, &format!("b{i}")).await?;
    let code = client::create_room(&mut a, Variant::Classic, true).await?;
    client::send(&mut b, ClientMessage::JoinRoom { code }).await?;
    let state = client::game_state(&mut a).await?;
    client::game_state(&mut b).await?;
    Ok(Pair {
        a,
        b,
        game: state.game,
        a_mark: state.you.unwrap_or(Mark::X),
    })
}

/// Plays every pair from `start` to `end`; the first moves of paced games are spread evenly
/// over the first period.
pub async fn play_pairs(
    pairs: Vec<Pair>,
    period: Option<Duration>,
    start: Instant,
    end: Instant,
    tally: &Arc<Tally>,
) {
    let count = pairs.len();
    let pacer = period.map(|p| Pacer::start(count, start, p, end));
    let mut set = JoinSet::new();
    for (i, pair) in pairs.into_iter().enumerate() {
        let first = period.map_or(start, |p| Pacer::first(start, p, i, count));
        let bell = pacer.as_ref().map(|p| p.bell(i));
        set.spawn(play(pair, period, bell, first, end, tally.clone()));
    }
    while set.join_next().await.is_some() {}
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    A,
    B,
}

/// What a pair is doing.
#[derive(Debug)]
enum Phase {
    Playing,
    /// The game ended; waiting for the rematch's snapshot on both sides.
    Rematch {
        a: Option<Box<GameState>>,
        b: Option<Box<GameState>>,
    },
}

/// One pair's loop: both sockets, the move schedule and the rematches.
async fn play(
    mut pair: Pair,
    period: Option<Duration>,
    bell: Option<Arc<Notify>>,
    first: Instant,
    end: Instant,
    tally: Arc<Tally>,
) {
    let mut ply = 0;
    let mut next_at = first;
    // The scheduled time of the move whose update the opponent has not read yet.
    let mut pending: Option<Instant> = None;
    let mut sent_at = first;
    let mut sent_wall = SystemTime::now();
    // Unpaced games never wait for a bell: their next move is due at once.
    let unpaced = Notify::new();
    let mut phase = Phase::Playing;
    loop {
        let can_move =
            matches!(phase, Phase::Playing) && pending.is_none() && ply < CLASSIC_DRAW.len();
        let (side, message) = tokio::select! {
            () = sleep_until(end) => break,
            () = pacer::ring(bell.as_deref().unwrap_or(&unpaced), next_at), if can_move => {
                let x_moves = ply % 2 == 0;
                let a_moves = (pair.a_mark == Mark::X) == x_moves;
                let ws = if a_moves { &mut pair.a } else { &mut pair.b };
                let sent = client::send(ws, ClientMessage::Move { game: pair.game, cell: CLASSIC_DRAW[ply] }).await;
                if sent.is_err() {
                    tally.errors.add("send");
                    break;
                }
                pending = Some(next_at);
                sent_at = Instant::now();
                sent_wall = SystemTime::now();
                if let Some(period) = period {
                    next_at += period;
                }
                continue;
            }
            message = pair.a.next() => (Side::A, message),
            message = pair.b.next() => (Side::B, message),
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
        let mark = match side {
            Side::A => pair.a_mark,
            Side::B => pair.a_mark.opponent(),
        };
        match peek.kind {
            // The opponent's copy completes the move; the mover's own copy is its reply.
            "moved" if peek.game == Some(pair.game.0) && peek.mark != Some(mark) => {
                if let Some(scheduled) = pending.take() {
                    let now = Instant::now();
                    let latency = now.saturating_duration_since(scheduled);
                    tally.latency.record(latency);
                    tally.timeline.record(scheduled, latency);
                    tally
                        .from_send
                        .record(now.saturating_duration_since(sent_at));
                    let socket = match side {
                        Side::A => &pair.a,
                        Side::B => &pair.b,
                    };
                    if let Some(at) = socket.get_ref().received() {
                        let taken = at.duration_since(sent_wall).unwrap_or_default();
                        tally.received.record(taken);
                    }
                    tally.moves.fetch_add(1, Ordering::Relaxed);
                    ply += 1;
                    if period.is_none() {
                        next_at = now;
                    }
                }
            }
            "game_over" if peek.game == Some(pair.game.0) => {
                if side == Side::A {
                    tally.games.fetch_add(1, Ordering::Relaxed);
                }
                let ws = match side {
                    Side::A => &mut pair.a,
                    Side::B => &mut pair.b,
                };
                if client::send(ws, ClientMessage::Rematch { game: pair.game })
                    .await
                    .is_err()
                {
                    tally.errors.add("send");
                    break;
                }
                if !matches!(phase, Phase::Rematch { .. }) {
                    phase = Phase::Rematch { a: None, b: None };
                }
            }
            "game_state" => {
                let Ok(frame) =
                    serde_json::from_str::<noughts_protocol::ServerFrame>(text.as_str())
                else {
                    tally.errors.add("unparsable");
                    break;
                };
                let ServerMessage::GameState(state) = frame.message else {
                    continue;
                };
                if let Phase::Rematch { a, b } = &mut phase {
                    match side {
                        Side::A => *a = Some(state),
                        Side::B => *b = Some(state),
                    }
                    if let (Some(a), Some(_)) = (a, b) {
                        pair.game = a.game;
                        pair.a_mark = a.you.unwrap_or(Mark::X);
                        ply = 0;
                        pending = None;
                        phase = Phase::Playing;
                        let now = Instant::now();
                        next_at = match period {
                            // The next slot of the schedule: time spent starting the game is
                            // not a move's latency.
                            Some(period) => {
                                while next_at < now {
                                    next_at += period;
                                }
                                next_at
                            }
                            None => now,
                        };
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
    tokio::join!(client::close(pair.a), client::close(pair.b));
}

/// Runs the `games` scenario against `url`.
pub async fn run(url: &str, server: Probe, options: &GamesOptions) -> anyhow::Result<Report> {
    let tally = Arc::new(Tally::default());
    let pairs = seat_pairs(url, options.games, &tally).await;
    let connections = pairs.len() * 2;
    let period = options
        .rate
        .map(|rate| Duration::from_secs_f64(1.0 / rate.max(1e-3)));
    let Run {
        start,
        end,
        measured,
    } = Run::starting(server, options.secs).await;
    play_pairs(pairs, period, start, end, &tally).await;
    let (elapsed, server, generator) = measured.await?;
    let moves = tally.moves.load(Ordering::Relaxed);
    let secs = options.secs.min(elapsed.as_secs_f64());
    let pace = match options.rate {
        Some(rate) => format!("{rate}/s each"),
        None => "as fast as they go".to_owned(),
    };
    let mut report = Report {
        scenario: format!("games: {} classic games, {pace}", options.games),
        connections,
        secs,
        unit: "moves".to_owned(),
        ops: moves,
        ops_per_sec: moves as f64 / secs,
        latency: tally.latency.latency(),
        errors: tally.errors.snapshot(),
        server,
        generator,
        ..Report::default()
    };
    report.figures.insert(
        "games_done".to_owned(),
        tally.games.load(Ordering::Relaxed) as f64,
    );
    tally
        .from_send
        .add_figures("from_send", &mut report.figures);
    Ok(report)
}
