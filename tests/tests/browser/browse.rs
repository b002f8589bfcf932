//! The lobby of protocol version 2 on the page: its totals, and every live game browsed a page
//! at a time (`list_games`) with a variant filter, next and previous pages.

use noughts_engine::Variant;
use noughts_protocol::{Level, SideChoice};
use noughts_tests::browser::{
    Driver, assert_no_errors, attr, click, wait_for, wait_for_fragment, wait_for_text,
};
use noughts_tests::{Client, TestServer, test_config};

use super::open;

/// The number of rows the browse view shows now.
async fn rows(client: &fantoccini::Client) -> u64 {
    client
        .execute(
            "return document.querySelectorAll('#browse-list li').length;",
            vec![],
        )
        .await
        .expect("the page answers")
        .as_u64()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_live_game_is_browsed_a_page_at_a_time_with_a_variant_filter() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    // A war game in every variant, slow enough to stay live, and 20 classic games against the AI.
    let server = TestServer::start(noughts_server::Config {
        war_games: true,
        war_variants: Variant::ALL.to_vec(),
        war_move_delay: std::time::Duration::from_secs(5),
        ..test_config()
    })
    .await;
    let mut players = Vec::new();
    for p in 0..4 {
        let mut player = Client::join(&server.url(), &format!("p{p}")).await;
        for g in 0..5 {
            player
                .play_ai(g + 1, Variant::Classic, Level::Easy, SideChoice::O)
                .await;
        }
        players.push(player);
    }
    // 45 public rooms (three a host): more than the lobby holds.
    for h in 0..15 {
        let mut host = Client::join(&server.url(), &format!("h{h}")).await;
        for r in 0..3 {
            host.create_room(r + 1, Variant::Classic, false).await;
        }
        players.push(host);
    }
    let client = driver.session().await;
    let url = server.url().replace("ws://", "http://");
    open(&client, &url).await;
    // The lobby's totals: the connections open (four players, fifteen hosts and the page), every game in play.
    wait_for_text(&client, "#totals", |t| t == "20 online · 24 games in play").await;
    // The lobby holds the newest 40 rooms and says how many more there are.
    wait_for(&client, "#rooms li:nth-child(40)").await;
    wait_for_text(&client, "#rooms-more", |t| t == "and 5 more").await;
    click(&client, "#browse-games").await;
    wait_for_fragment(&client, "games").await;
    wait_for(&client, "#browse-list li:nth-child(20)").await;
    assert_eq!(rows(&client).await, 20);
    click(&client, "#browse-next").await;
    wait_for(&client, "#browse-list li:nth-child(4)").await;
    assert_eq!(rows(&client).await, 4);
    assert!(
        attr(&client, "#browse-next", "disabled").await.is_some(),
        "a last page has no next"
    );
    // A button that cannot act looks it; the header says where we are; one move is "1 move"
    // (the AI, playing X, has moved in each of the players' games).
    let looks = client
        .execute(
            "const o = (id) => getComputedStyle(document.getElementById(id)).opacity;
             return [o('browse-next'), o('browse-previous'),
                     document.getElementById('nav-watch').getAttribute('aria-current'),
                     [...document.querySelectorAll('#browse-list li')].some((li) => li.textContent.includes(' 1 move ·'))];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(looks, serde_json::json!(["0.45", "1", "page", true]));
    click(&client, "#browse-previous").await;
    wait_for(&client, "#browse-list li:nth-child(20)").await;
    // One variant: the four war game alone.
    client
        .find(fantoccini::Locator::Id("browse-variant"))
        .await
        .unwrap()
        .select_by_value("four")
        .await
        .unwrap();
    wait_for_fragment(&client, "games=four").await;
    wait_for_text(&client, "#browse-list", |t| {
        t.contains("four") && !t.contains("classic")
    })
    .await;
    assert_eq!(rows(&client).await, 1);
    // A game from the list is watched from there.
    click(&client, "#browse-list li button").await;
    wait_for(&client, ".game .board.four").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
