//! Names and tokens: every kind of bad name refused, tokens of every wrong shape unknown.

use noughts_protocol::{ErrorCode, PlayerId, ServerMessage};
use noughts_tests::{TestServer, connect};

use crate::support::Beside;
use crate::support::*;

/// Names with control, escape and bidirectional characters, empty or too long, are refused;
/// tokens the server never issued are unknown.
#[tokio::test]
async fn bad_names_and_unknown_tokens_are_refused() {
    let beside = Beside::start().await;
    names_and_tokens(&beside.server).await;
    beside.finish().await;
}

async fn names_and_tokens(server: &noughts_tests::TestServer) {
    use serde_json::{Value, json};
    let long = "x".repeat(25);
    let long_wide = "é".repeat(25);
    let bad_names = [
        "\u{1b}[31mred",
        "\u{1b}]0;title\u{7}",
        "csi\u{9b}2J",
        "nul\u{0}byte",
        "bell\u{7}",
        "del\u{7f}",
        "new\nline",
        "tab\tname",
        "back\u{8}space",
        "\u{202e}evil",
        "zero\u{200b}width",
        "iso\u{2066}late",
        "",
        "    ",
        long.as_str(),
        long_wide.as_str(),
    ];
    for name in bad_names {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, json!(2), json!(name), None).await;
        assert_code(&frame, ErrorCode::BadName, &format!("name {name:?}"));
        let frame = hello(&mut socket, json!(2), json!("fine"), None).await;
        assert!(
            matches!(frame.message, ServerMessage::Welcome { .. }),
            "{frame:?}"
        );
    }
    // The longest name there may be, in characters rather than bytes, and one trimmed to size.
    let mut socket = connect(&server.url()).await;
    let frame = hello(&mut socket, json!(2), json!("♛".repeat(24)), None).await;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { name, .. } if *name == "♛".repeat(24)),
        "{frame:?}"
    );
    let mut socket = connect(&server.url()).await;
    let frame = hello(
        &mut socket,
        json!(2),
        json!(format!("  {}  ", "y".repeat(24))),
        None,
    )
    .await;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { name, .. } if *name == "y".repeat(24)),
        "{frame:?}"
    );

    let odd_hellos: [(Value, Value, ErrorCode); 9] = [
        (json!(1), json!("ada"), ErrorCode::UnsupportedVersion),
        (json!(0), json!("ada"), ErrorCode::UnsupportedVersion),
        (
            json!(4294967295u64),
            json!("ada"),
            ErrorCode::UnsupportedVersion,
        ),
        (json!(-1), json!("ada"), ErrorCode::BadRequest),
        (json!(1.0), json!("ada"), ErrorCode::BadRequest),
        (json!(4294967296u64), json!("ada"), ErrorCode::BadRequest),
        (Value::Null, json!("ada"), ErrorCode::BadRequest),
        (json!(2), Value::Null, ErrorCode::BadRequest),
        (json!(2), json!(["ada"]), ErrorCode::BadRequest),
    ];
    for (protocol, name, code) in odd_hellos {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, protocol.clone(), name.clone(), None).await;
        assert_code(&frame, code, &format!("hello {protocol} {name}"));
        let frame = hello(&mut socket, json!(2), json!("fine"), None).await;
        assert!(
            matches!(frame.message, ServerMessage::Welcome { .. }),
            "{frame:?}"
        );
    }

    // Tokens: one from another server (stale), forged ones, and near misses of a real one.
    let mut elsewhere = TestServer::start(hostile_config()).await;
    let stale = elsewhere.join("elsewhere").await.token;
    elsewhere.shut_down().await.expect("the other server stops");
    let real = server.join("owner").await;
    let mut flipped = real.token.clone();
    let last = flipped.pop().expect("a token");
    flipped.push(if last == '0' { '1' } else { '0' });
    let bad_tokens = [
        stale,
        "5f1c0e8a4b7d2e9f3a6c1b8d0e4f7a2c".to_owned(),
        String::new(),
        real.token[..real.token.len() - 1].to_owned(),
        format!("{}0", real.token),
        flipped,
        format!(" {}", real.token),
        "\u{1b}[2J".to_owned(),
        "f".repeat(3000),
    ];
    for token in bad_tokens {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, json!(2), json!("thief"), Some(json!(token))).await;
        assert_code(&frame, ErrorCode::UnknownToken, &format!("token {token:?}"));
        let frame = hello(&mut socket, json!(2), json!("fine"), None).await;
        assert!(
            matches!(&frame.message, ServerMessage::Welcome { player, .. } if *player != real.player),
            "{frame:?}"
        );
    }
    for token in [json!(12345), json!(["a"]), json!({})] {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, json!(2), json!("thief"), Some(token.clone())).await;
        assert_code(&frame, ErrorCode::BadRequest, &format!("token {token}"));
    }
    // The real token is the player: whoever presents it joins the session (a player may be
    // connected from several places), and gets a new token for it.
    let owner = real;
    let mut socket = connect(&server.url()).await;
    let frame = hello(
        &mut socket,
        json!(2),
        json!("anything"),
        Some(json!(owner.token)),
    )
    .await;
    let expected: PlayerId = owner.player;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { player, resumed: true, name, token, .. }
            if *player == expected && name == "owner" && *token != owner.token),
        "{frame:?}"
    );
}
