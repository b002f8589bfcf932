//! The web client in a real headless Chromium against a real server on port 0: the lobby, a game
//! against the AI by clicks, two browsers through an invite link, a reload mid-game, a watcher,
//! a replay with the engine's verdicts, chat that holds HTML, and a cross-origin upgrade refused. Every test fails on an
//! uncaught error in the page.

mod accounts;
mod address;
mod arenas;
mod audit;
mod browse;
mod calls;
mod churn;
mod design;
mod identity;
mod keyboard;
mod leaving;
mod messages;
mod moderation;
mod records;
mod rename;
mod replay;
mod result;
mod sharing;
mod sizes;
mod war;

use std::time::Duration;

use fantoccini::{Client, Locator};
use noughts_engine::Variant;
use noughts_tests::accounts::{make_account, register_request};
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, click, fragment, press, wait_for, wait_for_text,
};
use noughts_tests::tls::TestCert;
use noughts_tests::{TestServer, alternate, quick_match, test_config};

/// The page's address on `server`.
fn page(server: &TestServer) -> String {
    let url = server
        .url()
        .replace("wss://", "https://")
        .replace("ws://", "http://");
    if url.ends_with('/') { url } else { url + "/" }
}

/// A server with a quick classic war game running: quick, but each outlives the second between
/// the lobby's listings of games (the shortest, five moves, takes 1.25 s), so each is listed.
async fn server() -> TestServer {
    TestServer::start(noughts_server::Config {
        war_games: true,
        war_variants: vec![Variant::Classic],
        war_move_delay: Duration::from_millis(250),
        war_restart_delay: Duration::from_millis(300),
        ..test_config()
    })
    .await
}

/// Opens the page and waits until it is online.
async fn open(client: &Client, url: &str) {
    client.goto(url).await.unwrap();
    let online = client
        .wait()
        .at_most(noughts_tests::WAIT)
        .for_element(Locator::Css("#status[data-status=\"online\"]"))
        .await;
    if online.is_err() {
        let errors = client.execute("return window.noughtsErrors;", vec![]).await;
        panic!("the page did not come online; its errors: {errors:?}");
    }
}

/// A classic game between the page on `screen` (by quick match, `rated` or not) and a rival
/// over the protocol: the rival and its snapshot of the game.
async fn against_rival(
    client: &Client,
    screen: Screen,
    server: &TestServer,
    rated: bool,
) -> (noughts_tests::Client, noughts_protocol::GameState) {
    if rated {
        // Rated games are between accounts.
        page_account(client, server).await;
        // The seek's settings are remembered: ticked once, it stays ticked.
        let ticked = wait_for(client, "#rated")
            .await
            .is_selected()
            .await
            .unwrap();
        if !ticked {
            press(client, screen, "#rated").await;
        }
    }
    press(client, screen, "#quick-match").await;
    wait_for(client, "#seeking").await;
    let mut rival = noughts_tests::Client::join(&server.url(), "rival").await;
    if rated {
        make_account(&mut rival).await;
    }
    rival
        .send(noughts_protocol::ClientMessage::Seek(
            noughts_protocol::Seek {
                variant: Variant::Classic,
                clock: None,
                rated,
                bots: false,
            },
        ))
        .await;
    let state = rival.game_state().await;
    (rival, state)
}

/// Makes the page's player an account, unless it is one, over a connection of the test's own
/// that comes back with the page's token (the page keeps its own connection).
async fn page_account(client: &Client, server: &TestServer) {
    let token = client
        .execute("return localStorage.getItem('noughts.token');", vec![])
        .await
        .expect("the page's storage");
    let token = token.as_str().expect("the page has a token");
    let mut page = noughts_tests::Client::resume(&server.url(), "page", token).await;
    match page
        .request(900, register_request("page", page.player))
        .await
    {
        noughts_protocol::ServerMessage::Registered { .. } => {}
        noughts_protocol::ServerMessage::Error {
            code: noughts_protocol::ErrorCode::NotAnAccount,
            ..
        } => {}
        other => panic!("expected registered, got {other:?}"),
    }
}

/// A server, the page open on it on `screen`, and an unrated classic game between the page and
/// a rival over the protocol: the server, the page, the rival and the rival's snapshot.
async fn page_against_rival(
    driver: &Driver,
    screen: Screen,
) -> (
    TestServer,
    Client,
    noughts_tests::Client,
    noughts_protocol::GameState,
) {
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    let (rival, state) = against_rival(&client, screen, &server, false).await;
    (server, client, rival, state)
}

/// Whether a status line says the game is over.
fn over(status: &str) -> bool {
    ["You won", "You lost", "wins", "Draw", "No result"]
        .iter()
        .any(|end| status.contains(end))
}

/// Presses (as on `screen`) the first empty cell while it is our move, until the game is over.
async fn play_out(client: &Client, screen: Screen) {
    for _ in 0..40 {
        let status = wait_for_text(client, "#game-status", |text| {
            text.contains("Your move") || over(text)
        })
        .await;
        if !status.contains("Your move") {
            return;
        }
        press(client, screen, "button.cell:not([data-mark])").await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the game did not end");
}

/// Saves a screenshot for the README when NOUGHTS_SCREENSHOTS names a directory.
pub(crate) async fn screenshot(client: &Client, name: &str) {
    if let Some(dir) = std::env::var_os("NOUGHTS_SCREENSHOTS") {
        let png = client.screenshot().await.unwrap();
        std::fs::write(std::path::Path::new(&dir).join(name), png).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_shows_the_war_games_live_and_a_game_against_the_ai_is_played_by_clicks() {
    lobby_and_a_game_against_the_ai(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_game_against_the_ai_is_played_by_touch() {
    lobby_and_a_game_against_the_ai(Screen::Phone).await;
}

/// The lobby's war games move on; a game against the AI is played to its end on `screen`.
async fn lobby_and_a_game_against_the_ai(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.on(screen).await;
    open(&client, &page(&server)).await;
    // The war game's move count goes up on the lobby as it plays.
    let first = wait_for_text(&client, "#war-games li", |t| t.contains("moves")).await;
    wait_for_text(&client, "#war-games li", |t| t != first).await;
    // Play the AI: its first settings are classic, no clock, medium, playing X.
    press(&client, screen, "#play-ai").await;
    wait_for(&client, "button.cell[data-cell=\"8\"]").await;
    assert_eq!(
        attr(&client, "button.cell[data-cell=\"4\"]", "aria-label")
            .await
            .as_deref(),
        Some("cell 5, empty")
    );
    press(&client, screen, "button.cell[data-cell=\"4\"]").await;
    wait_for(&client, "button.cell[data-cell=\"4\"][data-mark=\"X\"]").await;
    wait_for(&client, "button.cell[data-mark=\"O\"]").await;
    if screen == Screen::Desktop {
        screenshot(&client, "game.png").await;
    }
    play_out(&client, screen).await;
    wait_for_text(&client, "#game-status", over).await;
    wait_for(&client, "#game-over").await;
    if screen == Screen::Desktop {
        screenshot(&client, "game-over.png").await;
    }
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_browsers_play_through_an_invite_link_and_a_reload_resumes() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let (host, guest) = (driver.session().await, driver.session().await);
    open(&host, &page(&server)).await;
    click(&host, "#create-room").await;
    let link = attr(&host, "#invite-link", "href").await.unwrap();
    assert!(link.contains("/#room="), "{link}");
    open(&guest, &link).await;
    // The game starts in both; whoever is X moves first. The guest's address is now the game's,
    // so that a reload resumes the game instead of following the used invite again.
    for client in [&host, &guest] {
        wait_for(client, "button.cell[data-cell=\"0\"]").await;
    }
    let game = fragment(&guest).await;
    assert!(game.starts_with("game="), "{game}");
    assert_eq!(fragment(&host).await, game);
    let mut x = &host;
    let mut o = &guest;
    let status = wait_for_text(&guest, "#game-status", |t| !t.is_empty()).await;
    if status.contains("Your move") {
        std::mem::swap(&mut x, &mut o);
    }
    wait_for_text(x, "#game-status", |t| t.contains("Your move")).await;
    click(x, "button.cell[data-cell=\"4\"]").await;
    wait_for(o, "button.cell[data-cell=\"4\"][data-mark=\"X\"]").await;
    // O reloads mid-game: the same game comes back, with the move, and O is to move.
    o.refresh().await.unwrap();
    wait_for(o, "button.cell[data-cell=\"4\"][data-mark=\"X\"]").await;
    wait_for_text(o, "#game-status", |t| t.contains("Your move")).await;
    click(o, "button.cell[data-cell=\"0\"]").await;
    wait_for(x, "button.cell[data-cell=\"0\"][data-mark=\"O\"]").await;
    // Chat that holds HTML is shown as text.
    let hostile = "<img src=x id=injected><b>bold</b>";
    x.find(Locator::Id("chat-input"))
        .await
        .unwrap()
        .send_keys(hostile)
        .await
        .unwrap();
    click(x, "#chat-send").await;
    let line = wait_for_text(o, "#chat-lines", |t| t.contains("bold")).await;
    assert!(line.contains(hostile), "{line}");
    assert!(
        o.find(Locator::Id("injected")).await.is_err(),
        "no element came from the chat"
    );
    for client in [x, o] {
        assert_no_errors(client).await;
    }
    host.close().await.unwrap();
    guest.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_sees_moves_arrive_and_a_finished_game_is_replayed() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let client = driver.session().await;
    open(&client, &format!("{}#game={}", page(&server), game.0)).await;
    wait_for(&client, "button.cell[data-cell=\"0\"]").await;
    // A watcher's chat opens on the spectators' tab, and what the watcher types shows there.
    wait_for(&client, ".chat [role=\"tab\"][aria-selected=\"true\"]").await;
    wait_for_text(
        &client,
        ".chat [role=\"tab\"][aria-selected=\"true\"]",
        |t| t == "Spectators",
    )
    .await;
    client
        .find(Locator::Id("chat-input"))
        .await
        .unwrap()
        .send_keys("hello from the stands")
        .await
        .unwrap();
    click(&client, "#chat-send").await;
    wait_for_text(&client, "#chat-lines", |t| {
        t.contains("hello from the stands")
    })
    .await;
    alternate(&mut x, &mut o, game, &[0]).await;
    wait_for(&client, "button.cell[data-cell=\"0\"][data-mark=\"X\"]").await;
    // X takes the top row.
    alternate(&mut o, &mut x, game, &[3, 1, 4, 2]).await;
    let status = wait_for_text(&client, "#game-status", over).await;
    assert!(status.contains("(X) wins"), "{status}");
    // The winning line in the winner's colour (X's blue), whoever watches.
    let colours = client
        .execute(
            "return [...document.querySelectorAll('.cell.win')].map((c) => getComputedStyle(c).backgroundColor);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        colours,
        serde_json::json!([
            "rgb(124, 183, 255)",
            "rgb(124, 183, 255)",
            "rgb(124, 183, 255)"
        ])
    );
    // The finished game, replayed from its record, step by step.
    open(&client, &format!("{}#replay={}", page(&server), game.0)).await;
    client.refresh().await.unwrap();
    click(&client, "#replay-start").await;
    wait_for_text(&client, "#replay-status", |t| t.starts_with("start")).await;
    // The replay's moves in numbered pairs.
    let pairs = client
        .execute(
            "return [...document.querySelectorAll('.replay-moves li')].map((li) => li.textContent.replace(/[?]/g, ''));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(pairs, serde_json::json!(["1.X 1O 4", "2.X 2O 5", "3.X 3"]));
    click(&client, "#replay-next").await;
    let status = wait_for_text(&client, "#replay-status", |t| t.starts_with("move 1")).await;
    assert!(status.contains("X on 1"), "{status}");
    wait_for(&client, "button.cell[data-cell=\"0\"][data-mark=\"X\"]").await;
    assert!(
        client
            .find(Locator::Css("button.cell[data-cell=\"3\"][data-mark]"))
            .await
            .is_err(),
        "only the first move is on the board"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_from_another_origin_cannot_open_a_websocket() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let (home, other) = (server().await, server().await);
    let client = driver.session().await;
    open(&client, &page(&home)).await;
    // From home's page, a WebSocket to the other server: refused at the upgrade (403).
    let outcome = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const ws = new WebSocket(arguments[0]);
             ws.onopen = () => done('open');
             ws.onerror = () => done('refused');",
            vec![serde_json::json!(other.url())],
        )
        .await
        .unwrap();
    assert_eq!(outcome, serde_json::json!("refused"));
    // From its own page, it opens.
    let outcome = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const ws = new WebSocket(arguments[0]);
             ws.onopen = () => done('open');
             ws.onerror = () => done('refused');",
            vec![serde_json::json!(home.url())],
        )
        .await
        .unwrap();
    assert_eq!(outcome, serde_json::json!("open"));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_the_same_port_serves_the_page_and_its_wss_socket() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let cert = TestCert::localhost();
    let server = TestServer::start_tls(test_config(), &cert).await;
    let client = driver.session().await;
    let url = page(&server);
    assert!(url.starts_with("https://localhost:"), "{url}");
    // The page comes over https and opens its socket over wss on the same port.
    open(&client, &url).await;
    click(&client, "#play-ai").await;
    click(&client, "button.cell[data-cell=\"4\"]").await;
    wait_for(&client, "button.cell[data-cell=\"4\"][data-mark=\"X\"]").await;
    wait_for(&client, "button.cell[data-mark=\"O\"]").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
