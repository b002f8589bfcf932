//! One numbering for people everywhere: classic's cells are 1 to 9 in what the client prints and
//! reads, the bigger boards are named by coordinates; only the protocol counts from 0.

use crate::support::{run_bin, temp_dir};

async fn run(args: &[&str]) -> (bool, String, String) {
    let out = run_bin(
        args.iter().map(|a| a.to_string()).collect(),
        temp_dir("notation"),
    )
    .await;
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn replay_and_analyse_read_and_print_cells_as_people_name_them() {
    // Cells 5, 1, 9: the centre, the top left, the bottom right.
    let (ok, out, err) = run(&["replay", "--moves", "5,1,9", "--plain"]).await;
    assert!(ok, "{err}");
    assert!(
        out.contains("move 1: X on cell 5\n  ...\n  .X.\n  ...\n"),
        "{out}"
    );
    assert!(
        out.contains("move 3: X on cell 9\n  O..\n  .X.\n  ..X\n"),
        "{out}"
    );
    let (ok, out, err) = run(&["replay", "--variant", "four", "--moves", "b2,a1", "--plain"]).await;
    assert!(ok, "{err}");
    assert!(out.contains("move 1: X on cell b2"), "{out}");
    let (ok, out, err) = run(&["replay", "--variant", "cube", "--moves", "2b2", "--plain"]).await;
    assert!(ok, "{err}");
    assert!(out.contains("move 1: X on cell 2b2"), "{out}");
    let (ok, _, err) = run(&["replay", "--moves", "0,10", "--plain"]).await;
    assert!(!ok && err.contains("1 to 9"), "{err}");
    let (ok, out, err) = run(&["analyse", "X.O/.X./..."]).await;
    assert!(ok, "{err}");
    // O must block at cell 9, the bottom right.
    let best = out
        .lines()
        .skip_while(|l| !l.starts_with("Moves for O"))
        .nth(1)
        .unwrap_or_default();
    assert!(best.trim_start().starts_with("9 "), "{out}");
}
