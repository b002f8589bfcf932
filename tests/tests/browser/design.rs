//! The page made for playing, on a desktop by mouse and on a phone by touch: a header that is a
//! navigation (compact on a phone), the lobby's quick-pairing grid, the AI's, seeks' and rooms'
//! settings each remembered on their own (the AI at medium to begin with), how to win each
//! variant, coordinates on the board (switchable, remembered), qubic within a 1280×800 window,
//! "Offer draw" disabled until both sides have moved, moves in numbered pairs, your own live
//! game under "Your games" with Resume, hover, pressed and focus states seen by a real mouse and
//! keyboard, and axe clean throughout.

use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, press, wait_for, wait_for_text,
};

use super::audit::audit;
use super::sizes::{choose, small_targets};
use super::{open, page, screenshot, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_remembers_each_way_to_play_and_the_board_has_coordinates() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    for screen in [Screen::Desktop, Screen::Phone] {
        let client = driver.on(screen).await;
        made_for_playing(&client, screen, &page(&server)).await;
        client.close().await.unwrap();
    }
}

/// A script's answer as a string.
async fn js(client: &fantoccini::Client, script: &str) -> serde_json::Value {
    client
        .execute(script, vec![])
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

/// The value chosen in the select `id`, as the page reads it.
async fn chosen(client: &fantoccini::Client, id: &str) -> serde_json::Value {
    let raw = client
        .execute(
            "return document.getElementById(arguments[0]).value;",
            vec![serde_json::json!(id)],
        )
        .await
        .expect("the page answers");
    serde_json::from_str(raw.as_str().expect("a value")).expect("JSON")
}

async fn made_for_playing(client: &fantoccini::Client, screen: Screen, url: &str) {
    open(client, url).await;
    // The header is a navigation, and the lobby is where it says we are.
    let nav = js(
        client,
        "return [...document.querySelectorAll('header nav a')].map((a) => a.textContent);",
    )
    .await;
    assert_eq!(
        nav,
        serde_json::json!(["Play", "Watch", "Leaderboard", "My games"])
    );
    assert_eq!(
        attr(client, "#nav-play", "aria-current").await.as_deref(),
        Some("page")
    );
    let header = rect(client, "header").await;
    let most = if screen == Screen::Phone { 110.0 } else { 70.0 };
    assert!(header[3] <= most, "the header is {header:?} on {screen:?}");
    // Sound's mute and a player's chat mute say which they are.
    wait_for_text(client, "#mute", |t| t == "Mute sounds").await;

    // How to win each variant, a paragraph each; what a line in a cube is.
    let how = js(
        client,
        "return [...document.querySelectorAll('#how-to-win dd')].map((d) => d.textContent);",
    )
    .await;
    assert_eq!(how.as_array().map(Vec::len), Some(4), "{how}");
    assert!(how[2].as_str().unwrap().contains("49 lines"), "{how}");

    // One press seeks a common variant and clock; the seek says which, and is cancelled.
    press(client, screen, "[data-pair=\"four 3+2\"]").await;
    let seeking = wait_for_text(client, "#seeking", |t| !t.is_empty()).await;
    assert!(seeking.contains("four, 3+2"), "{seeking}");
    wait_for(client, "[data-pair=\"four 3+2\"][aria-pressed=\"true\"]").await;
    // The lobby lists the seek with the rating shown one way: the number after the name.
    let seek = wait_for_text(client, "#seeks li", |t| t.contains("four")).await;
    assert!(seek.contains(" 1500 · four · 3+2"), "{seek}");
    if screen == Screen::Desktop {
        wait_for(client, "#war-games li").await;
        screenshot(client, "lobby.png").await;
    }
    // A second press of the pair takes the seek back.
    press(client, screen, "[data-pair=\"four 3+2\"]").await;
    wait_for(client, "[data-pair=\"four 3+2\"][aria-pressed=\"false\"]").await;
    wait_for_text(client, "#seeks-none", |t| t.starts_with("Nobody")).await;

    // The AI starts at medium; its own settings are remembered apart from the seek's and the
    // room's, across a reload.
    assert_eq!(chosen(client, "level").await, "medium");
    choose(client, "qubic").await;
    client
        .execute(
            "const s = document.getElementById('level');
             s.value = JSON.stringify('hard');
             s.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    client.refresh().await.unwrap();
    wait_for(client, "#status[data-status=\"online\"]").await;
    assert_eq!(chosen(client, "ai-variant").await, "qubic");
    assert_eq!(chosen(client, "level").await, "hard");
    assert_eq!(chosen(client, "seek-variant").await, "classic");
    assert_eq!(chosen(client, "room-variant").await, "classic");
    if screen == Screen::Phone {
        assert_eq!(small_targets(client).await, serde_json::json!([]), "lobby");
    } else {
        states_are_visible(client).await;
    }
    assert_eq!(audit(client).await, Vec::<String>::new(), "the lobby");

    // Qubic against the AI: the board fits the window, with coordinates as cells are named.
    press(client, screen, "#play-ai").await;
    wait_for(client, ".board.qubic.coords [data-cell=\"63\"]").await;
    let board = rect(client, ".board").await;
    let (width, height) = if screen == Screen::Phone {
        (390.0, 844.0)
    } else {
        (1280.0, 800.0)
    };
    assert!(
        board[0] >= 0.0 && board[0] + board[2] <= width,
        "qubic is wider than the window: {board:?}"
    );
    if screen == Screen::Desktop {
        assert!(
            board[1] + board[3] <= height,
            "qubic runs off a 1280×800 window: {board:?}"
        );
    }
    let coords = js(
        client,
        "const cell = (n) => document.querySelector(`.board [data-cell=\"${n}\"]`);
         const text = (n, where) => getComputedStyle(cell(n), where).content;
         return [text(1, '::after'), text(4, '::before'), text(16 + 12, '::before'), text(5, '::before')];",
    )
    .await;
    // b over the top row, rank 2 beside the left column, in every layer; none inside.
    assert_eq!(
        coords,
        serde_json::json!(["\"b\"", "\"2\"", "\"4\"", "none"])
    );
    // "Offer draw" waits for both sides to move, and says why.
    wait_for(client, "#offer-draw[disabled]").await;
    wait_for_text(client, "#draw-hint", |t| {
        t.contains("both sides have moved")
    })
    .await;
    // Coordinates off, remembered; on again.
    press(client, screen, "#coords").await;
    wait_for(client, ".board.qubic:not(.coords)").await;
    client.refresh().await.unwrap();
    wait_for(client, ".board.qubic:not(.coords) [data-cell=\"63\"]").await;
    press(client, screen, "#coords").await;
    wait_for(client, ".board.qubic.coords").await;

    // A move and the AI's answer: the list reads "1. X 1a1 O …".
    press(client, screen, ".board [data-cell=\"0\"]").await;
    wait_for(client, ".board [data-mark=\"O\"]").await;
    let first = wait_for_text(client, ".moves li", |t| t.contains('O')).await;
    assert!(
        first.starts_with("1.") && first.contains("X 1a1"),
        "{first}"
    );
    wait_for(client, "#offer-draw:not([disabled])").await;
    if screen == Screen::Phone {
        screenshot(client, "phone-qubic.png").await;
    }
    if screen == Screen::Phone {
        assert_eq!(small_targets(client).await, serde_json::json!([]), "qubic");
    }
    assert_eq!(audit(client).await, Vec::<String>::new(), "a qubic game");

    // In the lobby the game is ours to resume, not to watch.
    press(client, screen, "#nav-play").await;
    let yours = wait_for_text(client, "#your-games li", |t| t.contains("Resume")).await;
    assert!(yours.contains("qubic"), "{yours}");
    press(client, screen, "#your-games [data-resume]").await;
    wait_for(client, ".board.qubic [data-cell=\"0\"][data-mark=\"X\"]").await;
    press(client, screen, "#resign").await;
    press(client, screen, "#resign-confirm").await;
    wait_for(client, "#game-over").await;
    assert_no_errors(client).await;
}

/// The background, transform and outline of `#join` (a button that does nothing with no code).
async fn looks(client: &fantoccini::Client) -> serde_json::Value {
    js(
        client,
        "const s = getComputedStyle(document.getElementById('join'));
         return [s.backgroundColor, s.transform, s.outlineStyle, s.outlineColor];",
    )
    .await
}

/// On a desktop, by a real mouse and keyboard: a button under the pointer, held down, and
/// reached by Tab each looks so.
async fn states_are_visible(client: &fantoccini::Client) {
    use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
    let join = wait_for(client, "#join").await;
    let still = looks(client).await;
    let mouse = MouseActions::new("mouse".to_owned()).then(PointerAction::MoveToElement {
        element: join.clone(),
        duration: None,
        x: 0.0,
        y: 0.0,
    });
    client.perform_actions(mouse).await.unwrap();
    let hovered = looks(client).await;
    assert_ne!(hovered[0], still[0], "hover: {hovered} against {still}");
    let down = MouseActions::new("mouse".to_owned()).then(PointerAction::Down {
        button: MOUSE_BUTTON_LEFT,
    });
    client.perform_actions(down).await.unwrap();
    let pressed = looks(client).await;
    assert_ne!(pressed[1], still[1], "pressed: {pressed} against {still}");
    client.release_actions().await.unwrap();
    // From the code's field, Tab reaches the button: a ring in the accent colour.
    client
        .execute("document.getElementById('code').focus();", vec![])
        .await
        .unwrap();
    noughts_tests::browser::keys(client, &[fantoccini::key::Key::Tab.into()]).await;
    let focused = looks(client).await;
    assert_eq!(
        [&focused[2], &focused[3]],
        [
            &serde_json::json!("solid"),
            &serde_json::json!("rgb(255, 213, 79)")
        ],
        "focus: {focused}"
    );
}
