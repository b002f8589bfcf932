//! Requests that are not what the protocol says: not JSON, unknown types, bad ids, fields of the
//! wrong type or missing, values out of range, truncated frames. Each gets its documented error,
//! and the connection goes on.

use noughts_protocol::{ErrorCode, GameId, MAX_MESSAGE_BYTES};

use crate::support::{Beside, Case, Expect, text};

/// Not JSON, not an object, or JSON cut short.
#[tokio::test]
async fn frames_that_are_not_json_objects_get_bad_json() {
    let beside = Beside::start().await;
    beside.run_all(&not_json(beside.reference.game)).await;
    beside.finish().await;
}

/// Types the protocol does not have, or no type at all.
#[tokio::test]
async fn unknown_types_get_unknown_type() {
    let beside = Beside::start().await;
    beside.run_all(&unknown_types(beside.reference.game)).await;
    beside.finish().await;
}

/// Ids of every wrong kind, and the right ones echoed.
#[tokio::test]
async fn bad_ids_get_bad_request_and_good_ones_are_echoed() {
    let beside = Beside::start().await;
    beside.run_all(&ids(beside.reference.game)).await;
    beside.finish().await;
}

/// Fields of the wrong type.
#[tokio::test]
async fn wrong_field_types_get_bad_request() {
    let beside = Beside::start().await;
    beside.run_all(&wrong_types(beside.reference.game)).await;
    beside.finish().await;
}

/// Fields missing, null or unknown in value.
#[tokio::test]
async fn missing_and_null_fields_get_bad_request() {
    let beside = Beside::start().await;
    beside.run_all(&missing_fields(beside.reference.game)).await;
    beside.finish().await;
}

/// Not JSON, or not an object; and every proper prefix of a good request.
fn not_json(game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::{Error, Reply};
    let g = game.0;
    let deep_array = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
    let deep_object = format!(
        "{{\"type\":\"ping\",\"id\":7,\"x\":{}1{}}}",
        "{\"a\":".repeat(600),
        "}".repeat(600)
    );
    let shallow = format!(
        "{{\"type\":\"ping\",\"id\":7,\"x\":{}{}}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    let padded_ping = {
        let head = "{\"type\":\"ping\",\"id\":7";
        let pad = MAX_MESSAGE_BYTES - head.len() - 1;
        format!("{head}{}}}", " ".repeat(pad))
    };
    assert_eq!(padded_ping.len(), MAX_MESSAGE_BYTES);
    let mut cases = vec![
        // Not JSON, or not an object.
        text("empty frame", "", Error(BadJson), false),
        text("only whitespace", " \n\t ", Error(BadJson), false),
        text("just null", "null", Error(BadJson), false),
        text("a number", "42", Error(BadJson), false),
        text("a string", "\"ping\"", Error(BadJson), false),
        text("an array", "[{\"type\":\"ping\"}]", Error(BadJson), false),
        text("true", "true", Error(BadJson), false),
        text("single quotes", "{'type':'ping'}", Error(BadJson), false),
        text("bare words", "{type:ping}", Error(BadJson), false),
        text(
            "trailing comma",
            "{\"type\":\"ping\",}",
            Error(BadJson),
            false,
        ),
        text(
            "trailing garbage",
            "{\"type\":\"ping\"} x",
            Error(BadJson),
            false,
        ),
        text(
            "two objects in one frame",
            "{\"type\":\"ping\"}{\"type\":\"ping\"}",
            Error(BadJson),
            false,
        ),
        text(
            "a comment",
            "/* hi */{\"type\":\"ping\"}",
            Error(BadJson),
            false,
        ),
        text(
            "a byte-order mark",
            "\u{feff}{\"type\":\"ping\"}",
            Error(BadJson),
            false,
        ),
        text(
            "NaN",
            "{\"type\":\"ping\",\"n\":NaN}",
            Error(BadJson),
            false,
        ),
        text(
            "a lone surrogate escape",
            format!("{{\"type\":\"chat\",\"game\":{g},\"text\":\"\\ud800\"}}"),
            Error(BadJson),
            false,
        ),
        text(
            "a raw control character in a string",
            "{\"type\":\"ping\",\"s\":\"a\u{1}b\"}",
            Error(BadJson),
            false,
        ),
        text("deeply nested arrays", deep_array, Error(BadJson), false),
        text("deeply nested objects", deep_object, Error(BadJson), false),
        text(
            "moderate nesting in an unknown field",
            shallow,
            Reply("pong"),
            true,
        ),
        text(
            "a frame of exactly the largest size",
            padded_ping,
            Reply("pong"),
            true,
        ),
        text(
            "a huge exponent",
            "{\"type\":\"ping\",\"n\":1e400}",
            Error(BadJson),
            false,
        ),
    ];
    // Every proper prefix of a good request is truncated JSON.
    let whole = format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":4}}");
    for end in [1, 8, 15, 22, 30, whole.len() - 1] {
        cases.push(text(
            &format!("truncated after {end} bytes"),
            &whole[..end],
            Error(BadJson),
            false,
        ));
    }
    cases
}

/// Unknown types.
fn unknown_types(_game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::Error;
    let cases = vec![
        // Unknown types.
        text("no type", "{\"id\":7,\"game\":1}", Error(UnknownType), true),
        text("empty object", "{}", Error(UnknownType), false),
        text(
            "null type",
            "{\"type\":null,\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "numeric type",
            "{\"type\":5,\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "array type",
            "{\"type\":[\"ping\"],\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "object type",
            "{\"type\":{},\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "unknown type",
            "{\"type\":\"teleport\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "empty type",
            "{\"type\":\"\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "upper-case type",
            "{\"type\":\"PING\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "type with a space",
            "{\"type\":\"ping \",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "a server type",
            "{\"type\":\"welcome\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "another server type",
            "{\"type\":\"moved\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "a type full of escapes",
            "{\"type\":\"\\u001b[2J\\u0007\",\"id\":7}",
            Error(UnknownType),
            true,
        ),
        text(
            "a long unknown type",
            format!("{{\"type\":\"{}\",\"id\":7}}", "z".repeat(3000)),
            Error(UnknownType),
            true,
        ),
    ];
    cases
}

/// Ids.
fn ids(_game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::{Error, Reply};
    let cases = vec![
        // Ids.
        text(
            "negative id",
            "{\"type\":\"ping\",\"id\":-1}",
            Error(BadRequest),
            false,
        ),
        text(
            "float id",
            "{\"type\":\"ping\",\"id\":7.5}",
            Error(BadRequest),
            false,
        ),
        text(
            "whole float id",
            "{\"type\":\"ping\",\"id\":7.0}",
            Error(BadRequest),
            false,
        ),
        text(
            "id past u64",
            "{\"type\":\"ping\",\"id\":18446744073709551616}",
            Error(BadRequest),
            false,
        ),
        text(
            "array id",
            "{\"type\":\"ping\",\"id\":[7]}",
            Error(BadRequest),
            false,
        ),
        text(
            "object id",
            "{\"type\":\"ping\",\"id\":{}}",
            Error(BadRequest),
            false,
        ),
        text(
            "boolean id",
            "{\"type\":\"ping\",\"id\":true}",
            Error(BadRequest),
            false,
        ),
        text(
            "null id",
            "{\"type\":\"ping\",\"id\":null}",
            Reply("pong"),
            false,
        ),
    ];
    cases
}

/// Wrong field types.
fn wrong_types(game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::Error;
    let g = game.0;
    let cases = vec![
        // Wrong field types, missing fields, nulls.
        text(
            "missing cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g}}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "string game",
            "{\"type\":\"move\",\"id\":7,\"game\":\"1\",\"cell\":0}",
            Error(BadRequest),
            true,
        ),
        text(
            "boolean game",
            "{\"type\":\"move\",\"id\":7,\"game\":true,\"cell\":0}",
            Error(BadRequest),
            true,
        ),
        text(
            "object game",
            "{\"type\":\"watch\",\"id\":7,\"game\":{}}",
            Error(BadRequest),
            true,
        ),
        text(
            "null game",
            "{\"type\":\"move\",\"id\":7,\"game\":null,\"cell\":0}",
            Error(BadRequest),
            true,
        ),
        text(
            "null cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":null}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "negative cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":-1}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "negative game",
            "{\"type\":\"watch\",\"id\":7,\"game\":-5}",
            Error(BadRequest),
            true,
        ),
        text(
            "float cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":4.0}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "fractional cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":4.5}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "exponent cell",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":4e0}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "float game",
            "{\"type\":\"watch\",\"id\":7,\"game\":1.5}",
            Error(BadRequest),
            true,
        ),
        text(
            "game past u64",
            "{\"type\":\"watch\",\"id\":7,\"game\":18446744073709551616}",
            Error(BadRequest),
            true,
        ),
        text(
            "cell past u64",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":18446744073709551616}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "a negative limit",
            "{\"type\":\"list_games\",\"id\":7,\"limit\":-5}",
            Error(BadRequest),
            true,
        ),
        text(
            "a fractional limit",
            "{\"type\":\"history\",\"id\":7,\"limit\":2.5}",
            Error(BadRequest),
            true,
        ),
        text(
            "a limit past 2^32-1",
            "{\"type\":\"list_games\",\"id\":7,\"limit\":4294967296}",
            Error(BadRequest),
            true,
        ),
        text(
            "a report category not listed",
            "{\"type\":\"report\",\"id\":7,\"player\":1,\"category\":\"rudeness\",\"reason\":\"x\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "string text",
            format!("{{\"type\":\"chat\",\"id\":7,\"game\":{g},\"text\":5}}"),
            Error(BadRequest),
            true,
        ),
        text(
            "null text",
            format!("{{\"type\":\"chat\",\"id\":7,\"game\":{g},\"text\":null}}"),
            Error(BadRequest),
            true,
        ),
    ];
    cases
}

/// Missing fields and nulls.
fn missing_fields(_game: GameId) -> Vec<Case> {
    use ErrorCode::*;
    use Expect::{Error, Reply};
    let cases = vec![
        text(
            "unknown variant",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"hex\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "capitalised variant",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"Classic\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "numeric variant",
            "{\"type\":\"seek\",\"id\":7,\"variant\":1}",
            Error(BadRequest),
            true,
        ),
        text(
            "unknown level",
            "{\"type\":\"play_ai\",\"id\":7,\"variant\":\"classic\",\"level\":\"godlike\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "unknown side",
            "{\"type\":\"play_ai\",\"id\":7,\"variant\":\"classic\",\"level\":\"easy\",\"side\":\"z\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "string rated",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"rated\":\"yes\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "numeric private",
            "{\"type\":\"create_room\",\"id\":7,\"variant\":\"classic\",\"private\":1}",
            Error(BadRequest),
            true,
        ),
        text(
            "string clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":\"fast\"}",
            Error(BadRequest),
            true,
        ),
        text(
            "empty clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{}}",
            Error(BadRequest),
            true,
        ),
        text(
            "negative clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":-1,\"increment_ms\":0}}",
            Error(BadRequest),
            true,
        ),
        text(
            "array code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":[]}",
            Error(BadRequest),
            true,
        ),
        text(
            "negative limit",
            "{\"type\":\"leaderboard\",\"id\":7,\"variant\":\"classic\",\"limit\":-5}",
            Error(BadRequest),
            true,
        ),
        text(
            "offset past u32",
            "{\"type\":\"leaderboard\",\"id\":7,\"variant\":\"classic\",\"offset\":4294967296}",
            Error(BadRequest),
            true,
        ),
        text(
            "null limit",
            "{\"type\":\"leaderboard\",\"id\":7,\"variant\":\"classic\",\"limit\":null}",
            Reply("leaderboard"),
            true,
        ),
        text(
            "the largest limit",
            "{\"type\":\"leaderboard\",\"id\":7,\"variant\":\"classic\",\"limit\":4294967295}",
            Reply("leaderboard"),
            true,
        ),
        text(
            "the largest history",
            "{\"type\":\"history\",\"id\":7,\"limit\":4294967295,\"before\":18446744073709551615}",
            Reply("history"),
            true,
        ),
    ];
    cases
}
