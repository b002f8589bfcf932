//! Three real `noughts-server` nodes on one Redis and one PostgreSQL: a game against the AI is
//! played on the first node, which is killed with SIGKILL; the player comes back on the second
//! with their token, at the same board and `seq`, plays on, and the second node is killed too;
//! the game finishes on the third with every move in its record.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use noughts_protocol::{ClientMessage, GameId, Level, Mark, ServerMessage, SideChoice, Variant};
use noughts_tests::Client;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Scratch, binary};

/// A node of the cluster on `redis` and `db`, with a one-second lease.
pub(super) fn node(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    node_with_lease(dir, db, redis, name, 1000)
}

/// A node of the cluster on `redis` and `db`, with a lease of `lease_ms`.
pub(super) fn node_with_lease(
    dir: &Scratch,
    db: &str,
    redis: &TestRedis,
    name: &str,
    lease_ms: u64,
) -> ServerProcess {
    let lease_ms = lease_ms.to_string();
    let args = ["--lease-ms", &lease_ms, "--grace-secs", "60"];
    launch(dir, db, redis, name, &args, ServerProcess::start_on)
}

/// How [`launch`] starts a node: [`ServerProcess::start_on`] or one of its kind.
pub(super) type Start = fn(&Path, &Path, &OsStr, &[&str]) -> ServerProcess;

/// Starts `name`, a node of the cluster on `redis` and `db`, with `args` besides, by `start`, in
/// a directory of its own under `dir`.
pub(super) fn launch(
    dir: &Scratch,
    db: &str,
    redis: &TestRedis,
    name: &str,
    args: &[&str],
    start: Start,
) -> ServerProcess {
    let dir = dir.dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let cluster = noughts_tests::cluster::args(redis, name);
    let cluster: Vec<&str> = cluster.iter().map(String::as_str).collect();
    start(
        &binary::path("noughts-server"),
        &dir,
        db.as_ref(),
        &[&cluster[..], args].concat(),
    )
}

/// Plays the first empty cell as X and waits for the AI's answer (or the end); returns the
/// board, the `seq` reached and whether the game is over. The end may come after the AI's
/// answer, as `game_over` after its `moved`, when that answer fills the board.
pub(super) async fn play_once(
    client: &mut Client,
    game: GameId,
    board: &str,
) -> (String, u64, bool) {
    let cell = board.find('.').expect("an empty cell");
    client.send(ClientMessage::Move { game, cell }).await;
    loop {
        match client
            .until(|m| {
                matches!(m, ServerMessage::Moved { game: g, .. } | ServerMessage::GameOver { game: g, .. } if *g == game)
            })
            .await
        {
            // The AI's move that fills the board ends the game: its `game_over` follows.
            ServerMessage::Moved {
                mark: Mark::O,
                board,
                seq,
                ..
            } if board.contains('.') => return (board, seq, false),
            ServerMessage::GameOver { board, seq, .. } => return (board, seq, true),
            _ => {}
        }
    }
}

/// Comes back on `url` with `token`: the game's snapshot, at least at `seq` and with `board`.
pub(super) async fn come_back(
    url: &str,
    token: &str,
    game: GameId,
    board: &str,
    seq: u64,
) -> Client {
    let mut client = Client::resume(url, "ada", token).await;
    let state = client.game_state().await;
    assert_eq!(state.game, game);
    assert_eq!(state.board, board, "the same board after the takeover");
    assert!(
        state.seq >= seq,
        "seq never goes back: {} < {seq}",
        state.seq
    );
    assert_eq!(state.to_move, Some(Mark::X));
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_two_node_kills_and_finishes_on_the_third() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    let db = postgres.database("failover");
    let dir = Scratch::new("failover");
    let first = node(&dir, &db, &redis, "first");
    let second = node(&dir, &db, &redis, "second");
    let third = node(&dir, &db, &redis, "third");

    let mut ada = Client::join(&first.url, "ada").await;
    let state = ada
        .play_ai(1, Variant::Four, Level::Easy, SideChoice::X)
        .await;
    let game = state.game;
    let (board, seq, over) = play_once(&mut ada, game, &state.board).await;
    assert!(!over);
    let token = ada.token.clone();
    first.kill();

    let mut ada = come_back(&second.url, &token, game, &board, seq).await;
    let (board, seq, over) = play_once(&mut ada, game, &board).await;
    assert!(!over);
    let token = ada.token.clone();
    second.kill();

    let mut ada = come_back(&third.url, &token, game, &board, seq).await;
    let mut board = board;
    for _ in 0..16 {
        let (next, _, over) = play_once(&mut ada, game, &board).await;
        board = next;
        if over {
            break;
        }
    }
    let record = ada.record(9, game).await;
    assert!(record.result.is_some(), "the game finished");
    let replayed = record.moves.iter().fold(vec![b'.'; 16], |mut cells, m| {
        cells[m.cell] = if m.mark == Mark::X { b'X' } else { b'O' };
        cells
    });
    assert_eq!(
        String::from_utf8(replayed).unwrap(),
        board,
        "every move kept"
    );
    drop(third);
    tokio::time::sleep(Duration::from_millis(10)).await;
}
