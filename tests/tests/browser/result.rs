//! The end of a game: an unmistakable banner (who won and how, the winning line, the rating
//! change, also in the seats) and the next steps at hand.

use noughts_protocol::{ClientMessage, OfferKind, ServerMessage};
use noughts_tests::browser::{Driver, Screen, assert_no_errors, press, wait_for, wait_for_text};

use super::{against_rival, open, page, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_win_shows_the_banner_with_the_rating_change_in_the_seats() {
    rated_win(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_rated_win_shows_the_banner_with_the_rating_change_in_the_seats() {
    rated_win(Screen::Phone).await;
}

/// A rated game the rival resigns, on `screen`: the banner, the seats, the next steps, and a
/// rematch offer that names who made it and is declined, and one of the page's own withdrawn.
async fn rated_win(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    let (mut rival, state) = against_rival(&client, screen, &server, true).await;
    assert!(state.rated, "the seeks paired as rated");
    rival.send(ClientMessage::Resign { game: state.game }).await;
    let title = wait_for_text(&client, "#game-over h3", |t| !t.is_empty()).await;
    assert_eq!(title, "You won");
    wait_for_text(&client, "#game-over", |t| t.contains("by resignation")).await;
    let change = wait_for_text(&client, "#rating-change", |t| t.contains("(+")).await;
    // The seat shows the new rating and the change, not the rating the game began with.
    let mine = if state.you == Some(noughts_protocol::Mark::X) {
        "o"
    } else {
        "x"
    };
    let seat = wait_for_text(&client, &format!("[data-rating=\"{mine}\"]"), |t| {
        t.contains("(+")
    })
    .await;
    let rating = change
        .trim_start_matches("Your rating: ")
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    assert!(seat.contains(&rating), "{seat} against {change}");
    // The rival's seat shows its loss.
    let theirs = if mine == "x" { "o" } else { "x" };
    wait_for_text(&client, &format!("[data-rating=\"{theirs}\"]"), |t| {
        t.contains("(−")
    })
    .await;
    // The next steps are at hand.
    for next in ["#rematch", "#new-opponent", "#replay", "#lobby"] {
        wait_for(&client, next).await;
    }
    // A rematch offer says who made it.
    rival
        .send(ClientMessage::Rematch { game: state.game })
        .await;
    wait_for_text(&client, "#game-over", |t| {
        t.contains("rival offers a rematch")
    })
    .await;
    wait_for_text(&client, "#rematch", |t| t == "Accept rematch").await;
    // It can be declined, and the rival hears of it; the page says so in the first person.
    press(&client, screen, "#decline-rematch").await;
    rival
        .until(|m| {
            matches!(
                m,
                ServerMessage::Declined {
                    offer: OfferKind::Rematch,
                    ..
                }
            )
        })
        .await;
    wait_for_text(&client, "#rematch-note", |t| {
        t.contains("You declined rival's rematch offer")
    })
    .await;
    wait_for_text(&client, "#rematch", |t| t == "Rematch").await;
    // The page's own offer reads in the first person and can be withdrawn.
    press(&client, screen, "#rematch").await;
    wait_for_text(&client, "#rematch-offer", |t| t == "You offered a rematch").await;
    rival
        .until(|m| matches!(m, ServerMessage::RematchOffered { .. }))
        .await;
    press(&client, screen, "#cancel-rematch").await;
    rival
        .until(|m| {
            matches!(
                m,
                ServerMessage::Withdrawn {
                    offer: OfferKind::Rematch,
                    ..
                }
            )
        })
        .await;
    wait_for_text(&client, "#rematch-note", |t| {
        t.contains("You withdrew your rematch offer")
    })
    .await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
