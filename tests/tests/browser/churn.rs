//! The lobby updated in place: while war games move in every variant and a second client opens
//! and closes rooms, buttons pressed with a real mouse, held as a person holds them, all work,
//! and text selected in the lobby (an invite code) stays selected.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use noughts_engine::Variant;
use noughts_protocol::ClientMessage;
use noughts_tests::browser::{
    Driver, assert_no_errors, click, hold_click, wait_for, wait_for_fragment, wait_for_text,
};
use noughts_tests::{Client, TestServer, test_config};

use super::{open, page};

/// A server whose lobby never rests: a war game in every variant, moving every 150 ms.
async fn busy_server() -> TestServer {
    TestServer::start(noughts_server::Config {
        war_games: true,
        war_variants: Variant::ALL.to_vec(),
        war_move_delay: Duration::from_millis(150),
        war_restart_delay: Duration::from_millis(300),
        ..test_config()
    })
    .await
}

/// A client that opens a public room and closes it, again and again, until `stop`.
fn rooms_opening_and_closing(url: String, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut host = Client::join(&url, "opener").await;
        let mut id = 1;
        while !stop.load(Ordering::Relaxed) {
            let code = host.create_room(id, Variant::Classic, false).await;
            tokio::time::sleep(Duration::from_millis(120)).await;
            host.request(id + 1, ClientMessage::CloseRoom { code })
                .await;
            id += 2;
            tokio::time::sleep(Duration::from_millis(80)).await;
        }
        id / 2
    })
}

/// A page open on a busy lobby, with the room opener running beside it.
struct Busy {
    _server: TestServer,
    client: fantoccini::Client,
    stop: Arc<AtomicBool>,
    opener: tokio::task::JoinHandle<u64>,
}

impl Busy {
    async fn open(driver: &Driver) -> Busy {
        let server = busy_server().await;
        let stop = Arc::new(AtomicBool::new(false));
        let opener = rooms_opening_and_closing(server.url(), stop.clone());
        let client = driver.session().await;
        open(&client, &page(&server)).await;
        Busy {
            _server: server,
            client,
            stop,
            opener,
        }
    }

    /// Stops the opener: how many rooms it opened.
    async fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let rooms = self.opener.await.unwrap();
        assert_no_errors(&self.client).await;
        self.client.close().await.unwrap();
        rooms
    }
}

/// The hold of press `i`: 120 to 300 ms, as people hold a mouse button.
fn hold(i: u64) -> Duration {
    Duration::from_millis(120 + (i * 37) % 181)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_press_works_while_the_lobby_changes() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let busy = Busy::open(&driver).await;
    let client = &busy.client;
    wait_for(client, "#war-games li:nth-child(4)").await;
    wait_for(client, "#rooms li").await;
    for i in 0..20 {
        hold_click(client, "#history", hold(i)).await;
        // The press worked: My games is on screen (a press that did nothing fails here).
        wait_for_fragment(client, "history").await;
        hold_click(client, "#lobby", hold(i + 7)).await;
        wait_for_fragment(client, "").await;
        wait_for(client, "#war-games li").await;
    }
    for i in 0..5 {
        hold_click(client, "#leaderboard", hold(i)).await;
        wait_for_fragment(client, "leaderboard=classic").await;
        hold_click(client, "#lobby", hold(i + 3)).await;
        wait_for_fragment(client, "").await;
    }
    let rooms = busy.stop().await;
    assert!(rooms >= 5, "only {rooms} rooms opened meanwhile");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selected_invite_code_stays_selected_while_the_lobby_changes() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let busy = Busy::open(&driver).await;
    let client = &busy.client;
    click(client, "#create-room").await;
    let code = wait_for_text(client, "#invite-code", |t| !t.is_empty()).await;
    client
        .execute(
            "getSelection().selectAllChildren(document.getElementById('invite-code'));",
            vec![],
        )
        .await
        .unwrap();
    // The war games move on the lobby five times over; the selection holds through all of it.
    for _ in 0..5 {
        let before = wait_for_text(client, "#war-games", |t| !t.is_empty()).await;
        wait_for_text(client, "#war-games", |t| t != before).await;
        let selected = client
            .execute("return getSelection().toString();", vec![])
            .await
            .unwrap();
        assert_eq!(selected, serde_json::json!(code), "the selection was lost");
    }
    busy.stop().await;
}
