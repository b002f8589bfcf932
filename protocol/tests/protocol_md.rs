//! PROTOCOL.md cannot drift from the code: every ```json client block must parse as a
//! `ClientFrame` and every ```json server block as a `ServerFrame`, and serialise back to the same
//! JSON (so no field is silently ignored). Every message type and error code must be shown.

use std::collections::BTreeSet;

use noughts_protocol::{ClientFrame, ERROR_CODES, ServerFrame};
use serde_json::Value;

const DOC: &str = include_str!("../PROTOCOL.md");

/// The `(tag, body, line)` of every fenced block whose info string starts with `json`.
fn json_blocks() -> Vec<(String, String, usize)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String, usize)> = None;
    for (number, line) in DOC.lines().enumerate() {
        let number = number + 1;
        match &mut current {
            None => {
                if let Some(info) = line.trim_start().strip_prefix("```json") {
                    current = Some((info.trim().to_owned(), String::new(), number));
                }
            }
            Some((_, body, _)) => {
                if line.trim_start().starts_with("```") {
                    blocks.extend(current.take());
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    assert!(current.is_none(), "PROTOCOL.md ends inside a code block");
    blocks
}

/// Parses `body` as `T` and checks that it serialises back to the same JSON.
fn round_trip<T>(body: &str, line: usize) -> Value
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let value: Value = serde_json::from_str(body)
        .unwrap_or_else(|err| panic!("PROTOCOL.md line {line}: not JSON: {err}\n{body}"));
    let parsed: T = serde_json::from_value(value.clone()).unwrap_or_else(|err| {
        panic!(
            "PROTOCOL.md line {line}: does not parse as {}: {err}\n{body}",
            std::any::type_name::<T>()
        )
    });
    let back = serde_json::to_value(&parsed).expect("serialise");
    assert_eq!(
        back, value,
        "PROTOCOL.md line {line}: fields were ignored or changed in a round trip"
    );
    value
}

#[test]
fn every_example_parses_as_the_type_it_documents() {
    let blocks = json_blocks();
    assert!(
        blocks.len() > 40,
        "expected many examples, found {}",
        blocks.len()
    );
    let (mut client, mut server) = (BTreeSet::new(), BTreeSet::new());
    let mut codes = BTreeSet::new();
    for (tag, body, line) in &blocks {
        let value = match tag.as_str() {
            "client" => {
                let value = round_trip::<ClientFrame>(body, *line);
                client.insert(value["type"].as_str().unwrap_or_default().to_owned());
                value
            }
            "server" => {
                let value = round_trip::<ServerFrame>(body, *line);
                server.insert(value["type"].as_str().unwrap_or_default().to_owned());
                value
            }
            other => {
                panic!("PROTOCOL.md line {line}: json block tagged {other:?}, not client or server")
            }
        };
        if let Some(code) = value.get("code").and_then(Value::as_str) {
            codes.insert(code.to_owned());
        }
    }
    let expect = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        client,
        expect(noughts_protocol::CLIENT_TYPES),
        "every client message has an example"
    );
    assert_eq!(
        server,
        expect(&[
            "welcome",
            "error",
            "ok",
            "pong",
            "lobby",
            "lobby_update",
            "game_list",
            "offered",
            "declined",
            "withdrawn",
            "taken_back",
            "seeking",
            "room_created",
            "game_state",
            "moved",
            "game_over",
            "presence",
            "watchers",
            "chat",
            "rematch_offered",
            "shutdown",
            "game_paused",
            "leaderboard",
            "league_table",
            "history",
            "game_record",
            "game_analysis",
            "profile",
            "renamed",
            "moderation_list",
            "registered",
            "session_list",
            "arena_list",
            "arena_created",
            "arena",
            "arena_page",
            "arena_joined",
        ]),
        "every server message has an example"
    );
    assert!(codes.contains("not_your_turn"));
}

/// The lobby's game entries in server example `value` (of `lobby`, `lobby_update` and
/// `game_list`).
fn game_entries(value: &Value) -> Vec<&Value> {
    match value["type"].as_str() {
        Some("lobby" | "lobby_update" | "game_list") => value["games"]
            .as_array()
            .map(|games| games.iter().collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[test]
fn every_game_entry_shows_its_board_as_its_moves_made_it() {
    let mut entries = 0;
    for (tag, body, line) in json_blocks() {
        if tag != "server" {
            continue;
        }
        let value: Value = serde_json::from_str(&body).expect("checked above");
        for game in game_entries(&value) {
            entries += 1;
            // The server always sends `board`; an example without one would teach a client
            // that it may be missing.
            let board = game["board"].as_str().unwrap_or_else(|| {
                panic!(
                    "PROTOCOL.md line {line}: game {} has no board",
                    game["game"]
                )
            });
            let cells = match game["variant"].as_str() {
                Some("classic") => 9,
                Some("four") => 16,
                Some("cube") => 27,
                Some("qubic") => 64,
                other => panic!("PROTOCOL.md line {line}: variant {other:?}"),
            };
            let count = |mark| board.chars().filter(|c| *c == mark).count();
            let (x, o) = (count('X'), count('O'));
            assert_eq!(
                (board.chars().count(), x + o),
                (cells, game["moves"].as_u64().unwrap_or_default() as usize),
                "PROTOCOL.md line {line}: game {}'s board {board:?} against its variant and moves",
                game["game"]
            );
            assert!(
                x == o || x == o + 1,
                "PROTOCOL.md line {line}: X moves first"
            );
        }
    }
    assert!(entries >= 4, "{entries} game entries in the examples");
}

#[test]
fn every_error_code_is_documented() {
    for (_, name) in ERROR_CODES {
        assert!(
            DOC.contains(&format!("| `{name}` |")),
            "error code {name} has no row in PROTOCOL.md's table"
        );
    }
}

#[test]
fn a_broken_example_would_fail() {
    assert!(serde_json::from_str::<ClientFrame>(r#"{"type": "move", "game": 1}"#).is_err());
    assert!(serde_json::from_str::<ServerFrame>(r#"{"type": "welcome"}"#).is_err());
}
