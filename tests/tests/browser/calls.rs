//! What calls a player back: the tab's title and a chime on "match found" and "your move", a
//! mute switch that is remembered; a rematch offer names who made it (see `result.rs`).

use noughts_protocol::{ClientMessage, Mark, ServerMessage};
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, press, wait_for, wait_for_text,
};

use super::{against_rival, open, page, server};

/// The page's title once `test` holds for it.
async fn wait_for_title(client: &fantoccini::Client, test: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    loop {
        let title = client.title().await.expect("a title");
        if test(&title) {
            return title;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the title stayed {title:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The chimes the page has played since it was loaded.
async fn sounds(client: &fantoccini::Client) -> serde_json::Value {
    client
        .execute("return window.noughtsSounds;", vec![])
        .await
        .expect("the page answers")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_title_and_a_chime_call_the_player_and_the_mute_switch_is_remembered() {
    title_and_chime(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_title_and_a_chime_call_the_player_and_the_mute_switch_is_remembered() {
    title_and_chime(Screen::Phone).await;
}

/// On `screen`: the title and a chime on "match found" and "your move"; the mute switch,
/// pressed, is remembered over a reload.
async fn title_and_chime(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    assert_eq!(client.title().await.unwrap(), "noughts");
    let (mut rival, state) = against_rival(&client, screen, &server, false).await;
    let game = state.game;
    // Match found: a chime, and the title says so (or that it is our move, if we are X).
    wait_for_title(&client, |t| {
        t.starts_with("Match found") || t.starts_with("Your move")
    })
    .await;
    assert_eq!(sounds(&client).await[0], "match");
    if state.you == Some(Mark::O) {
        // We are X: we move, and the title waits for the rival.
        press(&client, screen, ".board [data-cell=\"0\"]").await;
        wait_for_title(&client, |t| t.starts_with("Waiting for rival")).await;
        rival
            .until(|m| matches!(m, ServerMessage::Moved { .. }))
            .await;
    }
    rival.send(ClientMessage::Move { game, cell: 4 }).await;
    wait_for_title(&client, |t| t.starts_with("Your move")).await;
    assert_eq!(sounds(&client).await, serde_json::json!(["match", "move"]));
    // Muted, and still muted after a reload: no chime on the next move.
    press(&client, screen, "#mute").await;
    assert_eq!(
        attr(&client, "#mute", "aria-pressed").await.as_deref(),
        Some("true")
    );
    client.refresh().await.unwrap();
    wait_for(&client, "#status[data-status=\"online\"]").await;
    assert_eq!(
        attr(&client, "#mute", "aria-pressed").await.as_deref(),
        Some("true")
    );
    wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
    let mine = 1;
    press(&client, screen, &format!(".board [data-cell=\"{mine}\"]")).await;
    rival
        .until(|m| matches!(m, ServerMessage::Moved { cell, .. } if *cell == mine))
        .await;
    rival.send(ClientMessage::Move { game, cell: 8 }).await;
    wait_for(&client, ".board [data-cell=\"8\"][data-mark]").await;
    wait_for_title(&client, |t| t.starts_with("Your move") || t == "noughts").await;
    assert_eq!(sounds(&client).await, serde_json::json!([]));
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
