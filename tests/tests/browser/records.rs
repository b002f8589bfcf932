//! The player's records: My games across every variant or one, filtered by result, with dates,
//! Won, Lost or Drawn in colour, rating changes and a chart of the rating whose axis is whole;
//! the leaderboard in a view of its own, a tab per variant.

use noughts_protocol::ClientMessage;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, press, wait_for, wait_for_fragment, wait_for_text,
};

use super::{against_rival, open, page, screenshot, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_show_dates_rating_changes_and_a_chart_and_the_leaderboard_has_tabs() {
    records(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_my_games_show_dates_rating_changes_and_a_chart_and_the_leaderboard_has_tabs() {
    records(Screen::Phone).await;
}

/// Two rated wins on `screen`, then My games (dates, rating changes, the chart, tabs) and
/// the leaderboard (its view, address and tabs).
async fn records(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    // Two rated wins (the rival resigns at once).
    for _ in 0..2 {
        let (mut rival, state) = against_rival(&client, screen, &server, true).await;
        rival.send(ClientMessage::Resign { game: state.game }).await;
        wait_for(&client, "#rating-change").await;
        press(&client, screen, "#lobby").await;
        wait_for(&client, "#quick-match").await;
    }
    press(&client, screen, "#history").await;
    wait_for_fragment(&client, "history").await;
    // Every variant at once to begin with; each result in words and colour.
    wait_for(
        &client,
        "#history-tabs [data-variant=\"all\"][aria-selected=\"true\"]",
    )
    .await;
    wait_for(&client, "table.history tbody tr:nth-child(2)").await;
    let outcomes = client
        .execute(
            "return [...document.querySelectorAll('table.history .outcome')]
                 .map((o) => [o.textContent, getComputedStyle(o).color]);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        outcomes,
        serde_json::json!([["Won", "rgb(129, 199, 132)"], ["Won", "rgb(129, 199, 132)"]])
    );
    // Filtered by result: no game lost.
    client
        .execute(
            "const s = document.getElementById('history-outcome');
             s.value = 'lost';
             s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    wait_for_text(&client, "#history-none", |t| t.starts_with("No lost games")).await;
    client
        .execute(
            "const s = document.getElementById('history-outcome');
             s.value = 'all';
             s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    press(&client, screen, "#history-tabs [data-variant=\"classic\"]").await;
    wait_for(&client, "#rating-chart").await;
    let rows = client
        .execute(
            "return [...document.querySelectorAll('table.history tbody tr')]
                 .map((tr) => [...tr.cells].map((td) => td.textContent));",
            vec![],
        )
        .await
        .unwrap();
    for row in rows.as_array().unwrap() {
        let date = row[0].as_str().unwrap();
        assert!(date.chars().any(|c| c.is_ascii_digit()), "no date in {row}");
        assert!(
            row[3].as_str().unwrap().starts_with('+'),
            "no rating change in {row}"
        );
    }
    // The chart: the rating before the first game and after each.
    let dots = client
        .execute(
            "return document.querySelectorAll('#rating-chart circle').length;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(dots, serde_json::json!(3));
    // The axis's labels are whole ("1500", never "150"): inside the chart.
    let labels = client
        .execute(
            "return [...document.querySelectorAll('#rating-chart .axis')]
                 .map((t) => [t.textContent, t.getBBox().x >= 0]);",
            vec![],
        )
        .await
        .unwrap();
    for label in labels.as_array().unwrap() {
        assert_eq!(label[0].as_str().map(str::len), Some(4), "{labels}");
        assert_eq!(label[1], serde_json::json!(true), "clipped: {labels}");
    }
    if screen == Screen::Desktop {
        screenshot(&client, "my-games.png").await;
    }
    press(&client, screen, "#history-tabs [data-variant=\"four\"]").await;
    wait_for_text(&client, ".records h2", |t| t.ends_with("four")).await;
    // The leaderboard: its own view and address, and its heading names the variant.
    press(&client, screen, "#lobby").await;
    press(&client, screen, "#leaderboard").await;
    wait_for_fragment(&client, "leaderboard=classic").await;
    wait_for_text(&client, "#leaderboard-title", |t| {
        t == "Leaderboard · classic"
    })
    .await;
    wait_for_text(&client, "#leaderboard-list", |t| t.contains("2 won")).await;
    press(
        &client,
        screen,
        "#leaderboard-tabs [data-variant=\"qubic\"]",
    )
    .await;
    wait_for_fragment(&client, "leaderboard=qubic").await;
    wait_for_text(&client, ".records .dim", |t| t.contains("rated qubic")).await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
