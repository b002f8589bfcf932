//! `noughts bot --engine … --arena ID`: the real binary, its moves chosen by a small shell
//! script, turns its account into a bot account, joins an arena for bots and plays the game the
//! arena pairs it in to the end, against another bot; the arena counts it.

use std::process::Command;
use std::time::Duration;

use noughts_client::embedded::Embedded;
use noughts_engine::{Board, Variant};
use noughts_protocol::{ClientMessage, ClockSpec, CreateArena, ServerMessage};
use noughts_tests::accounts::{TEST_PASSWORD, make_account, registered};

use crate::bot_engine::{FIRST_EMPTY, first_empty};
use crate::support::{bin, config, temp_dir};

/// The last empty cell of `board`: the other bot's way of playing.
fn last_empty(board: &Board) -> usize {
    (0..board.variant().cells())
        .rev()
        .find(|&cell| board.get(cell).is_none())
        .expect("a free cell")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_run_by_a_script_plays_an_arena_game_to_the_end() {
    let server = Embedded::start(noughts_server::Config {
        arena_min_secs: 1,
        war_games: false,
        ..config()
    })
    .await
    .unwrap();
    let dir = temp_dir("arena-bot");
    let mut account = noughts_tests::Client::join(&server.url, "scripted").await;
    registered(&mut account, "scripted", TEST_PASSWORD).await;
    drop(account);
    let script = dir.join("first.sh");
    std::fs::write(&script, FIRST_EMPTY).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    // A person opens an arena for bots; another bot joins it first.
    let mut host = noughts_tests::Client::join(&server.url, "host").await;
    make_account(&mut host).await;
    let request = CreateArena {
        name: Some("Script cup".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: None,
        length_secs: 120,
        private: false,
        bots_only: true,
    };
    let arena = match host.request(1, ClientMessage::CreateArena(request)).await {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    let mut rival = noughts_tests::Client::join(&server.url, "rival").await;
    make_account(&mut rival).await;
    assert_eq!(
        rival.request(2, ClientMessage::BecomeBot).await,
        ServerMessage::Ok
    );
    let join = ClientMessage::JoinArena { arena, code: None };
    assert!(matches!(
        rival.request(3, join).await,
        ServerMessage::Arena(_)
    ));

    let args = [
        "--server",
        &server.url,
        "bot",
        "--username",
        "scripted",
        "--become-bot",
        "--engine",
        script.to_str().unwrap(),
        "--think-ms",
        "0",
        "--arena",
        &arena.0.to_string(),
    ]
    .map(String::from);
    let run_dir = dir.clone();
    let bot = tokio::task::spawn_blocking(move || {
        Command::new(bin())
            .args(args)
            .current_dir(&run_dir)
            .env("NOUGHTS_PASSWORD", TEST_PASSWORD)
            .env("NOUGHTS_DATA_DIR", run_dir.join("data"))
            .env("NOUGHTS_CONFIG_DIR", &run_dir)
            .env_remove("NOUGHTS_SERVER")
            .output()
            .expect("the noughts binary runs")
    });

    let state = rival.game_state().await;
    let me = state.you.expect("the rival plays");
    let game = state.game;
    let seat = if me == noughts_engine::Mark::X {
        &state.o
    } else {
        &state.x
    };
    assert!(seat.bot && seat.name == "scripted", "{state:?}");
    let mut board = Board::parse(Variant::Classic, &state.board).unwrap();
    let mut script_moves = Vec::new();
    if state.to_move == Some(me) {
        let cell = last_empty(&board);
        rival.send(ClientMessage::Move { game, cell }).await;
    }
    loop {
        match rival.game_event(game).await {
            ServerMessage::Moved {
                mark,
                cell,
                board: after,
                to_move,
                ..
            } => {
                if mark != me {
                    script_moves.push((cell, first_empty(&board)));
                }
                board = Board::parse(Variant::Classic, &after).unwrap();
                if to_move == Some(me) {
                    let cell = last_empty(&board);
                    rival.send(ClientMessage::Move { game, cell }).await;
                }
            }
            ServerMessage::GameOver { .. } => break,
            _ => {}
        }
    }
    assert!(script_moves.len() >= 2, "{script_moves:?}");
    for (played, first) in &script_moves {
        assert_eq!(played, first, "the script's move was played");
    }

    let output = tokio::time::timeout(Duration::from_secs(60), bot)
        .await
        .expect("the bot finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("game {}: playing", game.0)),
        "{stdout}"
    );
    assert!(stdout.contains("1 games:"), "{stdout}");

    // The arena counts it: its standings, pushed to the rival who joined, say so.
    rival
        .until(|m| matches!(m, ServerMessage::Arena(view) if view.totals.games == 1))
        .await;
    server.stop().await;
}
