//! Arenas on the page: the lobby lists an arena that starts soon, with its players; its standings
//! open beside the list, and a guest's Join is refused in words, without a script error.

use std::time::{SystemTime, UNIX_EPOCH};

use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, ClockSpec, CreateArena, ServerMessage};
use noughts_tests::accounts::make_account;
use noughts_tests::browser::{Driver, assert_no_errors, click, wait_for_text};
use noughts_tests::{Client, TestServer, test_config};

use super::open;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_an_arena_and_opens_its_standings() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = TestServer::start(test_config()).await;
    let mut players = Vec::new();
    for name in ["ada", "bob"] {
        let mut client = Client::join(&server.url(), name).await;
        make_account(&mut client).await;
        players.push(client);
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let request = CreateArena {
        name: Some("Friday arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        // Upcoming throughout: nobody is paired while the page looks.
        start_ms: Some(u64::try_from(now.as_millis()).unwrap() + 600_000),
        length_secs: 1800,
        private: false,
        bots_only: false,
    };
    let arena = match players[0]
        .request(1, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    for client in &mut players {
        let joined = client.request(2, ClientMessage::JoinArena { arena, code: None });
        assert!(matches!(joined.await, ServerMessage::Arena(_)));
    }
    let client = driver.session().await;
    open(&client, &server.url().replace("ws://", "http://")).await;
    wait_for_text(&client, "#arenas li", |t| {
        t.contains("Friday arena · classic") && t.contains("upcoming · 2 players")
    })
    .await;
    click(&client, "[data-standings]").await;
    wait_for_text(&client, "#arena-totals", |t| {
        t == "2 players · 0 games counted · 0 in play"
    })
    .await;
    wait_for_text(&client, "#arena-top", |t| {
        t.contains("1. ") && t.contains("2. ")
    })
    .await;
    click(&client, "[data-join-arena]").await;
    wait_for_text(&client, "body", |t| t.contains("register an account")).await;
    assert_no_errors(&client).await;
}
