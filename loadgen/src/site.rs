//! The site: clients that behave as the shipped clients do. A player says hello and follows the
//! lobby; quick-matches, opens a public room, or joins a room the lobby lists, into a listed
//! game; stops following the lobby while it plays; plays classic at the given pace; and at the
//! end goes back to the lobby and plays again. Beside the players sit connections that only
//! follow the lobby, and watchers that watch a featured game and, when it ends, go back to the
//! lobby for another.
//!
//! Measured: each move's latency, from its scheduled time to the opponent reading it (both
//! players of a game are in this process, so the mover leaves the schedule where the opponent
//! finds it); the server's CPU a move; and the lobby frames each follower receives a second.
//! The measured window starts after a warm-up in which every client is connected and the games
//! have turned over once.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use noughts_protocol::{
    ClientMessage, GameKind, Mark, RoomInfo, Seek, ServerFrame, ServerMessage, Variant, Watch,
};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::client::{self, Peek, Read, Socket};
use crate::convergence::PROBE_HOST;
use crate::games::{CLASSIC_DRAW, SETUP_AT_ONCE};
use crate::pacer::{Alarms, ring};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Run};

/// How a `site` run is shaped.
#[derive(Debug, Clone, clap::Args)]
pub struct SiteOptions {
    /// Games at once (two players each).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Connections that only follow the lobby.
    #[arg(long, default_value_t = 2000)]
    pub followers: usize,
    /// Connections that watch featured games.
    #[arg(long, default_value_t = 500)]
    pub watchers: usize,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// The share of a player's turns in the lobby spent opening a public room (the others join
    /// a listed room when there is one, or quick-match).
    #[arg(long, default_value_t = 0.05)]
    pub host_share: f64,
    /// Seconds of warm-up before the measured window.
    #[arg(long, default_value_t = 15.0)]
    pub warmup: f64,
    /// The measured window.
    #[arg(long, default_value_t = 30.0)]
    pub secs: f64,
}

/// What the clients of a run share.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) latency: Recorder,
    pub(crate) errors: Errors,
    /// Moves whose update reached the opponent in the window.
    pub(crate) moves: AtomicU64,
    /// Games finished in the window.
    pub(crate) games: AtomicU64,
    /// Games started from a public room, and by quick match.
    from_rooms: AtomicU64,
    from_seeks: AtomicU64,
    /// Lobby frames (`lobby_update`) the followers read in the window, and their bytes.
    lobby_frames: AtomicU64,
    lobby_bytes: AtomicU64,
    /// The most lobby frames one follower read in the window.
    most_frames: AtomicU64,
    /// Games a watcher started watching in the window.
    watched: AtomicU64,
    /// Each move's scheduled time, by game and ply, for the opponent to measure from.
    schedule: Mutex<HashMap<(u64, usize), Instant>>,
    /// What wakes a player at its move's time (tokio's timer alone fires up to 2 ms late, which
    /// would count as the server's latency).
    alarms: Alarms,
}

/// The measured window, known to every client before it starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
}

impl Window {
    pub(crate) fn holds(&self, at: Instant) -> bool {
        at >= self.start && at < self.end
    }
}

/// Runs the `site` scenario against `url`.
pub async fn run(url: &str, server: Probe, options: &SiteOptions) -> anyhow::Result<Report> {
    run_on(&[url.to_owned()], server, options).await
}

/// Runs the `site` scenario against the servers of `urls`, its clients taking them in turn;
/// `server` is the one whose CPU is measured.
pub async fn run_on(
    urls: &[String],
    server: Probe,
    options: &SiteOptions,
) -> anyhow::Result<Report> {
    let tally = Arc::new(Tally::default());
    let period = Duration::from_secs_f64(1.0 / options.rate.max(1e-3));
    let start = Instant::now() + Duration::from_secs_f64(options.warmup);
    let window = Window {
        start,
        end: start + Duration::from_secs_f64(options.secs),
    };
    let gate = Arc::new(Semaphore::new(SETUP_AT_ONCE));
    let mut set = JoinSet::new();
    let url_of = |i: usize| urls[i % urls.len()].clone();
    for i in 0..options.games * 2 {
        let (url, tally, gate) = (url_of(i), tally.clone(), gate.clone());
        let host_share = options.host_share;
        set.spawn(async move {
            let ws = joined(&url, &format!("p{i}"), &gate, &tally).await;
            if let Some(ws) = ws {
                player(ws, i as u64, period, host_share, window, &tally).await;
            }
        });
    }
    for i in 0..options.followers {
        let (url, tally, gate) = (url_of(i), tally.clone(), gate.clone());
        set.spawn(async move {
            if let Some(ws) = joined(&url, &format!("f{i}"), &gate, &tally).await {
                follower(ws, window, &tally).await;
            }
        });
    }
    for i in 0..options.watchers {
        let (url, tally, gate) = (url_of(i), tally.clone(), gate.clone());
        set.spawn(async move {
            if let Some(ws) = joined(&url, &format!("w{i}"), &gate, &tally).await {
                watcher(ws, i as u64, window, &tally).await;
            }
        });
    }
    sleep_until(start - Duration::from_millis(100)).await;
    let run = Run::starting(server, options.secs).await;
    while set.join_next().await.is_some() {}
    let (elapsed, server, generator) = run.measured.await?;
    let secs = options.secs.min(elapsed.as_secs_f64());
    let moves = tally.moves.load(Ordering::Relaxed);
    let mut report = Report {
        scenario: format!(
            "site: {} listed classic games at {}/s, {} lobby followers, {} watchers",
            options.games, options.rate, options.followers, options.watchers
        ),
        connections: options.games * 2 + options.followers + options.watchers,
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
    let figures = &mut report.figures;
    let count = |n: &AtomicU64| n.load(Ordering::Relaxed) as f64;
    if let Some(server) = &report.server
        && moves > 0
    {
        figures.insert(
            "server_cpu_us_per_move".to_owned(),
            server.cpu_secs * 1e6 / moves as f64,
        );
    }
    if options.followers > 0 {
        let per = |n: f64| n / options.followers as f64 / secs;
        figures.insert(
            "lobby_frames_per_follower_per_sec".to_owned(),
            per(count(&tally.lobby_frames)),
        );
        figures.insert(
            "lobby_bytes_per_follower_per_sec".to_owned(),
            per(count(&tally.lobby_bytes)),
        );
        figures.insert(
            "lobby_frames_most_per_sec".to_owned(),
            count(&tally.most_frames) / secs,
        );
    }
    figures.insert("games_done".to_owned(), count(&tally.games));
    figures.insert("games_from_rooms".to_owned(), count(&tally.from_rooms));
    figures.insert("games_from_seeks".to_owned(), count(&tally.from_seeks));
    figures.insert("games_watched".to_owned(), count(&tally.watched));
    Ok(report)
}

/// Connects and says hello under the set-up gate; a failure is counted.
async fn joined(url: &str, name: &str, gate: &Semaphore, tally: &Tally) -> Option<Socket> {
    let _permit = gate.acquire().await.ok()?;
    match client::join(url, name).await {
        Ok(ws) => Some(ws),
        Err(err) => {
            tally.errors.add_err(&err);
            None
        }
    }
}

/// Reads the next text frame before `deadline`; `None` at the deadline or when the connection
/// ends (counted).
pub(crate) async fn next_text(ws: &mut Socket, deadline: Instant, errors: &Errors) -> Option<Next> {
    next_text_or(ws, sleep_until(deadline), errors).await
}

/// The next text frame, or [`Next::Deadline`] once `wake` is done.
async fn next_text_or(
    ws: &mut Socket,
    wake: impl Future<Output = ()>,
    errors: &Errors,
) -> Option<Next> {
    tokio::pin!(wake);
    loop {
        let message = tokio::select! {
            message = ws.next() => message,
            () = &mut wake => return Some(Next::Deadline),
        };
        match Read::of(message, errors) {
            Read::Text(text) => return Some(Next::Text(text)),
            Read::Skip => {}
            Read::End => return None,
        }
    }
}

pub(crate) enum Next {
    Text(tokio_tungstenite::tungstenite::Utf8Bytes),
    Deadline,
}

pub(crate) fn parse(text: &str, errors: &Errors) -> Option<ServerMessage> {
    match serde_json::from_str::<ServerFrame>(text) {
        Ok(frame) => Some(frame.message),
        Err(_) => {
            errors.add("unparsable");
            None
        }
    }
}

/// A connection that follows the lobby and counts what it is sent.
async fn follower(mut ws: Socket, window: Window, tally: &Tally) {
    if client::send(&mut ws, ClientMessage::SubscribeLobby)
        .await
        .is_err()
    {
        tally.errors.add("send");
        return;
    }
    let mut mine = 0;
    while let Some(Next::Text(text)) = next_text(&mut ws, window.end, &tally.errors).await {
        let update = Peek::of(text.as_str()).is_ok_and(|peek| peek.kind == "lobby_update");
        if update && window.holds(Instant::now()) {
            mine += 1;
            tally.lobby_frames.fetch_add(1, Ordering::Relaxed);
            (tally.lobby_bytes).fetch_add(text.len() as u64, Ordering::Relaxed);
        }
    }
    tally.most_frames.fetch_max(mine, Ordering::Relaxed);
    client::close(ws).await;
}

/// A listed room's code, unless it is one of the timed rooms of the lobby convergence probe.
fn joinable(room: &RoomInfo) -> Option<String> {
    (!room.host.starts_with(PROBE_HOST)).then(|| room.code.clone())
}

/// What the lobby lists, as a player in it knows it.
#[derive(Debug, Default)]
struct Seen {
    rooms: BTreeSet<String>,
    featured: BTreeSet<u64>,
}

impl Seen {
    fn apply(&mut self, message: &ServerMessage) {
        match message {
            ServerMessage::Lobby { rooms, games, .. } => {
                self.rooms = rooms.iter().filter_map(joinable).collect();
                self.featured = (games.iter())
                    .filter(|game| game.kind != GameKind::War)
                    .map(|game| game.game.0)
                    .collect();
            }
            ServerMessage::LobbyUpdate(update) => {
                for code in &update.rooms_removed {
                    self.rooms.remove(code);
                }
                for game in &update.games_removed {
                    self.featured.remove(&game.0);
                }
                self.rooms.extend(update.rooms.iter().filter_map(joinable));
                self.featured.extend(
                    (update.games.iter())
                        .filter(|game| game.kind != GameKind::War)
                        .map(|game| game.game.0),
                );
            }
            _ => {}
        }
    }
}

/// How a player is trying to get into a game from the lobby.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Nothing,
    Seek,
    Room,
    Join,
}

/// A player: lobby, game, lobby, game… until the window ends.
async fn player(
    mut ws: Socket,
    seed: u64,
    period: Duration,
    host_share: f64,
    window: Window,
    tally: &Tally,
) {
    let mut rng = fastrand::Rng::with_seed(seed);
    while Instant::now() < window.end {
        let Some(start) = find_game(&mut ws, &mut rng, host_share, window, tally).await else {
            break;
        };
        if !play(
            &mut ws,
            start,
            period,
            &mut rng,
            window,
            tally,
            &mut |_, _| {},
        )
        .await
        {
            break;
        }
    }
    client::close(ws).await;
}

/// A game found: its id, our mark, and whether it came from a room.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Started {
    pub(crate) game: u64,
    pub(crate) mark: Mark,
}

/// Follows the lobby and gets into a game as a person would; stops following once it starts.
async fn find_game(
    ws: &mut Socket,
    rng: &mut fastrand::Rng,
    host_share: f64,
    window: Window,
    tally: &Tally,
) -> Option<Started> {
    client::send(ws, ClientMessage::SubscribeLobby).await.ok()?;
    let mut seen = Seen::default();
    let mut asked = Asked::Nothing;
    loop {
        let Next::Text(text) = next_text(ws, window.end, &tally.errors).await? else {
            return None;
        };
        let message = parse(text.as_str(), &tally.errors)?;
        seen.apply(&message);
        match message {
            ServerMessage::Lobby { .. } if asked == Asked::Nothing => {
                asked = if rng.f64() < host_share {
                    let request = client::request(serde_json::json!({
                        "type": "create_room", "variant": "classic", "private": false,
                    }))
                    .ok()?;
                    client::send(ws, request).await.ok()?;
                    Asked::Room
                } else if let Some(code) = pick(&seen.rooms, rng) {
                    client::send(ws, ClientMessage::JoinRoom { code })
                        .await
                        .ok()?;
                    Asked::Join
                } else {
                    seek(ws).await?
                };
            }
            ServerMessage::Error { code, .. } => {
                // A listed room someone else joined first: quick-match instead.
                if asked == Asked::Join && code.to_string() == "no_such_room" {
                    asked = seek(ws).await?;
                } else {
                    tally.errors.add(&code.to_string());
                    return None;
                }
            }
            ServerMessage::GameState(state) if state.you.is_some() => {
                let counter = match asked {
                    Asked::Room | Asked::Join => &tally.from_rooms,
                    _ => &tally.from_seeks,
                };
                if window.holds(Instant::now()) {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                client::send(ws, ClientMessage::UnsubscribeLobby)
                    .await
                    .ok()?;
                return Some(Started {
                    game: state.game.0,
                    mark: state.you?,
                });
            }
            _ => {}
        }
    }
}

async fn seek(ws: &mut Socket) -> Option<Asked> {
    let message = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: false,
        bots: false,
    });
    client::send(ws, message).await.ok()?;
    Some(Asked::Seek)
}

fn pick<T: Clone>(items: &BTreeSet<T>, rng: &mut fastrand::Rng) -> Option<T> {
    (!items.is_empty()).then(|| items.iter().nth(rng.usize(..items.len())).cloned())?
}

/// Plays one game to its end; false if the connection is no longer usable. Every other frame
/// read meanwhile, but an error, is handed to `other` with its type.
pub(crate) async fn play(
    ws: &mut Socket,
    start: Started,
    period: Duration,
    rng: &mut fastrand::Rng,
    window: Window,
    tally: &Tally,
    other: &mut (dyn FnMut(&str, &str) + Send),
) -> bool {
    let mut ply = 0;
    let bell = Arc::new(Notify::new());
    let set = |at: Instant| {
        tally.alarms.set(at, bell.clone());
        at
    };
    // When our next move is due, once it is our turn.
    let mut due = (start.mark == Mark::X).then(|| set(Instant::now() + period.mul_f64(rng.f64())));
    loop {
        let next = match due {
            Some(at) => next_text_or(ws, ring(&bell, at), &tally.errors).await,
            None => next_text(ws, window.end + Duration::from_secs(5), &tally.errors).await,
        };
        let text = match next {
            None => return false,
            Some(Next::Deadline) if due.is_some() => {
                let scheduled = due.take().unwrap_or_else(Instant::now);
                let schedule = &tally.schedule;
                lock(schedule).insert((start.game, ply), scheduled);
                let cell = CLASSIC_DRAW[ply % CLASSIC_DRAW.len()];
                let message = ClientMessage::Move {
                    game: noughts_protocol::GameId(start.game),
                    cell,
                };
                if client::send(ws, message).await.is_err() {
                    tally.errors.add("send");
                    return false;
                }
                continue;
            }
            Some(Next::Deadline) => return false,
            Some(Next::Text(text)) => text,
        };
        let Ok(peek) = Peek::of(text.as_str()) else {
            tally.errors.add("unparsable");
            return false;
        };
        if peek.game != Some(start.game) {
            if peek.kind == "error" {
                tally.errors.add(peek.code.unwrap_or("error"));
                return false;
            }
            other(peek.kind, text.as_str());
            continue;
        }
        match peek.kind {
            "moved" => {
                let this_ply = ply;
                ply += 1;
                if peek.mark == Some(start.mark) {
                    // Our own move's copy: the opponent measures it.
                    continue;
                }
                let scheduled = lock(&tally.schedule).remove(&(start.game, this_ply));
                let now = Instant::now();
                if let Some(scheduled) = scheduled {
                    if window.holds(scheduled) {
                        tally
                            .latency
                            .record(now.saturating_duration_since(scheduled));
                        tally.moves.fetch_add(1, Ordering::Relaxed);
                    }
                    if ply < CLASSIC_DRAW.len() {
                        due = Some(set((scheduled + period).max(now)));
                    }
                }
            }
            "game_over" => {
                if window.holds(Instant::now()) && start.mark == Mark::X {
                    tally.games.fetch_add(1, Ordering::Relaxed);
                }
                return true;
            }
            "error" => {
                tally.errors.add(peek.code.unwrap_or("error"));
                return false;
            }
            _ => {}
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// A watcher: picks a featured game from the lobby, watches it to its end, and goes back. As a
/// person would, it does not pick again a game it found over, until the lobby offers another.
async fn watcher(mut ws: Socket, seed: u64, window: Window, tally: &Tally) {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5eed);
    let mut finished: BTreeSet<u64> = BTreeSet::new();
    'lobby: while Instant::now() < window.end {
        if client::send(&mut ws, ClientMessage::SubscribeLobby)
            .await
            .is_err()
        {
            break;
        }
        let mut seen = Seen::default();
        let game = loop {
            let Some(Next::Text(text)) = next_text(&mut ws, window.end, &tally.errors).await else {
                break 'lobby;
            };
            let Some(message) = parse(text.as_str(), &tally.errors) else {
                break 'lobby;
            };
            seen.apply(&message);
            if let Some(game) = pick(&(&seen.featured - &finished), &mut rng) {
                break game;
            }
        };
        let watch = ClientMessage::Watch(Watch {
            game: noughts_protocol::GameId(game),
            code: None,
        });
        let unfollow = client::send(&mut ws, ClientMessage::UnsubscribeLobby).await;
        if unfollow.is_err() || client::send(&mut ws, watch).await.is_err() {
            break;
        }
        if window.holds(Instant::now()) {
            tally.watched.fetch_add(1, Ordering::Relaxed);
        }
        // Until the game ends (or was gone already): then back to the lobby for another.
        loop {
            let Some(Next::Text(text)) = next_text(&mut ws, window.end, &tally.errors).await else {
                break 'lobby;
            };
            let Ok(peek) = Peek::of(text.as_str()) else {
                continue;
            };
            // A game already over when the watch began answers with its final state.
            let over = peek.kind == "game_state" && text.as_str().contains("\"result\"");
            let ended = (peek.kind == "game_over" || over) && peek.game == Some(game);
            let gone = peek.kind == "error" && peek.code == Some("no_such_game");
            if ended || gone {
                if finished.len() >= 64 {
                    finished.clear();
                }
                finished.insert(game);
                if ended {
                    let _ = client::send(
                        &mut ws,
                        ClientMessage::Unwatch {
                            game: noughts_protocol::GameId(game),
                        },
                    )
                    .await;
                }
                break;
            }
        }
    }
    client::close(ws).await;
}
