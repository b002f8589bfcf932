//! Mute, block and report from the terminal client under tmux, against the real server binary on
//! a SQLite file: the `P` menu in a game against a scripted player, the chat the mute hides (the
//! player's own later line as the fence), the room the block refuses, and the report the operator
//! reads with `noughts-server admin reports`.

use noughts_protocol::{ClientMessage, ErrorCode, GameId, PlayerId};
use noughts_tests::process::{ServerProcess, admin};
use noughts_tests::tmux::Tmux;
use noughts_tests::{Client, Scratch, binary};

use crate::support::{bin, temp_dir};

/// The invite code the room box shows ("   CODE  (they press i and type it)").
fn room_code(screen: &str) -> String {
    screen
        .lines()
        .find_map(|line| line.split_once("(they press i and type it)"))
        .and_then(|(before, _)| before.split_whitespace().last())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no invite code on screen:\n{screen}"))
}

/// The TUI opens a room (`c`, then the form's defaults); its invite code.
async fn open_room(tmux: &Tmux) -> String {
    tmux.send("c");
    tmux.wait_for("the room form", |s| s.contains("Create a room"))
        .await;
    tmux.send("Enter");
    let screen = tmux
        .wait_for("the invite code", |s| {
            s.contains("(they press i and type it)")
        })
        .await;
    room_code(&screen)
}

/// The TUI types `text` into the game's chat and waits until the server has sent it back.
async fn chat(tmux: &Tmux, text: &str) -> String {
    tmux.send("c");
    tmux.send(text);
    tmux.send("Enter");
    tmux.wait_for("our own chat line", |s| {
        s.contains(&format!("ada (guest): {text}"))
    })
    .await
}

/// Opens the `P` menu on the game screen (only bo to choose: it goes straight to what to do)
/// and presses `key`.
async fn menu(tmux: &Tmux, shows: &str, key: &str) {
    tmux.send("P");
    tmux.wait_for("the people menu", |s| s.contains(shows))
        .await;
    tmux.send(key);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_player_mutes_unmutes_reports_and_blocks_from_the_game() {
    if !Tmux::available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing, and CI must run the terminal tests"
        );
        println!("skipped: tmux is not installed");
        return;
    }
    let dir = Scratch::new("tui-moderation");
    let server = binary::path("noughts-server");
    let live = ServerProcess::start(&server, &dir.dir, &[]);
    let (url, db) = (live.url.clone(), live.db.clone());
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {url} --name ada",
        temp_dir("tui-moderation").display(),
        bin().display(),
    );
    let tmux = Tmux::start("moderation", 100, 30, &command);
    tmux.wait_for("the lobby", |s| s.contains("Lobby") && s.contains("online"))
        .await;

    // bo, a scripted player, joins ada's room.
    let code = open_room(&tmux).await;
    let mut bo = Client::join(&url, "bo").await;
    bo.send(ClientMessage::JoinRoom { code }).await;
    let state = bo.game_state().await;
    let game: GameId = state.game;
    let ada: PlayerId = [state.x.player, state.o.player]
        .into_iter()
        .flatten()
        .find(|&p| p != bo.player)
        .expect("ada's seat");
    tmux.wait_for("the game with bo", |s| {
        s.contains("bo (guest)") && s.contains("(you)")
    })
    .await;
    bo.say(game, "first-from-bo").await;
    tmux.wait_for("bo's line", |s| s.contains("bo (guest): first-from-bo"))
        .await;

    // Mute: bo's line already shown goes, and his next one never comes; ada's own is the fence.
    menu(&tmux, "Mute: hide their chat", "m").await;
    tmux.wait_for("the mute", |s| {
        s.contains("Muted bo") && !s.contains("first-from-bo")
    })
    .await;
    bo.say(game, "hidden-from-ada").await;
    let screen = chat(&tmux, "fence-one").await;
    assert!(!screen.contains("hidden-from-ada"), "{screen}");

    // Unmute: bo's next line shows again.
    menu(&tmux, "Unmute: see their chat again", "u").await;
    tmux.wait_for("the unmute", |s| s.contains("Unmuted bo"))
        .await;
    bo.say(game, "heard-again").await;
    tmux.wait_for("bo's line after the unmute", |s| {
        s.contains("bo (guest): heard-again")
    })
    .await;

    // Report, with a reason: the operator reads it, with the game.
    menu(&tmux, "Report…", "r").await;
    tmux.wait_for("the report form", |s| s.contains("Abuse in chat"))
        .await;
    tmux.send("rude-in-chat");
    tmux.send("Enter");
    tmux.wait_for("the report sent", |s| s.contains("Reported bo"))
        .await;
    let listed = admin(&db, &["reports"]);
    assert!(
        listed.contains(&format!(
            "player {} reports player {} for abuse: rude-in-chat",
            ada.0, bo.player.0
        )),
        "{listed}"
    );
    assert!(listed.contains(&format!("in game {}", game.0)), "{listed}");

    // Block: once this game is over, bo may not join ada's next room.
    menu(&tmux, "Block: never paired", "b").await;
    tmux.wait_for("the block", |s| s.contains("Blocked bo"))
        .await;
    tmux.send("a");
    tmux.wait_for("the game aborted", |s| s.contains("Game aborted"))
        .await;
    tmux.send("q");
    tmux.wait_for("the lobby again", |s| s.contains("Lobby"))
        .await;
    let code = open_room(&tmux).await;
    bo.expect_error(1, ClientMessage::JoinRoom { code }, ErrorCode::Blocked)
        .await;
    drop(live);
}
