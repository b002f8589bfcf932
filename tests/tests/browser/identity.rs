//! One identity: two guests sign up (one on the page, one over the protocol) and play a rated
//! game; then every place a name appears shows the usernames alone, never a guest's name nor a
//! `#N` beside it: the page (seats, chat, lobby, leaderboard, a profile reached from a name), the
//! terminal client (history and leaderboard), and the protocol's `game_state`, `chat`, `lobby`,
//! `game_record`, `history` and `leaderboard`. Bob is a bot account, marked `BOT` in each of
//! those places on the page and in the terminal's leaderboard.

use fantoccini::Client;
use noughts_engine::Variant;
use noughts_protocol::{ClientMessage, GameState, History, Leaderboard, Seek, ServerMessage};
use noughts_tests::accounts::{TEST_PASSWORD, registered};
use noughts_tests::browser::{Driver, assert_no_errors, click, wait_for, wait_for_text};
use noughts_tests::tmux::Tmux;
use noughts_tests::{TestServer, binary};

use super::{open, page};

const ADA: &str = "ada_walk";
const BOB: &str = "bob_walk";

/// Whether `text` names a player the old ways: a generated guest's name, or a name with `#N`.
fn old_names(text: &str) -> Vec<String> {
    let mut found: Vec<String> = text
        .match_indices("guest-")
        .map(|(at, _)| text[at..].chars().take(12).collect())
        .collect();
    let chars: Vec<char> = text.chars().collect();
    for (i, pair) in chars.windows(3).enumerate() {
        if (pair[0].is_alphanumeric() || pair[0] == '_')
            && pair[1] == '#'
            && pair[2].is_ascii_digit()
        {
            found.push(chars[i.saturating_sub(8)..(i + 3)].iter().collect());
        }
    }
    found
}

/// Asserts that `text` (`what`) names both accounts by their usernames and nobody the old ways.
fn named_by_usernames(what: &str, text: &str) {
    assert!(text.contains(ADA) && text.contains(BOB), "{what}: {text}");
    assert_eq!(old_names(text), Vec::<String>::new(), "{what}: {text}");
}

/// A protocol message's JSON: both usernames, neither marked a guest, no old names.
fn json_named_by_usernames(what: &str, message: &ServerMessage) {
    let json = serde_json::to_string(message).unwrap();
    named_by_usernames(what, &json);
    assert!(!json.contains("\"guest\":true"), "{what}: {json}");
}

/// The page's text.
async fn page_text(client: &Client) -> String {
    let text = client
        .execute("return document.body.innerText;", vec![])
        .await
        .unwrap();
    text.as_str().unwrap_or_default().to_owned()
}

/// Waits until the page's text names both accounts by their usernames (`what` it shows), with no
/// guest's tag on anyone.
async fn page_names_usernames(client: &Client, what: &str) {
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    loop {
        let text = page_text(client).await;
        if text.contains(ADA) && text.contains(BOB) {
            named_by_usernames(what, &text);
            let tags = client
                .execute(
                    "return document.querySelectorAll('.guest-tag').length;",
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(tags, 0, "{what}: nobody is a guest");
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: the page never named both: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The page's guest signs up as `username` from the account view.
async fn sign_up(client: &Client, username: &str) {
    click(client, "#account-link").await;
    for (id, text) in [
        ("register-username", username),
        ("register-password", TEST_PASSWORD),
        ("register-confirm", TEST_PASSWORD),
    ] {
        let field = wait_for(client, &format!("#{id}")).await;
        field.clear().await.unwrap();
        field.send_keys(text).await.unwrap();
    }
    click(client, "#register").await;
    wait_for(client, "#account-link[data-account=\"member\"]").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_guests_sign_up_play_rated_and_are_named_by_their_usernames_everywhere() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = TestServer::start(noughts_tests::test_config()).await;
    let url = server.url();
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    let guest = client
        .execute("return document.getElementById('name').value;", vec![])
        .await
        .unwrap();
    assert!(guest.as_str().unwrap().starts_with("guest-"), "{guest}");
    // Ada signs up on the page; the name at its top is her username from then on.
    sign_up(&client, ADA).await;
    wait_for(&client, "#name[readonly]").await;
    let name = client
        .execute("return document.getElementById('name').value;", vec![])
        .await
        .unwrap();
    assert_eq!(name, ADA);
    // Bob signs up over the protocol; a guest, cy, follows the lobby.
    let mut bob = noughts_tests::Client::join(&url, "bob").await;
    registered(&mut bob, BOB, TEST_PASSWORD).await;
    assert_eq!(
        bob.request(899, ClientMessage::BecomeBot).await,
        ServerMessage::Ok
    );
    let mut cy = noughts_tests::Client::join(&url, "cy").await;
    cy.send(ClientMessage::SubscribeLobby).await;
    cy.until(|m| matches!(m, ServerMessage::Lobby { .. })).await;
    bob.send(ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: true,
        bots: false,
    }))
    .await;
    let seek = cy
        .until(|m| matches!(m, ServerMessage::LobbyUpdate(u) if !u.seeks.is_empty()))
        .await;
    let ServerMessage::LobbyUpdate(update) = &seek else {
        unreachable!()
    };
    assert_eq!(update.seeks[0].name, BOB);
    assert!(!update.seeks[0].guest, "{seek:?}");

    // On the page's lobby, Bob's seek under his username; Ada takes it.
    click(&client, "a.brand").await;
    let seek = wait_for_text(&client, "#seeks li", |t| t.contains(BOB)).await;
    assert_eq!(old_names(&seek), Vec::<String>::new(), "{seek}");
    wait_for(&client, "#seeks li .bot-tag").await;
    click(&client, "[data-seek]").await;
    let state: GameState = bob.game_state().await;
    assert!(state.rated);
    json_named_by_usernames(
        "bob's game_state",
        &ServerMessage::GameState(Box::new(state.clone())),
    );
    wait_for(&client, "[data-seat=\"x\"]").await;
    wait_for(&client, "[data-seat] .bot-tag").await;
    // The chat both ways: each line under its speaker's username.
    bob.say(state.game, "good luck").await;
    wait_for_text(&client, "#chat-lines", |t| t.contains("good luck")).await;
    wait_for(&client, "#chat-lines .bot-tag").await;
    let chat = wait_for(&client, "#chat-input").await;
    chat.send_keys("thanks").await.unwrap();
    click(&client, "#chat-send").await;
    let line = bob
        .until(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == "thanks"))
        .await;
    let ServerMessage::Chat { line, .. } = &line else {
        unreachable!()
    };
    assert_eq!((line.from.as_str(), line.guest), (ADA, false));
    page_names_usernames(&client, "the game: seats and chat").await;
    // The lobby's listing of the game, as a follower of the lobby is sent it.
    let listed = cy
        .until(|m| {
            matches!(m, ServerMessage::LobbyUpdate(u) if u.games.iter().any(|g| g.game == state.game))
        })
        .await;
    json_named_by_usernames("the lobby's update", &listed);

    // Bob resigns: a rated result.
    bob.send(ClientMessage::Resign { game: state.game }).await;
    wait_for(&client, "#rating-change").await;
    let record = bob
        .request(10, ClientMessage::GameRecord { game: state.game })
        .await;
    json_named_by_usernames("game_record", &record);
    let history = bob
        .request(
            11,
            ClientMessage::History(History {
                player: None,
                before: None,
                limit: None,
            }),
        )
        .await;
    json_named_by_usernames("history", &history);
    let leaderboard = bob
        .request(
            12,
            ClientMessage::Leaderboard(Leaderboard {
                variant: Variant::Classic,
                offset: None,
                limit: None,
            }),
        )
        .await;
    json_named_by_usernames("leaderboard", &leaderboard);

    // The page's leaderboard; a name there leads to the profile.
    client
        .goto(&format!("{}#leaderboard=classic", page(&server)))
        .await
        .unwrap();
    wait_for_text(&client, "#leaderboard-list", |t| t.contains(BOB)).await;
    wait_for(&client, "#leaderboard-list .bot-tag").await;
    page_names_usernames(&client, "the leaderboard").await;
    click(
        &client,
        &format!("#leaderboard-list a[data-profile=\"{}\"]", bob.player),
    )
    .await;
    let tagged = format!("BOT {BOB}");
    wait_for_text(&client, "#profile-name", |t| t == tagged).await;
    wait_for(&client, "#profile-ratings tr[data-variant=\"classic\"]").await;
    page_names_usernames(&client, "bob's profile").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();

    in_the_terminal(&url, &bob).await;
}

/// The terminal client, as Bob (with his token): his history and the leaderboard name both
/// accounts by their usernames.
async fn in_the_terminal(url: &str, bob: &noughts_tests::Client) {
    if !Tmux::available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing, and CI must run the terminal tests"
        );
        println!("skipped the terminal's part: tmux is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("noughts-identity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tokens"), format!("{url} {}\n", bob.token)).unwrap();
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {url} --name bob",
        dir.display(),
        binary::path("noughts").display(),
    );
    let tmux = Tmux::start("identity", 120, 30, &command);
    tmux.wait_for("the lobby", |s| s.contains("online")).await;
    tmux.send("H");
    let history = tmux
        .wait_for("bob's history with his profile", |s| {
            s.contains(ADA) && s.contains(BOB) && s.contains("classic ")
        })
        .await;
    named_by_usernames("the terminal's history", &history);
    assert!(!history.contains("(guest)"), "{history}");
    tmux.send("L");
    let board = tmux
        .wait_for("the leaderboard", |s| {
            s.contains("rating") && s.contains(ADA) && s.contains(BOB)
        })
        .await;
    named_by_usernames("the terminal's leaderboard", &board);
    assert!(board.contains(&format!("BOT {BOB}")), "{board}");
    tmux.send("q");
}
