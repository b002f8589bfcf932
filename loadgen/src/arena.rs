//! An arena, as the shipped clients play one: players with accounts (arena games are rated)
//! find the arena in the lobby, join it and follow its standings; the server pairs them; each
//! game is played at the site's pace, the lobby left while it lasts, and at its end the player
//! goes back to the lobby and the arena pairs it again. Now and then a player withdraws for a
//! few seconds and joins again. Beside them, watchers follow the lobby and the arena's
//! standings.
//!
//! Measured as the site is ([`crate::site`]): each move's latency from its scheduled time to the
//! opponent reading it, the server's CPU a move, and the standings frames (`arena`) and their
//! bytes each watcher and each player receives a second. The accounts are registered before the
//! warm-up (each costs the server a password hash), and the measured window starts after it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use noughts_protocol::{
    ArenaId, ClientMessage, ClockSpec, CreateArena, Credentials, ServerMessage, Variant,
};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep_until};

use crate::client::{self, Peek, Socket};
use crate::games::SETUP_AT_ONCE;
use crate::report::{Errors, Report};
use crate::site::{self, Next, Started, Window, next_text, parse};
use crate::target::{Probe, Run};

/// The password of the generator's accounts.
const PASSWORD: &str = "tangerine umbrella 42";
/// The arena's clock: a blitz, as the server's own hourly arena.
const CLOCK: ClockSpec = ClockSpec {
    initial_ms: 180_000,
    increment_ms: 2_000,
};
/// How long after a refused `join_arena` (the arena busy) a player asks again.
const RETRY: Duration = Duration::from_millis(250);

/// How an `arena` run is shaped.
#[derive(Debug, Clone, clap::Args)]
pub struct ArenaOptions {
    /// Players in the arena (accounts, registered before the run).
    #[arg(long, default_value_t = 1000)]
    pub players: usize,
    /// Connections that follow the lobby and the arena's standings.
    #[arg(long, default_value_t = 250)]
    pub watchers: usize,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// The share of games after which the player withdraws, and joins again a while later.
    #[arg(long, default_value_t = 0.05)]
    pub withdraw_share: f64,
    /// How long a withdrawn player stays away, in seconds.
    #[arg(long, default_value_t = 3.0)]
    pub away_secs: f64,
    /// Seconds of warm-up (after the accounts are registered) before the measured window.
    #[arg(long, default_value_t = 15.0)]
    pub warmup: f64,
    /// The measured window.
    #[arg(long, default_value_t = 30.0)]
    pub secs: f64,
}

/// What the clients of a run share.
#[derive(Debug, Default)]
struct Tally {
    /// The moves, their latency, the games and the errors, counted as the site counts them.
    play: site::Tally,
    /// Standings frames (`arena`) the watchers read in the window, and their bytes.
    watcher_frames: AtomicU64,
    watcher_bytes: AtomicU64,
    /// The most standings frames one watcher read in the window.
    most_frames: AtomicU64,
    /// Standings frames the players read in the window, and their bytes.
    player_frames: AtomicU64,
    player_bytes: AtomicU64,
    /// Games a player was paired into in the window.
    paired: AtomicU64,
    /// Withdrawals, and joins again after one, in the window.
    withdrawals: AtomicU64,
    rejoins: AtomicU64,
    /// `join_arena` (or a watcher's `arena`) refused because the arena was busy, asked again.
    join_retries: AtomicU64,
}

impl Tally {
    fn errors(&self) -> &Errors {
        &self.play.errors
    }
}

/// Counts a standings frame read by a player, in the window.
fn count_player_frame(tally: &Tally, window: Window, kind: &str, text: &str) {
    if kind == "arena" && window.holds(Instant::now()) {
        tally.player_frames.fetch_add(1, Ordering::Relaxed);
        (tally.player_bytes).fetch_add(text.len() as u64, Ordering::Relaxed);
    }
}

/// Runs the `arena` scenario against `url`.
pub async fn run(url: &str, server: Probe, options: &ArenaOptions) -> anyhow::Result<Report> {
    let tally = Arc::new(Tally::default());
    let tag = format!("{:05x}", fastrand::u32(..0x10_0000));
    let setup = Instant::now();
    let (players, watchers) = set_up(url, &tag, options, &tally).await;
    let mut players = players.into_iter();
    let arena = match players.next() {
        Some((_, mut ws)) => {
            let arena = create(&mut ws, &tag).await;
            client::close(ws).await;
            arena?
        }
        None => anyhow::bail!("no player could register: {:?}", tally.errors().snapshot()),
    };
    let setup_secs = setup.elapsed().as_secs_f64();
    let period = Duration::from_secs_f64(1.0 / options.rate.max(1e-3));
    let start = Instant::now() + Duration::from_secs_f64(options.warmup);
    let window = Window {
        start,
        end: start + Duration::from_secs_f64(options.secs),
    };
    let away = Duration::from_secs_f64(options.away_secs);
    let mut set = JoinSet::new();
    let playing = players.len();
    for (i, ws) in players {
        let (tally, share) = (tally.clone(), options.withdraw_share);
        set.spawn(async move {
            let how = Pace {
                period,
                share,
                away,
                window,
            };
            player(ws, i as u64, arena, how, &tally).await;
        });
    }
    for ws in watchers {
        let tally = tally.clone();
        set.spawn(async move { watcher(ws, arena, window, &tally).await });
    }
    sleep_until(start - Duration::from_millis(100)).await;
    let run = Run::starting(server, options.secs).await;
    while set.join_next().await.is_some() {}
    let (elapsed, server, generator) = run.measured.await?;
    let secs = options.secs.min(elapsed.as_secs_f64());
    let moves = tally.play.moves.load(Ordering::Relaxed);
    let mut report = Report {
        scenario: format!(
            "arena: {} players ({} paired classic games at once) at {}/s, {} standings watchers",
            options.players,
            options.players / 2,
            options.rate,
            options.watchers
        ),
        connections: options.players + options.watchers,
        secs,
        unit: "moves".to_owned(),
        ops: moves,
        ops_per_sec: moves as f64 / secs,
        latency: tally.play.latency.latency(),
        errors: tally.errors().snapshot(),
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
    let per = |n: f64, of: usize| n / of.max(1) as f64 / secs;
    if options.watchers > 0 {
        let (frames, bytes) = (count(&tally.watcher_frames), count(&tally.watcher_bytes));
        let w = options.watchers;
        figures.insert(
            "standings_frames_per_watcher_per_sec".to_owned(),
            per(frames, w),
        );
        figures.insert(
            "standings_bytes_per_watcher_per_sec".to_owned(),
            per(bytes, w),
        );
        figures.insert(
            "standings_frames_most_per_sec".to_owned(),
            count(&tally.most_frames) / secs,
        );
    }
    let (frames, bytes) = (count(&tally.player_frames), count(&tally.player_bytes));
    figures.insert(
        "standings_frames_per_player_per_sec".to_owned(),
        per(frames, playing),
    );
    figures.insert(
        "standings_bytes_per_player_per_sec".to_owned(),
        per(bytes, playing),
    );
    figures.insert("games_done".to_owned(), count(&tally.play.games));
    figures.insert("games_paired".to_owned(), count(&tally.paired));
    figures.insert("withdrawals".to_owned(), count(&tally.withdrawals));
    figures.insert("rejoins".to_owned(), count(&tally.rejoins));
    figures.insert("join_retries".to_owned(), count(&tally.join_retries));
    figures.insert("setup_secs".to_owned(), setup_secs);
    Ok(report)
}

/// Connects every player and registers its account, and connects every watcher (a guest), a few
/// at a time; a failure is counted and that client left out.
async fn set_up(
    url: &str,
    tag: &str,
    options: &ArenaOptions,
    tally: &Arc<Tally>,
) -> (Vec<(usize, Socket)>, Vec<Socket>) {
    let gate = Arc::new(Semaphore::new(SETUP_AT_ONCE));
    let mut players = JoinSet::new();
    for i in 0..options.players {
        let (url, gate, tally) = (url.to_owned(), gate.clone(), tally.clone());
        let username = format!("ld{tag}_{i}");
        players.spawn(async move {
            let _permit = gate.acquire().await.ok()?;
            match account(&url, &username).await {
                Ok(ws) => Some((i, ws)),
                Err(err) => {
                    tally.errors().add_err(&err);
                    None
                }
            }
        });
    }
    let mut watchers = JoinSet::new();
    for i in 0..options.watchers {
        let (url, gate, tally) = (url.to_owned(), gate.clone(), tally.clone());
        watchers.spawn(async move {
            let _permit = gate.acquire().await.ok()?;
            match client::join(&url, &format!("aw{i}")).await {
                Ok(ws) => Some(ws),
                Err(err) => {
                    tally.errors().add_err(&err);
                    None
                }
            }
        });
    }
    let mut joined: Vec<(usize, Socket)> = players.join_all().await.into_iter().flatten().collect();
    joined.sort_by_key(|(i, _)| *i);
    let watching = watchers.join_all().await.into_iter().flatten().collect();
    (joined, watching)
}

/// A connection whose guest has become the account `username`.
async fn account(url: &str, username: &str) -> anyhow::Result<Socket> {
    let mut ws = client::join(url, username).await?;
    let register = ClientMessage::Register(Credentials {
        username: username.to_owned(),
        password: PASSWORD.to_owned(),
        device: None,
        device_cookie: None,
    });
    client::send(&mut ws, register).await?;
    client::until(&mut ws, |m| {
        matches!(m, ServerMessage::Registered { .. }).then_some(())
    })
    .await?;
    Ok(ws)
}

/// Opens the run's public arena, pairing from now for an hour; its id.
async fn create(ws: &mut Socket, tag: &str) -> anyhow::Result<ArenaId> {
    let request = ClientMessage::CreateArena(CreateArena {
        name: Some(format!("Load {tag}")),
        variant: Variant::Classic,
        clock: CLOCK,
        start_ms: None,
        length_secs: 3600,
        private: false,
        bots_only: false,
    });
    client::send(ws, request).await?;
    client::until(ws, |m| match m {
        ServerMessage::ArenaCreated { info, .. } => Some(info.arena),
        _ => None,
    })
    .await
}

/// Follows the lobby until it lists `arena`, as a person finds it; false if it never does
/// before `deadline`.
async fn find_in_lobby(
    ws: &mut Socket,
    arena: ArenaId,
    deadline: Instant,
    errors: &Errors,
) -> bool {
    if client::send(ws, ClientMessage::SubscribeLobby)
        .await
        .is_err()
    {
        errors.add("send");
        return false;
    }
    while let Some(Next::Text(text)) = next_text(ws, deadline, errors).await {
        let listed = match parse(text.as_str(), errors) {
            Some(ServerMessage::Lobby { arenas, .. }) => arenas,
            Some(ServerMessage::LobbyUpdate(update)) => update.arenas.unwrap_or_default(),
            _ => continue,
        };
        if listed.iter().any(|a| a.arena == arena) {
            return true;
        }
    }
    errors.add("arena_not_listed");
    false
}

/// How a player plays: the pace of its moves, how often and how long it withdraws, and the
/// measured window.
#[derive(Debug, Clone, Copy)]
struct Pace {
    period: Duration,
    share: f64,
    away: Duration,
    window: Window,
}

/// A player: finds the arena in the lobby, joins it, and plays the games it is paired into until
/// the window ends, back in the lobby between them; withdraws now and then and joins again.
async fn player(mut ws: Socket, seed: u64, arena: ArenaId, pace: Pace, tally: &Tally) {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0xa7e7a);
    let window = pace.window;
    let errors = tally.errors();
    if !find_in_lobby(&mut ws, arena, window.end, errors).await {
        client::close(ws).await;
        return;
    }
    let join = ClientMessage::JoinArena { arena, code: None };
    // When to join (again): now, after a refusal, or when back from a withdrawal.
    let mut join_at = Some(Instant::now());
    let mut withdrawn = false;
    while Instant::now() < window.end {
        if join_at.is_some_and(|at| at <= Instant::now()) {
            join_at = None;
            if client::send(&mut ws, join.clone()).await.is_err() {
                errors.add("send");
                break;
            }
            if std::mem::take(&mut withdrawn) && window.holds(Instant::now()) {
                tally.rejoins.fetch_add(1, Ordering::Relaxed);
            }
        }
        let wake = join_at.unwrap_or(window.end);
        let Some(next) = next_text(&mut ws, wake, errors).await else {
            break;
        };
        let Next::Text(text) = next else {
            continue;
        };
        // The lobby's frames are not peeked, nor needed here.
        let Ok(peek) = Peek::of(text.as_str()) else {
            continue;
        };
        match peek.kind {
            "arena" => count_player_frame(tally, window, peek.kind, text.as_str()),
            "error" if peek.code == Some("rate_limited") => {
                tally.join_retries.fetch_add(1, Ordering::Relaxed);
                join_at = Some(Instant::now() + RETRY);
            }
            "error" => {
                errors.add(peek.code.unwrap_or("error"));
                break;
            }
            "game_state" => {
                let Some(ServerMessage::GameState(state)) = parse(text.as_str(), errors) else {
                    break;
                };
                let (Some(mark), None) = (state.you, &state.result) else {
                    continue;
                };
                let start = Started {
                    game: state.game.0,
                    mark,
                };
                if !paired(&mut ws, start, pace, &mut rng, tally).await {
                    break;
                }
                if !withdrawn && join_at.is_none() && rng.f64() < pace.share {
                    let withdraw = ClientMessage::WithdrawArena { arena };
                    if client::send(&mut ws, withdraw).await.is_err() {
                        errors.add("send");
                        break;
                    }
                    if window.holds(Instant::now()) {
                        tally.withdrawals.fetch_add(1, Ordering::Relaxed);
                    }
                    withdrawn = true;
                    join_at = Some(Instant::now() + pace.away);
                }
            }
            _ => {}
        }
    }
    client::close(ws).await;
}

/// Plays a game the arena paired the player into, away from the lobby, and goes back to the
/// lobby at its end; false if the connection is no longer usable.
async fn paired(
    ws: &mut Socket,
    start: Started,
    pace: Pace,
    rng: &mut fastrand::Rng,
    tally: &Tally,
) -> bool {
    let window = pace.window;
    if window.holds(Instant::now()) && start.mark == noughts_protocol::Mark::X {
        tally.paired.fetch_add(1, Ordering::Relaxed);
    }
    if client::send(ws, ClientMessage::UnsubscribeLobby)
        .await
        .is_err()
    {
        tally.errors().add("send");
        return false;
    }
    let mut other = |kind: &str, text: &str| count_player_frame(tally, window, kind, text);
    let period = pace.period;
    if !site::play(ws, start, period, rng, window, &tally.play, &mut other).await {
        return false;
    }
    let back = client::send(ws, ClientMessage::SubscribeLobby).await;
    back.is_ok() || {
        tally.errors().add("send");
        false
    }
}

/// A watcher: finds the arena in the lobby and follows its standings (asking again while the
/// arena is too busy to answer), counting their frames.
async fn watcher(mut ws: Socket, arena: ArenaId, window: Window, tally: &Tally) {
    let errors = tally.errors();
    if !find_in_lobby(&mut ws, arena, window.end, errors).await {
        client::close(ws).await;
        return;
    }
    let mut ask_at = Some(Instant::now());
    let mut mine = 0;
    loop {
        if ask_at.is_some_and(|at| at <= Instant::now()) {
            ask_at = None;
            let follow = ClientMessage::Arena { arena, code: None };
            if client::send(&mut ws, follow).await.is_err() {
                errors.add("send");
                break;
            }
        }
        let next = next_text(&mut ws, ask_at.unwrap_or(window.end), errors).await;
        let text = match next {
            Some(Next::Text(text)) => text,
            Some(Next::Deadline) if ask_at.is_some() => continue,
            _ => break,
        };
        let Ok(peek) = Peek::of(text.as_str()) else {
            continue;
        };
        match peek.kind {
            "arena" if window.holds(Instant::now()) => {
                mine += 1;
                tally.watcher_frames.fetch_add(1, Ordering::Relaxed);
                (tally.watcher_bytes).fetch_add(text.len() as u64, Ordering::Relaxed);
            }
            "error" if peek.code == Some("rate_limited") => {
                tally.join_retries.fetch_add(1, Ordering::Relaxed);
                ask_at = Some(Instant::now() + RETRY);
            }
            "error" => errors.add(peek.code.unwrap_or("error")),
            _ => {}
        }
    }
    tally.most_frames.fetch_max(mine, Ordering::Relaxed);
    client::close(ws).await;
}
