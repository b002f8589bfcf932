//! A new name keeps the player (its games and ratings), and says so; starting afresh as a new
//! player is a separate, explicit action.

use fantoccini::Locator;
use fantoccini::key::Key;
use noughts_tests::browser::{Driver, assert_no_errors, click, fragment, wait_for, wait_for_text};

use super::{open, page, server};

/// Types `to` as the name at the top of the page, and Enter.
async fn rename(client: &fantoccini::Client, to: &str) {
    let name = client.find(Locator::Id("name")).await.unwrap();
    name.clear().await.unwrap();
    name.send_keys(&format!("{to}{}", char::from(Key::Enter)))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_keeps_the_players_games_and_starting_afresh_is_explicit() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    // A finished game: against the AI, resigned at once.
    click(&client, "#play-ai").await;
    click(&client, "#resign").await;
    click(&client, "#resign-confirm").await;
    wait_for(&client, "#game-over").await;
    let game = fragment(&client)
        .await
        .trim_start_matches("game=")
        .to_owned();
    click(&client, "#lobby").await;
    // The name at the top changed: the same player comes back, and the page says what happened.
    rename(&client, "Bob").await;
    let said = wait_for_text(&client, "#notice", |t| {
        t.starts_with("Your name stays") || t.starts_with("You are now Bob")
    })
    .await;
    assert!(said.contains("with your games and ratings"), "{said}");
    wait_for(&client, "#status[data-status=\"online\"]").await;
    click(&client, "#history").await;
    wait_for(&client, &format!("[data-replay=\"{game}\"]")).await;
    // Where the server kept the old name, starting afresh as Bob is offered, and does that.
    if said.starts_with("Your name stays") {
        click(&client, "#lobby").await;
        // The offer went with the view it was made in; renaming again brings it back.
        rename(&client, "Bob").await;
        click(&client, "#start-afresh").await;
        let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
        loop {
            let value = client
                .execute("return document.getElementById('name').value;", vec![])
                .await
                .unwrap();
            if value == "Bob" {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "still {value}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        wait_for(&client, "#status[data-status=\"online\"]").await;
        click(&client, "#history").await;
        wait_for_text(&client, ".records", |t| {
            t.contains("No finished classic games yet")
        })
        .await;
    }
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
