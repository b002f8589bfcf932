//! A rolling restart of `deploy/cluster` while people play: pairs of players (200 players by
//! default; `NOUGHTS_ROLLING_PAIRS` sets the pairs) play game after game through the balancer
//! while `deploy/cluster restart` drains and restarts the three nodes one at a time. Each player
//! whose connection closes comes back through the balancer with its token and finds its game
//! with every move it saw acknowledged; afterwards every game is stored whole and finished.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures_util::SinkExt;
use noughts_protocol::{ClientFrame, ClientMessage, EndReason, GameId, ServerMessage};
use noughts_tests::{Client, Scratch};
use tokio::time::{Instant, sleep};
use tokio_tungstenite::tungstenite::Message;

use super::deploy::{Deployed, free_ports, programs_present};
use super::players::{BACK_WITHIN, Seat, first_empty, meet};

/// Time between two moves of one game.
const PACE: Duration = Duration::from_millis(400);

/// What one pair did: its games, each with the moves acknowledged to its players.
#[derive(Default)]
struct Played {
    games: Vec<(GameId, Vec<usize>)>,
    returns: [u64; 2],
    /// How long each of its players' returns into a game took.
    comebacks: Vec<Duration>,
}

/// Plays games of four (each mover takes the first empty cell) until `stop`, coming back
/// whenever a connection closes.
async fn pair(url: String, n: usize, stop: Arc<AtomicBool>, moves: Arc<AtomicU64>) -> Played {
    let mut seats = [
        Seat::join(&url, format!("p{n}a"), BACK_WITHIN).await,
        Seat::join(&url, format!("p{n}b"), BACK_WITHIN).await,
    ];
    let mut played = Played::default();
    let mut known = HashSet::new();
    while !stop.load(Ordering::Relaxed) {
        let state = meet(&url, &mut seats, &known).await;
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
        known.insert(game);
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
