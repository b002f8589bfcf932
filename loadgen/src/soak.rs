//! The churn soak: a population of clients that, for a long while, connect, find games by quick
//! match or against the AI, play them, watch others' games, chat, drop without a goodbye (the
//! socket reset, no close frame), come back with their token or as someone new, and start again.
//! Meanwhile the server's resident memory (from `/proc`) and its runtime's live tasks (from its
//! metrics endpoint) are sampled every few seconds; at the end the soak says whether they stayed
//! flat.
//!
//! Flat means: after a warm-up (the first quarter of the run, while the population ramps up and
//! the allocator settles), the mean of the last quarter's samples is within [`RSS_MARGIN`] of the
//! mean of the second quarter's (RSS) and within [`TASKS_MARGIN`] (tasks). The population is the
//! same all along, so what a leak would add shows as a tail above the steady state; the margins
//! absorb the noise of a busy machine without hiding a leak that grows with time.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, Level, Mark, PROTOCOL_VERSION, ServerFrame, ServerMessage,
    SideChoice, Variant,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tokio_tungstenite::tungstenite::Message;

use crate::client::{self, Socket};
use crate::report::{Errors, Report};
use crate::target::{Probe, Window};

/// How far the tail's mean RSS may sit above the steady state's: 10% plus 4 MiB.
pub const RSS_MARGIN: (f64, f64) = (0.10, 4096.0);
/// How far the tail's mean task count may sit above the steady state's: 10% plus 16 tasks.
pub const TASKS_MARGIN: (f64, f64) = (0.10, 16.0);
/// A player's time to think over a move, in milliseconds.
const THINK_MS: (u64, u64) = (100, 600);
/// How long a seek waits for an opponent before it is withdrawn.
const SEEK_WAIT: Duration = Duration::from_secs(3);
/// How long a client watches a game, in milliseconds.
const WATCH_MS: (u64, u64) = (1000, 4000);
/// How long a dropped client stays away before it comes back, in milliseconds.
const AWAY_MS: (u64, u64) = (100, 1500);
/// The pause between two activities of one connection, in milliseconds.
const BETWEEN_MS: (u64, u64) = (50, 500);

/// How a soak is shaped.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Clients in the population.
    pub clients: usize,
    /// How long it runs.
    pub secs: f64,
    /// Seconds between two samples of the server.
    pub sample_secs: f64,
    /// The server's metrics endpoint (`http://HOST:PORT/metrics`), for its task count.
    pub metrics: Option<String>,
    /// The chance that a player drops its connection instead of making a move (and that a
    /// watcher drops instead of leaving politely).
    pub drop_chance: f64,
}

/// One sample of the server.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Point {
    /// Seconds since the soak started.
    pub secs: f64,
    /// Resident memory, KiB.
    pub rss_kib: Option<u64>,
    /// Tasks alive in the server's runtime.
    pub tasks: Option<u64>,
    /// Connections the server holds.
    pub connections: Option<u64>,
}

/// Start, end, peak and trend of one series.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Series {
    pub start: f64,
    pub end: f64,
    pub max: f64,
    /// Mean of the second quarter of the run.
    pub steady: f64,
    /// Mean of the last quarter.
    pub tail: f64,
    /// Least-squares slope over the second half, per minute.
    pub slope_per_min: f64,
    /// Whether `tail` is within the margin of `steady`.
    pub flat: bool,
}

impl Series {
    /// The summary of `(secs, value)` points over a run of `secs`, with a margin of
    /// `(fraction, absolute)` above the steady state.
    pub fn of(points: &[(f64, f64)], secs: f64, margin: (f64, f64)) -> Option<Series> {
        let (first, last) = (points.first()?, points.last()?);
        let mean = |from: f64, to: f64| {
            let values: Vec<f64> = points
                .iter()
                .filter(|(t, _)| *t >= from && *t <= to)
                .map(|&(_, v)| v)
                .collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let steady = mean(secs * 0.25, secs * 0.5)?;
        let tail = mean(secs * 0.75, f64::INFINITY)?;
        let half: Vec<(f64, f64)> = points
            .iter()
            .copied()
            .filter(|(t, _)| *t >= secs * 0.5)
            .collect();
        let n = half.len() as f64;
        let (mt, mv) = (
            half.iter().map(|p| p.0).sum::<f64>() / n,
            half.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let (cov, var) = half.iter().fold((0.0, 0.0), |(c, v), &(t, x)| {
            (c + (t - mt) * (x - mv), v + (t - mt) * (t - mt))
        });
        Some(Series {
            start: first.1,
            end: last.1,
            max: points.iter().map(|p| p.1).fold(f64::MIN, f64::max),
            steady,
            tail,
            slope_per_min: if var > 0.0 { cov / var * 60.0 } else { 0.0 },
            flat: tail <= steady * (1.0 + margin.0) + margin.1,
        })
    }
}

/// Everything a soak found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SoakResult {
    pub report: Report,
    /// Resident memory, KiB.
    pub rss: Option<Series>,
    /// Tasks alive in the server's runtime.
    pub tasks: Option<Series>,
    /// Flat memory and tasks (those that were measured) and no errors.
    pub pass: bool,
    pub samples: Vec<Point>,
}

impl std::fmt::Display for SoakResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.report)?;
        for (name, series) in [("rss KiB", &self.rss), ("tasks", &self.tasks)] {
            match series {
                Some(s) => writeln!(
                    f,
                    "  {name:<10} start {:.0}, end {:.0}, max {:.0}; steady {:.0}, tail {:.0}, slope {:+.1}/min over the second half: {}",
                    s.start,
                    s.end,
                    s.max,
                    s.steady,
                    s.tail,
                    s.slope_per_min,
                    if s.flat { "flat" } else { "GROWING" }
                )?,
                None => writeln!(f, "  {name:<10} not measured")?,
            }
        }
        writeln!(f, "{}", if self.pass { "pass" } else { "FAIL" })
    }
}

/// What the population shares.
#[derive(Debug, Default)]
struct Tally {
    errors: Errors,
    /// Refusals that a client in a hurry meets by the rules (a game that ended as it was watched,
    /// a seek matched as it was withdrawn), by code; not errors.
    races: Errors,
    connects: AtomicU64,
    /// Hellos with a token that resumed the session.
    resumes: AtomicU64,
    /// Hellos with a token whose session had expired (the same player, a new session).
    returns: AtomicU64,
    /// Connections dropped without a close frame.
    drops: AtomicU64,
    moves: AtomicU64,
    watches: AtomicU64,
    chats: AtomicU64,
    /// Clients connected now, and at most.
    online: AtomicUsize,
    peak_online: AtomicUsize,
    /// Games seen to end, by id (each counted once, however many saw it).
    finished: Mutex<HashSet<u64>>,
    /// Games being played, for watchers to pick from.
    live: Mutex<Vec<GameId>>,
}

impl Tally {
    fn refused(&self, code: ErrorCode) {
        match code {
            ErrorCode::NoSuchGame
            | ErrorCode::NotSeeking
            | ErrorCode::GameOver
            | ErrorCode::NotAPlayer => self.races.add(code.as_str()),
            _ => self.errors.add(code.as_str()),
        }
    }

    fn live(&self, game: GameId, live: bool) {
        let mut games = self.live.lock().expect("live lock");
        if live {
            if !games.contains(&game) {
                games.push(game);
            }
        } else {
            games.retain(|g| *g != game);
        }
    }
}

/// How a connection ended.
enum Ending {
    /// The run is over.
    Done,
    /// The client dropped it without a word.
    Dropped,
    /// The client said goodbye.
    Left,
}

/// A seat of this connection's player.
struct Seat {
    mark: Mark,
    board: Vec<u8>,
    /// When this player moves next, if it is its turn.
    move_at: Option<Instant>,
    chatted: bool,
}

/// A client's life: connections one after another until `end`.
async fn live(i: usize, url: String, end: Instant, drop_chance: f64, tally: Arc<Tally>) {
    let mut rng = fastrand::Rng::with_seed(i as u64);
    let mut token: Option<String> = None;
    let mut incarnation = 0;
    // Spread the first connections over the first seconds.
    sleep(Duration::from_millis(rng.u64(0..2000))).await;
    while Instant::now() < end {
        let name = format!("soak{i}-{incarnation}");
        let ending = connection(&url, &name, &mut token, end, drop_chance, &mut rng, &tally).await;
        tally.online.fetch_sub(1, Ordering::Relaxed);
        match ending {
            Ok(Ending::Done) => break,
            Ok(Ending::Dropped) => {
                tally.drops.fetch_add(1, Ordering::Relaxed);
                sleep(Duration::from_millis(rng.u64(AWAY_MS.0..AWAY_MS.1))).await;
                // Most come back to their games; the others as someone new.
                if rng.f64() < 0.4 {
                    token = None;
                    incarnation += 1;
                }
            }
            Ok(Ending::Left) => {
                if rng.bool() {
                    token = None;
                    incarnation += 1;
                }
            }
            Err(err) => {
                tally.errors.add_err(&err);
                token = None;
                incarnation += 1;
                sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Resets the connection: no close frame, no FIN.
fn abort(ws: Socket) {
    let _ = ws.get_ref().tcp().set_zero_linger();
    drop(ws);
}

/// One connection: hello (resuming with `token` if there is one), then activities until the run
/// ends, the client drops it, or leaves.
async fn connection(
    url: &str,
    name: &str,
    token: &mut Option<String>,
    end: Instant,
    drop_chance: f64,
    rng: &mut fastrand::Rng,
    tally: &Tally,
) -> anyhow::Result<Ending> {
    let online = tally.online.fetch_add(1, Ordering::Relaxed) + 1;
    tally.peak_online.fetch_max(online, Ordering::Relaxed);
    let mut ws = client::connect(url, None).await?;
    client::send(
        &mut ws,
        ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.to_owned(),
            token: token.clone(),
        },
    )
    .await?;
    let resuming = token.is_some();
    let resumed = client::until(&mut ws, |m| match m {
        ServerMessage::Welcome { token, resumed, .. } => Some((token, resumed)),
        _ => None,
    })
    .await?;
    tally.connects.fetch_add(1, Ordering::Relaxed);
    match (resuming, resumed.1) {
        (true, true) => tally.resumes.fetch_add(1, Ordering::Relaxed),
        (true, false) => tally.returns.fetch_add(1, Ordering::Relaxed),
        _ => 0,
    };
    *token = Some(resumed.0);

    let mut activity = Activity::new(rng);
    loop {
        let wake = activity.wake(end);
        let message = tokio::select! {
            () = sleep_until(wake) => None,
            message = ws.next() => Some(message),
        };
        let now = Instant::now();
        let Some(message) = message else {
            if now >= end {
                client::close(ws).await;
                return Ok(Ending::Done);
            }
            match activity
                .on_due(&mut ws, now, drop_chance, rng, tally)
                .await?
            {
                Next::Go => continue,
                Next::Drop => {
                    abort(ws);
                    return Ok(Ending::Dropped);
                }
                Next::Leave => {
                    client::close(ws).await;
                    return Ok(Ending::Left);
                }
            }
        };
        let text = match message {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(frame))) => {
                bail!(
                    "closed by the server ({:?})",
                    frame.map(|f| u16::from(f.code))
                )
            }
            None => bail!("closed by the server"),
            Some(Err(err)) => return Err(err).context("read"),
            Some(Ok(_)) => continue,
        };
        let frame: ServerFrame =
            serde_json::from_str(text.as_str()).with_context(|| format!("unparsable {text}"))?;
        activity.on_frame(frame, now, rng, tally);
    }
}

/// What one connection does next after something fell due.
enum Next {
    /// Go on.
    Go,
    /// Drop the connection without a word.
    Drop,
    /// Close it politely and leave.
    Leave,
}

/// What one connection keeps track of: its seats, the `seq` of every game it hears of, an open
/// seek, a game it watches, and when it next does something.
struct Activity {
    seats: HashMap<u64, Seat>,
    seqs: HashMap<u64, u64>,
    seeking: Option<Instant>,
    watching: Option<(GameId, Instant)>,
    next_activity: Instant,
}

impl Activity {
    fn new(rng: &mut fastrand::Rng) -> Activity {
        Activity {
            seats: HashMap::new(),
            seqs: HashMap::new(),
            seeking: None,
            watching: None,
            next_activity: Instant::now() + between(rng),
        }
    }

    /// When something next falls due: a move, a seek or a watch ending, the next activity.
    fn wake(&self, end: Instant) -> Instant {
        let busy = !self.seats.is_empty() || self.seeking.is_some() || self.watching.is_some();
        self.seats
            .values()
            .filter_map(|s| s.move_at)
            .chain(self.seeking)
            .chain(self.watching.map(|w| w.1))
            .chain((!busy).then_some(self.next_activity))
            .min()
            .unwrap_or(end)
            .min(end)
    }

    /// Whatever fell due: a move, a seek to give up, a watch to end, or a new activity.
    async fn on_due(
        &mut self,
        ws: &mut Socket,
        now: Instant,
        drop_chance: f64,
        rng: &mut fastrand::Rng,
        tally: &Tally,
    ) -> anyhow::Result<Next> {
        let busy = !self.seats.is_empty() || self.seeking.is_some() || self.watching.is_some();
        // A move that is due.
        if let Some((&game, seat)) = self
            .seats
            .iter_mut()
            .find(|(_, s)| s.move_at.is_some_and(|at| at <= now))
        {
            seat.move_at = None;
            if rng.f64() < drop_chance {
                return Ok(Next::Drop);
            }
            let game = GameId(game);
            if !seat.chatted && rng.f64() < 0.2 {
                seat.chatted = true;
                let text = "good game".to_owned();
                client::feed(ws, ClientMessage::Chat { game, text }).await?;
                tally.chats.fetch_add(1, Ordering::Relaxed);
            }
            let empty: Vec<usize> = (0..seat.board.len())
                .filter(|&c| seat.board[c] == b'.')
                .collect();
            let cell = empty[rng.usize(0..empty.len())];
            client::send(ws, ClientMessage::Move { game, cell }).await?;
            tally.moves.fetch_add(1, Ordering::Relaxed);
            return Ok(Next::Go);
        }
        if self.seeking.is_some_and(|at| at <= now) {
            // Matched meanwhile, it gets `not_seeking` and the game's snapshot follows.
            self.seeking = None;
            client::send(ws, ClientMessage::CancelSeek).await?;
            self.next_activity = now + between(rng);
            return Ok(Next::Go);
        }
        if let Some((game, until)) = self.watching
            && until <= now
        {
            self.watching = None;
            if rng.f64() < drop_chance * 5.0 {
                return Ok(Next::Drop);
            }
            client::send(ws, ClientMessage::Unwatch { game }).await?;
            self.next_activity = now + between(rng);
            return Ok(Next::Go);
        }
        if !busy && self.next_activity <= now {
            let roll = rng.f64();
            if roll < 0.45 {
                let seek = ClientMessage::Seek {
                    variant: Variant::Classic,
                    clock: None,
                    rated: rng.bool(),
                };
                client::send(ws, seek).await?;
                self.seeking = Some(now + SEEK_WAIT);
            } else if roll < 0.75 {
                let level =
                    [Level::Easy, Level::Medium, Level::Hard, Level::Perfect][rng.usize(0..4)];
                let play = ClientMessage::PlayAi {
                    variant: Variant::Classic,
                    level,
                    side: SideChoice::Random,
                    clock: None,
                };
                client::send(ws, play).await?;
                // Busy until its snapshot comes: a seek that waits for it.
                self.seeking = Some(now + client::STEP);
            } else if roll < 0.95 {
                let pick = {
                    let live = tally.live.lock().expect("live lock");
                    (!live.is_empty()).then(|| live[rng.usize(0..live.len())])
                };
                match pick {
                    Some(game) => {
                        client::send(ws, ClientMessage::Watch { game, code: None }).await?;
                        tally.watches.fetch_add(1, Ordering::Relaxed);
                        let until = now + Duration::from_millis(rng.u64(WATCH_MS.0..WATCH_MS.1));
                        self.watching = Some((game, until));
                        if rng.f64() < 0.3 {
                            let text = "hello from the stands".to_owned();
                            client::send(ws, ClientMessage::Chat { game, text }).await?;
                            tally.chats.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    None => self.next_activity = now + between(rng),
                }
            } else {
                return Ok(Next::Leave);
            }
        }
        Ok(Next::Go)
    }

    /// A frame from the server: seq checked, then seats, seeks and watches brought up to date.
    fn on_frame(
        &mut self,
        frame: ServerFrame,
        now: Instant,
        rng: &mut fastrand::Rng,
        tally: &Tally,
    ) {
        // Every update of a game carries a larger seq than the last; a snapshot no smaller.
        let (game, seq, snapshot) = match &frame.message {
            ServerMessage::GameState(s) => (Some(s.game), s.seq, true),
            ServerMessage::Moved { game, seq, .. }
            | ServerMessage::GameOver { game, seq, .. }
            | ServerMessage::Presence { game, seq, .. }
            | ServerMessage::Watchers { game, seq, .. }
            | ServerMessage::Chat { game, seq, .. }
            | ServerMessage::RematchOffered { game, seq, .. } => (Some(*game), *seq, false),
            _ => (None, 0, false),
        };
        if let Some(game) = game {
            let last = self.seqs.entry(game.0).or_insert(0);
            if seq < *last || (!snapshot && seq == *last && seq > 0) {
                tally.errors.add("seq_out_of_order");
            }
            *last = (*last).max(seq);
        }
        match frame.message {
            ServerMessage::GameState(state) => match state.you {
                Some(mark) if state.result.is_none() => {
                    self.seeking = None;
                    tally.live(state.game, true);
                    let mut seat = Seat {
                        mark,
                        board: state.board.into_bytes(),
                        move_at: None,
                        chatted: false,
                    };
                    if state.to_move == Some(mark) {
                        seat.move_at = Some(now + think(rng));
                    }
                    self.seats.insert(state.game.0, seat);
                }
                Some(_) => {
                    // Ended while this player was away.
                    self.seats.remove(&state.game.0);
                }
                None if state.result.is_some() => tally.live(state.game, false),
                None => {}
            },
            ServerMessage::Moved {
                game,
                board,
                to_move,
                ..
            } => {
                if let Some(seat) = self.seats.get_mut(&game.0) {
                    seat.board = board.into_bytes();
                    seat.move_at = (to_move == Some(seat.mark)).then(|| now + think(rng));
                }
            }
            ServerMessage::GameOver { game, .. } => {
                tally.live(game, false);
                tally.finished.lock().expect("finished lock").insert(game.0);
                if self.seats.remove(&game.0).is_some() && self.seats.is_empty() {
                    self.next_activity = now + between(rng);
                }
                if self.watching.is_some_and(|(g, _)| g == game) {
                    self.watching = Some((game, now));
                }
            }
            ServerMessage::Error { code, .. } => {
                tally.refused(code);
                // A refused `play_ai` leaves nothing to wait for; a game gone, nothing to watch.
                self.seeking = self.seeking.filter(|_| code == ErrorCode::NotSeeking);
                if code == ErrorCode::NoSuchGame
                    && let Some((game, _)) = self.watching.take()
                {
                    tally.live(game, false);
                }
                self.next_activity = now + between(rng);
            }
            _ => {}
        }
    }
}

fn think(rng: &mut fastrand::Rng) -> Duration {
    Duration::from_millis(rng.u64(THINK_MS.0..THINK_MS.1))
}

fn between(rng: &mut fastrand::Rng) -> Duration {
    Duration::from_millis(rng.u64(BETWEEN_MS.0..BETWEEN_MS.1))
}

/// Reads the samples `names` from a Prometheus endpoint (`http://HOST:PORT/metrics`).
pub async fn scrape(url: &str, names: &[&str]) -> anyhow::Result<Vec<Option<f64>>> {
    let rest = url.strip_prefix("http://").context("not an http:// url")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream = timeout(client::STEP, tokio::net::TcpStream::connect(host))
        .await
        .context("metrics connect timed out")??;
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = String::new();
    timeout(client::STEP, stream.read_to_string(&mut response))
        .await
        .context("metrics read timed out")??;
    Ok(names
        .iter()
        .map(|name| {
            response.lines().find_map(|line| {
                line.strip_prefix(name)?
                    .strip_prefix(' ')?
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .collect())
}

/// Runs the soak against `url`, sampling `server`.
pub async fn run(url: &str, server: Probe, options: &SoakOptions) -> anyhow::Result<SoakResult> {
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let end = started + Duration::from_secs_f64(options.secs);
    let window = Window::start(server);
    let mut population = JoinSet::new();
    for i in 0..options.clients {
        population.spawn(live(
            i,
            url.to_owned(),
            end,
            options.drop_chance,
            tally.clone(),
        ));
    }
    let mut samples = Vec::new();
    let period = Duration::from_secs_f64(options.sample_secs.max(0.1));
    let mut next = started;
    while next <= end {
        sleep_until(next).await;
        let mut point = Point {
            secs: started.elapsed().as_secs_f64(),
            rss_kib: server.sample().map(|s| s.rss_kib),
            ..Point::default()
        };
        if let Some(metrics) = &options.metrics {
            match scrape(metrics, &["noughts_tasks", "noughts_connections"]).await {
                Ok(values) => {
                    point.tasks = values[0].map(|v| v as u64);
                    point.connections = values[1].map(|v| v as u64);
                }
                Err(err) => tally.errors.add_err(&err.context("metrics")),
            }
        }
        samples.push(point);
        next += period;
    }
    while population.join_next().await.is_some() {}
    let (elapsed, server_use, generator) = window.end();

    let secs = elapsed.as_secs_f64();
    let series = |value: fn(&Point) -> Option<u64>, margin| {
        let points: Vec<(f64, f64)> = samples
            .iter()
            .filter_map(|p| Some((p.secs, value(p)? as f64)))
            .collect();
        Series::of(&points, options.secs, margin)
    };
    let rss = series(|p| p.rss_kib, RSS_MARGIN);
    let tasks = series(|p| p.tasks, TASKS_MARGIN);
    let finished = tally.finished.lock().expect("finished lock").len() as u64;
    let count = |n: &AtomicU64| n.load(Ordering::Relaxed) as f64;
    let mut report = Report {
        scenario: format!(
            "soak: {} clients connecting, playing, watching, dropping and coming back for {:.0} s",
            options.clients, options.secs
        ),
        connections: tally.peak_online.load(Ordering::Relaxed),
        secs,
        unit: "games".to_owned(),
        ops: finished,
        ops_per_sec: finished as f64 / secs,
        latency: None,
        errors: tally.errors.snapshot(),
        server: server_use,
        generator,
        ..Report::default()
    };
    for (name, value) in [
        ("connects", count(&tally.connects)),
        ("resumes", count(&tally.resumes)),
        ("returns", count(&tally.returns)),
        ("drops", count(&tally.drops)),
        ("moves", count(&tally.moves)),
        ("watches", count(&tally.watches)),
        ("chats", count(&tally.chats)),
        ("races", tally.races.snapshot().values().sum::<u64>() as f64),
        ("samples", samples.len() as f64),
    ] {
        report.figures.insert(name.to_owned(), value);
    }
    let pass =
        report.error_count() == 0 && rss.is_none_or(|s| s.flat) && tasks.is_none_or(|s| s.flat);
    Ok(SoakResult {
        report,
        rss,
        tasks,
        pass,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_series_is_flat_and_a_growing_one_is_not() {
        let level: Vec<(f64, f64)> = (0..=100).map(|t| (t as f64, 100.0)).collect();
        let s = Series::of(&level, 100.0, (0.1, 0.0)).unwrap();
        assert!(s.flat);
        assert_eq!(
            (s.start, s.end, s.max, s.steady, s.tail),
            (100.0, 100.0, 100.0, 100.0, 100.0)
        );
        assert_eq!(s.slope_per_min, 0.0);

        // One unit a second: the tail (~87) is well above the steady state (~37).
        let growing: Vec<(f64, f64)> = (0..=100).map(|t| (t as f64, t as f64)).collect();
        let s = Series::of(&growing, 100.0, (0.1, 0.0)).unwrap();
        assert!(!s.flat, "{s:?}");
        assert!((s.slope_per_min - 60.0).abs() < 1e-9, "{s:?}");
        assert_eq!(s.max, 100.0);
    }
}
