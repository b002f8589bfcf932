//! A pair of players through the balancer, and what each was sent about each of its games.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, GameResult, GameState, Mark, PlayerId, ServerFrame,
    ServerMessage,
};
use tokio::time::{Instant, sleep, timeout};

use super::super::players::{Seat, cells, first_empty, meet};

/// Time between two moves of one game: about two moves a second.
const PACE: Duration = Duration::from_millis(500);
/// How long a player keeps trying to come back into its game.
pub(super) const PATIENCE: Duration = Duration::from_secs(60);
/// A player that hears nothing for this long while it waits comes back on a new connection, as
/// a client whose connection went quiet does.
const SILENT: Duration = Duration::from_secs(20);
/// How long a refused move (`game_paused`) waits for the game's next state before it is sent
/// again.
const RESEND: Duration = Duration::from_secs(1);
/// A game that has not moved for this long is stuck: the pair gives up, and the test fails.
pub(super) const STUCK: Duration = Duration::from_secs(90);

/// What one player was sent about one game, without asking.
#[derive(Default)]
pub(super) struct Told {
    /// The cell of each ply, from `moved` frames and `game_state` snapshots.
    pub(super) plies: BTreeMap<usize, usize>,
    /// Every marked cell on any board it was sent.
    pub(super) marks: HashSet<(usize, Mark)>,
    /// Each result it was told (`game_over`, or a `game_state` of the game ended).
    pub(super) results: Vec<GameResult>,
    /// A ply it was told twice with different cells.
    pub(super) contradictions: Vec<String>,
    /// `game_paused` frames.
    pub(super) paused: u32,
}

impl Told {
    fn ply(&mut self, ply: usize, cell: usize, from: &str) {
        if let Some(&before) = self.plies.get(&ply)
            && before != cell
        {
            self.contradictions.push(format!(
                "ply {ply}: cell {before}, then cell {cell} ({from})"
            ));
        }
        self.plies.insert(ply, cell);
    }

    fn board(&mut self, board: &str) {
        for (cell, mark) in cells(board).into_iter().enumerate() {
            if let Some(mark) = mark {
                self.marks.insert((cell, mark));
            }
        }
    }
}

/// One game of a pair, as its players saw it.
pub(super) struct GameLog {
    pub(super) game: GameId,
    pub(super) started: Instant,
    pub(super) ended: Option<Instant>,
    /// Each seat's mark in this game.
    pub(super) marks: [Mark; 2],
    pub(super) told: [Told; 2],
    /// The moves acknowledged to their movers: (seat, ply, cell).
    pub(super) acked: Vec<(usize, usize, usize)>,
    /// Refusals of a move other than `game_paused`.
    /// Refusals of a move other than `game_paused`: what the server said, and the move with
    /// the game as the pair knew it.
    pub(super) errors: Vec<(String, String)>,
}

/// What a pair did and saw, kept where the test reads it even if the pair's task fails.
#[derive(Default)]
pub(super) struct PairLog {
    pub(super) names: [String; 2],
    pub(super) players: [Option<PlayerId>; 2],
    pub(super) games: Vec<GameLog>,
    /// Each wait for a move to be played: when it was played, and how long it took.
    pub(super) stalls: Vec<(Instant, Duration)>,
    /// When the pair's game last moved on.
    pub(super) progress: Option<Instant>,
    /// What the pair is waiting for now.
    pub(super) doing: String,
    /// The last frames each seat was sent.
    pub(super) seen: [VecDeque<String>; 2],
    /// Why the pair stopped, if it did not finish.
    pub(super) failure: Option<String>,
    pub(super) finished: bool,
    /// Each time a player heard nothing for [`SILENT`] and came back on its own: since when,
    /// and what it was waiting for and had last been sent.
    pub(super) quiet: Vec<(Instant, String)>,
    /// When the balancer refused its players a connection.
    pub(super) turned_away: Vec<Instant>,
}

pub(super) type Log = Arc<Mutex<PairLog>>;

pub(super) fn lock(log: &Log) -> std::sync::MutexGuard<'_, PairLog> {
    log.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The game as the pair knows it: the newest of what either player was sent.
struct View {
    pub(super) game: GameId,
    pub(super) seq: u64,
    pub(super) board: String,
    pub(super) to_move: Option<Mark>,
    pub(super) over: bool,
}

impl View {
    fn plies(&self) -> usize {
        cells(&self.board).iter().filter(|c| c.is_some()).count()
    }
}

/// What a frame meant to the player waiting for its move.
enum Heard {
    /// The mover's own move, acknowledged.
    Acked,
    /// The game moved on, resumed or ended.
    Advanced,
    /// `game_paused` in answer to the move.
    Paused,
    /// Another refusal.
    Refused(ErrorCode, String),
    Nothing,
}

/// Takes in `message`, sent to seat `seat` whose mark is `mark`.
fn hear(
    view: &mut View,
    game: &mut GameLog,
    seat: usize,
    mark: Mark,
    message: &ServerMessage,
) -> Heard {
    let told = &mut game.told[seat];
    match message {
        ServerMessage::Moved {
            game: g,
            seq,
            mark: m,
            cell,
            board,
            to_move,
            ..
        } if *g == view.game => {
            let ply = cells(board)
                .iter()
                .filter(|c| c.is_some())
                .count()
                .saturating_sub(1);
            told.ply(ply, *cell, &format!("moved seq {seq}"));
            told.board(board);
            let advanced = *seq > view.seq;
            if advanced {
                view.seq = *seq;
                view.board.clone_from(board);
                view.to_move = *to_move;
                view.over |= to_move.is_none();
            }
            if *m == mark {
                if !game.acked.iter().any(|&(_, p, _)| p == ply) {
                    game.acked.push((seat, ply, *cell));
                }
                Heard::Acked
            } else if advanced {
                Heard::Advanced
            } else {
                Heard::Nothing
            }
        }
        ServerMessage::GameState(state) if state.game == view.game => {
            for (ply, &cell) in state.moves.iter().enumerate() {
                told.ply(ply, cell, &format!("game_state seq {}", state.seq));
            }
            told.board(&state.board);
            if let Some(result) = &state.result {
                told.results.push(result.clone());
            }
            if state.seq >= view.seq {
                view.seq = state.seq;
                view.board.clone_from(&state.board);
                view.to_move = state.to_move;
                view.over |= state.result.is_some();
            }
            Heard::Advanced
        }
        ServerMessage::GameOver {
            game: g,
            seq,
            board,
            result,
            ..
        } if *g == view.game => {
            told.board(board);
            told.results.push(result.clone());
            view.over = true;
            view.seq = view.seq.max(*seq);
            Heard::Advanced
        }
        ServerMessage::GamePaused { game: g, .. } if *g == view.game => {
            told.paused += 1;
            Heard::Nothing
        }
        ServerMessage::Error {
            code: ErrorCode::GamePaused,
            ..
        } => Heard::Paused,
        ServerMessage::Error { code, message } => Heard::Refused(*code, message.clone()),
        _ => Heard::Nothing,
    }
}

/// The next frame either player is sent within `wait`, and whose it is.
async fn next_frame(
    seats: &mut [Seat; 2],
    wait: Duration,
) -> Option<(usize, Result<ServerFrame, Option<u16>>)> {
    let [a, b] = seats;
    tokio::select! {
        frame = a.frame_within(wait) => frame.map(|f| (0, f)),
        frame = b.frame_within(wait) => frame.map(|f| (1, f)),
    }
}

/// A pair of players: they meet, play games of four (each mover takes the first empty cell) at
/// [`PACE`] until `stop`, and come back whenever a connection closes.
pub(super) async fn pair(url: String, n: usize, stop: Arc<AtomicBool>, log: Log) {
    let outcome = AssertUnwindSafe(play_games(&url, n, &stop, &log))
        .catch_unwind()
        .await;
    let mut log = lock(&log);
    match outcome {
        Ok(Ok(())) => log.finished = true,
        Ok(Err(failure)) => log.failure = Some(failure),
        Err(panicked) => {
            let said = panicked
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panicked.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            log.failure = Some(format!("panicked: {}", said.unwrap_or_default()));
        }
    }
}

async fn play_games(url: &str, n: usize, stop: &AtomicBool, log: &Log) -> Result<(), String> {
    let mut seats = [
        Seat::join(url, format!("f{n}a"), PATIENCE).await,
        Seat::join(url, format!("f{n}b"), PATIENCE).await,
    ];
    {
        let mut log = lock(log);
        log.names = [seats[0].name.clone(), seats[1].name.clone()];
        log.players = [Some(seats[0].player), Some(seats[1].player)];
    }
    let mut known = HashSet::new();
    while !stop.load(Ordering::Relaxed) {
        let meeting = Instant::now();
        lock(log).doing = "meeting in a room".to_owned();
        let met = timeout(STUCK, meet(url, &mut seats, &known)).await;
        gather(log, &mut seats);
        let Ok(state) = met else {
            return Err(format!(
                "could not meet in a room within {STUCK:?}; last sent: {:?} / {:?}",
                seats[0].seen, seats[1].seen
            ));
        };
        known.insert(state.game);
        play_game(url, &mut seats, state, meeting, log).await?;
    }
    Ok(())
}

/// Plays one game to its end, then waits until both players are told how it ended.
async fn play_game(
    url: &str,
    seats: &mut [Seat; 2],
    state: GameState,
    meeting: Instant,
    log: &Log,
) -> Result<(), String> {
    let marks = [seats[0].mark, seats[1].mark];
    let mut game = GameLog {
        game: state.game,
        started: Instant::now(),
        ended: None,
        marks,
        told: [Told::default(), Told::default()],
        acked: Vec::new(),
        errors: Vec::new(),
    };
    let mut view = View {
        game: state.game,
        seq: 0,
        board: String::new(),
        to_move: None,
        over: false,
    };
    // The snapshot that started the game was sent to the seat it names.
    let receiver = usize::from(state.you != Some(marks[0]));
    hear(
        &mut view,
        &mut game,
        receiver,
        marks[receiver],
        &ServerMessage::GameState(Box::new(state)),
    );
    let index = {
        let mut log = lock(log);
        log.games.push(game);
        log.games.len() - 1
    };
    let result = play_moves(url, seats, &mut view, meeting, log, index).await;
    let result = match result {
        Ok(()) => hear_the_end(url, seats, &mut view, log, index).await,
        Err(failure) => Err(failure),
    };
    lock(log).games[index].ended = Some(Instant::now());
    result
}

/// Moves the times its players were turned away into the pair's log.
fn gather(log: &Log, seats: &mut [Seat; 2]) {
    let mut log = lock(log);
    for seat in seats {
        log.turned_away.append(&mut seat.turned_away);
    }
}

/// Runs `f` on the pair's log of its current game.
fn with_game<T>(log: &Log, index: usize, f: impl FnOnce(&mut GameLog) -> T) -> T {
    f(&mut lock(log).games[index])
}

/// A seat's connection closed, or went quiet: it comes back with its token, and takes in the
/// game's state it is given.
async fn bring_back(
    url: &str,
    seats: &mut [Seat; 2],
    seat: usize,
    view: &mut View,
    log: &Log,
    index: usize,
) -> Result<(), String> {
    let state = seats[seat].try_come_back(url, view.game).await;
    gather(log, seats);
    let state = state?;
    let mark = seats[seat].mark;
    with_game(log, index, |game| {
        hear(
            view,
            game,
            seat,
            mark,
            &ServerMessage::GameState(Box::new(state)),
        )
    });
    Ok(())
}

/// Notes that `seat` heard nothing for [`SILENT`] while it waited in game `view`.
fn went_quiet(log: &Log, seat: &Seat, view: &View, since: Instant) {
    let mut log = lock(log);
    let what = format!(
        "{} (player {}) heard nothing from {} for {SILENT:?} in game {:?} (seq {}) while: {}; \
         last sent: {:?}",
        seat.name,
        seat.player.0,
        super::clock(since),
        view.game,
        view.seq,
        log.doing,
        seat.seen
    );
    log.quiet.push((since, what));
}

/// Plays the game's moves until it is over.
async fn play_moves(
    url: &str,
    seats: &mut [Seat; 2],
    view: &mut View,
    meeting: Instant,
    log: &Log,
    index: usize,
) -> Result<(), String> {
    // The ply the pair waits to see played, and since when: the first since they began to meet.
    let mut waiting = Waiting {
        ply: 0,
        since: meeting,
    };
    let played = play_moves_waiting(url, seats, view, log, index, &mut waiting).await;
    if played.is_err() {
        // A wait the pair gave up on is a stall too, the longest.
        lock(log)
            .stalls
            .push((Instant::now(), waiting.since.elapsed()));
    }
    played
}

/// The ply a pair waits to see played, and since when.
struct Waiting {
    ply: usize,
    since: Instant,
}

/// [`play_moves`], keeping in `waiting` the ply the pair waits to see played and since when.
async fn play_moves_waiting(
    url: &str,
    seats: &mut [Seat; 2],
    view: &mut View,
    log: &Log,
    index: usize,
    waiting: &mut Waiting,
) -> Result<(), String> {
    let game_id = view.game;
    let mut paced = false;
    let mut sent = 0;
    loop {
        let plies = view.plies();
        if plies > waiting.ply || view.over {
            let now = Instant::now();
            let mut log = lock(log);
            log.stalls.push((now, now - waiting.since));
            log.progress = Some(now);
            *waiting = Waiting {
                ply: plies,
                since: now,
            };
            paced = false;
            sent = 0;
        }
        if view.over {
            return Ok(());
        }
        let Some(mark) = view.to_move else {
            return Err(format!(
                "game {game_id:?}: live, but no side to move: {}",
                view.board
            ));
        };
        if waiting.since.elapsed() > STUCK {
            return Err(stuck(seats, view, waiting, sent));
        }
        let mover = usize::from(seats[0].mark != mark);
        let cell = first_empty(&view.board);
        if !paced && plies > 0 {
            sleep(PACE).await;
            waiting.since = Instant::now();
        }
        paced = true;
        seats[mover]
            .send(ClientMessage::Move {
                game: game_id,
                cell,
            })
            .await;
        sent += 1;
        lock(log).doing = format!(
            "{} waits for its move {cell} (ply {plies}) in game {game_id:?} to be \
             acknowledged, sent {sent} times",
            seats[mover].name
        );
        let mut resend_at = None;
        let mut heard = Instant::now();
        while view.plies() == plies && !view.over && resend_at.is_none_or(|at| Instant::now() < at)
        {
            if waiting.since.elapsed() > STUCK {
                return Err(stuck(seats, view, waiting, sent));
            }
            match next_frame(seats, Duration::from_millis(250)).await {
                None => {
                    if heard.elapsed() > SILENT {
                        went_quiet(log, &seats[mover], view, heard);
                        bring_back(url, seats, mover, view, log, index).await?;
                        heard = Instant::now();
                        // Its move may be lost with the connection: it is sent again.
                        break;
                    }
                }
                Some((seat, Err(_))) => {
                    bring_back(url, seats, seat, view, log, index).await?;
                    if seat == mover {
                        break;
                    }
                }
                Some((seat, Ok(frame))) => {
                    if seat == mover {
                        heard = Instant::now();
                    }
                    {
                        let mut log = lock(log);
                        log.seen[seat].clone_from(&seats[seat].seen);
                    }
                    let mark = seats[seat].mark;
                    let what = with_game(log, index, |game| {
                        hear(view, game, seat, mark, &frame.message)
                    });
                    match what {
                        Heard::Paused if seat == mover => {
                            resend_at = Some(Instant::now() + RESEND);
                        }
                        Heard::Refused(code, message) if seat == mover => {
                            let detail = format!(
                                "{} ({:?}) moved {cell} at ply {plies}, the game at seq {} with \
                                 {:?} to move",
                                seats[mover].name, seats[mover].mark, view.seq, view.to_move
                            );
                            with_game(log, index, |game| {
                                game.errors.push((format!("{code}: {message}"), detail));
                            });
                            if matches!(
                                code,
                                ErrorCode::NotYourTurn
                                    | ErrorCode::IllegalMove
                                    | ErrorCode::NoSuchGame
                                    | ErrorCode::GameOver
                            ) {
                                // The pair's view is behind the game's: the mover comes back
                                // for the game as it stands.
                                bring_back(url, seats, mover, view, log, index).await?;
                                let back = format!(
                                    "; back at seq {}, board {}, {:?} to move",
                                    view.seq, view.board, view.to_move
                                );
                                with_game(log, index, |game| {
                                    if let Some((_, detail)) = game.errors.last_mut() {
                                        detail.push_str(&back);
                                    }
                                });
                                break;
                            }
                            resend_at = Some(Instant::now() + RESEND);
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// Why a pair gives up on a game that stopped moving.
fn stuck(seats: &[Seat; 2], view: &View, waiting: &Waiting, sent: u32) -> String {
    format!(
        "game {:?} has not moved for {:?}: waiting for ply {} (board {}, seq {}), the move sent \
         {sent} times; {} was last sent {:?}; {} was last sent {:?}",
        view.game,
        waiting.since.elapsed(),
        waiting.ply,
        view.board,
        view.seq,
        seats[0].name,
        seats[0].seen,
        seats[1].name,
        seats[1].seen
    )
}

/// After the game's last move: reads until both players are told how it ended, each coming back
/// if its connection closes or nothing comes.
async fn hear_the_end(
    url: &str,
    seats: &mut [Seat; 2],
    view: &mut View,
    log: &Log,
    index: usize,
) -> Result<(), String> {
    let start = Instant::now();
    let mut quiet = [Instant::now(); 2];
    lock(log).doing = format!("waiting to be told how game {:?} ended", view.game);
    loop {
        let told = with_game(log, index, |game| {
            [0, 1].map(|seat| !game.told[seat].results.is_empty())
        });
        if told == [true, true] {
            return Ok(());
        }
        if start.elapsed() > PATIENCE {
            return Err(format!(
                "game {:?}: after its last move, not told how it ended within {PATIENCE:?} \
                 ({} told: {}, {} told: {}); last sent: {:?} / {:?}",
                view.game,
                seats[0].name,
                told[0],
                seats[1].name,
                told[1],
                seats[0].seen,
                seats[1].seen
            ));
        }
        for seat in 0..2 {
            if !told[seat] && quiet[seat].elapsed() > SILENT {
                went_quiet(log, &seats[seat], view, quiet[seat]);
                bring_back(url, seats, seat, view, log, index).await?;
                quiet[seat] = Instant::now();
            }
        }
        match next_frame(seats, Duration::from_millis(250)).await {
            None => {}
            Some((seat, Err(_))) => {
                bring_back(url, seats, seat, view, log, index).await?;
                quiet[seat] = Instant::now();
            }
            Some((seat, Ok(frame))) => {
                quiet[seat] = Instant::now();
                let mark = seats[seat].mark;
                with_game(log, index, |game| {
                    hear(view, game, seat, mark, &frame.message)
                });
            }
        }
    }
}
