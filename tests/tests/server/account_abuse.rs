//! Accounts against people who are not their owners: a username that only looks like one held
//! (`reuse-x` beside `reuse_x`, even a closed account's) is taken, a display name that imitates
//! the closed mark is refused, and a stranger's wrong passwords from many addresses do not stop
//! the owner's own devices (their device cookies) while they still stop every other device.

use std::time::Duration;

use noughts_protocol::{
    ChangePassword, ClientFrame, ClientMessage, CloseAccount, ErrorCode, PROTOCOL_VERSION,
    ServerMessage,
};
use noughts_server::{AccountConfig, ClientAddress, Config, Proxies};
use noughts_tests::accounts::{credentials, register, registered};
use noughts_tests::hello::hello_answer;
use noughts_tests::{Client, Socket, TestServer, WAIT, read_frame, send_frame, test_config};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::accounts::refusal;

const PASSWORD: &str = "tangerine umbrella 42";
const NEW_PASSWORD: &str = "violet harbour lantern";

#[tokio::test]
async fn a_username_that_looks_like_a_held_one_is_taken_even_a_closed_accounts_and_reserved_ones_are_refused()
 {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let mut holder = Client::join(&url, "holder").await;
    registered(&mut holder, "reuse_x", PASSWORD).await;
    let mut other = Client::join(&url, "other").await;
    for (id, look_alike) in [(1, "reuse-x"), (2, "REUSE-X"), (3, "Reuse_X")] {
        let answer = register(&mut other, id, look_alike, PASSWORD).await;
        assert_eq!(refusal(answer).0, ErrorCode::UsernameTaken, "{look_alike}");
    }
    let close = ClientMessage::CloseAccount(CloseAccount {
        password: PASSWORD.to_owned(),
    });
    assert_eq!(holder.request(4, close).await, ServerMessage::Ok);
    let answer = register(&mut other, 5, "reuse-x", PASSWORD).await;
    assert_eq!(
        refusal(answer).0,
        ErrorCode::UsernameTaken,
        "a closed account holds its look-alikes too"
    );
    registered(&mut other, "reuse-y", PASSWORD).await;
    // A name reserved as display names are is refused too.
    let mut third = Client::join(&url, "third").await;
    for (id, reserved) in [(6, "admin"), (7, "AI-perfect")] {
        let answer = register(&mut third, id, reserved, PASSWORD).await;
        assert_eq!(refusal(answer).0, ErrorCode::ReservedName, "{reserved}");
    }
}

#[tokio::test]
async fn a_display_name_that_imitates_the_closed_mark_is_refused() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let imitations = [
        "orig ( closed )",
        "orig (CLOSED)",
        "orig \u{ff08}closed\u{ff09}",
        "orig (cl0sed)",
        "orig (\u{0441}losed)",
    ];
    for name in imitations {
        let answer = hello_answer(&url, name, None).await;
        assert_eq!(refusal(answer).0, ErrorCode::ReservedName, "{name:?}");
    }
    let mut orig = Client::join(&url, "orig").await;
    for (id, name) in (1..).zip(imitations) {
        let rename = ClientMessage::Rename {
            name: name.to_owned(),
        };
        let answer = orig.request(id, rename).await;
        assert_eq!(refusal(answer).0, ErrorCode::ReservedName, "{name:?}");
    }
    let fine = ClientMessage::Rename {
        name: "orig (open)".to_owned(),
    };
    assert!(matches!(
        orig.request(9, fine).await,
        ServerMessage::Renamed { .. }
    ));
}

/// A server that takes client addresses from a proxy on loopback, behind which TLS ends, with
/// a long first wait so that nothing here outlasts it.
pub(crate) async fn behind_proxy() -> TestServer {
    TestServer::start(Config {
        proxies: Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address: ClientAddress::XForwardedFor,
        },
        accounts: AccountConfig {
            tls_proxy: true,
            first_delay: Duration::from_secs(600),
            ..AccountConfig::default()
        },
        ..test_config()
    })
    .await
}

/// A WebSocket whose trusted proxy says it comes from `address`.
pub(crate) async fn from(server: &TestServer, address: &str) -> Socket {
    let mut request = server.url().into_client_request().unwrap();
    request
        .headers_mut()
        .append("x-forwarded-for", address.parse().unwrap());
    let (socket, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(request))
        .await
        .expect("in time")
        .expect("connect");
    socket
}

/// Signs in from `address` with `cookie`: the client and the device cookie its `welcome`
/// gave, or the refusal.
pub(crate) async fn sign_in_from(
    server: &TestServer,
    address: &str,
    username: &str,
    password: &str,
    cookie: Option<&str>,
) -> Result<(Client, Option<String>), ServerMessage> {
    let mut socket = from(server, address).await;
    let mut credentials = credentials(username, password, Some(address));
    credentials.device_cookie = cookie.map(str::to_owned);
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: username.to_owned(),
        token: None,
        credentials: Some(credentials),
    };
    send_frame(&mut socket, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut socket).await.expect("an answer to hello");
    match frame.message {
        ServerMessage::Welcome {
            player,
            token,
            device_cookie,
            ..
        } => Ok((
            Client::welcomed(socket, username, player, token),
            device_cookie,
        )),
        other => Err(other),
    }
}

/// The code a refused sign-in got.
fn refused(answer: Result<(Client, Option<String>), ServerMessage>) -> ErrorCode {
    match answer {
        Ok(_) => panic!("expected a refusal, got welcome"),
        Err(answer) => refusal(answer).0,
    }
}

#[tokio::test]
async fn a_strangers_failures_do_not_stop_the_owners_known_device() {
    let server = behind_proxy().await;
    let mut phone = Client::join(&server.url(), "ada").await;
    let registered = register(&mut phone, 1, "ada", PASSWORD).await;
    let ServerMessage::Registered {
        device_cookie: Some(phone_cookie),
        ..
    } = registered
    else {
        panic!("registering gives the device a cookie: {registered:?}");
    };
    let laptop = sign_in_from(&server, "198.51.100.2", "ada", PASSWORD, None).await;
    let (laptop, laptop_cookie) = laptop.expect("the owner signs in from a second device");
    let laptop_cookie = laptop_cookie.expect("signing in gives the device a cookie");
    drop(laptop);

    // A stranger guesses from ten addresses: the username now makes strangers wait.
    for n in 1..=10 {
        let guess = format!("guess number {n}");
        let address = format!("203.0.113.{n}");
        let answer = sign_in_from(&server, &address, "ada", &guess, None);
        assert_eq!(
            refused(answer.await),
            ErrorCode::BadCredentials,
            "guess {n}"
        );
    }
    let stranger = sign_in_from(&server, "203.0.113.11", "ada", PASSWORD, None).await;
    assert_eq!(refused(stranger), ErrorCode::TooManyAttempts);

    // The owner's laptop, with its cookie, signs in at once and changes the password.
    let back = sign_in_from(
        &server,
        "198.51.100.2",
        "ada",
        PASSWORD,
        Some(&laptop_cookie),
    )
    .await;
    let (mut laptop, kept) = back.expect("the known device is not made to wait");
    assert_eq!(
        kept.as_deref(),
        Some(laptop_cookie.as_str()),
        "it keeps its cookie"
    );
    let change = ClientMessage::ChangePassword(ChangePassword {
        password: PASSWORD.to_owned(),
        new_password: NEW_PASSWORD.to_owned(),
    });
    assert_eq!(laptop.request(2, change).await, ServerMessage::Ok);

    // The phone's cookie from registering works too, from any address.
    let phone_back = sign_in_from(
        &server,
        "192.0.2.77",
        "ada",
        NEW_PASSWORD,
        Some(&phone_cookie),
    )
    .await;
    assert!(phone_back.is_ok(), "{:?}", phone_back.err());

    // A new device, or one with a made-up or another account's cookie, still waits.
    let new_device = sign_in_from(&server, "203.0.113.12", "ada", NEW_PASSWORD, None).await;
    assert_eq!(refused(new_device), ErrorCode::TooManyAttempts);
    let forged = "0123456789abcdef0123456789abcdef";
    let made_up = sign_in_from(&server, "203.0.113.13", "ada", NEW_PASSWORD, Some(forged));
    assert_eq!(refused(made_up.await), ErrorCode::TooManyAttempts);
    let mut bo = Client::join(&server.url(), "bo").await;
    let ServerMessage::Registered {
        device_cookie: Some(bos_cookie),
        ..
    } = register(&mut bo, 3, "bo_1", PASSWORD).await
    else {
        panic!("bo registers");
    };
    let borrowed = sign_in_from(
        &server,
        "203.0.113.14",
        "ada",
        NEW_PASSWORD,
        Some(&bos_cookie),
    );
    assert_eq!(refused(borrowed.await), ErrorCode::TooManyAttempts);
}

#[tokio::test]
async fn a_known_device_that_guesses_waits_after_its_own_failures() {
    let server = behind_proxy().await;
    let first = sign_in_from(&server, "198.51.100.2", "ada", PASSWORD, None).await;
    assert_eq!(
        refused(first),
        ErrorCode::BadCredentials,
        "no such account yet"
    );
    let mut ada = Client::join(&server.url(), "ada").await;
    let ServerMessage::Registered {
        device_cookie: Some(cookie),
        ..
    } = register(&mut ada, 1, "ada", PASSWORD).await
    else {
        panic!("ada registers");
    };
    // A stolen cookie guesses no faster than a stranger: its own failures make it wait.
    for n in 1..=10 {
        let guess = format!("guess number {n}");
        let address = format!("203.0.113.{n}");
        let answer = sign_in_from(&server, &address, "ada", &guess, Some(&cookie));
        assert_eq!(
            refused(answer.await),
            ErrorCode::BadCredentials,
            "guess {n}"
        );
    }
    let answer = sign_in_from(&server, "203.0.113.11", "ada", PASSWORD, Some(&cookie));
    assert_eq!(refused(answer.await), ErrorCode::TooManyAttempts);
}
