//! Mute, block and report beside a player's name in the game view (its seats and chat lines):
//! a muted player's chat goes from the page and stops coming, a block keeps the two apart (the
//! blocked player's room cannot be joined), and a report reaches the server. The same menu beside
//! the names in the lobby (a seek, a room) and in "My games".

use fantoccini::Locator;
use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, Mark, Seek};
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, open_menu, press, wait_for, wait_for_text,
};

use super::audit::audit;
use super::{open, page, page_against_rival, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_is_muted_blocked_and_reported_from_the_game_view() {
    mute_block_report(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_player_is_muted_blocked_and_reported_from_the_game_view() {
    mute_block_report(Screen::Phone).await;
}

/// On `screen`: the rival muted, reported and blocked from the menu beside its name.
async fn mute_block_report(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let (_server, client, mut rival, state) = page_against_rival(&driver, screen).await;
    let game = state.game;
    let seat = if state.you == Some(Mark::X) { "x" } else { "o" };
    let menu = format!(
        "[data-seat=\"{seat}\"] [data-player-menu=\"{}\"]",
        rival.player
    );
    // The rival's seat and chat line offer the menu, labelled; the page's own seat does not.
    let said = |text: &str| ClientMessage::Chat {
        game,
        text: text.to_owned(),
    };
    rival.send(said("hello there")).await;
    wait_for_text(&client, "#chat-lines", |t| t.contains("hello there")).await;
    wait_for(
        &client,
        &format!("#chat-lines [data-player-menu=\"{}\"]", rival.player),
    )
    .await;
    assert_eq!(
        attr(&client, &menu, "aria-label").await.as_deref(),
        Some("Mute, block or report rival")
    );
    let mine = if seat == "x" { "o" } else { "x" };
    assert!(
        client
            .find(Locator::Css(&format!(
                "[data-seat=\"{mine}\"] [data-player-menu]"
            )))
            .await
            .is_err(),
        "no menu beside one's own name"
    );
    // Mute: the line already shown goes, and later ones never come.
    open_menu(&client, screen, &menu).await;
    // Muting a player's chat says so, unlike the header's "Mute sounds".
    wait_for_text(&client, "[data-action=\"mute\"]", |t| t == "Mute chat").await;
    press(&client, screen, "[data-action=\"mute\"]").await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("You have muted rival")
    })
    .await;
    wait_for_text(&client, "#chat-lines", |t| !t.contains("hello there")).await;
    // The line is sent before the resignation, so once the game is over on the page the line
    // would have come.
    rival.send(said("after the mute")).await;
    rival.send(ClientMessage::Resign { game }).await;
    wait_for(&client, "#game-over").await;
    let lines = wait_for_text(&client, "#chat-lines", |_| true).await;
    assert!(!lines.contains("after the mute"), "{lines}");
    // The menu now offers to unmute; report from it, with a category and a reason.
    open_menu(&client, screen, &menu).await;
    wait_for(&client, "[data-action=\"unmute\"]").await;
    assert_eq!(audit(&client).await, Vec::<String>::new(), "the menu");
    press(&client, screen, "[data-action=\"report\"]").await;
    let category = wait_for(&client, "#report-category").await;
    assert_eq!(
        audit(&client).await,
        Vec::<String>::new(),
        "the report form"
    );
    category.select_by_value("abuse").await.unwrap();
    wait_for(&client, "#report-reason")
        .await
        .send_keys("insults in chat")
        .await
        .unwrap();
    press(&client, screen, "#report-send").await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("Thank you: your report on rival went to the server's operator")
    })
    .await;
    // Block: the rival's room cannot be joined from the page any more.
    open_menu(&client, screen, &menu).await;
    press(&client, screen, "[data-action=\"block\"]").await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("You have blocked rival")
    })
    .await;
    let code = rival.create_room(60, Variant::Classic, true).await;
    press(&client, screen, "#lobby").await;
    wait_for(&client, "#code")
        .await
        .send_keys(&code)
        .await
        .unwrap();
    press(&client, screen, "#join").await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("One of you has blocked the other")
    })
    .await;
    // "My games" offers the menu beside the opponent of the game just played.
    press(&client, screen, "#history").await;
    wait_for(
        &client,
        &format!(
            "[data-key=\"history-{}\"] [data-player-menu=\"{}\"]",
            game.0, rival.player
        ),
    )
    .await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_seeking_or_hosting_in_the_lobby_is_blocked_from_the_lobby() {
    lobby_menus(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_player_seeking_or_hosting_in_the_lobby_is_blocked_from_the_lobby() {
    lobby_menus(Screen::Phone).await;
}

/// On `screen`: the rival's seek offers the menu in the lobby; blocked from it, the rival's
/// public room shows it blocked and cannot be joined.
async fn lobby_menus(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    let mut rival = noughts_tests::Client::join(&server.url(), "rival").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Four,
        clock: None,
        rated: false,
        bots: false,
    });
    let noughts_protocol::ServerMessage::Seeking { seek, .. } = rival.request(1, seek).await else {
        panic!("the rival seeks");
    };
    let at_seek = format!(
        "[data-key=\"seek-{}\"] [data-player-menu=\"{}\"]",
        seek.0, rival.player
    );
    open_menu(&client, screen, &at_seek).await;
    press(&client, screen, "[data-action=\"block\"]").await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("You have blocked rival")
    })
    .await;
    // The rival's public room: its menu knows the block, and joining it is refused.
    let code = rival.create_room(2, Variant::Classic, false).await;
    let at_room = format!(
        "[data-key=\"room-{code}\"] [data-player-menu=\"{}\"]",
        rival.player
    );
    open_menu(&client, screen, &at_room).await;
    wait_for(&client, "[data-action=\"unblock\"]").await;
    press(
        &client,
        screen,
        &format!("[data-key=\"room-{code}\"] [data-join]"),
    )
    .await;
    wait_for_text(&client, "#notice", |t| {
        t.starts_with("One of you has blocked the other")
    })
    .await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
