//! Offers and the opponent leaving, on the page: one's own takeback request in the first person
//! and cancelled, an accepted takeback announced, a draw offer declined with its button, and,
//! when the rival leaves, a countdown, then the claim buttons, and the win claimed.

use std::time::Duration;

use noughts_protocol::{ClientMessage, Mark, OfferKind, ServerMessage};
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, press, wait_for, wait_for_text,
};
use noughts_tests::{TestServer, test_config};

use super::{against_rival, open, page};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_read_in_the_first_person_and_a_player_left_alone_claims_the_win() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let screen = Screen::Desktop;
    let server = TestServer::start(noughts_server::Config {
        grace: Duration::from_secs(60),
        claim_after: Duration::from_secs(3),
        ..test_config()
    })
    .await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    let (mut rival, state) = against_rival(&client, screen, &server, false).await;
    let game = state.game;
    // Both sides move once, the page's player first or second.
    if state.you == Some(Mark::X) {
        rival.send(ClientMessage::Move { game, cell: 0 }).await;
    }
    wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
    press(&client, screen, "button.cell:not([data-mark])").await;
    let ServerMessage::Moved { cell: taken, .. } = rival
        .until(|m| matches!(m, ServerMessage::Moved { .. }))
        .await
    else {
        unreachable!()
    };
    if state.you == Some(Mark::O) {
        let cell = if taken == 0 { 1 } else { 0 };
        rival.send(ClientMessage::Move { game, cell }).await;
        wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
    }
    // The rival's draw offer has Accept and Decline; Decline turns it down.
    rival.send(ClientMessage::OfferDraw { game }).await;
    let offer = wait_for_text(&client, "#offer", |t| t.contains("rival offers a draw")).await;
    assert!(
        offer.contains("Accept") && offer.contains("Decline"),
        "{offer}"
    );
    press(&client, screen, "#decline-offer").await;
    rival
        .until(|m| matches!(m, ServerMessage::Declined { .. }))
        .await;
    wait_for_text(&client, "#game-note", |t| {
        t.contains("You declined rival's draw offer")
    })
    .await;
    // The page's own takeback request reads in the first person, and is cancelled.
    press(&client, screen, "#takeback").await;
    wait_for_text(&client, "#offer", |t| {
        t.contains("You asked to take back your move")
    })
    .await;
    assert_eq!(
        attr(&client, "#takeback", "disabled").await.as_deref(),
        Some("true"),
        "asked once, the button rests until the answer"
    );
    rival
        .until(|m| {
            matches!(
                m,
                ServerMessage::Offered {
                    offer: OfferKind::Takeback,
                    ..
                }
            )
        })
        .await;
    press(&client, screen, "#cancel-offer").await;
    rival
        .until(|m| matches!(m, ServerMessage::Withdrawn { .. }))
        .await;
    wait_for_text(&client, "#game-note", |t| {
        t.contains("You withdrew your takeback request")
    })
    .await;
    // Asked again and granted: the page says so.
    press(&client, screen, "#takeback").await;
    rival
        .until(|m| {
            matches!(
                m,
                ServerMessage::Offered {
                    offer: OfferKind::Takeback,
                    ..
                }
            )
        })
        .await;
    rival.send(ClientMessage::Takeback { game }).await;
    wait_for_text(&client, "#game-note", |t| {
        t.contains("your move was taken back")
    })
    .await;
    // The rival leaves: a countdown, the claim not yet possible, then possible; the win claimed.
    drop(rival);
    let away = wait_for_text(&client, "[data-away]", |t| {
        t.contains("rival left the game")
    })
    .await;
    assert!(away.contains("0:5") || away.contains("1:00"), "{away}");
    wait_for_text(&client, "#claim-hint", |t| {
        t.contains("You can claim the game in")
    })
    .await;
    assert_eq!(
        attr(&client, "#claim-win", "disabled").await.as_deref(),
        Some("true")
    );
    wait_for_text(&client, "#claim-hint", |t| {
        t.contains("You can claim the win")
    })
    .await;
    assert_eq!(attr(&client, "#claim-win", "disabled").await, None);
    wait_for(&client, "#claim-draw:not([disabled])").await;
    press(&client, screen, "#claim-win").await;
    let title = wait_for_text(&client, "#game-over h3", |t| !t.is_empty()).await;
    assert_eq!(title, "You won");
    wait_for_text(&client, "#game-over", |t| t.contains("the opponent left")).await;
    assert!(
        client
            .find(fantoccini::Locator::Css("#away"))
            .await
            .is_err(),
        "the countdown outlived the game"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
