//! A node stopped politely (SIGTERM) hands its games over at once, and comes back into the
//! cluster when it starts again under its name. The lease there is 30 s: a player who finds their
//! game on another node sooner than that found it because the stopping node gave it back, not
//! because its lease ran out. And a node paused (SIGSTOP) past its lease, whose game another node
//! took over, never advances that game when it wakes: its writes are fenced.

use noughts_protocol::{ClientMessage, Level, Mark, ServerMessage, SideChoice, Variant};
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch, alternate};

use super::failover::{come_back, node_with_lease, play_once};

const LEASE_MS: u64 = 30_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_stopped_with_sigterm_hands_its_games_over_and_rejoins_when_restarted() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("handover");
    let dir = Scratch::new("handover");
    let mut first = node_with_lease(&dir, &db, &redis, "first", LEASE_MS);
    let second = node_with_lease(&dir, &db, &redis, "second", LEASE_MS);

    let mut ada = Client::join(&first.url, "ada").await;
    let state = ada
        .play_ai(1, Variant::Four, Level::Easy, SideChoice::X)
        .await;
    let game = state.game;
    let (board, seq, over) = play_once(&mut ada, game, &state.board).await;
    assert!(!over);
    let token = ada.token.clone();
    first.terminate();
    assert!(first.exited().await.success(), "a clean stop");
    drop(ada);

    // Within the second node's wait for leases (one lease time), so only if it was given back.
    let mut ada = come_back(&second.url, &token, game, &board, seq).await;
    let (board, _, over) = play_once(&mut ada, game, &board).await;
    assert!(!over);

    // The first node starts again under its name and plays with the second: a room made there
    // is joined from here.
    let first = node_with_lease(&dir, &db, &redis, "first", LEASE_MS);
    let mut host = Client::join(&first.url, "hal").await;
    let code = host.create_room(1, Variant::Classic, false).await;
    let mut guest = Client::join(&second.url, "gil").await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let host_state = host.game_state().await;
    let guest_state = guest.game_state().await;
    assert_eq!(host_state.game, guest_state.game);
    let room_game = host_state.game;
    let (mut x, mut o) = if host_state.you == Some(Mark::X) {
        (host, guest)
    } else {
        (guest, host)
    };
    alternate(&mut x, &mut o, room_game, &[4, 0]).await;
    // And ada's game still goes on where it is.
    let cell = board.find('.').expect("an empty cell");
    ada.send(ClientMessage::Move { game, cell }).await;
    ada.saw(|m| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == cell))
        .await;
}

/// Sends `signal` (`STOP`, `CONT`) to process `pid`.
pub(super) fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_paused_past_its_lease_never_advances_a_game_another_node_took_over() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("paused");
    let dir = Scratch::new("paused");
    let first = node_with_lease(&dir, &db, &redis, "first", 1000);
    let second = node_with_lease(&dir, &db, &redis, "second", 1000);

    let mut stale = Client::join(&first.url, "ada").await;
    let state = stale
        .play_ai(1, Variant::Four, Level::Easy, SideChoice::X)
        .await;
    let game = state.game;
    let (board, seq, _) = play_once(&mut stale, game, &state.board).await;
    let token = stale.token.clone();
    // The first node stops in its tracks; the player comes back on the second, which takes the
    // game over once the first node's lease has run out, and plays on.
    signal(first.pid(), "STOP");
    let mut ada = come_back(&second.url, &token, game, &board, seq).await;
    let (after, _, _) = play_once(&mut ada, game, &board).await;
    // The first node wakes up and is asked, on its old connection, for a move in the position
    // it last knew. Whatever it does, it must not reach the game's record.
    signal(first.pid(), "CONT");
    let cell = board.find('.').expect("an empty cell");
    stale.send(ClientMessage::Move { game, cell }).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let record = ada.record(9, game).await;
    let replayed = record.moves.iter().fold(vec![b'.'; 16], |mut cells, m| {
        cells[m.cell] = if m.mark == Mark::X { b'X' } else { b'O' };
        cells
    });
    assert_eq!(
        String::from_utf8(replayed).unwrap(),
        after,
        "the record is the second node's game, move for move"
    );
    // And the game goes on where it is.
    let next = after.find('.').expect("an empty cell");
    ada.send(ClientMessage::Move { game, cell: next }).await;
    ada.saw(|m| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == next))
        .await;
}
