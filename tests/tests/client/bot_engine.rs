//! `noughts bot --engine`: the real binary signs in to an account, turns it into a bot account,
//! and lets a small shell script choose its moves in a whole rated game against a person who
//! chose to play bots.

use std::process::Command;
use std::time::Duration;

use noughts_client::embedded::Embedded;
use noughts_engine::{Board, Mark, Variant};
use noughts_protocol::{ClientMessage, Seek, ServerMessage};
use noughts_tests::accounts::{TEST_PASSWORD, make_account, registered};

use crate::support::{bin, config, temp_dir};

/// The engine: the first empty cell of each position, by its 0-based number.
pub(crate) const FIRST_EMPTY: &str = r#"#!/bin/sh
while read variant board; do
  cells=$(printf '%s' "$board" | tr -d /)
  i=0
  while [ "$(printf '%s' "$cells" | cut -c$((i + 1)))" != . ]; do i=$((i + 1)); done
  echo "$i"
done
"#;

/// The first empty cell of `board`.
pub(crate) fn first_empty(board: &Board) -> usize {
    (0..board.variant().cells())
        .find(|&cell| board.get(cell).is_none())
        .expect("a free cell")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_run_by_a_script_plays_a_whole_game_with_a_person_who_chose_bots() {
    let server = Embedded::start(config()).await.unwrap();
    let dir = temp_dir("engine-bot");
    let mut account = noughts_tests::Client::join(&server.url, "scripted").await;
    registered(&mut account, "scripted", TEST_PASSWORD).await;
    drop(account);
    let script = dir.join("first.sh");
    std::fs::write(&script, FIRST_EMPTY).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    // Dana seeks a rated game and accepts bots; hers waits until the bot's meets it.
    let mut dana = noughts_tests::Client::join(&server.url, "dana").await;
    make_account(&mut dana).await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: true,
        bots: true,
    });
    assert!(matches!(
        dana.request(1, seek).await,
        ServerMessage::Seeking { .. }
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
        "--rated",
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

    let state = dana.game_state().await;
    let me = state.you.expect("dana plays");
    let bot_seat = if me == Mark::X { &state.o } else { &state.x };
    assert!(bot_seat.bot && bot_seat.name == "scripted", "{state:?}");
    assert!(state.rated);
    let mut board = Board::parse(Variant::Classic, &state.board).unwrap();
    let mut bot_moves = Vec::new();
    let game = state.game;
    // Dana plays the last empty cell; the bot, by its script, the first.
    if state.to_move == Some(me) {
        let cell = (0..9).rev().find(|&c| board.get(c).is_none()).unwrap();
        dana.send(ClientMessage::Move { game, cell }).await;
    }
    let result = loop {
        match dana.game_event(game).await {
            ServerMessage::Moved {
                mark,
                cell,
                board: after,
                to_move,
                ..
            } => {
                if mark != me {
                    bot_moves.push((cell, first_empty(&board)));
                }
                board = Board::parse(Variant::Classic, &after).unwrap();
                if to_move == Some(me) {
                    let cell = (0..9).rev().find(|&c| board.get(c).is_none()).unwrap();
                    dana.send(ClientMessage::Move { game, cell }).await;
                }
            }
            ServerMessage::GameOver {
                result, ratings, ..
            } => {
                assert!(ratings.is_some(), "rated");
                break result;
            }
            _ => {}
        }
    };
    assert!(bot_moves.len() >= 2, "{bot_moves:?}");
    for (played, first) in &bot_moves {
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
        stdout.contains("scripted is a bot account from now on"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("game {}: playing", game.0)),
        "{stdout}"
    );
    assert!(stdout.contains("1 games:"), "{stdout} {result:?}");
    server.stop().await;
}
