//! A node stopped politely (SIGTERM) hands its games over at once, and comes back into the
//! cluster when it starts again under its name. The lease here is 30 s: a player who finds their
//! game on another node sooner than that found it because the stopping node gave it back, not
//! because its lease ran out.

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
