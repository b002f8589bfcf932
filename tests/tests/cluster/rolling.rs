//! A rolling restart of `deploy/cluster` while people play: pairs of players (200 players by
//! default; `NOUGHTS_ROLLING_PAIRS` sets the pairs) play game after game through the balancer
//! while `deploy/cluster restart` drains and restarts the three nodes one at a time. Each player
//! whose connection closes comes back through the balancer with its token and finds its game
//! with every move it saw acknowledged; afterwards every game is stored whole and finished.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures_util::SinkExt;
use noughts_protocol::{
    ClientFrame, ClientMessage, EndReason, GameId, GameState, Mark, PROTOCOL_VERSION, ServerFrame,
    ServerMessage, Variant,
};
use noughts_tests::{Client, Scratch, Socket, WAIT, connect_with, read_frame};
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;

use super::deploy::{Deployed, free_ports, programs_present};

/// Time between two moves of one game.
const PACE: Duration = Duration::from_millis(400);
/// How long a player may take to come back into its game.
const BACK_WITHIN: Duration = Duration::from_secs(30);

/// One player's connection, and what it needs to come back.
struct Seat {
    ws: Socket,
    token: String,
    name: String,
    mark: Mark,
    /// Times it came back after its connection closed.
    returns: u64,
    /// How long each return into a game took, from the close to the game's state.
    comebacks: Vec<Duration>,
    /// The last frames it was sent, to say what it saw when something goes wrong.
    seen: VecDeque<String>,
}

/// Connects through the balancer and says hello (with `token`, to come back); tries again while
/// the balancer has no node for it, within [`BACK_WITHIN`].
async fn hello(url: &str, name: &str, token: Option<&str>) -> (Socket, String) {
    let deadline = Instant::now() + BACK_WITHIN;
    loop {
        assert!(Instant::now() < deadline, "{name} could not connect");
        let Ok(mut ws) = connect_with(url, None).await else {
            sleep(Duration::from_millis(100)).await;
            continue;
        };
        let hello = ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.to_owned(),
            token: token.map(str::to_owned),
            credentials: None,
        };
        if ws
            .send(Message::text(ClientFrame::new(hello).to_json()))
            .await
            .is_err()
        {
            continue;
        }
        let welcome = timeout(WAIT - Duration::from_secs(1), read_frame(&mut ws)).await;
        match welcome.unwrap_or_else(|_| panic!("{name}: no welcome")) {
            Ok(frame) => match frame.message {
                ServerMessage::Welcome { token, .. } => return (ws, token),
                other => panic!("{name}: welcome, got {other:?}"),
            },
            // Closed at once: a node stopping under it.
            Err(_) => sleep(Duration::from_millis(100)).await,
        }
    }
}

impl Seat {
    /// The next frame, or how the connection closed; a connection silent for longer than the
    /// harness's wait fails the test, saying who waited, for what, and what it saw last.
    async fn frame(&mut self, doing: &str) -> Result<ServerFrame, Option<u16>> {
        // Within the harness's own wait, which would fail without saying who waited.
        let wait = WAIT - Duration::from_secs(1);
        let Ok(frame) = timeout(wait, read_frame(&mut self.ws)).await else {
            panic!(
                "{}: no frame for {wait:?} while {doing}; the last it was sent: {:?}",
                self.name, self.seen
            );
        };
        if let Ok(frame) = &frame {
            if self.seen.len() == 6 {
                self.seen.pop_front();
            }
            let text = format!("{:?}", frame.message);
            self.seen.push_back(text.chars().take(160).collect());
        }
        frame
    }

    /// Comes back with the token and returns the game's state as the server has it.
    async fn come_back(&mut self, url: &str, game: GameId) -> GameState {
        let closed = Instant::now();
        'again: loop {
            let (ws, token) = hello(url, &self.name, Some(&self.token)).await;
            self.ws = ws;
            self.token = token;
            self.returns += 1;
            let deadline = Instant::now() + BACK_WITHIN;
            loop {
                assert!(
                    Instant::now() < deadline,
                    "{}: game {game:?} never came back",
                    self.name
                );
                match self.frame(&format!("coming back to game {game:?}")).await {
                    Ok(frame) => match frame.message {
                        ServerMessage::GameState(state) if state.game == game => {
                            self.comebacks.push(closed.elapsed());
                            return *state;
                        }
                        _ => {}
                    },
                    // Closed again (the node it landed on is the next to stop): again.
                    Err(_) => continue 'again,
                }
            }
        }
    }
}

/// The first empty cell of a board.
fn first_empty(board: &str) -> usize {
    board
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '/')
        .position(|c| c == '.')
        .expect("an empty cell while the game goes on")
}

/// What one pair did: its games, each with the moves acknowledged to its players.
#[derive(Default)]
struct Played {
    games: Vec<(GameId, Vec<usize>)>,
    returns: [u64; 2],
    /// How long each of its players' returns into a game took.
    comebacks: Vec<Duration>,
}

/// Sends `message` on `seat` (a send on a closed connection shows at the next read).
async fn send(seat: &mut Seat, message: ClientMessage) {
    let _ = seat
        .ws
        .send(Message::text(ClientFrame::new(message).to_json()))
        .await;
}

/// Reads `seat` until `what` picks a message out; `None` if the connection closes first, or a
/// request is refused (a room's node stopping refuses to start its game, as a person would be
/// told, and they try again).
async fn read_until<T>(seat: &mut Seat, what: impl Fn(ServerMessage) -> Option<T>) -> Option<T> {
    loop {
        let frame = seat.frame("meeting its opponent").await.ok()?;
        if let ServerMessage::Error { .. } = frame.message {
            return None;
        }
        if let Some(found) = what(frame.message) {
            return Some(found);
        }
    }
}

/// Two players meet in a room: the new game's state, each seat's mark set.
async fn try_meet(seats: &mut [Seat; 2]) -> Option<GameState> {
    let room = ClientMessage::CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    };
    send(&mut seats[0], room).await;
    let code = read_until(&mut seats[0], |m| match m {
        ServerMessage::RoomCreated { code, .. } => Some(code),
        _ => None,
    })
    .await?;
    send(&mut seats[1], ClientMessage::JoinRoom { code }).await;
    // A join that reaches a node as it stops may go unanswered: that node tells its clients to
    // come back elsewhere, and the room's host, on another node, waits for nobody. After a
    // while both come back and meet again, as two people would.
    let seated = timeout(MEET_WITHIN, async {
        let mut state = None;
        for seat in seats.iter_mut() {
            let s = read_until(seat, |m| match m {
                ServerMessage::GameState(s) => Some(*s),
                _ => None,
            })
            .await?;
            seat.mark = s.you.expect("a seat");
            state = Some(s);
        }
        state
    });
    seated.await.ok().flatten()
}

/// How long two players wait for their room's game to start before they both come back.
const MEET_WITHIN: Duration = Duration::from_secs(8);

/// [`try_meet`] until it works; when a connection closes on the way, both players come back,
/// and a game that did start comes back with them and is played on.
async fn meet(url: &str, seats: &mut [Seat; 2]) -> GameState {
    loop {
        if let Some(state) = try_meet(seats).await {
            return state;
        }
        let mut started = None;
        for seat in seats.iter_mut() {
            let (ws, token) = hello(url, &seat.name, Some(&seat.token)).await;
            seat.ws = ws;
            seat.token = token;
            seat.returns += 1;
            let live = timeout(
                Duration::from_secs(2),
                read_until(seat, |m| match m {
                    ServerMessage::GameState(s) if s.result.is_none() => Some(*s),
                    _ => None,
                }),
            )
            .await;
            if let Ok(Some(state)) = live {
                seat.mark = state.you.expect("a seat");
                started = Some(state);
            }
        }
        if let Some(state) = started {
            return state;
        }
    }
}

/// Plays games of four (each mover takes the first empty cell) until `stop`, coming back
/// whenever a connection closes.
async fn pair(url: String, n: usize, stop: Arc<AtomicBool>, moves: Arc<AtomicU64>) -> Played {
    let mut seats = [0, 1].map(|_| None::<Seat>);
    for (i, seat) in seats.iter_mut().enumerate() {
        let name = format!("p{n}{}", ["a", "b"][i]);
        let (ws, token) = hello(&url, &name, None).await;
        *seat = Some(Seat {
            ws,
            token,
            name,
            mark: Mark::X,
            returns: 0,
            comebacks: Vec::new(),
            seen: VecDeque::new(),
        });
    }
    let mut seats = seats.map(|s| s.expect("a seat"));
    let mut played = Played::default();
    while !stop.load(Ordering::Relaxed) {
        let state = meet(&url, &mut seats).await;
        let game = state.game;
        let mut board = state.board;
        let mut acked: Vec<usize> = Vec::new();
        let mut to_move = state.to_move;
        while let Some(mark) = to_move {
            let mover = if seats[0].mark == mark { 0 } else { 1 };
            let seat = &mut seats[mover];
            let cell = first_empty(&board);
            sleep(PACE).await;
            let sent = ClientFrame::new(ClientMessage::Move { game, cell }).to_json();
            let _ = seat.ws.send(Message::text(sent)).await;
            let doing = format!("waiting for its move {cell} in game {game:?} to be acknowledged");
            loop {
                match seat.frame(&doing).await {
                    Ok(frame) => match frame.message {
                        ServerMessage::Moved {
                            game: g,
                            cell: c,
                            board: b,
                            to_move: next,
                            ..
                        } if g == game && c == cell => {
                            acked.push(cell);
                            moves.fetch_add(1, Ordering::Relaxed);
                            board = b;
                            to_move = next;
                            break;
                        }
                        ServerMessage::Error { code, message, .. } => {
                            panic!(
                                "{}: move {cell} in game {game:?}: {code}: {message}",
                                seat.name
                            )
                        }
                        _ => {}
                    },
                    Err(_) => {
                        // Closed: come back and carry on from the game as the server has it,
                        // which holds every move acknowledged so far.
                        let back = seat.come_back(&url, game).await;
                        assert!(
                            back.moves.starts_with(&acked),
                            "{}: game {game:?} lost acknowledged moves: {:?} then {:?}",
                            seat.name,
                            acked,
                            back.moves
                        );
                        acked.clone_from(&back.moves);
                        board = back.board;
                        to_move = back.to_move;
                        break;
                    }
                }
            }
        }
        played.games.push((game, acked));
    }
    played.returns = [seats[0].returns, seats[1].returns];
    for seat in &mut seats {
        played.comebacks.append(&mut seat.comebacks);
    }
    played
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_behind_haproxy_loses_no_game_and_no_move() {
    if !programs_present() || noughts_tests::postgres::Postgres::shared().is_none() {
        return;
    }
    let pairs: usize = std::env::var("NOUGHTS_ROLLING_PAIRS")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(100);
    let deployed = Deployed {
        dir: Scratch::new("rolling"),
        port: free_ports(),
    };
    let up = deployed.run("up");
    assert!(
        up.status.success(),
        "{}",
        String::from_utf8_lossy(&up.stderr)
    );
    let url = format!("ws://127.0.0.1:{}/", deployed.port);
    let stop = Arc::new(AtomicBool::new(false));
    let moves = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for n in 0..pairs {
        tasks.push(tokio::spawn(pair(
            url.clone(),
            n,
            stop.clone(),
            moves.clone(),
        )));
    }
    // Everyone is playing before the restart starts.
    let deadline = Instant::now() + Duration::from_secs(60);
    while moves.load(Ordering::Relaxed) < pairs as u64 * 2 {
        assert!(Instant::now() < deadline, "the players never got going");
        sleep(Duration::from_millis(100)).await;
    }
    let restart = {
        let dir = deployed.dir.dir.clone();
        let port = deployed.port;
        tokio::task::spawn_blocking(move || Deployed::run_in(&dir, port, "restart"))
    };
    let restarted = restart.await.unwrap();
    assert!(
        restarted.status.success(),
        "deploy/cluster restart failed: {}{}",
        String::from_utf8_lossy(&restarted.stdout),
        String::from_utf8_lossy(&restarted.stderr)
    );
    let at_restart_end = moves.load(Ordering::Relaxed);
    // Play goes on after the restart.
    let deadline = Instant::now() + Duration::from_secs(60);
    while moves.load(Ordering::Relaxed) < at_restart_end + pairs as u64 * 2 {
        assert!(
            Instant::now() < deadline,
            "play did not go on after the restart"
        );
        sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut played = Vec::new();
    for task in tasks {
        played.push(task.await.expect("a pair played through"));
    }
    // Every node restarted, so every player's connection closed at least once, and each came
    // back into its game.
    let returns: Vec<u64> = played.iter().flat_map(|p| p.returns).collect();
    assert!(
        returns.iter().all(|r| *r >= 1),
        "every player came back at least once: {returns:?}"
    );
    // Every game is stored finished, with every move its players saw acknowledged.
    let mut reader = Client::join(&url, "reader").await;
    let mut id = 0;
    let mut games = 0;
    for (game, acked) in played.iter().flat_map(|p| &p.games) {
        id += 1;
        // Within the server's rate of 20 requests a second.
        sleep(Duration::from_millis(60)).await;
        let record = reader.record(id, *game).await;
        let stored: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
        assert_eq!(&stored, acked, "game {game:?}");
        let reason = record.result.map(|r| r.reason);
        assert!(
            matches!(reason, Some(EndReason::Line | EndReason::Draw)),
            "game {game:?} played to its end, not {reason:?}"
        );
        games += 1;
    }
    let mut comebacks: Vec<Duration> = played.iter().flat_map(|p| &p.comebacks).copied().collect();
    comebacks.sort();
    let at = |q: f64| comebacks.get(((comebacks.len() as f64 - 1.0) * q) as usize);
    eprintln!(
        "{} players, {games} games, {} moves, {} comebacks; back in the game within \
         {:?} (median), {:?} (95th percentile), {:?} (slowest)",
        pairs * 2,
        moves.load(Ordering::Relaxed),
        returns.iter().sum::<u64>(),
        at(0.5),
        at(0.95),
        comebacks.last()
    );
}
