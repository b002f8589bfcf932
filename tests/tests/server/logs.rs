//! The real server's log at INFO, as an operator reads it: quiet on a server whose only traffic is
//! its war games, one JSON object a line with `--log-format json`, a game's lines carrying the
//! game's id and a connection's its own, and neither a token nor a chat line in it.

use noughts_protocol::{ClientMessage, GameKind, Mark, Variant};
use noughts_tests::process::ServerProcess;
use noughts_tests::{Client, Scratch, alternate, binary};
use serde_json::Value;

/// War games that end while the log is watched: enough that a line for each would show.
const WAR_GAMES: u64 = 40;

/// The spans a JSON line was written in, by name, with their fields.
fn spans(line: &Value) -> Vec<&serde_json::Map<String, Value>> {
    (line
        .get("spans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten())
    .filter_map(Value::as_object)
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_info_log_is_quiet_json_and_keeps_tokens_and_chat_out() {
    let dir = Scratch::new("logs");
    let bin = binary::path("noughts-server");
    let mut server = ServerProcess::start_logging(
        &bin,
        &dir.dir,
        "info",
        &[
            "--log-format",
            "json",
            "--war-variants",
            "classic",
            "--war-move-ms",
            "0",
            "--war-restart-ms",
            "0",
        ],
    );
    // Two people play a game and chat in it.
    let mut ada = Client::join(&server.url, "ada").await;
    let mut bo = Client::join(&server.url, "bo").await;
    let code = ada.create_room(1, Variant::Classic, false).await;
    bo.send(ClientMessage::JoinRoom { code }).await;
    let state = ada.game_state().await;
    let _ = bo.game_state().await;
    let game = state.game;
    ada.say(game, "a line the log never holds").await;
    let (x, o) = if state.you == Some(Mark::X) {
        (&mut ada, &mut bo)
    } else {
        (&mut bo, &mut ada)
    };
    alternate(x, o, game, &[0, 3, 1, 4, 2]).await;
    // Meanwhile the war games go on: wait until the lobby lists one that many games later.
    let mut watcher = Client::join(&server.url, "watcher").await;
    let mut view = watcher.follow_lobby(1).await;
    let past = game.0 + WAR_GAMES;
    watcher
        .lobby_until(&mut view, |view| {
            (view.games.values()).any(|g| g.kind == GameKind::War && g.game.0 > past)
        })
        .await;
    let tokens = [ada.token.clone(), bo.token.clone(), watcher.token.clone()];
    drop((ada, bo, watcher));
    server.terminate();
    assert!(server.exited().await.success());

    let log = std::fs::read_to_string(dir.dir.join("server.log")).expect("read the log");
    let lines: Vec<Value> = (log.lines())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect();
    for token in &tokens {
        assert!(!log.contains(token.as_str()), "a token in the log:\n{log}");
    }
    assert!(
        !log.contains("the log never holds"),
        "chat in the log:\n{log}"
    );
    // Quiet: the lines do not grow with the war games (some 40 ended); what is left is the
    // start, three connections, one game and the stop.
    assert!(
        lines.len() < 30,
        "{} lines for three people and one game:\n{log}",
        lines.len()
    );
    for line in &lines {
        let level = line.get("level").and_then(Value::as_str);
        assert!(matches!(level, Some("INFO" | "WARN")), "{line}");
        for span in spans(line) {
            match span.get("name").and_then(Value::as_str) {
                Some("game") => assert!(span.contains_key("id"), "{line}"),
                Some("conn") => assert!(span.contains_key("peer"), "{line}"),
                _ => {}
            }
        }
    }
    // The game the two played is in it, by its id.
    let about_the_game = lines.iter().any(|line| {
        spans(line).iter().any(|span| {
            span.get("name").and_then(Value::as_str) == Some("game")
                && span.get("id").and_then(Value::as_u64) == Some(game.0)
        })
    });
    assert!(about_the_game, "no line about game {}:\n{log}", game.0);
}
