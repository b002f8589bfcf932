//! Turning a client's frame into a request, or into the error the protocol documents for it.

use serde::Deserialize;
use serde_json::Value;

use crate::error::ErrorCode;
use crate::frame::ClientFrame;
use crate::ids::{GameId, RequestId};
use crate::message::ClientMessage;

/// Why a frame could not be read as a request, with the id to echo when the frame had one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The frame's `id`, if it had a readable one.
    pub id: Option<RequestId>,
    /// `bad_json`, `unknown_type` or `bad_request`.
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

/// The `type`s a client may send.
pub const CLIENT_TYPES: &[&str] = &[
    "hello",
    "logout",
    "subscribe_lobby",
    "unsubscribe_lobby",
    "list_games",
    "seek",
    "cancel_seek",
    "accept_seek",
    "create_room",
    "close_room",
    "join_room",
    "play_ai",
    "start_war",
    "watch",
    "unwatch",
    "move",
    "resign",
    "rematch",
    "offer_draw",
    "takeback",
    "decline",
    "cancel_offer",
    "claim",
    "abort",
    "chat",
    "ping",
    "leaderboard",
    "league",
    "unfollow_league",
    "enter_league",
    "leave_league",
    "history",
    "game_record",
    "analyse_game",
    "profile",
    "rename",
    "mute",
    "unmute",
    "block",
    "unblock",
    "moderation_list",
    "report",
    "register",
    "sessions",
    "revoke_session",
    "change_password",
    "close_account",
    "become_bot",
    "list_arenas",
    "create_arena",
    "join_arena",
    "withdraw_arena",
    "arena",
    "unwatch_arena",
    "arena_page",
];

/// Reads one text frame from a client.
///
/// Malformed JSON or a non-object is `bad_json`; a missing or unknown `type` is `unknown_type`; a
/// known type with missing or mistyped fields is `bad_request`. The error keeps the frame's `id`
/// whenever one could be read, so the reply can echo it.
pub fn decode_client(text: &str) -> Result<ClientFrame, DecodeError> {
    plain_move(text).map_or_else(|| decode_general(text), Ok)
}

/// A plain move (see [`PlainMove`]), or `None` for anything else.
fn plain_move(text: &str) -> Option<ClientFrame> {
    match serde_json::from_str(text) {
        Ok(PlainMove {
            kind: "move",
            id,
            game,
            cell,
        }) => Some(ClientFrame {
            id,
            message: ClientMessage::Move { game, cell },
        }),
        _ => None,
    }
}

/// The frame clients send most, read straight from the text with no allocation: a `move` with
/// `type`, `game`, `cell` and perhaps `id`, and nothing else. Any other frame, or a move with
/// another field, a repeated field or an escaped `type`, fails here and goes the general way,
/// which reads it exactly as it would read a plain move, only slower.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainMove<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(default)]
    id: Option<RequestId>,
    game: GameId,
    cell: usize,
}

/// Any frame: as a JSON value first, so that each fault gets its documented code.
fn decode_general(text: &str) -> Result<ClientFrame, DecodeError> {
    let value: Value = serde_json::from_str(text).map_err(|err| DecodeError {
        id: None,
        code: ErrorCode::BadJson,
        message: format!("not valid JSON: {err}"),
    })?;
    let Value::Object(object) = &value else {
        return Err(DecodeError {
            id: None,
            code: ErrorCode::BadJson,
            message: "a message must be a JSON object".to_owned(),
        });
    };
    let id = match object.get("id") {
        None | Some(Value::Null) => None,
        Some(raw) => match serde_json::from_value::<RequestId>(raw.clone()) {
            Ok(id) => Some(id),
            Err(_) => {
                return Err(DecodeError {
                    id: None,
                    code: ErrorCode::BadRequest,
                    message: "\"id\" must be a non-negative integer or a string".to_owned(),
                });
            }
        },
    };
    let fail = |code, message: String| DecodeError {
        id: id.clone(),
        code,
        message,
    };
    match object.get("type") {
        Some(Value::String(kind)) if CLIENT_TYPES.contains(&kind.as_str()) => {}
        Some(Value::String(kind)) => {
            let kind: String = kind.chars().take(40).collect();
            return Err(fail(
                ErrorCode::UnknownType,
                format!("unknown message type {kind:?}"),
            ));
        }
        Some(_) => {
            return Err(fail(
                ErrorCode::UnknownType,
                "\"type\" must be a string".to_owned(),
            ));
        }
        None => {
            return Err(fail(
                ErrorCode::UnknownType,
                "a message needs a \"type\"".to_owned(),
            ));
        }
    }
    serde_json::from_value(value).map_err(|err| fail(ErrorCode::BadRequest, err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClientMessage, GameId};

    #[test]
    fn reads_a_request_with_its_id() {
        let frame = decode_client(r#"{"type":"move","id":7,"game":3,"cell":4}"#).unwrap();
        assert_eq!(frame.id, Some(RequestId::Number(7)));
        assert_eq!(
            frame.message,
            ClientMessage::Move {
                game: GameId(3),
                cell: 4
            }
        );
    }

    #[test]
    fn sorts_errors_into_codes() {
        let code = |text: &str| decode_client(text).unwrap_err().code;
        assert_eq!(code("{\"type\":"), ErrorCode::BadJson);
        assert_eq!(code("[1,2]"), ErrorCode::BadJson);
        assert_eq!(code(r#"{"type":"fly"}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"game":1}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"type":"move","game":1}"#), ErrorCode::BadRequest);
        assert_eq!(
            code(r#"{"type":"move","game":1,"cell":-1}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(code(r#"{"type":"ping","id":[1]}"#), ErrorCode::BadRequest);
        let err = decode_client(r#"{"type":"move","id":"a","game":"x","cell":1}"#).unwrap_err();
        assert_eq!(err.id, Some(RequestId::Text("a".into())));
    }

    #[test]
    fn a_move_read_the_short_way_reads_as_it_would_the_general_way() {
        for text in [
            r#"{"type":"move","game":3,"cell":4}"#,
            r#"{"cell":4,"game":3,"type":"move","id":7}"#,
            r#"{"type":"move","id":"abc","game":3,"cell":4}"#,
            r#"{"type":"move","id":null,"game":3,"cell":4}"#,
            r#"{"type":"move","id":-1,"game":3,"cell":4}"#,
            r#"{"type":"move","game":3,"cell":4,"extra":true}"#,
            r#"{"type":"move","game":3,"cell":4,"cell":5}"#,
            r#"{"type":"mo\u0076e","game":3,"cell":4}"#,
            r#"{"type":"move","game":3,"cell":4.0}"#,
            r#"{"type":"move","game":3,"cell":-4}"#,
            r#"{"type":"move","game":18446744073709551616,"cell":4}"#,
            r#"{"type":14,"game":3,"cell":4}"#,
            r#"{"type":"resign","game":3,"cell":4}"#,
            r#"{"type":"move","game":3}"#,
            r#" {"type" : "move" , "game" : 3 , "cell" : 4 } "#,
        ] {
            assert_eq!(decode_client(text), decode_general(text), "{text}");
        }
        // And the plain ones do go the short way.
        for text in [
            r#"{"type":"move","game":3,"cell":4}"#,
            r#"{"cell":4,"game":3,"type":"move","id":7}"#,
            r#"{"type":"move","id":"abc","game":3,"cell":4}"#,
        ] {
            assert_eq!(
                plain_move(text).map(Ok),
                Some(decode_general(text)),
                "{text}"
            );
        }
        assert_eq!(
            plain_move(r#"{"type":"move","game":3,"cell":4,"x":1}"#),
            None
        );
    }
}
