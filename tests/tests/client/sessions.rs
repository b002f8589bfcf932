//! One player in two terminals: one-shot commands run beside a game in progress, as the same
//! player, never take the game from the terminal playing it.

use std::time::Duration;

use noughts_client::embedded::Embedded;

use noughts_tests::tmux::Tmux;

use crate::support::{bin, config, run_bin, temp_dir};
use crate::tui::moves_shown;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_commands_beside_a_game_leave_it_playing() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let config_dir = temp_dir("beside");
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {} --name tester",
        config_dir.display(),
        bin().display(),
        server.url
    );
    let tmux = Tmux::start("beside", 100, 30, &command);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;
    tmux.send("a");
    tmux.wait_for("the form", |s| s.contains("Play the AI"))
        .await;
    tmux.send("Enter");
    tmux.wait_for("the game", |s| s.contains("Your move")).await;
    tmux.send("5");
    tmux.wait_for("the AI's answer", |s| {
        s.contains("Your move") && moves_shown(s) >= Some(2)
    })
    .await;

    // The same player, from another terminal: every one-shot command that talks to the server.
    let server_flag = ["--server".to_owned(), server.url.clone()];
    for args in [
        vec!["history".to_owned()],
        vec!["history".to_owned(), "--limit".to_owned(), "5".to_owned()],
        vec![
            "watch".to_owned(),
            "--war".to_owned(),
            "classic".to_owned(),
            "--plain".to_owned(),
        ],
    ] {
        let args: Vec<String> = server_flag.iter().cloned().chain(args).collect();
        let out = tokio::time::timeout(
            Duration::from_secs(60),
            run_bin(args.clone(), config_dir.clone()),
        )
        .await
        .unwrap_or_else(|_| panic!("noughts {args:?} finished"));
        assert!(
            out.status.success(),
            "noughts {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The war game just watched is replayed from its record, as the same player too.
        if args.contains(&"--war".to_owned()) {
            let watched = String::from_utf8_lossy(&out.stdout).into_owned();
            let game = watched
                .strip_prefix("game ")
                .and_then(|rest| rest.split_whitespace().next())
                .expect("the watched game's id")
                .to_owned();
            let replay = [
                server_flag.to_vec(),
                vec!["replay".into(), game, "--plain".into()],
            ];
            let out = run_bin(replay.concat(), config_dir.clone()).await;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    // The playing terminal never noticed: still online, and the game goes on.
    let screen = tmux.capture();
    assert!(
        screen.contains("online") && !screen.contains("another client"),
        "{screen}"
    );
    let board = crate::tui::read_board(&screen, 100, 30);
    let free = (0..9).find(|&cell| board.get(cell).is_none()).unwrap();
    tmux.send(&(free + 1).to_string());
    tmux.wait_for("the game to go on", |s| {
        s.contains("online")
            && (moves_shown(s) >= Some(4) || s.contains("You lose") || s.contains("Draw"))
    })
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_ends_the_identity_kept_in_the_token_file() {
    let server = Embedded::start(config()).await.unwrap();
    let config_dir = temp_dir("logout");
    let run = |command: &str| {
        let args = vec![
            "--server".to_owned(),
            server.url.clone(),
            command.to_owned(),
        ];
        run_bin(args, config_dir.clone())
    };
    let out = run("history").await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tokens = std::fs::read_to_string(config_dir.join("tokens")).unwrap();
    let token = tokens
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{} ", server.url)))
        .expect("the identity is kept")
        .to_owned();
    let out = run("logout").await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("logged out"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tokens = std::fs::read_to_string(config_dir.join("tokens")).unwrap();
    assert!(
        !tokens.contains(&server.url),
        "the token file forgot it: {tokens}"
    );
    // The token no longer works: the server says so.
    let mut socket = noughts_tests::connect(&server.url).await;
    let hello = noughts_protocol::ClientMessage::Hello {
        protocol: noughts_protocol::PROTOCOL_VERSION,
        name: "thief".into(),
        token: Some(token),
        credentials: None,
    };
    noughts_tests::send_frame(&mut socket, &noughts_protocol::ClientFrame::new(hello)).await;
    let answer = noughts_tests::read_frame(&mut socket)
        .await
        .unwrap()
        .message;
    assert!(
        matches!(
            answer,
            noughts_protocol::ServerMessage::Error {
                code: noughts_protocol::ErrorCode::UnknownToken,
                ..
            }
        ),
        "{answer:?}"
    );
    // Nothing is left to log out of.
    let out = run("logout").await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to log out of"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_without_a_server_says_so_at_once() {
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        run_bin(vec!["bot".to_owned()], temp_dir("lonely-bot")),
    )
    .await
    .expect("noughts bot never hangs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--server"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qubic_is_drawn_whole_in_a_60_by_20_terminal() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(noughts_server::Config {
        war_variants: vec![noughts_engine::Variant::Qubic],
        war_budget: noughts_engine::Budget::millis(5),
        ..config()
    })
    .await
    .unwrap();
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {} watch --war qubic",
        temp_dir("qubic60").display(),
        bin().display(),
        server.url
    );
    let tmux = Tmux::start("qubic60", 60, 20, &command);
    let screen = tmux
        .wait_for("the four layers beside the panel", |s| {
            (1..=4).all(|layer| s.contains(&format!("layer {layer}"))) && s.contains("Game #")
        })
        .await;
    // Every layer's frame is whole: four tops and four bottoms, two by two.
    assert_eq!(screen.matches("┌────────────┐").count(), 4, "{screen}");
    assert_eq!(screen.matches("└────────────┘").count(), 4, "{screen}");
    server.stop().await;
}

/// `noughts` without a server keeps its games: a second `noughts` joins the first's server, and
/// after both have gone, the next finds the games in the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_keeps_its_history_and_a_second_noughts_joins_the_first() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let dir = temp_dir("standalone");
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} NOUGHTS_DATA_DIR={} {} --name tester",
        dir.display(),
        dir.join("data").display(),
        bin().display(),
    );
    let tmux = Tmux::start("standalone", 100, 30, &command);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;
    tmux.send("a");
    tmux.wait_for("the form", |s| s.contains("Play the AI"))
        .await;
    tmux.send("Enter");
    tmux.wait_for("the game", |s| s.contains("Your move")).await;
    tmux.send("5");
    tmux.wait_for("the AI's answer", |s| {
        s.contains("Your move") && moves_shown(s) >= Some(2)
    })
    .await;
    tmux.send("r");
    tmux.send("y");
    tmux.wait_for("the end", |s| s.contains("You lose")).await;
    // Meanwhile, another noughts on the same machine: it joins the running server.
    let history = |dir: std::path::PathBuf| run_bin(vec!["history".to_owned()], dir);
    let out = history(dir.clone()).await;
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success() && listed.contains("lost"), "{listed}");
    // Both gone: the next start finds the game in the file.
    tmux.send("q");
    tmux.send("q");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tmux.alive() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = history(dir.clone()).await;
    let again = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(again.contains("lost"), "the game is still there: {again}");
    let game = again
        .lines()
        .find_map(|line| line.strip_prefix("game ")?.split_whitespace().next())
        .expect("a game id")
        .to_owned();
    let out = run_bin(
        vec!["replay".to_owned(), game, "--plain".to_owned()],
        dir.clone(),
    )
    .await;
    let replayed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && replayed.contains("move 1: X on cell 5"),
        "{replayed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
