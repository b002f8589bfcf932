//! The `noughts-engine` binary: its JSON answers, stdin mode and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn engine(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_noughts-engine"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn json_lines(output: &Output) -> Vec<Value> {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

#[test]
fn best_answers_with_one_json_line() {
    // X to move can win at 2 (top row).
    let out = engine(
        &[
            "best",
            "--variant",
            "classic",
            "--board",
            "XX./OO./...",
            "--seed",
            "1",
        ],
        None,
    );
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    let answer = &lines[0];
    assert_eq!(answer["move"], 2);
    assert_eq!(answer["coords"], serde_json::json!([0, 2]));
    assert_eq!(answer["value"], "win");
    assert_eq!(answer["plies"], 1);
    assert!(answer["nodes"].as_u64().is_some());
    assert!(answer["micros"].as_u64().is_some());
}

#[test]
fn best_reads_boards_from_stdin_and_survives_bad_lines() {
    let out = engine(
        &[
            "best",
            "--variant",
            "cube",
            "--level",
            "perfect",
            "--seed",
            "4",
        ],
        Some(".........................../n\nnot a board\n\n..........................X\n"),
    );
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0]["error"]
            .as_str()
            .unwrap()
            .contains("invalid board")
    );
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("bad character")
    );
    // O to move after X took a corner: the cube always has a winner, and perfect knows when.
    assert!(["win", "loss"].contains(&lines[2]["value"].as_str().unwrap()));
    assert!(lines[2]["plies"].as_u64().is_some());
    assert_eq!(lines[2]["coords"].as_array().unwrap().len(), 3);
}

#[test]
fn eval_values_every_move() {
    let out = engine(
        &["eval", "--variant", "classic", "--board", "X.O/.X./..."],
        None,
    );
    let answer = &json_lines(&out)[0];
    assert_eq!(answer["value"], "draw");
    assert_eq!(answer["plies"], 6);
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    assert_eq!(moves[0]["move"], 8);
    assert!(
        moves[1..]
            .iter()
            .all(|m| m["value"] == "loss" && m["plies"] == 2)
    );
}

#[test]
fn perft_and_solve() {
    let out = engine(&["perft", "--variant", "qubic", "--depth", "2"], None);
    let lines = json_lines(&out);
    assert_eq!(lines[1]["leaves"], 4032);
    let out = engine(&["solve", "--variant", "classic"], None);
    let answer = &json_lines(&out)[0];
    assert_eq!(answer["positions"], 5478);
    assert_eq!(answer["draws"], 1068);
    assert_eq!(answer["value"], "draw");
}

#[test]
fn selfplay_tallies() {
    let out = engine(
        &[
            "selfplay",
            "--variant",
            "classic",
            "--x",
            "perfect",
            "--o",
            "perfect",
            "--games",
            "6",
            "--seed",
            "3",
            "--alternate",
        ],
        None,
    );
    let tally = &json_lines(&out)[0];
    assert_eq!(tally["games"], 6);
    assert_eq!(tally["draws"], 6);
}

#[test]
fn bad_arguments_exit_with_status_2() {
    for args in [
        &["best", "--variant", "hex", "--board", "X"][..],
        &["best", "--variant", "classic", "--board", "XX"],
        &["best", "--variant", "classic", "--board", "OO.X....."],
        &[
            "best",
            "--variant",
            "classic",
            "--level",
            "godlike",
            "--board",
            ".........",
        ],
        &["eval", "--variant", "four"],
        &["solve", "--variant", "qubic"],
        &["frobnicate"],
    ] {
        let out = engine(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains("error"), "{args:?}: {message}");
    }
}

#[test]
fn help_is_everywhere() {
    for args in [
        &["--help"][..],
        &["best", "--help"],
        &["selfplay", "--help"],
    ] {
        let out = engine(args, None);
        assert!(out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
    }
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    // Many games, one line each: the reader goes away after the first line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_noughts-engine"))
        .args([
            "selfplay",
            "--variant",
            "classic",
            "--x",
            "random",
            "--o",
            "random",
            "--games",
            "100000",
            "--each",
            "--seed",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "status {:?}", output.status);
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
