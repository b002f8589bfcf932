//! Accounts end to end on a real server, each scenario on a SQLite file and on PostgreSQL: a
//! guest registers and keeps its history; a second device signs in as the same player; names are
//! unique ignoring case; a wrong password and an unknown user get the same answer; guesses are
//! limited; sessions are listed and revoked; logout ends this device's session only; a password
//! change ends the other sessions; a closed
//! account cannot sign in and its name is held. Then, on one server: a password on a plain
//! connection from another machine is refused; and the SQLite file holds argon2id hashes, never
//! a password.

use noughts_protocol::{
    ChangePassword, ClientMessage, CloseAccount, ErrorCode, Level, ServerMessage, SessionInfo,
    SideChoice, Variant, VariantStats,
};
use noughts_server::{AccountConfig, ClientAddress, Config, Proxies};
use noughts_tests::accounts::{
    register, registered, sign_in, sign_in_on, token_works, try_sign_in,
};
use noughts_tests::on_both_stores;
use noughts_tests::stores::{Db, OwnDb};
use noughts_tests::{Client, Scratch, Socket, TestServer, WAIT, file_config};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const PASSWORD: &str = "tangerine umbrella 42";
const NEW_PASSWORD: &str = "violet harbour lantern";

on_both_stores!(
    a_guest_registers_keeps_its_history_and_plays_from_a_second_device,
    names_are_unique_ignoring_case_and_follow_the_rules,
    a_wrong_password_and_an_unknown_user_get_the_same_answer,
    the_eleventh_quick_guess_must_wait,
    sessions_are_listed_and_revoked,
    logout_ends_this_devices_session_only,
    a_password_change_ends_the_other_sessions,
    a_closed_account_cannot_sign_in,
);

/// A server keeping its records in a database of its own of kind `db`; `None` where there is no
/// PostgreSQL (said loudly).
pub(crate) async fn server(db: Db, name: &str) -> Option<(TestServer, OwnDb)> {
    let own = db.fresh(name)?;
    let server = TestServer::start(own.config()).await;
    Some((server, own))
}

/// The error code and message of a refusal.
pub(crate) fn refusal(answer: ServerMessage) -> (ErrorCode, String) {
    match answer {
        ServerMessage::Error { code, message } => (code, message),
        other => panic!("expected an error, got {other:?}"),
    }
}

pub(crate) async fn sessions(client: &mut Client, id: u64) -> Vec<SessionInfo> {
    match client.request(id, ClientMessage::Sessions).await {
        ServerMessage::SessionList { sessions } => sessions,
        other => panic!("expected the session list, got {other:?}"),
    }
}

/// The player's ratings and results in each variant (asked with `id`).
async fn stats(client: &mut Client, id: u64) -> Vec<VariantStats> {
    match client
        .request(
            id,
            ClientMessage::Profile {
                player: None,
                username: None,
            },
        )
        .await
    {
        ServerMessage::Profile(profile) => profile.variants,
        other => panic!("expected a profile, got {other:?}"),
    }
}

async fn a_guest_registers_keeps_its_history_and_plays_from_a_second_device(db: Db) {
    let Some((server, _db)) = server(db, "register").await else {
        return;
    };
    let url = server.url();
    let mut phone = Client::join(&url, "ada").await;
    let state = phone
        .play_ai(1, Variant::Classic, Level::Random, SideChoice::X)
        .await;
    phone.send(ClientMessage::Resign { game: state.game }).await;
    phone
        .saw(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    registered(&mut phone, "Ada", PASSWORD).await;
    let profile = stats(&mut phone, 2).await;

    let mut laptop = sign_in(&url, "ADA", PASSWORD, phone.player).await;
    let games = laptop.history(3).await;
    assert_eq!(games.len(), 1, "the guest's game is the account's");
    assert_eq!(games[0].game, state.game);
    let same = stats(&mut laptop, 4).await;
    assert_eq!(
        same, profile,
        "the same ratings and results from either device"
    );
    assert_eq!(same[0].games, 1);
    // The second device plays as the same player.
    let game = laptop
        .play_ai(5, Variant::Classic, Level::Random, SideChoice::X)
        .await;
    assert_eq!(
        game.x.player,
        Some(phone.player),
        "the laptop's seat is the account's player"
    );
}

async fn names_are_unique_ignoring_case_and_follow_the_rules(db: Db) {
    let Some((server, _db)) = server(db, "names").await else {
        return;
    };
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada_1815", PASSWORD).await;
    let mut other = Client::join(&url, "someone").await;
    let taken = register(&mut other, 1, "ADA_1815", PASSWORD).await;
    assert_eq!(refusal(taken).0, ErrorCode::UsernameTaken);
    for bad in ["a", "ada lovelace", "adé", &"x".repeat(21)] {
        let answer = register(&mut other, 2, bad, PASSWORD).await;
        assert_eq!(refusal(answer).0, ErrorCode::BadUsername, "{bad:?}");
    }
    for weak in ["short", "password1", "12345678", "qwertyuiop", "someone_2"] {
        let answer = register(&mut other, 3, "someone_2", weak).await;
        assert_eq!(refusal(answer).0, ErrorCode::WeakPassword, "{weak:?}");
    }
    registered(&mut other, "someone_2", NEW_PASSWORD).await;
    let again = register(&mut ada, 4, "ada_again", PASSWORD).await;
    assert_eq!(
        refusal(again).0,
        ErrorCode::NotAnAccount,
        "one account per player"
    );
    // A profile is found by its username, in any case; a name no account has is refused.
    let by_name = |id, username: &str| {
        (
            id,
            ClientMessage::Profile {
                player: None,
                username: Some(username.to_owned()),
            },
        )
    };
    let (id, ask) = by_name(5, "ADA_1815");
    match other.request(id, ask).await {
        ServerMessage::Profile(profile) => {
            assert_eq!(
                (profile.player, profile.name.as_str()),
                (ada.player, "ada_1815")
            );
            assert!(!profile.guest);
        }
        answer => panic!("expected ada's profile, got {answer:?}"),
    }
    let (id, ask) = by_name(6, "nobody_1815");
    assert_eq!(
        refusal(other.request(id, ask).await).0,
        ErrorCode::NoSuchPlayer
    );
}

async fn a_wrong_password_and_an_unknown_user_get_the_same_answer(db: Db) {
    let Some((server, _db)) = server(db, "credentials").await else {
        return;
    };
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada", PASSWORD).await;
    let wrong = try_sign_in(&url, "ada", "not the password at all", None)
        .await
        .expect_err("a wrong password is refused");
    let unknown = try_sign_in(&url, "nobody_here", PASSWORD, None)
        .await
        .expect_err("an unknown user is refused");
    assert_eq!(refusal(wrong.clone()).0, ErrorCode::BadCredentials);
    assert_eq!(wrong, unknown, "one answer for both");
}

async fn the_eleventh_quick_guess_must_wait(db: Db) {
    let Some((server, _db)) = server(db, "guesses").await else {
        return;
    };
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada", PASSWORD).await;
    for guess in 0..10 {
        let answer = try_sign_in(&url, "ada", &format!("guess number {guess}"), None)
            .await
            .expect_err("a wrong guess is refused");
        assert_eq!(
            refusal(answer).0,
            ErrorCode::BadCredentials,
            "guess {guess}"
        );
    }
    // Even the right password waits now: the account is under guessing.
    let answer = try_sign_in(&url, "ada", PASSWORD, None).await.err();
    let (code, message) = refusal(answer.expect("the eleventh try is refused"));
    assert_eq!(code, ErrorCode::TooManyAttempts);
    let wait: u64 = message
        .rsplit("retry after ")
        .next()
        .and_then(|rest| rest.strip_suffix(" ms"))
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("the message says when to retry: {message}"));
    assert!(wait > 0 && wait <= 1000, "{wait}");
}

async fn sessions_are_listed_and_revoked(db: Db) {
    let Some((server, _db)) = server(db, "sessions").await else {
        return;
    };
    let url = server.url();
    let mut phone = Client::join(&url, "ada").await;
    registered(&mut phone, "ada", PASSWORD).await;
    let mut laptop = try_sign_in(&url, "ada", PASSWORD, Some("laptop \u{1b}[31m"))
        .await
        .expect("signed in");
    let listed = sessions(&mut phone, 1).await;
    assert_eq!(listed.len(), 2, "{listed:?}");
    // Each with the network it was last used from, never the whole address.
    assert!(
        listed
            .iter()
            .all(|s| s.network.as_deref() == Some("127.0.0.0/24")),
        "{listed:?}"
    );
    let mine: Vec<_> = listed.iter().filter(|s| s.current).collect();
    assert_eq!(
        mine.len(),
        1,
        "exactly one is this connection's: {listed:?}"
    );
    let theirs = listed.iter().find(|s| !s.current).expect("the laptop's");
    assert_eq!(theirs.device.as_deref(), Some("laptop"), "escapes removed");
    let ok = phone
        .request(
            2,
            ClientMessage::RevokeSession {
                session: theirs.session,
            },
        )
        .await;
    assert_eq!(ok, ServerMessage::Ok);
    assert_eq!(
        laptop.closed().await,
        Some(noughts_protocol::close::LOGGED_OUT),
        "the revoked session's open connection is closed"
    );
    assert!(
        !token_works(&url, &laptop.token).await,
        "a revoked token is refused"
    );
    let again = phone
        .request(
            3,
            ClientMessage::RevokeSession {
                session: theirs.session,
            },
        )
        .await;
    assert_eq!(refusal(again).0, ErrorCode::NoSuchSession);
    assert_eq!(sessions(&mut phone, 4).await.len(), 1);
    let mut guest = Client::join(&url, "guest").await;
    let answer = guest.request(5, ClientMessage::Sessions).await;
    assert_eq!(refusal(answer).0, ErrorCode::NotAnAccount);
}

async fn logout_ends_this_devices_session_only(db: Db) {
    let Some((server, _db)) = server(db, "logout").await else {
        return;
    };
    let url = server.url();
    let mut phone = Client::join(&url, "ada").await;
    registered(&mut phone, "ada", PASSWORD).await;
    let mut laptop = sign_in(&url, "ada", PASSWORD, phone.player).await;
    assert_eq!(
        laptop.request(1, ClientMessage::Logout).await,
        ServerMessage::Ok
    );
    assert_eq!(
        laptop.closed().await,
        Some(noughts_protocol::close::LOGGED_OUT)
    );
    assert!(!token_works(&url, &laptop.token).await, "its token ends");
    // The phone's session goes on: the same connection, the same token, one session left.
    let listed = sessions(&mut phone, 2).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0].current);
    assert!(token_works(&url, &phone.token).await);
}

async fn a_password_change_ends_the_other_sessions(db: Db) {
    let Some((server, _db)) = server(db, "password").await else {
        return;
    };
    let url = server.url();
    let mut phone = Client::join(&url, "ada").await;
    registered(&mut phone, "ada", PASSWORD).await;
    let mut laptop = sign_in(&url, "ada", PASSWORD, phone.player).await;
    let wrong = ClientMessage::ChangePassword(ChangePassword {
        password: "not the password at all".to_owned(),
        new_password: NEW_PASSWORD.to_owned(),
    });
    let answer = phone.request(1, wrong).await;
    assert_eq!(refusal(answer).0, ErrorCode::BadCredentials);
    let weak = ClientMessage::ChangePassword(ChangePassword {
        password: PASSWORD.to_owned(),
        new_password: "password".to_owned(),
    });
    let answer = phone.request(2, weak).await;
    assert_eq!(refusal(answer).0, ErrorCode::WeakPassword);
    let change = ClientMessage::ChangePassword(ChangePassword {
        password: PASSWORD.to_owned(),
        new_password: NEW_PASSWORD.to_owned(),
    });
    assert_eq!(phone.request(3, change).await, ServerMessage::Ok);
    assert_eq!(
        laptop.closed().await,
        Some(noughts_protocol::close::LOGGED_OUT),
        "the laptop's open connection is closed"
    );
    assert!(
        !token_works(&url, &laptop.token).await,
        "the laptop's session ended"
    );
    assert_eq!(sessions(&mut phone, 4).await.len(), 1, "the phone's stays");
    assert!(
        token_works(&url, &phone.token).await,
        "the phone's token still works"
    );
    let old = try_sign_in(&url, "ada", PASSWORD, None).await.err();
    assert_eq!(
        refusal(old.expect("the old password")).0,
        ErrorCode::BadCredentials
    );
    sign_in(&url, "ada", NEW_PASSWORD, phone.player).await;
}

async fn a_closed_account_cannot_sign_in(db: Db) {
    let Some((server, _db)) = server(db, "close").await else {
        return;
    };
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada", PASSWORD).await;
    let wrong = ClientMessage::CloseAccount(CloseAccount {
        password: "not the password at all".to_owned(),
    });
    assert_eq!(
        refusal(ada.request(1, wrong).await).0,
        ErrorCode::BadCredentials
    );
    let close = ClientMessage::CloseAccount(CloseAccount {
        password: PASSWORD.to_owned(),
    });
    assert_eq!(ada.request(2, close).await, ServerMessage::Ok);
    assert_eq!(
        ada.closed().await,
        Some(noughts_protocol::close::LOGGED_OUT)
    );
    assert!(!token_works(&url, &ada.token).await);
    let answer = try_sign_in(&url, "ada", PASSWORD, None).await.err();
    assert_eq!(
        refusal(answer.expect("refused")).0,
        ErrorCode::BadCredentials
    );
    let mut other = Client::join(&url, "other").await;
    let taken = register(&mut other, 3, "ada", PASSWORD).await;
    assert_eq!(
        refusal(taken).0,
        ErrorCode::UsernameTaken,
        "a closed account's name is held"
    );
}

/// A server that trusts a proxy on loopback to name its clients, with `tls_proxy` as given.
async fn behind_proxy(tls_proxy: bool) -> TestServer {
    TestServer::start(Config {
        proxies: Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address: ClientAddress::XForwardedFor,
        },
        accounts: AccountConfig {
            tls_proxy,
            ..AccountConfig::default()
        },
        ..noughts_tests::test_config()
    })
    .await
}

/// A plain WebSocket whose trusted proxy says it comes from another machine.
async fn from_afar(server: &TestServer) -> Socket {
    let mut request = server.url().into_client_request().unwrap();
    request
        .headers_mut()
        .append("x-forwarded-for", "203.0.113.9".parse().unwrap());
    let (socket, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(request))
        .await
        .expect("in time")
        .expect("connect");
    socket
}

#[tokio::test]
async fn a_password_on_a_plain_connection_from_afar_is_refused_unless_a_tls_proxy_is_declared() {
    let plain = behind_proxy(false).await;
    let mut ada = Client::join(&plain.url(), "ada").await;
    registered(&mut ada, "ada", PASSWORD).await;
    let answer = sign_in_on(from_afar(&plain).await, "ada", PASSWORD, None)
        .await
        .err();
    assert_eq!(
        refusal(answer.expect("refused")).0,
        ErrorCode::InsecureTransport
    );

    let proxied = behind_proxy(true).await;
    let mut bo = Client::join(&proxied.url(), "bo").await;
    registered(&mut bo, "bo", PASSWORD).await;
    let (signed_in, _) = sign_in_on(from_afar(&proxied).await, "bo", PASSWORD, None)
        .await
        .expect("a declared TLS proxy lets passwords through");
    assert_eq!(signed_in.player, bo.player);
}

#[tokio::test]
async fn the_database_holds_argon2id_hashes_and_no_password() {
    let scratch = Scratch::new("hashes");
    let mut server = TestServer::start(file_config(scratch.db())).await;
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada", PASSWORD).await;
    let change = ClientMessage::ChangePassword(ChangePassword {
        password: PASSWORD.to_owned(),
        new_password: NEW_PASSWORD.to_owned(),
    });
    assert_eq!(ada.request(1, change).await, ServerMessage::Ok);
    drop(ada);
    server.shut_down().await.expect("a clean shutdown");
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(&scratch.dir).expect("the scratch directory") {
        bytes.extend(std::fs::read(entry.expect("an entry").path()).expect("read"));
    }
    let holds = |needle: &str| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
    assert!(holds("$argon2id$v=19$m=19456,t=2,p=1$"), "the hash is kept");
    assert!(
        !holds(PASSWORD) && !holds(NEW_PASSWORD),
        "no password in any file"
    );
}
