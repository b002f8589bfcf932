//! The war games on the page: a watcher is carried on to the next war game when one ends, as
//! on TV.

use noughts_tests::browser::{Driver, assert_no_errors, click, fragment, wait_for, wait_for_text};

use super::{open, over, page, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_is_carried_on_to_the_next_war_game() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    click(&client, "#war-games li button").await;
    wait_for(&client, ".game .board").await;
    let first = fragment(&client).await;
    assert!(first.starts_with("game="), "{first}");
    // The war game ends on screen; the banner says who won (naming the side) or a draw.
    let status = wait_for_text(&client, "#game-status", over).await;
    assert!(
        status.starts_with("Draw") || status.contains("as X wins") || status.contains("as O wins"),
        "{status}"
    );
    wait_for(&client, "#next-war").await;
    // Then the next war game is on screen, at its own address.
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    let next = loop {
        let now = fragment(&client).await;
        if now != first && now.starts_with("game=") {
            break now;
        }
        assert!(tokio::time::Instant::now() < deadline, "still on {now}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let id = next.trim_start_matches("game=");
    wait_for(&client, &format!(".game[data-game=\"{id}\"] .board")).await;
    assert!(id.parse::<u64>().unwrap() > first.trim_start_matches("game=").parse().unwrap());
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
