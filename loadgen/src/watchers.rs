//! One game with many watchers. Two players play a drawn qubic game of 64 moves on a schedule;
//! each move's latency runs from its scheduled time to the moment the *last* watcher receives it:
//! the kernel's receive timestamp on the watcher's socket (see `stamp`), so that the time this
//! one generator core takes to read 5,000 sockets is not counted as the server's. The time of the
//! last read is reported beside it (`read_p50_ms`, `read_p99_ms`), and so is how late after its
//! time the generator sent each move (`late_p50_ms`, `late_p99_ms`: part of the latency, and the
//! generator's own, not the server's).
//! A few watchers stop reading after they join (with a small socket buffer, so they fall behind
//! soon): the server must drop them, and the others must not notice.
//! With `beside_games`, paced classic games are played beside the watched game, on a thread and
//! runtime of their own; the report is then about them: whether a move to thousands of watchers
//! holds up the games that share the server with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use futures_util::StreamExt;
use noughts_protocol::{ClientMessage, GameId, Mark, ServerMessage, Variant, Watch};
use tokio::sync::{Semaphore, oneshot, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tokio_tungstenite::tungstenite::Message;

use crate::client::{self, Peek, Socket};
use crate::games::{self, Tally};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Window};

/// A qubic game that fills the board without a line: X and O alternate on these cells.
pub const QUBIC_DRAW: [usize; 64] = [
    3, 0, 5, 1, 6, 2, 8, 4, 15, 7, 16, 9, 17, 10, 19, 11, 20, 12, 22, 13, 23, 14, 25, 18, 27, 21,
    30, 24, 32, 26, 34, 28, 38, 29, 41, 31, 42, 33, 44, 35, 45, 36, 47, 37, 48, 39, 50, 40, 52, 43,
    53, 46, 55, 49, 56, 51, 57, 54, 61, 58, 62, 59, 63, 60,
];

/// The receive buffer of a watcher that stops reading, so that it falls behind after a few KiB.
const STALLED_RECV_BUFFER: u32 = 4096;
/// Snapshots a stalled watcher asks for (with `watch`, about 400 bytes each) and leaves unread,
/// enough to fill the socket buffers between it and the server (the kernel grows a send buffer
/// up to 4 MiB). The server stops reading its requests once its writes block, so these alone
/// never overflow its queue; it must drop the watcher when the game's updates that follow
/// overflow it, or when its blocked write has waited [`SERVER_WRITE_TIMEOUT`].
const STALLED_SNAPSHOTS: usize = 20_000;
/// How long the server lets one write to a client wait before it drops the client.
const SERVER_WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long, after the last move, the watchers have to read it.
const SETTLE: Duration = Duration::from_secs(10);

/// How a `watchers` run is shaped.
#[derive(Debug, Clone)]
pub struct WatchersOptions {
    /// Watchers that keep reading.
    pub watchers: usize,
    /// Watchers that stop reading once they have joined.
    pub stalled: usize,
    /// Moves per second in the watched game.
    pub rate: f64,
    /// Moves played (at most 64).
    pub moves: usize,
    /// Watchers joining at once.
    pub join_at_once: usize,
    /// Classic games (two connections each, one move a second) played beside the watched game
    /// while its moves are measured; none when 0.
    pub beside_games: usize,
}

impl WatchersOptions {
    /// Connections the server must admit: the two players, every watcher and the games beside.
    pub fn connections(&self) -> usize {
        2 + self.watchers + self.stalled + 2 * self.beside_games
    }
}

/// When the watchers received and read each move.
#[derive(Debug)]
struct Receipts {
    base: Instant,
    /// `base` on the wall clock, which the kernel's timestamps are on.
    base_wall: SystemTime,
    /// Per ply: the latest moment (ns after `base`) a watcher's socket received it.
    received_ns: Vec<AtomicU64>,
    /// Per ply: the latest moment (ns after `base`) a watcher read it.
    last_ns: Vec<AtomicU64>,
    /// Per ply: how many watchers read it.
    readers: Vec<AtomicU32>,
    /// Watchers whose connection ended before they were let go.
    lost: AtomicUsize,
    /// Watchers that read the game's end.
    ended: AtomicUsize,
    /// The ply of each cell of [`QUBIC_DRAW`].
    ply_of: [usize; 64],
}

impl Receipts {
    fn new(base: Instant) -> Receipts {
        let mut ply_of = [0; 64];
        for (ply, &cell) in QUBIC_DRAW.iter().enumerate() {
            ply_of[cell] = ply;
        }
        Receipts {
            base,
            base_wall: SystemTime::now(),
            received_ns: (0..64).map(|_| AtomicU64::new(0)).collect(),
            last_ns: (0..64).map(|_| AtomicU64::new(0)).collect(),
            readers: (0..64).map(|_| AtomicU32::new(0)).collect(),
            lost: AtomicUsize::new(0),
            ended: AtomicUsize::new(0),
            ply_of,
        }
    }

    /// A watcher read the move to `cell`, which its socket received at `received` (or when it
    /// was read, if the kernel did not say).
    fn read(&self, cell: usize, received: Option<SystemTime>) {
        let Some(&ply) = self.ply_of.get(cell) else {
            return;
        };
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let read = nanos(self.base.elapsed());
        let received = received
            .and_then(|at| at.duration_since(self.base_wall).ok())
            .map_or(read, nanos);
        self.last_ns[ply].fetch_max(read, Ordering::Relaxed);
        self.received_ns[ply].fetch_max(received, Ordering::Relaxed);
        self.readers[ply].fetch_add(1, Ordering::Relaxed);
    }

    /// When the last watcher received and read `ply`.
    fn last(&self, ply: usize) -> (Instant, Instant) {
        let at = |ns: &AtomicU64| self.base + Duration::from_nanos(ns.load(Ordering::Relaxed));
        (at(&self.received_ns[ply]), at(&self.last_ns[ply]))
    }
}

async fn join_watcher(
    url: &str,
    name: &str,
    game: GameId,
    recv: Option<u32>,
) -> anyhow::Result<Socket> {
    let mut ws = client::join_with(url, name, recv).await?;
    ws.get_mut().stamp()?;
    client::send(&mut ws, ClientMessage::Watch(Watch { game, code: None })).await?;
    client::game_state(&mut ws).await?;
    Ok(ws)
}

/// A watcher that keeps reading until `release` (so that watchers leaving at the end do not
/// disturb the measurement); its connection ending before then counts as a drop.
async fn follow(
    mut ws: Socket,
    game: GameId,
    receipts: Arc<Receipts>,
    errors: Arc<Errors>,
    mut release: watch::Receiver<bool>,
) {
    // Made once: a waiter on the shared release channel built per frame would cost as much as
    // reading the frame.
    let released = release.wait_for(|go| *go);
    tokio::pin!(released);
    loop {
        let message = tokio::select! {
            _ = &mut released => break,
            message = ws.next() => message,
        };
        let text = match message {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(frame))) => {
                receipts.lost.fetch_add(1, Ordering::Relaxed);
                let code = frame.map_or(0, |f| u16::from(f.code));
                errors.add(&format!("watcher_closed_{code}"));
                return;
            }
            None | Some(Err(_)) => {
                receipts.lost.fetch_add(1, Ordering::Relaxed);
                errors.add("watcher_dropped");
                return;
            }
            Some(Ok(_)) => continue,
        };
        match Peek::of(text.as_str()) {
            Ok(peek) if peek.game == Some(game.0) => match peek.kind {
                "moved" => {
                    let received = ws.get_ref().received();
                    receipts.read(peek.cell.unwrap_or(usize::MAX), received);
                }
                "game_over" => {
                    receipts.ended.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            },
            Ok(_) => {}
            Err(_) => errors.add("unparsable"),
        }
    }
    client::close(ws).await;
}

/// A watcher that stops reading until `resume`, then reads what is left: true if the server
/// dropped it (its connection ends before the game's end reaches it).
async fn stall(mut ws: Socket, game: GameId, mut resume: watch::Receiver<bool>) -> bool {
    let _ = resume.wait_for(|go| *go).await;
    let drain = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    if let Ok(peek) = Peek::of(text.as_str())
                        && peek.kind == "game_over"
                        && peek.game == Some(game.0)
                    {
                        return false;
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return true,
                Some(Ok(_)) => {}
            }
        }
    };
    // A watcher that was never dropped reads up to the end; one that was, up to its close.
    timeout(SETTLE, drain).await.unwrap_or(false)
}

/// Reads and forgets whatever comes to either socket, until one of them ends.
async fn drain(x: &mut Socket, o: &mut Socket) {
    loop {
        let message = tokio::select! {
            message = x.next() => message,
            message = o.next() => message,
        };
        if !matches!(message, Some(Ok(_))) {
            return;
        }
    }
}

/// Paced classic games on a thread and runtime of their own, seated and waiting for their
/// window. On their own thread, the watchers' reads hold them up no more than the system holds
/// up one thread for another on the same core, as if they were another process.
#[derive(Debug)]
struct Beside {
    tally: Arc<Tally>,
    connections: usize,
    /// When to play: from the first to the last move of the watched game.
    go: oneshot::Sender<(Instant, Instant)>,
    /// Told when the games are over and their connections closed.
    done: oneshot::Receiver<()>,
}

impl Beside {
    /// Seats `games` pairs; returns once they are seated.
    async fn seat(url: &str, games: usize) -> anyhow::Result<Beside> {
        let tally = Arc::new(Tally::default());
        let (seated_tx, seated) = oneshot::channel();
        let (go, go_rx) = oneshot::channel::<(Instant, Instant)>();
        let (done_tx, done) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the runtime for the games beside")?;
        let (url, games_tally) = (url.to_owned(), tally.clone());
        std::thread::Builder::new()
            .name("beside".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let mut pairs = games::seat_pairs(&url, games, &games_tally).await;
                    // The games' frames are also timed by the kernel's receipt: this core reads
                    // the watchers too, and the read alone would count its turn as the server's.
                    for pair in &mut pairs {
                        if pair.stamp().is_err() {
                            games_tally.errors.add("stamp");
                        }
                    }
                    let _ = seated_tx.send(pairs.len() * 2);
                    if let Ok((start, end)) = go_rx.await {
                        let period = Some(Duration::from_secs(1));
                        games::play_pairs(pairs, period, start, end, &games_tally).await;
                    }
                });
                let _ = done_tx.send(());
            })
            .context("cannot start the thread for the games beside")?;
        let connections = seated.await.context("the games beside ended early")?;
        Ok(Beside {
            tally,
            connections,
            go,
            done,
        })
    }
}

/// Runs the `watchers` scenario against `url`.
pub async fn run(url: &str, server: Probe, options: &WatchersOptions) -> anyhow::Result<Report> {
    let errors = Arc::new(Errors::default());
    let mut x = client::join(url, "host").await?;
    let mut o = client::join(url, "guest").await?;
    let code = client::create_room(&mut x, Variant::Qubic, false).await?;
    client::send(&mut o, ClientMessage::JoinRoom { code }).await?;
    let state = client::game_state(&mut x).await?;
    client::game_state(&mut o).await?;
    let game = state.game;
    if state.you != Some(Mark::X) {
        std::mem::swap(&mut x, &mut o);
    }
    let beside = match options.beside_games {
        0 => None,
        n => Some(Beside::seat(url, n).await?),
    };

    // The stalled watchers join first, so that every later join's update piles up on them.
    let (mut stalled, resume_tx) = join_stalled(url, game, options.stalled, &errors).await;

    let stalled_since = Instant::now();
    let joining = Instant::now();
    let gate = Arc::new(Semaphore::new(options.join_at_once.max(1)));
    let mut joins = JoinSet::new();
    for i in 0..options.watchers {
        let (url, gate) = (url.to_owned(), gate.clone());
        joins.spawn(async move {
            let _permit = gate.acquire_owned().await;
            join_watcher(&url, &format!("w{i}"), game, None).await
        });
    }
    let receipts = Arc::new(Receipts::new(Instant::now()));
    let moves = options.moves.min(QUBIC_DRAW.len());
    let period = Duration::from_secs_f64(1.0 / options.rate.max(1e-3));
    let (release_tx, release_rx) = watch::channel(false);
    let mut watchers = JoinSet::new();
    let mut joined = 0;
    let join_phase = async {
        while let Some(result) = joins.join_next().await {
            match result {
                Ok(Ok(ws)) => {
                    joined += 1;
                    watchers.spawn(follow(
                        ws,
                        game,
                        receipts.clone(),
                        errors.clone(),
                        release_rx.clone(),
                    ));
                }
                Ok(Err(err)) => errors.add_err(&err),
                Err(_) => errors.add("panic"),
            }
        }
        // Let the last `watchers` updates drain before the first move.
        sleep(Duration::from_millis(500)).await;
    };
    // The players get every `watchers` update too: they read on while the watchers join.
    tokio::select! {
        () = join_phase => {}
        () = drain(&mut x, &mut o) => anyhow::bail!("a player's connection ended while watchers joined"),
    }
    let join_secs = joining.elapsed().as_secs_f64() - 0.5;
    let lost_joining = receipts.lost.load(Ordering::Relaxed);

    let start = Instant::now() + Duration::from_millis(100);
    let window = Window::start(server);
    let beside = beside.map(|beside| {
        let _ = beside.go.send((start, start + period * moves as u32));
        (beside.tally, beside.connections, beside.done)
    });
    let timed = play_timed(&mut x, &mut o, game, start, period, moves).await?;
    let (elapsed, server, generator) = window.end();
    let beside = match beside {
        Some((tally, connections, done)) => {
            let _ = done.await;
            Some((tally, connections))
        }
        None => None,
    };

    // Wait until every watcher still connected has read every move (or the settle time is up).
    let (recorder, reads, late) = latencies(&receipts, &timed, joined, &errors).await;

    // The rest of the game, so the watchers see its end, then the stalled watchers look back.
    finish_game(&mut x, &mut o, game, moves).await?;
    let settle_until = Instant::now() + SETTLE;
    while receipts.ended.load(Ordering::Relaxed) + receipts.lost.load(Ordering::Relaxed) < joined
        && Instant::now() < settle_until
    {
        sleep(Duration::from_millis(20)).await;
    }
    // However few updates reached them, the stalled watchers have now been stalled for longer
    // than the server lets a write wait: they must have been dropped.
    if options.stalled > 0 {
        sleep_until(stalled_since + SERVER_WRITE_TIMEOUT + Duration::from_secs(2)).await;
    }
    let _ = resume_tx.send(true);
    let mut dropped = 0;
    while let Some(result) = stalled.join_next().await {
        if result.unwrap_or(false) {
            dropped += 1;
        }
    }
    // Only now do the watchers leave.
    let _ = release_tx.send(true);
    while watchers.join_next().await.is_some() {}
    tokio::join!(client::close(x), client::close(o));

    let secs = elapsed.as_secs_f64();
    let latency = recorder.latency();
    let mut report = Report {
        scenario: format!(
            "watchers: one qubic game, {} watchers (+{} that stop reading), {} moves at {}/s",
            options.watchers, options.stalled, moves, options.rate
        ),
        connections: 2 + joined + options.stalled,
        secs,
        unit: "moves".to_owned(),
        ops: moves as u64,
        ops_per_sec: moves as f64 / secs,
        latency,
        errors: errors.snapshot(),
        server,
        generator,
        ..Report::default()
    };
    let figures = [
        ("watchers_joined", joined as f64),
        ("dropped_while_joining", lost_joining as f64),
        ("join_secs", join_secs),
        ("stalled", options.stalled as f64),
        ("stalled_dropped", dropped as f64),
    ];
    for (name, value) in figures {
        report.figures.insert(name.to_owned(), value);
    }
    reads.add_figures("read", &mut report.figures);
    late.add_figures("late", &mut report.figures);
    if let Some((tally, connections)) = beside {
        recorder.add_figures("received", &mut report.figures);
        add_beside(&mut report, options, &tally, connections, secs);
    }
    Ok(report)
}

/// Connects the watchers that stop reading, each having asked for a pile of snapshots first; they
/// look back at their sockets when the returned sender says so, and say whether they were dropped.
async fn join_stalled(
    url: &str,
    game: GameId,
    count: usize,
    errors: &Errors,
) -> (JoinSet<bool>, watch::Sender<bool>) {
    let (resume_tx, resume_rx) = watch::channel(false);
    let mut stalled = JoinSet::new();
    for i in 0..count {
        match join_watcher(url, &format!("s{i}"), game, Some(STALLED_RECV_BUFFER)).await {
            Ok(mut ws) => {
                for _ in 0..STALLED_SNAPSHOTS {
                    if client::feed(&mut ws, ClientMessage::Watch(Watch { game, code: None }))
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
                let _ = futures_util::SinkExt::flush(&mut ws).await;
                stalled.spawn(stall(ws, game, resume_rx.clone()));
            }
            Err(err) => errors.add_err(&err),
        }
    }
    (stalled, resume_tx)
}

/// Waits until every watcher still connected has read every move (or the settle time is up),
/// then times each move from when it was scheduled to its last receipt and its last read, and
/// from when it was scheduled to when it was sent.
async fn latencies(
    receipts: &Receipts,
    timed: &[(Instant, Instant)],
    joined: usize,
    errors: &Errors,
) -> (Recorder, Recorder, Recorder) {
    let moves = timed.len();
    let settle_until = Instant::now() + SETTLE;
    loop {
        let live = (joined - receipts.lost.load(Ordering::Relaxed)) as u32;
        let all_read = (0..moves).all(|ply| receipts.readers[ply].load(Ordering::Relaxed) >= live);
        if all_read || Instant::now() >= settle_until {
            break;
        }
        sleep(Duration::from_millis(20)).await;
    }
    let recorder = Recorder::default();
    let reads = Recorder::default();
    let late = Recorder::default();
    let mut unread = 0;
    let live = (joined - receipts.lost.load(Ordering::Relaxed)) as u32;
    for (ply, &(scheduled, sent)) in timed.iter().enumerate() {
        if receipts.readers[ply].load(Ordering::Relaxed) < live {
            unread += 1;
        }
        let (received, read) = receipts.last(ply);
        recorder.record(received.saturating_duration_since(scheduled));
        reads.record(read.saturating_duration_since(scheduled));
        late.record(sent.saturating_duration_since(scheduled));
    }
    if unread > 0 {
        errors.add("moves_not_read_by_all");
    }
    (recorder, reads, late)
}

/// Plays the rest of the game (or resigns it), so every watcher sees its end.
async fn finish_game(
    x: &mut Socket,
    o: &mut Socket,
    game: GameId,
    moves: usize,
) -> anyhow::Result<()> {
    for (ply, &cell) in QUBIC_DRAW.iter().enumerate().skip(moves) {
        let mover = if ply % 2 == 0 { &mut *x } else { &mut *o };
        client::send(mover, ClientMessage::Move { game, cell }).await?;
        client::until(mover, |m| {
            matches!(m, ServerMessage::Moved { cell: c, .. } if c == cell).then_some(())
        })
        .await?;
    }
    if moves < QUBIC_DRAW.len() {
        // Not played to the end: resign, so watchers see a `game_over`.
        client::send(x, ClientMessage::Resign { game }).await?;
    }
    Ok(())
}

/// The report of a run beside paced games: theirs is the main figure, the watchers' beside it.
fn add_beside(
    report: &mut Report,
    options: &WatchersOptions,
    tally: &Tally,
    connections: usize,
    secs: f64,
) {
    let moves = tally.moves.load(Ordering::Relaxed);
    report.scenario = format!(
        "watchers beside games: {} classic games at 1/s beside one qubic game with {} watchers, {} moves at {}/s",
        options.beside_games, options.watchers, report.ops, options.rate
    );
    report.connections += connections;
    report.ops = moves;
    report.ops_per_sec = moves as f64 / secs;
    report.latency = tally.latency.latency();
    tally
        .received
        .add_figures("games_received", &mut report.figures);
    for (kind, n) in tally.errors.snapshot() {
        *report.errors.entry(format!("beside_{kind}")).or_default() += n;
    }
}

/// Plays the first `moves` moves of the drawn game, one every `period` from `start`, each read by
/// both players before the next; returns when each was scheduled and when it was sent.
async fn play_timed(
    x: &mut Socket,
    o: &mut Socket,
    game: GameId,
    start: Instant,
    period: Duration,
    moves: usize,
) -> anyhow::Result<Vec<(Instant, Instant)>> {
    let mut timed = Vec::with_capacity(moves);
    for (ply, &cell) in QUBIC_DRAW.iter().take(moves).enumerate() {
        let at = start + period * ply as u32;
        sleep_until(at).await;
        timed.push((at, Instant::now()));
        let (mover, other) = if ply % 2 == 0 {
            (&mut *x, &mut *o)
        } else {
            (&mut *o, &mut *x)
        };
        client::send(mover, ClientMessage::Move { game, cell }).await?;
        // Both players read the move before the next one, as people would.
        for ws in [mover, other] {
            client::until(ws, |m| {
                matches!(m, ServerMessage::Moved { cell: c, .. } if c == cell).then_some(())
            })
            .await?;
        }
    }
    Ok(timed)
}
