//! The replay's engine verdicts: the move list beside the board marks each move best,
//! inaccuracy (?) or blunder (??) as the engine judges it (the server's `analyse_game`, the
//! terminal client's verdicts); a move pressed is jumped to, and the arrow keys step; the move
//! shown is judged in plain words, beside the value graph and each side's accuracy.

use fantoccini::key::Key;
use noughts_engine::{Budget, Mark, MoveVerdict, Variant, review};
use noughts_protocol::ClientMessage;
use noughts_tests::browser::{
    Driver, Screen, assert_no_errors, attr, keys, press, wait_for, wait_for_text,
};

use super::{page_against_rival, screenshot};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_marks_each_move_with_the_engines_verdict() {
    verdicts(Screen::Desktop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_phone_the_replay_marks_each_move_with_the_engines_verdict() {
    verdicts(Screen::Phone).await;
}

/// On `screen`: a game played to its end, then its replay with the engine's verdicts; a move
/// pressed is jumped to (and, on the desktop, the arrow keys step).
async fn verdicts(screen: Screen) {
    let Some(driver) = Driver::start().await else {
        return;
    };
    let (_server, client, mut rival, state) = page_against_rival(&driver, screen).await;
    // X centre, O on an edge (a blunder: X now wins by force), and X goes on to win.
    let cells = [4, 1, 0, 8, 6, 2, 3];
    for (i, &cell) in cells.iter().enumerate() {
        let mover = if i % 2 == 0 { Mark::X } else { Mark::O };
        if state.you == Some(mover) {
            rival
                .send(ClientMessage::Move {
                    game: state.game,
                    cell,
                })
                .await;
        } else {
            wait_for_text(&client, "#game-status", |t| t.contains("Your move")).await;
            press(
                &client,
                screen,
                &format!("button.cell[data-cell=\"{cell}\"]"),
            )
            .await;
        }
        wait_for(
            &client,
            &format!("button.cell[data-cell=\"{cell}\"][data-mark]"),
        )
        .await;
    }
    wait_for(&client, "#game-over").await;
    press(&client, screen, "#replay").await;
    // Every move gets the engine's verdict: the ones the terminal client shows.
    wait_for(
        &client,
        &format!(
            ".replay-moves .move[data-ply=\"{}\"][data-verdict]",
            cells.len()
        ),
    )
    .await;
    let expected = review(Variant::Classic, &cells, Budget::DEFAULT);
    assert_eq!(expected[1], Some(MoveVerdict::Blunder));
    for (i, verdict) in expected.iter().enumerate() {
        let verdict = verdict.expect("classic is judged exactly");
        let ply = i + 1;
        let css = format!(".replay-moves .move[data-ply=\"{ply}\"]");
        assert_eq!(
            attr(&client, &css, "data-verdict").await.as_deref(),
            Some(verdict.word())
        );
        let label = attr(&client, &css, "aria-label").await.unwrap_or_default();
        assert!(label.ends_with(&format!(", {}", verdict.word())), "{label}");
        let text = wait_for_text(&client, &css, |_| true).await;
        assert!(text.ends_with(verdict.mark()), "move {ply}: {text}");
        if verdict == MoveVerdict::Best {
            assert!(!text.ends_with('?'), "move {ply}: {text}");
        }
    }
    wait_for_text(&client, "#replay-engine", |t| t.contains("?? a blunder")).await;
    // A move pressed is jumped to, and its verdict said.
    press(&client, screen, ".replay-moves .move[data-ply=\"2\"]").await;
    wait_for(&client, ".replay[data-ply=\"2\"]").await;
    wait_for_text(&client, "#replay-status", |t| {
        t.starts_with("move 2 of 7") && t.ends_with("blunder")
    })
    .await;
    // In plain words: the best move, and what the blunder cost (a draw became X's win).
    let said = wait_for_text(&client, "#replay-verdict", |t| t.contains("best was")).await;
    assert!(
        said.starts_with("?? O 2: blunder: best was ") && said.contains("draw → X wins in "),
        "{said}"
    );
    // The value graph: a bar per ply, X's proven win once O has blundered, the ply shown marked.
    assert_eq!(
        attr(&client, "#value-graph rect[data-ply=\"0\"]", "class")
            .await
            .as_deref(),
        Some("draw")
    );
    assert_eq!(
        attr(&client, "#value-graph rect[data-ply=\"2\"]", "class")
            .await
            .as_deref(),
        Some("x-wins current")
    );
    // Each side's accuracy, with how many of its moves were judged.
    let accuracy = wait_for_text(&client, "#replay-accuracy", |t| t.contains("O: accuracy")).await;
    assert!(
        accuracy.contains("X: accuracy 100% (4 of 4 judged moves best")
            && accuracy.contains("of 3 judged moves best"),
        "{accuracy}"
    );
    wait_for_text(&client, "#replay-progress", |t| t == "Analysis complete.").await;
    if screen == Screen::Desktop {
        screenshot(&client, "replay.png").await;
        // The keyboard steps from there (keyboard play is tried on the desktop).
        keys(&client, &[char::from(Key::Right)]).await;
        wait_for_text(&client, "#replay-status", |t| t.starts_with("move 3 of 7")).await;
        wait_for(
            &client,
            ".replay-moves .move[data-ply=\"3\"][aria-current=\"step\"]",
        )
        .await;
        keys(&client, &[char::from(Key::Home)]).await;
        wait_for_text(&client, "#replay-status", |t| t.starts_with("start")).await;
    } else {
        // A finger steps with the replay's buttons.
        press(&client, screen, "#replay-next").await;
        wait_for_text(&client, "#replay-status", |t| t.starts_with("move 3 of 7")).await;
        press(&client, screen, "#replay-start").await;
        wait_for_text(&client, "#replay-status", |t| t.starts_with("start")).await;
    }
    assert_no_errors(&client).await;
    client.close().await.unwrap();
}
