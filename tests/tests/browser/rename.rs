//! A new name keeps the player (its games and ratings), and says so; starting afresh as a new
//! player is a separate, explicit action.

use fantoccini::Locator;
use fantoccini::key::Key;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, fragment, press, wait_for, wait_for_text,
};

use super::{open, page, server};

/// Types `to` as the name at the top of the page, and Enter.
async fn rename(client: &fantoccini::Client, to: &str) {
    let name = client.find(Locator::Id("name")).await.unwrap();
    name.clear().await.unwrap();
    name.send_keys(&format!("{to}{}", char::from(Key::Enter)))
        .await
        .unwrap();
}

/// The player's token as the page keeps it (null when it has none).
async fn token(client: &fantoccini::Client) -> serde_json::Value {
    client
        .execute("return localStorage.getItem('noughts.token');", vec![])
        .await
        .expect("the page answers")
}

/// Waits until the name at the top of the page reads `want`.
async fn wait_for_name(client: &fantoccini::Client, want: &str) {
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    loop {
        let value = client
            .execute("return document.getElementById('name').value;", vec![])
            .await
            .unwrap();
        if value == want {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "still {value}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_keeps_the_players_games_and_starting_afresh_is_explicit() {
    rename_and_afresh(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_rename_keeps_the_players_games_and_starting_afresh_is_explicit() {
    rename_and_afresh(Screen::Phone).await;
}

/// On `screen`: a rename keeps the player's games, and starting afresh makes a new player.
async fn rename_and_afresh(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    // A finished game: against the AI, resigned at once.
    press(&client, screen, "#play-ai").await;
    press(&client, screen, "#resign").await;
    press(&client, screen, "#resign-confirm").await;
    wait_for(&client, "#game-over").await;
    let game = fragment(&client)
        .await
        .trim_start_matches("game=")
        .to_owned();
    press(&client, screen, "#lobby").await;
    // The name at the top changed: the server renames the same player, and the page says so.
    rename(&client, "Bob").await;
    let said = wait_for_text(&client, "#notice", |t| t.starts_with("You are now Bob")).await;
    assert!(
        said.contains("the same player, with your games and ratings"),
        "{said}"
    );
    // The game is still the player's, and its record names the player anew.
    press(&client, screen, "#history").await;
    wait_for(&client, &format!("[data-replay=\"{game}\"]")).await;
    // A guest: its name with the guest tag, never a "#N".
    wait_for_text(&client, ".records", |t| t.contains("Bob guest")).await;
    // The server keeps the name: a reload says hello with the token, whatever name the page
    // had kept, and the welcome brings Bob back.
    client
        .execute(
            "localStorage.setItem('noughts.name', 'someone-else');",
            vec![],
        )
        .await
        .unwrap();
    client.refresh().await.unwrap();
    wait_for(&client, "#status[data-status=\"online\"]").await;
    wait_for_name(&client, "Bob").await;
    // Starting afresh is offered beside a rename, and makes a new player with no games.
    press(&client, screen, "#lobby").await;
    rename(&client, "bob").await;
    wait_for_text(&client, "#notice", |t| t.starts_with("You are now bob")).await;
    let old = token(&client).await;
    press(&client, screen, "#start-afresh").await;
    // The new player is in once its welcome has brought a token of its own. A synthetic touch
    // on a loaded machine is now and then lost before the page sees it: while the button is
    // still there after a while (a press takes it away at once), it is pressed again.
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    let mut pressed_at = tokio::time::Instant::now();
    loop {
        let now = token(&client).await;
        if !now.is_null() && now != old {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no new player");
        if pressed_at.elapsed() > std::time::Duration::from_secs(3)
            && client.find(Locator::Css("#start-afresh")).await.is_ok()
        {
            press(&client, screen, "#start-afresh").await;
            pressed_at = tokio::time::Instant::now();
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    wait_for(&client, "#status[data-status=\"online\"]").await;
    wait_for_name(&client, "bob").await;
    press(&client, screen, "#history").await;
    wait_for_text(&client, ".records", |t| t.contains("No finished games yet")).await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
