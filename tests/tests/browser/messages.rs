//! Messages that belong to a moment leave with it, errors come in words (the code only in a
//! details line), and offline the board says that a move was not sent.

use fantoccini::Locator;
use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, ServerMessage};
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, fragment, press, wait_for, wait_for_fragment, wait_for_text,
};
use noughts_tests::net::Relay;
use noughts_tests::{Client, TestServer};

use super::{open, page, page_against_rival, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_offer_leaves_with_the_game_and_a_used_invite_is_said_in_words() {
    declined_and_expired(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_declined_offer_leaves_with_the_game_and_a_used_invite_is_said_in_words() {
    declined_and_expired(Screen::Phone).await;
}

/// On `screen`: a declined draw offer's note leaves when the game ends; an expired invite is
/// said in words, and the notice leaves with the lobby.
async fn declined_and_expired(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let (server, client, mut rival, state) = page_against_rival(&driver, screen).await;
    // A draw may be offered once both sides have moved.
    if state.you == Some(noughts_protocol::Mark::X) {
        rival
            .send(ClientMessage::Move {
                game: state.game,
                cell: 0,
            })
            .await;
    }
    wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
    press(&client, screen, "button.cell:not([data-mark])").await;
    let played = rival
        .until(|m| matches!(m, ServerMessage::Moved { .. }))
        .await;
    if state.you == Some(noughts_protocol::Mark::O) {
        let taken = match played {
            ServerMessage::Moved { cell, .. } => cell,
            _ => unreachable!(),
        };
        rival
            .send(ClientMessage::Move {
                game: state.game,
                cell: if taken == 0 { 1 } else { 0 },
            })
            .await;
        rival
            .until(|m| matches!(m, ServerMessage::Moved { cell, .. } if *cell == if taken == 0 { 1 } else { 0 }))
            .await;
    }
    press(&client, screen, "#offer-draw").await;
    rival
        .until(|m| matches!(m, ServerMessage::Offered { .. }))
        .await;
    rival
        .send(ClientMessage::Decline { game: state.game })
        .await;
    wait_for_text(&client, "#game-note", |t| t.contains("declined")).await;
    rival.send(ClientMessage::Resign { game: state.game }).await;
    wait_for(&client, "#game-over").await;
    assert!(
        client
            .find(fantoccini::Locator::Css("#game-note"))
            .await
            .is_err(),
        "the declined offer is still said after the game ended"
    );
    // An invite whose game has started: said in words, the code only in the details.
    let mut host = Client::join(&server.url(), "host").await;
    let code = host.create_room(1, Variant::Classic, true).await;
    let mut guest = Client::join(&server.url(), "guest").await;
    guest
        .send(ClientMessage::JoinRoom { code: code.clone() })
        .await;
    guest.game_state().await;
    client
        .goto(&format!("{}#room={code}", page(&server)))
        .await
        .unwrap();
    let said = wait_for_text(&client, "#notice", |t| !t.is_empty()).await;
    assert!(said.starts_with("That invite has expired"), "{said}");
    let details = wait_for_text(&client, "#notice .details", |t| !t.is_empty()).await;
    assert!(details.starts_with("no_such_room"), "{details}");
    assert_eq!(fragment(&client).await, "");
    // The notice belongs to the lobby: it leaves when the player goes elsewhere.
    press(&client, screen, "#history").await;
    wait_for_fragment(&client, "history").await;
    assert!(
        client.find(Locator::Css("#notice")).await.is_err(),
        "the lobby's notice followed the player"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_the_board_says_the_move_was_not_sent() {
    offline(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_offline_the_board_says_the_move_was_not_sent() {
    offline(Screen::Phone).await;
}

/// On `screen`: with the server out of reach the board says so, and that a move was not sent.
async fn offline(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server: TestServer = server().await;
    let relay = Relay::start(server.addr).await;
    let client = driver.on(screen).await;
    open(&client, &format!("http://{}/", relay.addr)).await;
    press(&client, screen, "#play-ai").await;
    wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
    // The connection goes, and with the relay gone it cannot come back.
    drop(relay);
    wait_for(&client, "#status[data-status=\"offline\"]").await;
    wait_for_text(&client, "#offline", |t| t.contains("Offline")).await;
    press(&client, screen, ".board [data-cell=\"4\"]").await;
    wait_for_text(&client, "#offline", |t| {
        t.contains("your move was not sent")
    })
    .await;
    assert!(
        client
            .find(fantoccini::Locator::Css(
                ".board [data-cell=\"4\"][data-mark]"
            ))
            .await
            .is_err(),
        "the move is not shown as made"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
