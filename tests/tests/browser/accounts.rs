//! Accounts on the page: a guest signs up and stays signed in over a reload, a second browser
//! signs in as the same player, the server's refusals show beside their fields, a session ended
//! from one browser signs the other out, a changed password and a closed account hold, all by
//! keyboard or clicks at a desktop's size and a phone's; and a browser that signed in before
//! keeps its device cookie, so a stranger's guesses do not lock it out.

use std::time::Duration;

use fantoccini::Client;
use fantoccini::key::Key;
use noughts_protocol::{ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerMessage};
use noughts_server::{AccountConfig, ClientAddress, Config, Proxies};
use noughts_tests::accounts::{credentials, token_works, try_sign_in};
use noughts_tests::browser::{
    Driver, assert_no_errors, click, focused, keys, wait_for, wait_for_text,
};
use noughts_tests::{TestServer, read_frame, send_frame};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::audit::audit;
use super::sizes::small_targets;
use super::{open, page, screenshot};

const PASSWORD: &str = "tangerine umbrella 42";
const NEW_PASSWORD: &str = "violet harbour lantern";

/// A server without war games: nothing on the page moves but what the test does.
async fn server() -> TestServer {
    TestServer::start(noughts_tests::test_config()).await
}

/// Opens the account view from the header's link.
async fn account_view(client: &Client) {
    click(client, "#account-link").await;
    wait_for(client, "section.account").await;
}

/// Types `text` into the field `id`, replacing what it held.
async fn fill(client: &Client, id: &str, text: &str) {
    let field = wait_for(client, &format!("#{id}")).await;
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

/// Signs up the page's guest as `username` from the account view.
async fn sign_up(client: &Client, username: &str, password: &str) {
    fill(client, "register-username", username).await;
    fill(client, "register-password", password).await;
    fill(client, "register-confirm", password).await;
    click(client, "#register").await;
}

/// Signs in from the account view.
async fn sign_in(client: &Client, username: &str, password: &str) {
    fill(client, "signin-username", username).await;
    fill(client, "signin-password", password).await;
    click(client, "#signin").await;
}

/// Waits until the page is signed in to `username`: the header's link and the view say so.
async fn signed_in_as(client: &Client, username: &str) {
    wait_for(client, "#account-link[data-account=\"member\"]").await;
    wait_for_text(client, "#account-link", |t| t == username).await;
    wait_for_text(client, "#account-username", |t| t == username).await;
}

/// The player id the account view shows ("player #7").
async fn player_shown(client: &Client) -> String {
    let text = wait_for_text(client, "section.account", |t| t.contains("player #")).await;
    let at = text.find("player #").unwrap() + "player #".len();
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// The name at the top of the page.
async fn name_shown(client: &Client) -> serde_json::Value {
    client
        .execute("return document.getElementById('name').value;", vec![])
        .await
        .unwrap()
}

/// Waits until the account view lists `count` sessions; their text.
async fn sessions_listed(client: &Client, count: u64) -> String {
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    loop {
        let listed = client
            .execute(
                "const rows = document.querySelectorAll('#sessions li');
                 return [rows.length, [...rows].map((row) => row.textContent).join(' | ')];",
                vec![],
            )
            .await
            .unwrap();
        if listed[0] == count {
            return listed[1].as_str().unwrap_or("").to_owned();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the sessions listed stayed {listed}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// On a phone: no tap target under 44 px, and nothing wider than the screen.
pub(super) async fn fits_a_phone(client: &Client, what: &str) {
    assert_eq!(small_targets(client).await, serde_json::json!([]), "{what}");
    let overflow = client
        .execute(
            "return document.documentElement.scrollWidth - innerWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        overflow.as_i64().unwrap_or(1) <= 0,
        "{what}: {overflow} px too wide"
    );
}

/// The token the page keeps.
async fn stored_token(client: &Client) -> String {
    let token = client
        .execute("return localStorage.getItem('noughts.token');", vec![])
        .await
        .unwrap();
    token.as_str().expect("a token is kept").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_signs_up_stays_signed_in_and_a_second_browser_signs_in_as_the_same_player() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let (laptop, phone) = (driver.session().await, driver.phone().await);
    open(&laptop, &page(&server)).await;
    account_view(&laptop).await;
    let player = player_shown(&laptop).await;
    sign_up(&laptop, "ada_1815", PASSWORD).await;
    signed_in_as(&laptop, "ada_1815").await;
    assert_eq!(
        player_shown(&laptop).await,
        player,
        "the guest became the account"
    );
    let name = name_shown(&laptop).await;
    // A reload says hello with the kept token: still the account.
    laptop.refresh().await.unwrap();
    wait_for(&laptop, "#status[data-status=\"online\"]").await;
    signed_in_as(&laptop, "ada_1815").await;
    wait_for(&laptop, "#sessions li[data-current=\"true\"] .this-device").await;

    // A phone signs in: the same player, by id and name.
    open(&phone, &page(&server)).await;
    account_view(&phone).await;
    fits_a_phone(&phone, "the guest's account view").await;
    sign_in(&phone, "ada_1815", PASSWORD).await;
    signed_in_as(&phone, "ada_1815").await;
    assert_eq!(player_shown(&phone).await, player);
    assert_eq!(name_shown(&phone).await, name);
    let listed = sessions_listed(&phone, 2).await;
    assert!(listed.contains("Chrome on Android"), "{listed}");
    assert!(
        listed.contains("this device")
            && listed.contains("last seen")
            && listed.contains("from 127.0.0.0/24"),
        "{listed}"
    );
    assert_eq!(
        audit(&phone).await,
        Vec::<String>::new(),
        "the account view on a phone"
    );
    fits_a_phone(&phone, "the account's view").await;
    let phone_token = stored_token(&phone).await;

    // The laptop's list shows the phone without a refresh; the laptop ends the phone's session:
    // the phone is signed out, its token refused.
    sessions_listed(&laptop, 2).await;
    screenshot(&laptop, "account.png").await;
    click(
        &laptop,
        "#sessions li[data-current=\"false\"] button.revoke",
    )
    .await;
    wait_for_text(&laptop, "#account-done", |t| {
        t.contains("session has ended")
    })
    .await;
    // The result, and whom the page is signed in as, each said once.
    let said = laptop
        .execute(
            "const text = document.body.innerText;
             return [text.split('session has ended').length - 1, text.split('Signed in as').length - 1];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(said, serde_json::json!([1, 1]));
    wait_for_text(&phone, "#notice", |t| t.contains("signed out of ada_1815")).await;
    wait_for(&phone, "#account-link[data-account=\"guest\"]").await;
    // The new guest does not take the account's name: a guest's of its own, which it may change.
    wait_for(&phone, "#name:not([readonly])").await;
    let guest = name_shown(&phone).await;
    assert!(guest != "ada_1815" && guest != "", "{guest}");
    // Nothing of the account stays on the phone's view: it is a guest's now.
    wait_for(&phone, "#register-form").await;
    let stale = phone
        .execute(
            "return ['#account-username', '#account-done', '#sessions'].filter((css) => document.querySelector(css));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(stale, serde_json::json!([]));
    assert!(!token_works(&server.url(), &phone_token).await);
    let left = sessions_listed(&laptop, 1).await;
    assert!(left.contains("this device"), "{left}");
    assert_eq!(
        audit(&laptop).await,
        Vec::<String>::new(),
        "the account view"
    );
    for client in [&laptop, &phone] {
        assert_no_errors(client).await;
    }
    laptop.close().await.unwrap();
    phone.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_refusals_show_beside_their_fields_and_the_forms_work_by_keyboard() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let mut owner = noughts_tests::Client::join(&server.url(), "owner").await;
    noughts_tests::accounts::registered(&mut owner, "ada_1815", PASSWORD).await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    // By keyboard: from the name, Tab reaches the account link, Enter opens the view, and Tab
    // goes on into the sign-up form.
    click(&client, "#name").await;
    keys(&client, &[char::from(Key::Tab)]).await;
    assert_eq!(focused(&client).await["id"], "account-link");
    keys(&client, &[char::from(Key::Enter)]).await;
    wait_for(&client, "section.account").await;
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    while focused(&client).await["id"] != "register-username" {
        assert!(
            tokio::time::Instant::now() < deadline,
            "Tab never reached the form"
        );
        keys(&client, &[char::from(Key::Tab)]).await;
    }
    // A taken name (in other capitals), typed and sent by keyboard alone.
    let typed: Vec<char> = format!(
        "ADA_1815{tab}{PASSWORD}{tab}{PASSWORD}{enter}",
        tab = char::from(Key::Tab),
        enter = char::from(Key::Enter)
    )
    .chars()
    .collect();
    keys(&client, &typed).await;
    let said = wait_for_text(
        &client,
        "#register-username-error[data-code=\"username_taken\"]",
        |t| !t.is_empty(),
    )
    .await;
    assert!(said.contains("taken"), "{said}");
    let invalid = wait_for(&client, "#register-username").await;
    assert_eq!(
        invalid.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true")
    );
    let described = invalid.attr("aria-describedby").await.unwrap().unwrap();
    assert!(described.contains("register-username-error"), "{described}");
    // A bad username and a weak password, each beside its field.
    sign_up(&client, "ada lovelace", PASSWORD).await;
    wait_for(
        &client,
        "#register-username-error[data-code=\"bad_username\"]",
    )
    .await;
    sign_up(&client, "ada_lovelace", "password").await;
    wait_for(
        &client,
        "#register-password-error[data-code=\"weak_password\"]",
    )
    .await;
    fill(&client, "register-password", "a long enough one").await;
    fill(&client, "register-confirm", "another one here").await;
    click(&client, "#register").await;
    wait_for_text(&client, "#register-confirm-error", |t| t.contains("differ")).await;
    // A wrong password gets bad_credentials' words, and the page stays the guest it was.
    sign_in(&client, "ada_1815", "not the password at all").await;
    let said = wait_for_text(
        &client,
        "#signin-error[data-code=\"bad_credentials\"]",
        |t| !t.is_empty(),
    )
    .await;
    assert!(said.contains("do not match an account"), "{said}");
    wait_for(&client, "#status[data-status=\"online\"]").await;
    wait_for(&client, "#account-link[data-account=\"guest\"]").await;
    // Guess on: after ten wrong passwords the server makes each try wait, and the page says
    // how long, and until when.
    let mut code = String::new();
    for _ in 0..20 {
        sign_in(&client, "ada_1815", "not the password at all").await;
        wait_for(&client, "#signin:not([disabled])").await;
        let answered = wait_for(&client, "#signin-error").await;
        code = answered
            .attr("data-code")
            .await
            .unwrap()
            .unwrap_or_default();
        if code == "too_many_attempts" {
            break;
        }
    }
    assert_eq!(code, "too_many_attempts");
    let said = wait_for_text(&client, "#signin-error", |t| !t.is_empty()).await;
    assert!(
        said.contains("try again in") && said.contains("(at "),
        "{said}"
    );
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_password_signs_the_others_out_and_a_closed_account_cannot_sign_in() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let (first, second) = (driver.session().await, driver.session().await);
    open(&first, &page(&server)).await;
    account_view(&first).await;
    sign_up(&first, "grace", PASSWORD).await;
    signed_in_as(&first, "grace").await;
    open(&second, &page(&server)).await;
    account_view(&second).await;
    sign_in(&second, "grace", PASSWORD).await;
    signed_in_as(&second, "grace").await;

    // A wrong current password is said beside it; the right one changes it, and the second
    // browser is signed out.
    fill(&first, "password-current", "not it at all").await;
    fill(&first, "password-new", NEW_PASSWORD).await;
    fill(&first, "password-confirm", NEW_PASSWORD).await;
    click(&first, "#change-password").await;
    wait_for(
        &first,
        "#password-current-error[data-code=\"bad_credentials\"]",
    )
    .await;
    fill(&first, "password-current", PASSWORD).await;
    fill(&first, "password-new", NEW_PASSWORD).await;
    fill(&first, "password-confirm", NEW_PASSWORD).await;
    click(&first, "#change-password").await;
    wait_for_text(&first, "#account-done", |t| {
        t.contains("password is changed")
    })
    .await;
    wait_for(&second, "#account-link[data-account=\"guest\"]").await;
    assert!(
        try_sign_in(&server.url(), "grace", PASSWORD, None)
            .await
            .is_err()
    );
    assert!(
        try_sign_in(&server.url(), "grace", NEW_PASSWORD, None)
            .await
            .is_ok()
    );

    // Closing asks for the password and a confirmation; then nobody can sign in to it.
    account_view(&second).await;
    sign_in(&second, "grace", NEW_PASSWORD).await;
    signed_in_as(&second, "grace").await;
    fill(&second, "close-password", NEW_PASSWORD).await;
    click(&second, "#close-account").await;
    wait_for_text(&second, "#close-question", |t| t.contains("for good")).await;
    assert_eq!(focused(&second).await["id"], "close-confirm");
    click(&second, "#close-confirm").await;
    wait_for_text(&second, "#notice", |t| t.contains("grace is closed")).await;
    wait_for(&second, "#account-link[data-account=\"guest\"]").await;
    wait_for(&first, "#account-link[data-account=\"guest\"]").await;
    wait_for(&second, "#status[data-status=\"online\"]").await;
    account_view(&second).await;
    sign_in(&second, "grace", NEW_PASSWORD).await;
    wait_for(&second, "#signin-error[data-code=\"bad_credentials\"]").await;
    // Logging out: a new account signs up, logs out, and the page is a guest again.
    sign_up(&second, "grace_hopper", NEW_PASSWORD).await;
    signed_in_as(&second, "grace_hopper").await;
    click(&second, "#logout").await;
    wait_for_text(&second, "#notice", |t| t.contains("logged out")).await;
    wait_for(&second, "#account-link[data-account=\"guest\"]").await;
    wait_for(&second, "#status[data-status=\"online\"]").await;
    for client in [&first, &second] {
        assert_no_errors(client).await;
    }
    first.close().await.unwrap();
    second.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_rated_quick_match_is_refused_in_words_until_it_signs_up() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let server = server().await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    click(&client, "#rated").await;
    click(&client, "#quick-match").await;
    // Said beside the button pressed, not at the foot of the page.
    let said = wait_for_text(&client, "[data-feedback=\"seek\"] #notice", |t| {
        !t.is_empty()
    })
    .await;
    assert!(
        said.starts_with("Rated games are between registered players"),
        "{said}"
    );
    // Signed up, the same press seeks a rated game.
    account_view(&client).await;
    sign_up(&client, "ada_rated", PASSWORD).await;
    signed_in_as(&client, "ada_rated").await;
    click(&client, "a.brand").await;
    wait_for(&client, "#quick-match").await;
    let rated = wait_for(&client, "#rated").await;
    if !rated.is_selected().await.unwrap() {
        click(&client, "#rated").await;
    }
    click(&client, "#quick-match").await;
    wait_for(&client, "#seeking").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}

/// A stranger's wrong password for `username`, from `address` as a trusted proxy says.
async fn strangers_guess(server: &TestServer, address: &str, username: &str) -> ErrorCode {
    let mut request = server.url().into_client_request().unwrap();
    let forwarded = address.parse().unwrap();
    request.headers_mut().append("x-forwarded-for", forwarded);
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "stranger".to_owned(),
        token: None,
        credentials: Some(credentials(username, "not the password at all", None)),
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    match read_frame(&mut socket).await.expect("an answer").message {
        ServerMessage::Error { code, .. } => code,
        other => panic!("a stranger's guess is refused, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_signed_in_before_is_not_locked_out_by_a_strangers_guesses() {
    let Some(driver) = Driver::start().await else {
        return;
    };
    // Strangers come through a trusted proxy from addresses of their own; the page comes from
    // loopback itself. The first wait is long, so the username stays locked meanwhile.
    let server = TestServer::start(Config {
        proxies: Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address: ClientAddress::XForwardedFor,
        },
        accounts: AccountConfig {
            tls_proxy: true,
            first_delay: Duration::from_secs(600),
            ..AccountConfig::default()
        },
        ..noughts_tests::test_config()
    })
    .await;
    let client = driver.session().await;
    open(&client, &page(&server)).await;
    account_view(&client).await;
    sign_up(&client, "ada_1815", PASSWORD).await;
    signed_in_as(&client, "ada_1815").await;
    let kept = client
        .execute(
            "return localStorage.getItem('noughts.deviceCookies');",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        kept.as_str().is_some_and(|c| c.contains("ada_1815")),
        "the page keeps the cookie registering gave it: {kept:?}"
    );

    for n in 1..=10 {
        let code = strangers_guess(&server, &format!("203.0.113.{n}"), "ada_1815").await;
        assert_eq!(code, ErrorCode::BadCredentials, "guess {n}");
    }
    let code = strangers_guess(&server, "203.0.113.11", "ada_1815").await;
    assert_eq!(code, ErrorCode::TooManyAttempts, "the username is locked");

    // This browser, a guest again, signs in at once with the cookie it kept.
    client
        .execute(
            "localStorage.removeItem('noughts.token'); \
             localStorage.removeItem('noughts.username');",
            vec![],
        )
        .await
        .unwrap();
    client.refresh().await.unwrap();
    wait_for(&client, "#account-link[data-account=\"guest\"]").await;
    account_view(&client).await;
    sign_in(&client, "ada_1815", PASSWORD).await;
    signed_in_as(&client, "ada_1815").await;
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
