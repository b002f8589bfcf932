//! Arenas on the page: the lobby lists an arena that starts soon, with its players; its standings
//! open beside the list, and a guest's Join is refused in words, without a script error. A player
//! with an account joins a running arena from the lobby, on a desktop and on a phone: the list
//! marks it joined (still after a reload; unmarked at once when another tab withdraws), the game
//! it pairs them into opens by itself and is played, and after it ends the page is back on the
//! standings with the points won (by itself, or at once with "Back to the arena"); Withdraw marks
//! them withdrawn and offers Rejoin, and the podium shows once the arena is over. On the phone
//! nothing is too small to tap or wider than the screen, and axe finds nothing serious.
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fantoccini::Locator;
use fantoccini::key::Key;
use noughts_engine::Variant;
use noughts_protocol::{ArenaId, ClientMessage, ClockSpec, CreateArena, Mark, ServerMessage};
use noughts_tests::accounts::make_account;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, click, keys, press, wait_for, wait_for_text,
};
use noughts_tests::{Client, TestServer, test_config};
use serde_json::json;

use super::accounts::fits_a_phone;
use super::audit::audit;
use super::{open, page_account, screenshot};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_an_arena_and_opens_its_standings() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = TestServer::start(test_config()).await;
    let mut players = Vec::new();
    for name in ["ada", "bob"] {
        let mut client = Client::join(&server.url(), name).await;
        make_account(&mut client).await;
        players.push(client);
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let request = CreateArena {
        name: Some("Friday arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        // Upcoming throughout: nobody is paired while the page looks.
        start_ms: Some(u64::try_from(now.as_millis()).unwrap() + 600_000),
        length_secs: 1800,
        private: false,
        bots_only: false,
    };
    let arena = match players[0]
        .request(1, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    for client in &mut players {
        let joined = client.request(2, ClientMessage::JoinArena { arena, code: None });
        assert!(matches!(joined.await, ServerMessage::Arena(_)));
    }
    let client = driver.session().await;
    open(&client, &server.url().replace("ws://", "http://")).await;
    wait_for_text(&client, "#arenas li", |t| {
        t.contains("Friday arena · classic") && t.contains("upcoming · 2 players")
    })
    .await;
    click(&client, "[data-standings]").await;
    wait_for_text(&client, "#arena-totals", |t| {
        t == "2 players · 0 games counted · 0 in play"
    })
    .await;
    wait_for_text(&client, "#arena-top", |t| {
        t.contains("1. ") && t.contains("2. ")
    })
    .await;
    click(&client, "[data-join-arena]").await;
    wait_for_text(&client, "body", |t| t.contains("register an account")).await;
    assert_no_errors(&client).await;
}

/// How long the played arena lasts: time for the page to join, reload, play and withdraw, even
/// on a busy machine.
const ARENA_SECS: u32 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_joins_a_running_arena_plays_the_game_it_pairs_and_withdraws() {
    join_play_and_withdraw(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_a_player_joins_an_arena_plays_its_game_by_touch_and_withdraws() {
    join_play_and_withdraw(Screen::Phone).await;
}

/// The lobby's row of `arena` says the player is in it, and offers Withdraw.
async fn marked_joined(client: &fantoccini::Client, arena: ArenaId) {
    let row = format!("#arenas li[data-arena=\"{arena}\"]");
    wait_for(
        client,
        &format!("{row}[data-joined=\"true\"] [data-joined-mark]"),
    )
    .await;
    wait_for_text(client, &format!("{row} [data-withdraw-arena]"), |t| {
        t == "Withdraw"
    })
    .await;
    let label = client
        .find(Locator::Css(&format!("{row} [data-withdraw-arena]")))
        .await
        .unwrap()
        .attr("aria-label")
        .await
        .unwrap();
    assert_eq!(label.as_deref(), Some("Withdraw from Noon arena"));
}

/// A player with an account joins a running arena on `screen`, sees it marked, plays the game
/// it pairs them into, comes back to the standings and withdraws; then the podium.
async fn join_play_and_withdraw(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    // A short arena, so that its podium shows too.
    let config = noughts_server::Config {
        arena_min_secs: 1,
        ..test_config()
    };
    let server = TestServer::start(config).await;
    let mut rival = Client::join(&server.url(), "rival").await;
    make_account(&mut rival).await;
    let request = CreateArena {
        name: Some("Noon arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        // Running from now on, long enough for the page to join, play and withdraw.
        start_ms: None,
        length_secs: ARENA_SECS,
        private: false,
        bots_only: false,
    };
    let arena = match rival.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    let ends = tokio::time::Instant::now() + Duration::from_secs(ARENA_SECS.into());
    let client = driver.on(screen).await;
    let url = server.url().replace("ws://", "http://");
    open(&client, &url).await;
    page_account(&client, &server).await;
    wait_for_text(&client, "#arenas li", |t| {
        t.contains("Noon arena · classic") && t.contains("running · 0 players")
    })
    .await;
    let join = format!("[data-join-arena=\"{arena}\"]");
    if screen == Screen::Desktop {
        // By keyboard: Enter on Join; the focus stays on the button, Withdraw now.
        let button = wait_for(&client, &join).await;
        let focus = "arguments[0].focus();";
        client.execute(focus, vec![json!(button)]).await.unwrap();
        keys(&client, &[Key::Enter.into()]).await;
    } else {
        press(&client, screen, &join).await;
    }
    wait_for_text(&client, "#arena-totals", |t| t.starts_with("1 player ·")).await;
    marked_joined(&client, arena).await;
    if screen == Screen::Desktop {
        let on = "return document.activeElement.dataset.withdrawArena ?? null;";
        let on = client.execute(on, vec![]).await.unwrap();
        assert_eq!(
            on,
            json!(arena.to_string()),
            "the focus stayed on the button"
        );
    }
    wait_for_text(&client, "#arena-standings h3", |t| t.contains("Joined")).await;
    wait_for(&client, "#arena-withdraw").await;
    if screen == Screen::Desktop {
        // A reload: the server says again which arenas the player is in.
        client.refresh().await.unwrap();
        open(&client, &url).await;
        marked_joined(&client, arena).await;
        click(&client, &format!("[data-standings=\"{arena}\"]")).await;
        wait_for(&client, "#arena-withdraw").await;
        other_tab_withdraws(&client, &server, arena).await;
        click(&client, &join).await;
        marked_joined(&client, arena).await;
    } else {
        fits_a_phone(&client, "the lobby with an arena joined").await;
        let found = audit(&client).await;
        assert_eq!(
            found,
            Vec::<String>::new(),
            "the lobby with an arena joined"
        );
        screenshot(&client, "arena-phone-joined.png").await;
    }
    play_the_paired_game(&client, screen, &mut rival, arena).await;
    // The finished board for a moment, with no rematch (the arena pairs again) and a way back.
    wait_for_text(&client, "#arena-next", |t| t.contains("Noon arena")).await;
    wait_for(&client, "#back-to-arena").await;
    let rematch = client.find_all(Locator::Css("#rematch")).await.unwrap();
    assert!(rematch.is_empty(), "an arena game offers no rematch");
    // Both seats show their player's name, on a phone too.
    let mut names = seat_names(&client).await;
    names.sort();
    assert_eq!(names, ["page", "rival"]);
    if screen == Screen::Phone {
        fits_a_phone(&client, "an arena game's end").await;
        screenshot(&client, "arena-phone-game.png").await;
        // Back at once, by touch, rather than after the moment.
        press(&client, screen, "#back-to-arena").await;
    }
    // Back on the standings (by itself on the desktop), the win counted.
    wait_for_text(&client, "#arena-totals", |t| {
        t == "2 players · 1 game counted · 0 in play"
    })
    .await;
    let top = wait_for_text(&client, "#arena-top", |t| t.contains("2 points")).await;
    assert!(top.starts_with("1. page"), "the page's player leads: {top}");
    // The standings on screen (below the ways to play, screens down on a phone), the focus on
    // them for a keyboard or a screen reader.
    let shown = client
        .execute(
            "const s = document.getElementById('arena-standings');
             const r = s.getBoundingClientRect();
             return [r.top >= 0 && r.top < innerHeight, document.activeElement === s];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        shown,
        serde_json::json!([true, true]),
        "the standings in view, focused"
    );
    if screen == Screen::Phone {
        fits_a_phone(&client, "the arena's standings").await;
        screenshot(&client, "arena-phone-standings.png").await;
    }
    press(&client, screen, "#arena-withdraw").await;
    wait_for_text(&client, "#arena-top li:first-child", |t| {
        t.contains("withdrawn")
    })
    .await;
    // No longer marked: the list offers Join again, the standings Rejoin.
    let row = format!("#arenas li[data-arena=\"{arena}\"]");
    wait_for(
        &client,
        &format!("{row}[data-joined=\"false\"] [data-join-arena]"),
    )
    .await;
    wait_for_text(&client, "#arena-join", |t| t == "Rejoin").await;
    // Once its time is up, the podium, the page's player on top.
    tokio::time::sleep_until(ends).await;
    wait_for_text(&client, "#arena-standings h3", |t| t.ends_with("finished")).await;
    let podium = wait_for_text(&client, "#arena-podium", |t| t.contains("2. ")).await;
    assert!(podium.starts_with("1. page"), "{podium}");
    for gone in ["#arena-withdraw", "#arena-join"] {
        let found = client.find_all(Locator::Css(gone)).await.unwrap();
        assert!(found.is_empty(), "{gone} after the arena finished");
    }
    assert_no_errors(&client).await;
}

/// Another tab of the page's account withdraws from `arena`: the page unmarks it at once.
async fn other_tab_withdraws(client: &fantoccini::Client, server: &TestServer, arena: ArenaId) {
    let token = client
        .execute("return localStorage.getItem('noughts.token');", vec![])
        .await
        .unwrap();
    let token = token.as_str().expect("the page keeps a token");
    let mut tab = Client::resume(&server.url(), "page", token).await;
    let withdraw = ClientMessage::WithdrawArena { arena };
    assert_eq!(tab.request(1, withdraw).await, ServerMessage::Ok);
    let row = format!("#arenas li[data-arena=\"{arena}\"]");
    wait_for(
        client,
        &format!("{row}[data-joined=\"false\"] [data-join-arena]"),
    )
    .await;
    wait_for_text(client, "#arena-join", |t| t == "Rejoin").await;
}

/// The rival joins `arena`: the server pairs the two, and the game opens on the page by itself;
/// the page plays a move (after the rival's first when the rival has X), then the rival resigns.
async fn play_the_paired_game(
    client: &fantoccini::Client,
    screen: Screen,
    rival: &mut Client,
    arena: ArenaId,
) {
    let joined = rival.request(2, ClientMessage::JoinArena { arena, code: None });
    assert!(matches!(joined.await, ServerMessage::Arena(_)));
    let state = rival.game_state().await;
    let game = state.game;
    wait_for(client, &format!("div.game[data-game=\"{}\"]", game.0)).await;
    if state.you == Some(Mark::X) {
        rival.send(ClientMessage::Move { game, cell: 0 }).await;
    }
    let page_cell = 4;
    wait_for_text(client, "#game-status", |t| t.contains("Your move")).await;
    press(
        client,
        screen,
        &format!("button.cell[data-cell=\"{page_cell}\"]"),
    )
    .await;
    rival
        .saw(|m| matches!(m, ServerMessage::Moved { cell, .. } if *cell == page_cell))
        .await;
    rival.request(3, ClientMessage::Resign { game }).await;
}

/// The names the seats show ("(hidden)" for one a style hides).
async fn seat_names(client: &fantoccini::Client) -> Vec<String> {
    let names = client
        .execute(
            "return [...document.querySelectorAll('.seat .profile-link')].map((a) =>
               a.getBoundingClientRect().width > 0 && parseFloat(getComputedStyle(a).fontSize) > 0
                 ? a.textContent : '(hidden)');",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(names).unwrap()
}
