//! Arenas on the page: the lobby lists an arena that starts soon, with its players; its standings
//! open beside the list, and a guest's Join is refused in words, without a script error. A player
//! with an account joins a running arena from the lobby: the game it pairs them into opens by
//! itself, and a moment after it ends the page is back on the standings with the points won;
//! Withdraw marks them withdrawn, and the podium shows once the arena is over.

use std::time::{SystemTime, UNIX_EPOCH};

use fantoccini::Locator;
use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, ClockSpec, CreateArena, ServerMessage};
use noughts_tests::accounts::make_account;
use noughts_tests::browser::{Driver, assert_no_errors, click, wait_for, wait_for_text};
use noughts_tests::{Client, TestServer, test_config};

use super::{open, page_account};

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

/// How long the played arena lasts.
const ARENA_SECS: u32 = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_joins_a_running_arena_plays_the_game_it_pairs_and_withdraws() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    // A short arena, so that its podium shows too.
    let config = noughts_server::Config {
        arena_min_secs: 1,
        ..test_config()
    };
    let server = TestServer::start(config).await;
    let mut rival = Client::join(&server.url(), "rival").await;
    make_account(&mut rival).await;
    let request = CreateArena {
        name: Some("Noon arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        // Running from now on, long enough for the page to join, play and withdraw.
        start_ms: None,
        length_secs: ARENA_SECS,
        private: false,
        bots_only: false,
    };
    let arena = match rival.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    let client = driver.session().await;
    open(&client, &server.url().replace("ws://", "http://")).await;
    page_account(&client, &server).await;
    wait_for_text(&client, "#arenas li", |t| {
        t.contains("Noon arena · classic") && t.contains("running · 0 players")
    })
    .await;
    click(&client, &format!("[data-join-arena=\"{arena}\"]")).await;
    wait_for_text(&client, "#arena-totals", |t| t.starts_with("1 player ·")).await;
    wait_for(&client, "#arena-withdraw").await;
    // The rival joins: the server pairs the two, and the game opens on the page by itself.
    let joined = rival.request(2, ClientMessage::JoinArena { arena, code: None });
    assert!(matches!(joined.await, ServerMessage::Arena(_)));
    let state = rival.game_state().await;
    wait_for(
        &client,
        &format!("div.game[data-game=\"{}\"]", state.game.0),
    )
    .await;
    wait_for_text(&client, "#game-status", |t| !t.is_empty()).await;
    rival
        .request(3, ClientMessage::Resign { game: state.game })
        .await;
    // The finished board for a moment, with no rematch (the arena pairs again) and a way back.
    wait_for_text(&client, "#arena-next", |t| t.contains("Noon arena")).await;
    wait_for(&client, "#back-to-arena").await;
    let rematch = client.find_all(Locator::Css("#rematch")).await.unwrap();
    assert!(rematch.is_empty(), "an arena game offers no rematch");
    // Then back on the standings by itself, the win counted.
    wait_for_text(&client, "#arena-totals", |t| {
        t == "2 players · 1 game counted · 0 in play"
    })
    .await;
    let top = wait_for_text(&client, "#arena-top", |t| t.contains("2 points")).await;
    assert!(top.starts_with("1. page"), "the page's player leads: {top}");
    click(&client, "#arena-withdraw").await;
    wait_for_text(&client, "#arena-top li:first-child", |t| {
        t.contains("withdrawn")
    })
    .await;
    // Once its time is up, the podium, the page's player on top.
    wait_for_text(&client, "#arena-standings h3", |t| t.ends_with("finished")).await;
    let podium = wait_for_text(&client, "#arena-podium", |t| t.contains("2. ")).await;
    assert!(podium.starts_with("1. page"), "{podium}");
    assert!(
        client
            .find_all(Locator::Css("#arena-withdraw"))
            .await
            .unwrap()
            .is_empty()
    );
    assert_no_errors(&client).await;
}
