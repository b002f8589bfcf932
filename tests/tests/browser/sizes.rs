//! Sizes: the board as large as the screen allows on a 1280×800 desktop, and on a 390×844 phone
//! with touch no tap target under 44 px (measured from the page), the cubes' layers included.

use std::time::Duration;

use noughts_tests::browser::{Driver, assert_no_errors, tap, viewport, wait_for};

use super::{open, page, screenshot, server};

/// Every control shown that is smaller than 44 px either way (a checkbox is tapped through its
/// label), described.
pub(super) async fn small_targets(client: &fantoccini::Client) -> serde_json::Value {
    client
        .execute(
            "const small = [];
             for (const e of document.querySelectorAll('button, a[href], input, select')) {
               const target = e.type === 'checkbox' ? (e.closest('label') ?? e) : e;
               const r = target.getBoundingClientRect();
               if (r.width === 0 && r.height === 0) continue;
               if (r.width < 44 || r.height < 44) {
                 small.push(`${e.outerHTML.slice(0, 60)} ${Math.round(r.width)}x${Math.round(r.height)}`);
               }
             }
             return small;",
            vec![],
        )
        .await
        .expect("the page answers")
}

/// The rectangle of `css`: [left, top, width, height].
async fn rect(client: &fantoccini::Client, css: &str) -> Vec<f64> {
    let value = client
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect();
             return [r.left, r.top, r.width, r.height];",
            vec![serde_json::json!(css)],
        )
        .await
        .expect("the page answers");
    serde_json::from_value(value).expect("four numbers")
}

/// Chooses `variant` for the AI in the lobby.
pub(super) async fn choose(client: &fantoccini::Client, variant: &str) {
    client
        .execute(
            "const s = document.getElementById('ai-variant');
             s.value = JSON.stringify(arguments[0]);
             s.dispatchEvent(new Event('change'));",
            vec![serde_json::json!(variant)],
        )
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_desktop_the_board_fills_its_space() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    assert_eq!(viewport(&client).await, serde_json::json!([1280, 800]));
    noughts_tests::browser::click(&client, "#play-ai").await;
    wait_for(&client, ".board.classic").await;
    let board = rect(&client, ".board.classic").await;
    assert!(board[2] >= 560.0, "the classic board is {board:?}");
    assert!(
        board[1] + board[3] <= 800.0,
        "the board runs off the screen: {board:?}"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_no_tap_target_is_under_44_px() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.phone().await;
    open(&client, &page(&server)).await;
    assert_eq!(viewport(&client).await, serde_json::json!([390, 844]));
    assert_eq!(
        small_targets(&client).await,
        serde_json::json!([]),
        "in the lobby"
    );
    screenshot(&client, "phone-lobby.png").await;
    for (variant, last) in [("classic", 8), ("qubic", 63), ("cube", 26)] {
        choose(&client, variant).await;
        tap(&client, "#play-ai", Duration::from_millis(80)).await;
        wait_for(&client, &format!(".board.{variant} [data-cell=\"{last}\"]")).await;
        assert_eq!(
            small_targets(&client).await,
            serde_json::json!([]),
            "in {variant}"
        );
        let board = rect(&client, ".board").await;
        assert!(
            board[0] >= 0.0 && board[0] + board[2] <= 390.0,
            "{variant} is wider than the phone: {board:?}"
        );
        // A tap plays.
        tap(
            &client,
            ".board [data-cell=\"0\"]",
            Duration::from_millis(80),
        )
        .await;
        wait_for(&client, ".board [data-cell=\"0\"][data-mark=\"X\"]").await;
        tap(&client, "#resign", Duration::from_millis(80)).await;
        assert_eq!(
            small_targets(&client).await,
            serde_json::json!([]),
            "confirming"
        );
        tap(&client, "#resign-confirm", Duration::from_millis(80)).await;
        wait_for(&client, "#game-over").await;
        tap(&client, "#lobby", Duration::from_millis(80)).await;
        wait_for(&client, "#play-ai").await;
    }
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
