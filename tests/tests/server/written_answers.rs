//! What PROTOCOL.md answers where a client author would otherwise guess: a sign-in from a banned
//! range, what a `hello` with a password checks and in which order, a game started from one
//! connection reaching the player's others, which reports count, and what `totals.online`
//! counts.

use noughts_protocol::{ClientMessage, ErrorCode, PROTOCOL_VERSION, Report, ServerMessage};
use noughts_tests::accounts::{TEST_PASSWORD, registered, try_sign_in};
use noughts_tests::process::{ServerProcess, admin};
use noughts_tests::raw::{recv, send};
use noughts_tests::{Client, Scratch, TestServer, binary, test_config};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_from_a_banned_range_is_refused_as_a_hello_is() {
    let dir = Scratch::new("banned-sign-in");
    let bin = binary::path("noughts-server");
    let live = ServerProcess::start(&bin, &dir.dir, &[]);
    let (url, db) = (live.url.clone(), live.db.clone());
    let mut ada = Client::join(&url, "ada").await;
    registered(&mut ada, "ada_ranged", TEST_PASSWORD).await;
    admin(
        &db,
        &["ban", "--range", "127.0.0.0/8", "--reason", "closed"],
    );
    noughts_tests::hello::until_hello_refused(&url, "fay", None, ErrorCode::Banned).await;
    let answer = try_sign_in(&url, "ada_ranged", TEST_PASSWORD, None).await;
    assert!(
        matches!(
            &answer,
            Err(ServerMessage::Error {
                code: ErrorCode::Banned,
                ..
            })
        ),
        "a sign-in from the banned range got {:?}",
        answer.map(|client| client.player)
    );
    drop(ada);
}

/// The first answer to `hello` (sent as it is) on a new connection.
async fn first_answer(url: &str, hello: serde_json::Value) -> serde_json::Value {
    let mut ws = noughts_tests::connect(url).await;
    send(&mut ws, hello).await;
    recv(&mut ws).await.expect("an answer").0
}

#[tokio::test]
async fn a_sign_in_needs_a_name_it_does_not_check_and_takes_the_username_in_any_case() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let mut ada = server.join("ada").await;
    registered(&mut ada, "ada_1815", TEST_PASSWORD).await;
    let token = ada.token.clone();
    let sign_in = |name: Option<&str>, username: &str| {
        let mut hello = json!({
            "type": "hello", "id": 1, "protocol": PROTOCOL_VERSION,
            "username": username, "password": TEST_PASSWORD,
        });
        if let Some(name) = name {
            hello["name"] = json!(name);
        }
        hello
    };
    // Without `name`: bad_request, as any request without a field it needs.
    let answer = first_answer(&url, sign_in(None, "ada_1815")).await;
    assert_eq!(answer["code"], "bad_request", "{answer}");
    // A name hello would refuse is neither checked nor used; the username's case is ignored,
    // and the account's name is its username.
    let answer = first_answer(&url, sign_in(Some("\u{1b}[31m"), "ADA_1815")).await;
    assert_eq!(
        (
            answer["type"].as_str(),
            answer["name"].as_str(),
            answer["username"].as_str()
        ),
        (Some("welcome"), Some("ada_1815"), Some("ada_1815")),
        "{answer}"
    );
    // Only the case: `-` for `_` is another username.
    let answer = first_answer(&url, sign_in(Some("ada"), "ada-1815")).await;
    assert_eq!(answer["code"], "bad_credentials", "{answer}");
    // A token with credentials is bad_request, before the protocol version is looked at.
    let mut both = sign_in(Some("ada"), "ada_1815");
    both["token"] = json!(token);
    both["protocol"] = json!(1);
    let answer = first_answer(&url, both).await;
    assert_eq!(answer["code"], "bad_request", "{answer}");
    let mut old = sign_in(Some("ada"), "ada_1815");
    old["protocol"] = json!(1);
    let answer = first_answer(&url, old).await;
    assert_eq!(answer["code"], "unsupported_version", "{answer}");
}

#[tokio::test]
async fn a_device_label_has_its_tabs_and_line_breaks_turned_into_spaces() {
    let server = TestServer::start(test_config()).await;
    let mut ada = server.join("ada").await;
    registered(&mut ada, "ada_1815", TEST_PASSWORD).await;
    let label = " my\tlaptop\r\nat\u{200b} home\u{1b}[31m ";
    let mut signed_in = try_sign_in(&server.url(), "ada_1815", TEST_PASSWORD, Some(label))
        .await
        .expect("signed in");
    let ServerMessage::SessionList { sessions } =
        signed_in.request(2, ClientMessage::Sessions).await
    else {
        panic!("a session list")
    };
    let current = sessions.iter().find(|session| session.current).unwrap();
    assert_eq!(current.device.as_deref(), Some("my laptop at home"));
}

#[tokio::test]
async fn refused_reports_use_up_none_of_the_hours_ten() {
    let server = TestServer::start(test_config()).await;
    let mut ada = server.join("ada").await;
    let bob = server.join("bob").await;
    let report = |player, reason: &str| {
        ClientMessage::Report(Report {
            player,
            category: noughts_protocol::ReportCategory::Spam,
            reason: reason.to_owned(),
            game: None,
        })
    };
    let nobody = noughts_protocol::PlayerId(999_999);
    for id in 0..10 {
        for (message, code) in [
            (report(bob.player, " "), ErrorCode::BadReport),
            (report(ada.player, "me"), ErrorCode::OwnPlayer),
            (report(nobody, "who"), ErrorCode::NoSuchPlayer),
        ] {
            ada.expect_error(100 + id, message, code).await;
        }
    }
    for id in 0..10 {
        let answer = ada.request(200 + id, report(bob.player, "spam")).await;
        assert_eq!(answer, ServerMessage::Ok, "report {id}");
    }
    ada.expect_error(300, report(bob.player, "more"), ErrorCode::RateLimited)
        .await;
}

#[tokio::test]
async fn a_game_started_from_one_connection_reaches_the_players_others() {
    let server = TestServer::start(test_config()).await;
    let mut ada = server.join("ada").await;
    let mut elsewhere = Client::resume(&server.url(), "ada", &ada.token.clone()).await;
    let asked = ada
        .play_ai(
            7,
            noughts_protocol::Variant::Classic,
            noughts_protocol::Level::Easy,
            noughts_protocol::SideChoice::X,
        )
        .await;
    let frame = elsewhere.next().await;
    let ServerMessage::GameState(told) = frame.message else {
        panic!("the other connection got {frame:?}")
    };
    assert_eq!(
        frame.id, None,
        "only the asking connection's copy is the reply"
    );
    assert_eq!(
        (told.game, told.you, told.seq),
        (asked.game, asked.you, asked.seq)
    );
}

#[tokio::test]
async fn online_counts_every_connection_said_hello_or_not() {
    let server = TestServer::start(test_config()).await;
    let mut ada = server.join("ada").await;
    // The snapshot's totals are those last worked out, up to a second old; the updates follow.
    let lobby = ada.request(1, ClientMessage::SubscribeLobby).await;
    assert!(matches!(lobby, ServerMessage::Lobby { .. }), "{lobby:?}");
    // Two connections that say nothing, and a second one of ada's.
    let _silent = [
        noughts_tests::connect(&server.url()).await,
        noughts_tests::connect(&server.url()).await,
    ];
    let _again = Client::resume(&server.url(), "ada", &ada.token.clone()).await;
    ada.until(|m| {
        matches!(m, ServerMessage::LobbyUpdate(update)
            if update.totals.is_some_and(|totals| totals.online == 4))
    })
    .await;
}

/// Connects to `url` (with `x-forwarded-for`, if given) and says hello: the first answer, and the
/// connection (which counts while it is kept).
async fn hello_forwarded(
    url: &str,
    forwarded: Option<&str>,
) -> (ServerMessage, noughts_tests::Socket) {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url.into_client_request().expect("a WebSocket URL");
    if let Some(forwarded) = forwarded {
        let value = forwarded.parse().expect("an address");
        request.headers_mut().append("x-forwarded-for", value);
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("connected");
    let hello = json!({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "p"});
    send(&mut ws, hello).await;
    let answer = recv(&mut ws).await.expect("an answer").1.message;
    (answer, ws)
}

#[tokio::test]
async fn a_trusted_proxys_request_without_x_forwarded_for_is_the_proxys_own_address() {
    let server = TestServer::start(noughts_server::Config {
        max_connections_per_ip: 2,
        proxies: noughts_server::Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address: noughts_server::ClientAddress::XForwardedFor,
        },
        ..test_config()
    })
    .await;
    let url = server.url();
    let mut open = Vec::new();
    // Without the header, every request of the proxy counts under its own address: two fit.
    for _ in 0..2 {
        let (answer, ws) = hello_forwarded(&url, None).await;
        assert!(
            matches!(answer, ServerMessage::Welcome { .. }),
            "{answer:?}"
        );
        open.push(ws);
    }
    let (answer, _) = hello_forwarded(&url, None).await;
    assert!(
        matches!(
            answer,
            ServerMessage::Error {
                code: ErrorCode::TooManyConnections,
                ..
            }
        ),
        "{answer:?}"
    );
    // A client the header names has places of its own.
    let (answer, _) = hello_forwarded(&url, Some("198.51.100.7")).await;
    assert!(
        matches!(answer, ServerMessage::Welcome { .. }),
        "{answer:?}"
    );
}

/// Runs `noughts-server admin ARGS` with neither `$USER` nor `$NOUGHTS_OPERATOR` set: whether
/// it succeeded, and what it printed.
fn admin_as_nobody(args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new(binary::path("noughts-server"))
        .arg("admin")
        .args(args)
        .env_remove("USER")
        .env_remove("NOUGHTS_OPERATOR")
        .env_remove("NOUGHTS_DB")
        .output()
        .expect("run noughts-server admin");
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_takes_its_options_anywhere_reads_without_a_name_and_dates_the_audit() {
    let dir = Scratch::new("admin-options");
    let bin = binary::path("noughts-server");
    let live = ServerProcess::start(&bin, &dir.dir, &[]);
    let db = live.db.to_str().expect("a path in UTF-8").to_owned();
    let ada = Client::join(&live.url, "ada").await;
    let player = ada.player.0.to_string();
    // A change needs a name: refused without one, wherever the options stand.
    let mute = [
        "mute",
        "--player",
        &player,
        "--minutes",
        "5",
        "--reason",
        "flood",
    ];
    let (done, said) = admin_as_nobody(&[&mute[..], &["--db", &db]].concat());
    assert!(!done, "a change without a name: {said}");
    assert!(said.contains("--operator"), "{said}");
    // The options of `admin` after the subcommand's own.
    let (done, said) = admin_as_nobody(&[&mute[..], &["--db", &db, "--operator", "ops"]].concat());
    assert!(done, "{said}");
    // Reading needs no name; the audit dates each action in UTC, ISO 8601.
    let (done, said) = admin_as_nobody(&["audit", "--db", &db]);
    assert!(done, "{said}");
    let line = said
        .lines()
        .find(|line| line.contains(" as \"ops\": chat_mute"))
        .unwrap_or_else(|| panic!("no mute in the audit:\n{said}"));
    let date = |after: &str| {
        let at = line.split(after).nth(1).expect(after);
        let stamp: String = at.chars().take(20).collect();
        let shape = stamp.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            19 => c == 'Z',
            _ => c.is_ascii_digit(),
        });
        assert!(shape && stamp.len() == 20, "{stamp:?} in {line:?}");
        stamp
    };
    let (at, until) = (date(" at "), date(" until "));
    assert!(at < until, "{line}");
    assert!(at.starts_with("20"), "{line}");
    let (done, said) = admin_as_nobody(&["reports", "--db", &db]);
    assert!(done && said.contains("no reports"), "{said}");
    drop(ada);
}
