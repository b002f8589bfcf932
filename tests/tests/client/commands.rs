//! The scriptable modes of the real `noughts` binary: watching plainly, bots, analysis, replay,
//! history, TLS and the errors a person sees.

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use noughts_client::embedded::Embedded;
use noughts_engine::{Board, Level, Variant};

use noughts_tests::tmux::Tmux;

use crate::support::{config, run_bin, temp_dir};
use crate::tui::read_board;

/// Makes a player called `name` an account on `url`, and leaves its token where the client run
/// with config directory `dir` finds it, so that the client comes back as that account.
async fn account_for_the_client(url: &str, name: &str, dir: &std::path::Path) {
    let mut client = noughts_tests::Client::join(url, name).await;
    noughts_tests::accounts::make_account(&mut client).await;
    std::fs::write(dir.join("tokens"), format!("{url} {}\n", client.token)).unwrap();
}

/// whole war game, from its first line to its drawn end.
/// Runs `noughts --server URL [flags] watch --war classic --plain` and checks that it printed a
async fn watch_a_war_game(url: &str, flags: &[&str], dir: &str) {
    let mut args = vec!["--server", url];
    args.extend(flags);
    args.extend(["watch", "--war", "classic", "--plain"]);
    let args = args.into_iter().map(String::from).collect();
    let output = tokio::time::timeout(Duration::from_secs(60), run_bin(args, temp_dir(dir)))
        .await
        .expect("the watch ends with the game");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("game "), "{stdout}");
    assert!(stdout.contains("(classic): X "), "{stdout}");
    // Perfect against perfect on classic fills the board without a line.
    assert!(stdout.contains("move 9: X on cell"), "{stdout}");
    assert!(
        stdout.trim_end().ends_with("result: draw (board full)"),
        "{stdout}"
    );
}

/// [`config`] with the war games pinned to perfect against perfect (not the league's pairings),
/// so that a watched war game is drawn with a full board.
fn perfect_wars() -> noughts_server::Config {
    noughts_server::Config {
        war_levels: Some((Level::Perfect, Level::Perfect)),
        ..config()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_war_plain_prints_a_finished_war_game() {
    let server = Embedded::start(perfect_wars()).await.unwrap();
    watch_a_war_game(&server.url, &[], "watch").await;
    server.stop().await;
}

/// Starts a server with TLS on a self-signed certificate for 127.0.0.1, made now (marked as a CA
/// if `ca`), and returns it with the certificate's PEM file.
async fn tls_server(name: &str, ca: bool) -> (Embedded, PathBuf) {
    let dir = temp_dir(name);
    let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    if ca {
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    }
    let signing_key = rcgen::KeyPair::generate().unwrap();
    let made = params.self_signed(&signing_key).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.pem()).unwrap();
    std::fs::write(&key, signing_key.serialize_pem()).unwrap();
    let tls = noughts_server::Tls::from_pem_files(&cert, &key).unwrap();
    let server = Embedded::start(noughts_server::Config {
        tls: Some(tls),
        ..perfect_wars()
    })
    .await
    .unwrap();
    assert!(server.url.starts_with("wss://127.0.0.1:"), "{}", server.url);
    (server, cert)
}

/// The game id of a line the client printed that starts `game ID`.
fn game_of(line: &str) -> &str {
    let rest = line
        .strip_prefix("game ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Runs the binary with `args` in a config directory of its own.
async fn run(args: &[&str], dir: &str) -> Output {
    run_bin(args.iter().map(|a| a.to_string()).collect(), temp_dir(dir)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_server_is_watched_with_its_certificate_as_ca() {
    let (server, cert) = tls_server("tls-cert", false).await;

    // The self-signed certificate is not trusted without --ca, and the error says what to do.
    let output = run(&["--server", &server.url, "history"], "tls-untrusted").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--ca FILE"), "{stderr}");
    // ws:// to the TLS port: the server's answer says to use wss://.
    let plain = server.url.replace("wss://", "ws://");
    let output = run(&["--server", &plain, "history"], "tls-plain").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("HTTP 400"), "{stderr}");
    assert!(stderr.contains("wss://"), "{stderr}");

    // With --ca, a war game is watched to its end over TLS.
    let ca = cert.to_str().unwrap();
    watch_a_war_game(&server.url, &["--ca", ca], "tls-watch").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ca_certificate_as_the_servers_own_is_explained() {
    let (server, cert) = tls_server("tls-ca-cert", true).await;
    let ca = cert.to_str().unwrap();
    let output = run(&["--server", &server.url, "--ca", ca, "history"], "tls-ca").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("marked as a CA"), "{stderr}");
    assert!(stderr.contains("CA:FALSE"), "{stderr}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_play_each_other() {
    let server = Embedded::start(config()).await.unwrap();
    let bot = |dir: &str| {
        let args = [
            "--server",
            &server.url,
            "bot",
            "--level",
            "perfect",
            "--games",
            "2",
        ]
        .map(String::from)
        .to_vec();
        run_bin(args, temp_dir(dir))
    };
    let (a, b) = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::join!(bot("bot-a"), bot("bot-b"))
    })
    .await
    .expect("the bots finish");
    for output in [a, b] {
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(
            stdout.contains("2 games: 0 won, 2 drawn, 0 lost"),
            "{stdout}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_a_clear_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("ws://127.0.0.1:{port}");
    for command in [vec!["watch", "1", "--plain"], vec!["play"], vec!["bot"]] {
        let mut args = vec!["--server".to_owned(), url.clone()];
        args.extend(command.iter().map(|s| s.to_string()));
        let output = run_bin(args, temp_dir("unreachable")).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{command:?}: {stderr}");
        assert!(stderr.contains("cannot reach"), "{command:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_clear_errors() {
    let server = Embedded::start(config()).await.unwrap();
    let output = run_bin(
        ["--server", &server.url, "watch", "999", "--plain"]
            .map(String::from)
            .to_vec(),
        temp_dir("refused"),
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no such game"), "{stderr}");
    let output = run_bin(
        [
            "--server",
            &server.url,
            "--name",
            "   ",
            "watch",
            "1",
            "--plain",
        ]
        .map(String::from)
        .to_vec(),
        temp_dir("refused"),
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot play as"), "{stderr}");
    server.stop().await;
}

#[tokio::test]
async fn analyse_reports_the_value_of_every_move() {
    let output = run_bin(
        ["analyse", "--variant", "classic", "X.O/.X./..."]
            .map(String::from)
            .to_vec(),
        temp_dir("analyse"),
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("classic, O to move"), "{stdout}");
    let output = run_bin(
        ["analyse", "--variant", "classic", "XXX/OO./...", "--json"]
            .map(String::from)
            .to_vec(),
        temp_dir("analyse"),
    )
    .await;
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["moves"], serde_json::json!([]));
    let output = run_bin(
        ["analyse", "--variant", "classic", "OOO"]
            .map(String::from)
            .to_vec(),
        temp_dir("analyse"),
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_war_game_can_be_replayed() {
    let server = Embedded::start(config()).await.unwrap();
    let watch = [
        "--server",
        &server.url,
        "watch",
        "--war",
        "classic",
        "--plain",
    ]
    .map(String::from)
    .to_vec();
    let output = run_bin(watch, temp_dir("replay")).await;
    let watched = String::from_utf8_lossy(&output.stdout).into_owned();
    let game = game_of(&watched);
    let output = run(
        &["--server", &server.url, "replay", game, "--plain"],
        "replay",
    )
    .await;
    let replayed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{replayed}");
    // The league pairs the levels in turn, so the game may be any pairing's: the replay
    // names the same players and ends on the position and result the watcher saw.
    let header = replayed.lines().next().unwrap_or_default();
    let players = header
        .split_once(": ")
        .map(|(_, rest)| rest.trim_end_matches(" (AI against AI)"))
        .unwrap_or_else(|| panic!("{replayed}"));
    let watched_header = watched.lines().next().unwrap_or_default();
    assert!(
        watched_header.contains(players),
        "{watched_header} / {header}"
    );
    let last_board = |text: &str| {
        text.lines()
            .rev()
            .skip(1)
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(last_board(&replayed), last_board(&watched));
    let result = |text: &str| text.trim_end().lines().last().map(|l| l.to_owned());
    assert!(
        result(&replayed).is_some_and(|line| line.starts_with("result: ")),
        "{replayed}"
    );
    assert_eq!(result(&replayed), result(&watched), "{watched}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn played_games_are_listed_and_replayed_from_the_record() {
    let server = Embedded::start(config()).await.unwrap();
    let (dir_a, dir_b) = (temp_dir("history-a"), temp_dir("history-b"));
    // The bots seek rated games, which are between accounts: each comes back as one.
    for (name, dir) in [("ann", &dir_a), ("ben", &dir_b)] {
        account_for_the_client(&server.url, name, dir).await;
    }
    let bot = |name: &str, dir: &PathBuf| {
        let args = [
            "--server",
            &server.url,
            "--name",
            name,
            "bot",
            "--games",
            "1",
            "--think-ms",
            "0",
            "--rated",
        ]
        .map(String::from)
        .to_vec();
        run_bin(args, dir.clone())
    };
    let (a, b) = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::join!(bot("ann", &dir_a), bot("ben", &dir_b))
    })
    .await
    .expect("the bots finish");
    for output in [&a, &b] {
        assert!(output.status.success(), "{output:?}");
    }

    // ann's history: the client keeps her identity for this server in her config directory.
    let history = ["--server", &server.url, "--name", "ann", "history"]
        .map(String::from)
        .to_vec();
    let output = run_bin(history, dir_a.clone()).await;
    let listed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{listed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // An account is named by its username alone.
    assert!(listed.starts_with("ann\n"), "{listed}");
    // Perfect against perfect: a rated draw, and a rating now in the profile.
    assert!(listed.contains("classic  rating "), "{listed}");
    assert!(
        listed.contains("(1 rated), 1 games: 0 won, 1 drawn, 0 lost"),
        "{listed}"
    );
    let line = listed
        .lines()
        .find(|l| l.starts_with("game "))
        .unwrap_or_else(|| panic!("a game is listed:\n{listed}"));
    assert!(line.contains("classic rated  drew"), "{line}");
    assert!(
        line.contains("ann 1500 (+0)") && line.contains("ben 1500 (+0)"),
        "{line}"
    );
    assert!(line.ends_with("draw (board full), 9 moves"), "{line}");
    let game = game_of(line);

    // Its record replays, move by move, to a full board and the same result.
    let replay = ["--server", &server.url, "replay", game, "--plain"];
    let output = run(&replay, "history-replay").await;
    let replayed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{replayed}");
    assert!(
        replayed.starts_with(&format!("game {game}: X ")),
        "{replayed}"
    );
    assert!(
        replayed.contains("(rated)\nclassic, 9 moves\n"),
        "{replayed}"
    );
    let mut board = Board::new(Variant::Classic);
    for ply in 1..=9 {
        let at = replayed
            .find(&format!("move {ply}: "))
            .unwrap_or_else(|| panic!("move {ply} is printed:\n{replayed}"));
        // Cells are printed as people number them: 1 to 9.
        let cell: usize = replayed[at..]
            .lines()
            .next()
            .unwrap()
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        board = board.play(cell - 1).unwrap();
    }
    assert_eq!(board.outcome(), Some(noughts_engine::Outcome::Draw));
    let last: Vec<&str> = replayed.lines().rev().skip(1).take(3).collect();
    let expected: Vec<String> = noughts_client::plain::board_lines(&board)
        .into_iter()
        .rev()
        .map(|l| format!("  {l}"))
        .collect();
    assert_eq!(last, expected, "{replayed}");
    assert!(
        replayed.trim_end().ends_with("result: draw (board full)"),
        "{replayed}"
    );

    // The same record on the replay screen, stepped with the arrow keys under tmux.
    if Tmux::available() {
        let command = format!(
            "env NOUGHTS_CONFIG_DIR={} {} --server {} replay {game}",
            temp_dir("history-tmux").display(),
            crate::support::bin().display(),
            server.url
        );
        let tmux = Tmux::start("replay", 80, 24, &command);
        tmux.wait_for("the final position", |s| {
            s.contains(&format!("replay of game #{game}")) && s.contains("move 9 of 9")
        })
        .await;
        tmux.send("Home");
        tmux.wait_for("the empty board", |s| s.contains("start · 9 moves"))
            .await;
        tmux.send("Right");
        let screen = tmux
            .wait_for("the first move", |s| s.contains("move 1 of 9: X on cell"))
            .await;
        let first = board_after(&replayed, 1);
        assert_eq!(read_board(&screen, 80, 24), first, "{screen}");
        tmux.send("q");
        let deadline = Instant::now() + Duration::from_secs(10);
        while tmux.alive() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(!tmux.alive(), "q leaves a replay started on its own");
    }

    // A game the server never had is a clear error.
    let output = run_bin(
        ["--server", &server.url, "replay", "9999", "--plain"]
            .map(String::from)
            .to_vec(),
        temp_dir("history-missing"),
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no_such_game"), "{stderr}");
    server.stop().await;
}

/// The board after move `ply` of a `--plain` replay, read from its text.
fn board_after(replayed: &str, ply: usize) -> Board {
    let lines: Vec<&str> = replayed
        .lines()
        .skip_while(|l| !l.starts_with(&format!("move {ply}: ")))
        .skip(1)
        .take(3)
        .map(str::trim)
        .collect();
    Board::parse(Variant::Classic, &lines.join("/")).unwrap()
}

/// A WebSocket of a player of this test's own, speaking the protocol directly.
struct Player {
    socket: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl Player {
    async fn join(url: &str, name: &str) -> Player {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut player = Player { socket };
        player
            .send(serde_json::json!({"type": "hello", "protocol": 2, "name": name}))
            .await;
        player.until("welcome").await;
        player
    }

    async fn send(&mut self, message: serde_json::Value) {
        use futures_util::SinkExt;
        let text = tokio_tungstenite::tungstenite::Message::text(message.to_string());
        self.socket.send(text).await.unwrap();
    }

    /// Reads until a message of type `kind` arrives, and returns it.
    async fn until(&mut self, kind: &str) -> serde_json::Value {
        self.until_that(kind, |_| true).await
    }

    /// Reads until a message of type `kind` for which `what` holds arrives, and returns it.
    async fn until_that(
        &mut self,
        kind: &str,
        what: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        use futures_util::StreamExt;
        let wait = async {
            loop {
                let frame = self.socket.next().await.unwrap().unwrap();
                if let tokio_tungstenite::tungstenite::Message::Text(text) = frame {
                    let value: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
                    if value["type"] == kind && what(&value) {
                        return value;
                    }
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), wait)
            .await
            .unwrap_or_else(|_| panic!("no {kind} came"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_game_is_watched_with_its_code() {
    let server = Embedded::start(config()).await.unwrap();
    let mut host = Player::join(&server.url, "host").await;
    let mut guest = Player::join(&server.url, "guest").await;
    host.send(serde_json::json!({"type": "create_room", "variant": "classic", "private": true}))
        .await;
    let code = host.until("room_created").await["code"].clone();
    guest
        .send(serde_json::json!({"type": "join_room", "code": code}))
        .await;
    let state = guest.until("game_state").await;
    host.until("game_state").await;
    let game = state["game"].as_u64().unwrap();
    let (x, o) = if state["you"] == "x" {
        (&mut guest, &mut host)
    } else {
        (&mut host, &mut guest)
    };
    // X takes the top row.
    for (mover, cell) in [(0, 0), (1, 3), (0, 1), (1, 4), (0, 2)] {
        let player = if mover == 0 { &mut *x } else { &mut *o };
        player
            .send(serde_json::json!({"type": "move", "game": game, "cell": cell}))
            .await;
        // The mover waits for its own move, so the other side is on turn when it answers.
        player.until_that("moved", |m| m["cell"] == cell).await;
    }
    x.until("game_over").await;

    let watch = |code: Option<&str>| {
        let mut args = vec!["--server", &server.url, "watch"];
        let game = game.to_string();
        args.push(&game);
        args.extend(code.map(|code| ["--code", code]).into_iter().flatten());
        args.push("--plain");
        let args: Vec<String> = args.into_iter().map(String::from).collect();
        run_bin(args, temp_dir("private"))
    };
    let output = watch(None).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no such game"), "{stderr}");
    let output = watch(code.as_str()).await;
    let watched = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{watched}");
    assert!(
        watched.starts_with(&format!("game {game} (classic)")),
        "{watched}"
    );
    assert!(
        watched
            .trim_end()
            .ends_with("result: X wins (three in a row)"),
        "{watched}"
    );
    server.stop().await;
}
