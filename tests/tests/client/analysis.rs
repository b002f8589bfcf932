//! The replay screen says what the server's analysis found, in the page's words: the blunder's
//! mark in the move list, "best was 1; draw → X wins in 5" at the move, the row of the position's
//! value over the game, and each side's accuracy.

use noughts_client::embedded::Embedded;
use noughts_engine::Variant;
use noughts_protocol::ServerMessage;
use noughts_tests::tmux::Tmux;
use noughts_tests::{alternate, quick_match};

use crate::support::{bin, config, temp_dir};

#[tokio::test]
async fn the_replay_shows_the_analysis_in_plain_words() {
    if !Tmux::available() {
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let (mut x, mut o, state) = quick_match(&server.url, Variant::Classic).await;
    // X centre, O on an edge (a blunder: X now wins by force), and X goes on to win.
    alternate(&mut x, &mut o, state.game, &[4, 1, 0, 8, 6, 2, 3]).await;
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {} replay {}",
        temp_dir("tmux-analysis").display(),
        bin().display(),
        server.url,
        state.game.0
    );
    let tmux = Tmux::start("analysis", 100, 30, &command);
    let screen = tmux
        .wait_for("the analysis", |s| s.contains("X: accuracy"))
        .await;
    // Each side's accuracy (wrapped in the box, as is the move's verdict below).
    assert!(screen.contains("X: accuracy 100% (4 of 4"), "{screen}");
    assert!(screen.contains("O: accuracy 67% (2 of 3"), "{screen}");
    assert!(screen.contains("judged moves best, 3 played)"), "{screen}");
    // The graph: the empty board a draw, then X's win from O's blunder on.
    assert!(screen.contains("value ──▀▀▀▀▀▀"), "{screen}");
    // The blunder's mark in the move list.
    assert!(screen.contains("2.O2??"), "{screen}");
    // Back to move 2: the blunder in plain words.
    for _ in 0..5 {
        tmux.send("Left");
    }
    let screen = tmux
        .wait_for("move 2 judged", |s| s.contains("move 2 of 7"))
        .await;
    assert!(screen.contains("?? blunder: best was 1; draw"), "{screen}");
    assert!(screen.contains("→ X wins in 5"), "{screen}");
    tmux.send("q");
}
