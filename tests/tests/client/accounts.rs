//! The account commands of the real `noughts` binary against a real server: `register` and
//! `login` typed into a real terminal (tmux), the password never shown on it; a second config
//! directory signed in as the same player; a wrong password's message; `sessions` listed and one
//! ended; `password` changed; each command reading its answers from standard input in a
//! script; and each client keeping its device cookie, so a stranger's guesses do not lock it out.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use noughts_client::embedded::Embedded;
use noughts_protocol::{ErrorCode, ServerMessage};
use noughts_server::{AccountConfig, ClientAddress, Proxies};
use noughts_tests::accounts::sign_in_answer_from;
use noughts_tests::tmux::Tmux;

use crate::support::{bin, config, run_bin, temp_dir};

const PASSWORD: &str = "tangerine umbrella 42";
const NEW_PASSWORD: &str = "violet harbour lantern";

/// Whether tmux is here; without it the test skips, said loudly, except in CI, where it fails.
fn tmux_here() -> bool {
    if Tmux::available() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "tmux is missing, and CI must run the terminal tests"
    );
    eprintln!("SKIPPED: tmux is not installed");
    false
}

/// `noughts --server URL ARGS…` in a terminal of its own, with the config directory `dir`; the
/// shell says how it ended and waits, so that the screen can be read after.
fn in_terminal(name: &str, url: &str, dir: &Path, args: &str) -> Tmux {
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={dir} NOUGHTS_DATA_DIR={dir}/data {bin} --server {url} {args}; \
         echo \"[exit $?]\"; sleep 600",
        dir = dir.display(),
        bin = bin().display(),
    );
    Tmux::start(name, 160, 30, &command)
}

/// Types `text` and Enter, as a person does, once the screen shows `prompt` last.
async fn answer(tmux: &Tmux, prompt: &str, text: &str) {
    tmux.wait_for(prompt, |s| s.trim_end().ends_with(prompt.trim_end()))
        .await;
    tmux.send(text);
    tmux.send("Enter");
}

/// `noughts --server URL ARGS…` with `input` on its standard input (not a terminal).
pub(crate) async fn scripted(url: &str, dir: &Path, args: &[&str], input: &str) -> Output {
    let mut command = Command::new(bin());
    command
        .args(["--server", url])
        .args(args)
        .env("NOUGHTS_DATA_DIR", dir.join("data"))
        .env("NOUGHTS_CONFIG_DIR", dir)
        .env_remove("NOUGHTS_SERVER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let input = input.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("the noughts binary runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

/// `noughts login grace` from `dir`, with `password` piped in.
async fn login(url: &str, dir: &Path, password: &str) -> Output {
    scripted(url, dir, &["login", "grace"], &format!("{password}\n")).await
}

/// The standard output of a run that succeeded.
fn succeeded(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The error of a run that failed.
fn failed(what: &str, out: &Output) -> String {
    assert!(
        !out.status.success(),
        "{what} should fail: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The player id in "player #7".
fn player_in(text: &str) -> String {
    let at = text.find("player #").expect("a player id") + "player #".len();
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// The id of the session `sessions` lists that is not this one.
fn other_session(list: &str) -> String {
    let line = list
        .lines()
        .skip(1)
        .find(|line| !line.contains("(this one)"))
        .unwrap_or_else(|| panic!("no other session in {list}"));
    line.split_whitespace().next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_and_login_in_a_terminal_never_show_the_password() {
    if !tmux_here() {
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let (laptop, desktop): (PathBuf, PathBuf) = (temp_dir("acct-laptop"), temp_dir("acct-desk"));

    // Register: the username, then the password twice, typed; nothing of it is echoed.
    let tmux = in_terminal("register", &server.url, &laptop, "register");
    answer(&tmux, "Username:", "ada_1815").await;
    tmux.wait_for("the password prompt", |s| s.contains("Password:"))
        .await;
    tmux.send(PASSWORD);
    let typed = tmux.capture();
    assert!(!typed.contains("tangerine"), "echoed:\n{typed}");
    tmux.send("Enter");
    answer(&tmux, "Type it again:", PASSWORD).await;
    let screen = tmux.wait_for("the end", |s| s.contains("[exit")).await;
    assert!(screen.contains("[exit 0]"), "{screen}");
    assert!(screen.contains("registered ada_1815"), "{screen}");
    assert!(!screen.contains("tangerine"), "echoed:\n{screen}");
    let player = player_in(&screen);
    drop(tmux);

    // A wrong password, typed on another machine: refused in words.
    let tmux = in_terminal("wrong", &server.url, &desktop, "login ada_1815");
    answer(&tmux, "Password:", "not the password at all").await;
    let screen = tmux.wait_for("the end", |s| s.contains("[exit")).await;
    assert!(!screen.contains("[exit 0]"), "{screen}");
    assert!(
        screen.contains("do not match an account") && screen.contains("bad_credentials"),
        "{screen}"
    );
    assert!(!screen.contains("not the password"), "echoed:\n{screen}");
    drop(tmux);

    // The right one: the same player, its token kept for the commands that follow.
    let tmux = in_terminal("login", &server.url, &desktop, "login");
    answer(&tmux, "Username:", "ada_1815").await;
    answer(&tmux, "Password:", PASSWORD).await;
    let screen = tmux.wait_for("the end", |s| s.contains("[exit")).await;
    assert!(screen.contains("[exit 0]"), "{screen}");
    assert!(screen.contains("signed in"), "{screen}");
    assert_eq!(player_in(&screen), player, "{screen}");
    assert!(!screen.contains("tangerine"), "echoed:\n{screen}");
    drop(tmux);
    // The lobby plays as the account too.
    let tmux = in_terminal("lobby", &server.url, &desktop, "");
    tmux.wait_for("the account's player in the lobby", |s| {
        s.contains(&format!("you are player {player}"))
    })
    .await;
    drop(tmux);
    let args = |command: &str| vec!["--server".to_owned(), server.url.clone(), command.into()];
    let list = succeeded(
        "sessions",
        &run_bin(args("sessions"), desktop.clone()).await,
    );
    assert_eq!(
        list.lines().count(),
        3,
        "a heading and two sessions: {list}"
    );
    assert!(list.contains("terminal on"), "{list}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_and_ended_and_a_password_change_holds_from_a_script() {
    let server = Embedded::start(config()).await.unwrap();
    let url = server.url.clone();
    let (laptop, desktop) = (temp_dir("acct-s-laptop"), temp_dir("acct-s-desk"));
    // Each command takes its answers from standard input when it is not a terminal.
    let out = scripted(
        &url,
        &laptop,
        &["register"],
        &format!("grace\n{PASSWORD}\n"),
    )
    .await;
    let registered = succeeded("register", &out);
    assert!(registered.contains("registered grace"), "{registered}");
    let out = login(&url, &desktop, PASSWORD).await;
    let signed_in = succeeded("login", &out);
    assert_eq!(player_in(&signed_in), player_in(&registered));
    // A weak password is refused with the server's reason.
    let out = scripted(
        &url,
        &laptop,
        &["password"],
        &format!("{PASSWORD}\npassword\n"),
    )
    .await;
    assert!(failed("a weak password", &out).contains("weak_password"));

    // Listed from the laptop: two sessions, this one marked; the desktop's is ended.
    let list = succeeded(
        "sessions",
        &scripted(&url, &laptop, &["sessions"], "").await,
    );
    assert_eq!(list.lines().count(), 3, "{list}");
    assert!(
        list.contains("(this one)") && list.contains("LAST SEEN"),
        "{list}"
    );
    let desktop_session = other_session(&list);
    assert!(
        list.contains(&format!("{desktop_session:<18} terminal on")),
        "{list}"
    );
    let args = ["sessions", "--revoke", desktop_session.as_str()];
    let ended = succeeded("revoke", &scripted(&url, &laptop, &args, "").await);
    assert!(
        ended.contains(&format!("session {desktop_session} has ended")),
        "{ended}"
    );
    assert_eq!(
        ended.lines().count(),
        3,
        "the message, a heading, one session: {ended}"
    );
    // The desktop's token is refused: what it has now is a new guest, not the account.
    let out = scripted(&url, &desktop, &["sessions"], "").await;
    assert!(failed("a revoked session", &out).contains("not_an_account"));

    // The password changed from a script: the old one no longer signs in, the new one does.
    let input = format!("{PASSWORD}\n{NEW_PASSWORD}\n");
    let changed = succeeded(
        "password",
        &scripted(&url, &laptop, &["password"], &input).await,
    );
    assert!(changed.contains("password changed"), "{changed}");
    let out = login(&url, &desktop, PASSWORD).await;
    assert!(failed("the old password", &out).contains("bad_credentials"));
    let out = login(&url, &desktop, NEW_PASSWORD).await;
    succeeded("the new password", &out);
    // Logging out keeps working for an account: its token here is forgotten.
    let out = scripted(&url, &desktop, &["logout"], "").await;
    assert!(succeeded("logout", &out).contains("logged out"));
    let out = scripted(&url, &desktop, &["sessions"], "").await;
    assert!(failed("after logout", &out).contains("noughts login"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_signed_in_before_is_not_locked_out_by_a_strangers_guesses() {
    // Strangers come through a trusted proxy from addresses of their own; the clients come from
    // loopback itself. The first wait is long, so the username stays locked meanwhile.
    let server = Embedded::start(noughts_server::Config {
        proxies: Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address: ClientAddress::XForwardedFor,
        },
        accounts: AccountConfig {
            tls_proxy: true,
            first_delay: Duration::from_secs(600),
            ..AccountConfig::default()
        },
        ..config()
    })
    .await
    .unwrap();
    let url = server.url.clone();
    let (laptop, desktop, fresh) = (
        temp_dir("acct-c-laptop"),
        temp_dir("acct-c-desk"),
        temp_dir("acct-c-fresh"),
    );
    let input = format!("grace\n{PASSWORD}\n");
    succeeded(
        "register",
        &scripted(&url, &laptop, &["register"], &input).await,
    );
    succeeded("login", &login(&url, &desktop, PASSWORD).await);

    for n in 1..=10 {
        let address = format!("203.0.113.{n}");
        let guess = sign_in_answer_from(&url, &address, "grace", "not it at all", None).await;
        assert!(
            matches!(
                &guess,
                ServerMessage::Error {
                    code: ErrorCode::BadCredentials,
                    ..
                }
            ),
            "{guess:?}"
        );
    }
    let locked = sign_in_answer_from(&url, "203.0.113.11", "grace", PASSWORD, None).await;
    assert!(
        matches!(
            &locked,
            ServerMessage::Error {
                code: ErrorCode::TooManyAttempts,
                ..
            }
        ),
        "the username is locked: {locked:?}"
    );

    // Each client that registered or signed in before kept its device cookie, and gets in.
    succeeded("the laptop again", &login(&url, &laptop, PASSWORD).await);
    succeeded("the desktop again", &login(&url, &desktop, PASSWORD).await);
    let out = login(&url, &fresh, PASSWORD).await;
    assert!(failed("a new client", &out).contains("too_many_attempts"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_register_beside_the_lobby_renames_it_and_profile_finds_the_account_by_username() {
    if !tmux_here() {
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let (laptop, other) = (temp_dir("acct-r-laptop"), temp_dir("acct-r-other"));
    // A guest in the lobby; then, from another terminal of the same machine, it registers.
    let tmux = in_terminal("renamed", &server.url, &laptop, "--name ted");
    tmux.wait_for("the guest in the lobby", |s| s.contains("ted (guest)"))
        .await;
    let out = scripted(
        &server.url,
        &laptop,
        &["register"],
        &format!("ted_walk\n{PASSWORD}\n"),
    )
    .await;
    assert!(succeeded("register", &out).contains("registered ted_walk"));
    // The lobby's header takes the username at once, no longer as a guest's.
    let screen = tmux
        .wait_for("the username in the header", |s| {
            s.contains("You are now ted_walk.") && s.contains("ted_walk") && !s.contains("(guest)")
        })
        .await;
    assert!(!screen.contains("ted (guest)"), "{screen}");
    drop(tmux);
    // Anyone finds the account by its username, in any case.
    let profile = succeeded(
        "profile",
        &scripted(&server.url, &other, &["profile", "TED_Walk"], "").await,
    );
    assert!(
        profile.lines().next().unwrap_or("") == "ted_walk",
        "{profile}"
    );
    let unknown = failed(
        "an unknown username",
        &scripted(&server.url, &other, &["profile", "nobody_here"], "").await,
    );
    assert!(
        unknown.contains("no account has the username") && unknown.contains("no_such_player"),
        "{unknown}"
    );
    server.stop().await;
}
