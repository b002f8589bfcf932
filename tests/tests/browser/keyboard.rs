//! The keyboard: a whole game against the AI played with Tab, the arrow keys and Enter alone,
//! the focus never leaving the board; the moves and the result announced in a live region; the
//! replay's controls labelled; qubic's 64 cells one tab stop.

use fantoccini::key::Key;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, focused, keys, wait_for, wait_for_text,
};

use super::{open, over, page, server};

/// The text of `css` as the page holds it (also for an element shown only to screen readers).
async fn text_of(client: &fantoccini::Client, css: &str) -> String {
    let value = client
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            vec![serde_json::json!(css)],
        )
        .await
        .expect("the page answers");
    value.as_str().unwrap_or("").to_owned()
}

/// Presses Tab until the element with `id` has the focus.
async fn tab_to(client: &fantoccini::Client, id: &str) {
    for _ in 0..60 {
        if focused(client).await["id"] == id {
            return;
        }
        keys(client, &[Key::Tab.into()]).await;
    }
    panic!("Tab never reached #{id}");
}

/// The focused cell: it must be a cell of the board.
async fn focused_cell(client: &fantoccini::Client) -> usize {
    let now = focused(client).await;
    now["cell"]
        .as_str()
        .unwrap_or_else(|| panic!("the focus left the board: {now}"))
        .parse()
        .expect("a cell number")
}

/// The empty cells of the board on the page.
async fn empty_cells(client: &fantoccini::Client) -> Vec<usize> {
    let cells = client
        .execute(
            "return [...document.querySelectorAll('.board [data-cell]:not([data-mark])')]
                 .map((e) => Number(e.dataset.cell));",
            vec![],
        )
        .await
        .expect("the page answers");
    serde_json::from_value(cells).expect("cell numbers")
}

/// The arrow keys that walk from `from` to `to` on a board `side` cells wide.
fn path(from: usize, to: usize, side: usize) -> Vec<char> {
    let (r0, c0, r1, c1) = (from / side, from % side, to / side, to % side);
    let mut steps = Vec::new();
    let vertical = if r1 > r0 { Key::Down } else { Key::Up };
    let horizontal = if c1 > c0 { Key::Right } else { Key::Left };
    steps.extend(std::iter::repeat_n(char::from(vertical), r0.abs_diff(r1)));
    steps.extend(std::iter::repeat_n(char::from(horizontal), c0.abs_diff(c1)));
    steps
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_is_played_by_keyboard_alone_with_the_focus_kept_on_the_board() {
    whole_game_by_keyboard(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_with_a_keyboard_a_whole_game_is_played_with_the_focus_kept_on_the_board() {
    whole_game_by_keyboard(Screen::Phone).await;
}

/// On `screen` (a phone may have a keyboard too): a game against the AI by keys alone.
async fn whole_game_by_keyboard(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    tab_to(&client, "play-ai").await;
    keys(&client, &[Key::Enter.into()]).await;
    wait_for(&client, ".board [data-cell=\"8\"]").await;
    // The board is one tab stop; the focus went to it when the game began.
    let stops = client
        .execute(
            "return document.querySelectorAll('.board [data-cell]:not([tabindex=\"-1\"])').length;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(stops, serde_json::json!(1));
    let mut played = 0;
    loop {
        let status = wait_for_text(&client, "#game-status", |t| {
            t.contains("Your move") || over(t)
        })
        .await;
        if over(&status) {
            break;
        }
        let at = focused_cell(&client).await;
        let target = empty_cells(&client).await[0];
        let mut presses = path(at, target, 3);
        presses.push(Key::Enter.into());
        keys(&client, &presses).await;
        wait_for(
            &client,
            &format!(".board [data-cell=\"{target}\"][data-mark=\"X\"]"),
        )
        .await;
        played += 1;
        // The AI answers (or the game ends); the focus is still on the board, on our cell.
        let status = wait_for_text(&client, "#game-status", |t| {
            t.contains("Your move") || over(t)
        })
        .await;
        assert_eq!(focused_cell(&client).await, target);
        let said = text_of(&client, "#announce").await;
        if !over(&status) {
            assert!(said.contains("Your move"), "the live region said {said:?}");
        }
    }
    assert!(played >= 3, "a game takes at least three moves of X");
    // The result is announced, and the focus is still on the board.
    focused_cell(&client).await;
    let said = text_of(&client, "#announce").await;
    assert!(over(&said), "the live region said {said:?}");
    // On to the replay by keyboard: its controls have names, and the arrows step.
    tab_to(&client, "replay").await;
    keys(&client, &[Key::Enter.into()]).await;
    wait_for(&client, ".replay").await;
    let unnamed = client
        .execute(
            "return [...document.querySelectorAll('main button')]
                 .filter((b) => !(b.getAttribute('aria-label') || b.textContent.trim()))
                 .map((b) => b.outerHTML);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(unnamed, serde_json::json!([]), "buttons without a name");
    assert_eq!(
        text_of(&client, "#replay-start")
            .await
            .trim()
            .chars()
            .count(),
        1
    );
    tab_to(&client, "replay-start").await;
    keys(&client, &[Key::Enter.into()]).await;
    wait_for_text(&client, "#replay-status", |t| t.starts_with("start")).await;
    keys(&client, &[Key::Right.into()]).await;
    wait_for_text(&client, "#replay-status", |t| t.starts_with("move 1 ")).await;
    keys(&client, &[Key::Right.into(), Key::Right.into()]).await;
    wait_for_text(&client, "#replay-status", |t| t.starts_with("move 3 ")).await;
    keys(&client, &[Key::End.into()]).await;
    wait_for_text(&client, "#replay-status", |t| {
        t.starts_with(&format!("move {}", played * 2 - 1))
            || t.starts_with(&format!("move {}", played * 2))
    })
    .await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qubic_is_one_tab_stop_and_page_down_changes_layer() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    client
        .execute(
            "const s = document.getElementById('ai-variant');
             s.value = JSON.stringify('qubic');
             s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    tab_to(&client, "play-ai").await;
    keys(&client, &[Key::Enter.into()]).await;
    wait_for(&client, ".board.qubic [data-cell=\"63\"]").await;
    let at = focused_cell(&client).await;
    keys(&client, &[Key::PageDown.into()]).await;
    let below = focused_cell(&client).await;
    assert!(
        below == at + 16 || (at >= 48 && below == at),
        "{at} → {below}"
    );
    // One Tab leaves the board: its 64 cells are one stop.
    keys(&client, &[Key::Tab.into()]).await;
    let next = focused(&client).await;
    assert!(next["cell"].is_null(), "still on the board: {next}");
    // Onto the switch for the coordinates under it.
    assert_eq!(next["id"], "coords");
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
