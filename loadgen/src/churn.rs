//! One churning client of the soak: it says hello (resuming its session when it has a token),
//! then seeks, plays the AI, watches and chats at random, and drops or leaves now and then, while
//! checking that every game's `seq` only grows; [`Tally`] counts what all of them did.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, Level, Mark, PlayAi, Seek, ServerFrame, ServerMessage,
    SideChoice, Variant, Watch,
};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_tungstenite::tungstenite::Message;

use crate::client::{self, Socket};
use crate::report::Errors;

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

/// What the population shares.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) errors: Errors,
    /// Refusals that a client in a hurry meets by the rules (a game that ended as it was watched,
    /// a seek matched as it was withdrawn), by code; not errors.
    pub(crate) races: Errors,
    pub(crate) connects: AtomicU64,
    /// Hellos with a token that resumed the session.
    pub(crate) resumes: AtomicU64,
    /// Hellos with a token whose session had expired (the same player, a new session).
    pub(crate) returns: AtomicU64,
    /// Connections dropped without a close frame.
    pub(crate) drops: AtomicU64,
    pub(crate) moves: AtomicU64,
    pub(crate) watches: AtomicU64,
    pub(crate) chats: AtomicU64,
    /// Clients connected now, and at most.
    pub(crate) online: AtomicUsize,
    pub(crate) peak_online: AtomicUsize,
    /// Games seen to end, by id (each counted once, however many saw it).
    pub(crate) finished: Mutex<HashSet<u64>>,
    /// Games being played, for watchers to pick from.
    pub(crate) live: Mutex<Vec<GameId>>,
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
pub(crate) async fn live(i: usize, url: String, end: Instant, drop_chance: f64, tally: Arc<Tally>) {
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
    let resuming = token.is_some();
    let welcome = client::hello(&mut ws, name, token.clone()).await?;
    tally.connects.fetch_add(1, Ordering::Relaxed);
    match (resuming, welcome.resumed) {
        (true, true) => tally.resumes.fetch_add(1, Ordering::Relaxed),
        (true, false) => tally.returns.fetch_add(1, Ordering::Relaxed),
        _ => 0,
    };
    *token = Some(welcome.token);

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
                // Its players are guests, and rated games are between accounts.
                let seek = ClientMessage::Seek(Seek {
                    variant: Variant::Classic,
                    clock: None,
                    rated: false,
                    bots: false,
                });
                client::send(ws, seek).await?;
                self.seeking = Some(now + SEEK_WAIT);
            } else if roll < 0.75 {
                let level =
                    [Level::Easy, Level::Medium, Level::Hard, Level::Perfect][rng.usize(0..4)];
                let play = ClientMessage::PlayAi(PlayAi {
                    variant: Variant::Classic,
                    level,
                    side: SideChoice::Random,
                    clock: None,
                });
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
                        client::send(ws, ClientMessage::Watch(Watch { game, code: None })).await?;
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
