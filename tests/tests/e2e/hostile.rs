//! Hostile input: everything a bored or malicious client might send, each answered with the
//! documented error or close code, while a reference game goes on beside the whole suite and
//! finishes with every update in order. The server must never panic.

use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::SinkExt;
use noughts_engine::{Level, Mark, Variant};
use noughts_protocol::{
    ClientFrame, ClientMessage, ClockSpec, ErrorCode, GameId, MAX_MESSAGE_BYTES, PlayerId,
    RequestId, ServerFrame, ServerMessage, SideChoice, close,
};
use noughts_server::Config;
use noughts_tests::{
    Client, Socket, TestServer, connect, follow_to_end, moves_of, read_frame, send_frame,
    test_config,
};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, FrameHeader};
use tokio_tungstenite::tungstenite::{Bytes, Message};

use noughts_tests::quick_match;

/// Requests a connection may send at once in this suite; the sustained rate is low so that a
/// flood is refused deterministically.
const BURST: u32 = 40;

fn hostile_config() -> Config {
    Config {
        messages_per_second: 2,
        message_burst: BURST,
        ..test_config()
    }
}

/// Panics on this suite's thread: the test's own runtime runs every server task it starts (on the
/// test's thread, or on `main` when tests run one at a time).
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current()
                .name()
                .is_some_and(|name| name.contains("hostile") || name == "main")
            {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            previous(info);
        }));
    });
}

/// What a hostile frame must get.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// An error with this code; the connection stays usable.
    Error(ErrorCode),
    /// An ordinary reply of this `type`: the input is odd but acceptable.
    Reply(&'static str),
    /// The connection closes with this code.
    Close(u16),
}

/// How a hostile input goes over the wire.
#[derive(Debug, Clone)]
enum Payload {
    Text(String),
    Frame(Frame),
    /// One message in several frames.
    Frames(Vec<Frame>),
    /// Bytes written straight to the TCP stream after the handshake.
    Raw(Vec<u8>),
}

#[derive(Debug, Clone)]
struct Case {
    what: String,
    payload: Payload,
    expect: Expect,
    /// Whether the answer must echo id 7.
    echo: bool,
}

fn text(what: &str, text: impl Into<String>, expect: Expect, echo: bool) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Text(text.into()),
        expect,
        echo,
    }
}

fn frame(what: &str, frame: Frame, expect: Expect) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Frame(frame),
        expect,
        echo: false,
    }
}

fn frames(what: &str, frames: Vec<Frame>, expect: Expect, echo: bool) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Frames(frames),
        expect,
        echo,
    }
}

fn raw(what: &str, bytes: Vec<u8>, expect: Expect) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Raw(bytes),
        expect,
        echo: false,
    }
}

fn wire_type(message: &ServerMessage) -> String {
    let value = serde_json::to_value(ServerFrame::event(message.clone())).expect("serialise");
    value["type"].as_str().unwrap_or_default().to_owned()
}

/// Runs one case on a fresh connection that has said hello.
async fn run(server: &TestServer, case: &Case) {
    let mut client = server.join("prober").await;
    match &case.payload {
        Payload::Text(text) => client.send_text(text).await,
        Payload::Frame(frame) => client
            .socket
            .send(Message::Frame(frame.clone()))
            .await
            .expect("send a frame"),
        Payload::Frames(frames) => {
            for frame in frames {
                client
                    .socket
                    .send(Message::Frame(frame.clone()))
                    .await
                    .expect("send a frame");
            }
        }
        Payload::Raw(bytes) => match client.socket.get_mut() {
            MaybeTlsStream::Plain(tcp) => tcp.write_all(bytes).await.expect("write raw bytes"),
            _ => unreachable!("tests use plain TCP"),
        },
    }
    let what = &case.what;
    let got = match case.expect {
        Expect::Close(code) => {
            assert_eq!(client.closed().await, Some(code), "{what}");
            return;
        }
        Expect::Error(code) => {
            let frame = client.next().await;
            match &frame.message {
                ServerMessage::Error { code: got, message } => {
                    assert_eq!(*got, code, "{what}: {message}");
                    assert!(!message.is_empty(), "{what}: an error needs a message");
                }
                other => panic!("{what}: expected error {code:?}, got {other:?}"),
            }
            frame
        }
        Expect::Reply(kind) => {
            let frame = client.next().await;
            assert_eq!(wire_type(&frame.message), kind, "{what}: {frame:?}");
            frame
        }
    };
    let echo = case.echo.then_some(RequestId::Number(7));
    assert_eq!(got.id, echo, "{what}: the id echoed");
    // An error loses nothing: the connection goes on.
    let reply = client.request(1_000_000, ClientMessage::Ping).await;
    assert_eq!(
        reply,
        ServerMessage::Pong,
        "{what}: still answered afterwards"
    );
}

/// Malformed, truncated, mistyped and unknown requests, and numbers of every wrong kind.
fn text_cases(game: GameId) -> Vec<Case> {
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
        // Out-of-range values the decoder accepts and the server refuses.
        text(
            "zero clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":0,\"increment_ms\":0}}",
            Error(BadClock),
            true,
        ),
        text(
            "clock past three hours",
            "{\"type\":\"create_room\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":10800001,\"increment_ms\":0}}",
            Error(BadClock),
            true,
        ),
        text(
            "increment past a minute",
            "{\"type\":\"play_ai\",\"id\":7,\"variant\":\"classic\",\"level\":\"easy\",\"clock\":{\"initial_ms\":1000,\"increment_ms\":60001}}",
            Error(BadClock),
            true,
        ),
        text(
            "the largest clock",
            "{\"type\":\"seek\",\"id\":7,\"variant\":\"classic\",\"clock\":{\"initial_ms\":18446744073709551615,\"increment_ms\":18446744073709551615}}",
            Error(BadClock),
            true,
        ),
        text(
            "game zero",
            "{\"type\":\"watch\",\"id\":7,\"game\":0}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "numeric watch code",
            "{\"type\":\"watch\",\"id\":7,\"game\":1,\"code\":1234}",
            Error(BadRequest),
            true,
        ),
        text(
            "watch code of escapes and emoji",
            "{\"type\":\"watch\",\"id\":7,\"game\":0,\"code\":\"\\u001b[2J\\u202e🂡-ØØØØ\"}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "the longest watch code",
            format!(
                "{{\"type\":\"watch\",\"id\":7,\"game\":0,\"code\":\"{}\"}}",
                "K".repeat(3900)
            ),
            Error(NoSuchGame),
            true,
        ),
        text(
            "the largest game",
            "{\"type\":\"move\",\"id\":7,\"game\":18446744073709551615,\"cell\":18446744073709551615}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "record of no game",
            "{\"type\":\"game_record\",\"id\":7,\"game\":18446744073709551615}",
            Error(NoSuchGame),
            true,
        ),
        text(
            "history of nobody",
            "{\"type\":\"history\",\"id\":7,\"player\":18446744073709551615}",
            Error(NoSuchPlayer),
            true,
        ),
        text(
            "profile of nobody",
            "{\"type\":\"profile\",\"id\":7,\"player\":999999}",
            Error(NoSuchPlayer),
            true,
        ),
        text(
            "empty room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "punctuation room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"!!!!-????\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "escape room code",
            "{\"type\":\"join_room\",\"id\":7,\"code\":\"\\u001b[2J\\u0000\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "long room code",
            format!(
                "{{\"type\":\"join_room\",\"id\":7,\"code\":\"{}\"}}",
                "K".repeat(3000)
            ),
            Error(NoSuchRoom),
            true,
        ),
        text(
            "closing no room",
            "{\"type\":\"close_room\",\"id\":7,\"code\":\"K7QM-4TXP-2D\"}",
            Error(NoSuchRoom),
            true,
        ),
        text(
            "cancelling no seek",
            "{\"type\":\"cancel_seek\",\"id\":7}",
            Error(NotSeeking),
            true,
        ),
        text(
            "a stranger's move",
            format!("{{\"type\":\"move\",\"id\":7,\"game\":{g},\"cell\":3}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's resign",
            format!("{{\"type\":\"resign\",\"id\":7,\"game\":{g}}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's rematch",
            format!("{{\"type\":\"rematch\",\"id\":7,\"game\":{g}}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "a stranger's chat",
            format!("{{\"type\":\"chat\",\"id\":7,\"game\":{g},\"text\":\"hi\"}}"),
            Error(NotAPlayer),
            true,
        ),
        text(
            "hello again",
            "{\"type\":\"hello\",\"id\":7,\"protocol\":1,\"name\":\"again\"}",
            Error(AlreadyWelcomed),
            true,
        ),
        text(
            "hello again with a bad version",
            "{\"type\":\"hello\",\"id\":7,\"protocol\":\"1\",\"name\":\"again\"}",
            Error(BadRequest),
            true,
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

/// Frames that break the WebSocket rules, or the protocol's transport rules.
fn frame_cases() -> Vec<Case> {
    use Expect::Close;
    let text_frame = |payload: &[u8], is_final| {
        Frame::message(payload.to_vec(), OpCode::Data(Data::Text), is_final)
    };
    let with_header = |header: FrameHeader, payload: &[u8]| {
        Frame::from_payload(header, Bytes::from(payload.to_vec()))
    };
    let oversized = format!(
        "{{\"type\":\"ping\",\"pad\":\"{}\"}}",
        "a".repeat(MAX_MESSAGE_BYTES)
    );
    // A text frame whose header claims 2^62 bytes: refused before anything is allocated.
    let mut huge_header = vec![0x81, 0x80 | 127];
    huge_header.extend_from_slice(&(1u64 << 62).to_be_bytes());
    huge_header.extend_from_slice(&[1, 2, 3, 4]);
    let continued = |payload: &[u8], is_final| {
        Frame::message(payload.to_vec(), OpCode::Data(Data::Continue), is_final)
    };
    let euro = "{\"type\":\"ping\",\"id\":7,\"x\":\"€\"}".as_bytes();
    let split = euro.len() - 4;
    vec![
        frames(
            "a message split inside a UTF-8 character",
            vec![
                text_frame(&euro[..split], false),
                continued(&euro[split..], true),
            ],
            Expect::Reply("pong"),
            true,
        ),
        frames(
            "a message in many small fragments",
            euro.chunks(1)
                .enumerate()
                .map(|(i, byte)| {
                    if i == 0 {
                        text_frame(byte, false)
                    } else {
                        continued(byte, i == euro.len() - 1)
                    }
                })
                .collect(),
            Expect::Reply("pong"),
            true,
        ),
        frames(
            "fragments adding up to more than the limit",
            vec![
                text_frame(&[b' '; 2000], false),
                continued(&[b' '; 2000], false),
                continued(&[b' '; 2000], true),
            ],
            Close(close::MESSAGE_TOO_BIG),
            false,
        ),
        frames(
            "a new message before the last one ended",
            vec![
                text_frame(b"{\"type\":", false),
                text_frame(b"{\"type\":\"ping\"}", true),
            ],
            Close(close::PROTOCOL_ERROR),
            false,
        ),
        frames(
            "invalid UTF-8 in a later fragment",
            vec![
                text_frame(b"{\"type\":\"ping\",", false),
                continued(b"\"x\":\"\xff\"}", true),
            ],
            Close(close::INVALID_PAYLOAD),
            false,
        ),
        frame(
            "a binary frame",
            Frame::message(vec![1u8, 2, 3], OpCode::Data(Data::Binary), true),
            Close(close::UNSUPPORTED_DATA),
        ),
        frame(
            "an empty binary frame",
            Frame::message(Vec::<u8>::new(), OpCode::Data(Data::Binary), true),
            Close(close::UNSUPPORTED_DATA),
        ),
        frame(
            "binary JSON",
            Frame::message(
                b"{\"type\":\"ping\"}".to_vec(),
                OpCode::Data(Data::Binary),
                true,
            ),
            Close(close::UNSUPPORTED_DATA),
        ),
        frame(
            "invalid UTF-8",
            text_frame(b"{\"type\":\"ping\",\"x\":\"\xff\xfe\"}", true),
            Close(close::INVALID_PAYLOAD),
        ),
        frame(
            "an overlong UTF-8 encoding",
            text_frame(b"{\"type\":\"ping\",\"x\":\"\xc0\xaf\"}", true),
            Close(close::INVALID_PAYLOAD),
        ),
        frame(
            "an encoded surrogate",
            text_frame(b"{\"type\":\"ping\",\"x\":\"\xed\xa0\x80\"}", true),
            Close(close::INVALID_PAYLOAD),
        ),
        frame(
            "a UTF-8 sequence cut short",
            text_frame(b"{\"type\":\"ping\"}\xe2\x82", true),
            Close(close::INVALID_PAYLOAD),
        ),
        frame(
            "a frame one byte too large",
            text_frame(&vec![b' '; MAX_MESSAGE_BYTES + 1], true),
            Close(close::MESSAGE_TOO_BIG),
        ),
        text(
            "an oversized request",
            oversized,
            Close(close::MESSAGE_TOO_BIG),
            false,
        ),
        raw(
            "a header claiming 2^62 bytes",
            huge_header,
            Close(close::MESSAGE_TOO_BIG),
        ),
        frame(
            "a reserved data opcode",
            with_header(
                FrameHeader {
                    opcode: OpCode::Data(Data::Reserved(3)),
                    ..FrameHeader::default()
                },
                b"{}",
            ),
            Close(close::PROTOCOL_ERROR),
        ),
        frame(
            "a reserved control opcode",
            with_header(
                FrameHeader {
                    opcode: OpCode::Control(Control::Reserved(11)),
                    ..FrameHeader::default()
                },
                b"",
            ),
            Close(close::PROTOCOL_ERROR),
        ),
        frame(
            "a reserved bit without an extension",
            with_header(
                FrameHeader {
                    rsv1: true,
                    opcode: OpCode::Data(Data::Text),
                    ..FrameHeader::default()
                },
                b"{\"type\":\"ping\"}",
            ),
            Close(close::PROTOCOL_ERROR),
        ),
        frame(
            "a continuation with nothing to continue",
            Frame::message(b"{}".to_vec(), OpCode::Data(Data::Continue), true),
            Close(close::PROTOCOL_ERROR),
        ),
        frame(
            "a control frame over 125 bytes",
            Frame::ping(vec![0u8; 126]),
            Close(close::PROTOCOL_ERROR),
        ),
        frame(
            "a fragmented control frame",
            with_header(
                FrameHeader {
                    is_final: false,
                    opcode: OpCode::Control(Control::Ping),
                    ..FrameHeader::default()
                },
                b"",
            ),
            Close(close::PROTOCOL_ERROR),
        ),
        raw(
            "an unmasked frame",
            b"\x81\x0f{\"type\":\"ping\"}".to_vec(),
            Close(close::PROTOCOL_ERROR),
        ),
    ]
}

/// The reference game: ada (X) and bob (O) play it to X's win through the whole suite while a
/// watcher follows it.
struct Reference {
    x: Client,
    o: Client,
    watcher: Client,
    game: GameId,
    played: usize,
}

/// X takes the centre, O a corner, X the opposite corner, O an edge, X forks, O blocks one line,
/// X completes 2-5-8.
const REFERENCE_MOVES: [usize; 7] = [4, 0, 8, 1, 2, 6, 5];

impl Reference {
    async fn advance(&mut self) {
        let cell = REFERENCE_MOVES[self.played];
        let game = self.game;
        let mover = if self.played.is_multiple_of(2) {
            &mut self.x
        } else {
            &mut self.o
        };
        mover.send(ClientMessage::Move { game, cell }).await;
        mover
            .saw(|m| matches!(m, ServerMessage::Moved { game: g, cell: c, .. } if *g == game && *c == cell))
            .await;
        self.played += 1;
    }
}

/// Sends every frame at once and reads what comes back until the server closes; returns the
/// error codes seen and the close code.
async fn flood(
    socket: &mut Socket,
    frames: impl Iterator<Item = String>,
) -> (Vec<ErrorCode>, Option<u16>) {
    for text in frames {
        // The server may close while the flood is still being written.
        if socket.feed(Message::text(text)).await.is_err() {
            break;
        }
    }
    let _ = socket.flush().await;
    let mut errors = Vec::new();
    loop {
        match read_frame(socket).await {
            Ok(ServerFrame {
                message: ServerMessage::Error { code, .. },
                ..
            }) => errors.push(code),
            Ok(_) => {}
            Err(code) => return (errors, code),
        }
    }
}

#[tokio::test]
async fn hostile_input_gets_documented_answers_and_a_game_beside_it_finishes() {
    count_panics();
    let server = TestServer::start(hostile_config()).await;
    let (x, o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let mut watcher = server.join("watcher").await;
    assert!(matches!(
        watcher
            .request(1, ClientMessage::Watch { game, code: None })
            .await,
        ServerMessage::GameState(_)
    ));
    let mut reference = Reference {
        x,
        o,
        watcher,
        game,
        played: 0,
    };
    reference.advance().await;

    // Malformed, mistyped and out-of-range requests, each on its own connection.
    let cases = text_cases(game);
    assert!(cases.len() >= 50);
    for case in &cases {
        run(&server, case).await;
    }
    reference.advance().await;

    game_rules(&server, &mut reference).await;
    reference.advance().await;

    names_and_tokens(&server).await;
    reference.advance().await;

    for case in &frame_cases() {
        run(&server, case).await;
    }
    reference.advance().await;

    floods(&server).await;
    lobby_subscriptions(&server).await;
    reference.advance().await;

    chat(&server, &mut reference).await;
    reference.advance().await;

    // The game is over: no more moves, resignations or moves by watchers.
    let Reference {
        mut x,
        mut o,
        mut watcher,
        ..
    } = reference;
    for client in [&mut x, &mut o, &mut watcher] {
        let events = follow_to_end(client, game).await;
        assert_eq!(moves_of(&events), REFERENCE_MOVES, "{}", client.name);
        let Some(ServerMessage::GameOver { result, board, .. }) = events.last() else {
            unreachable!()
        };
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(result.cells, vec![2, 5, 8]);
        assert_eq!(board, "OOX.XXO.X");
    }
    x.expect_error(
        90,
        ClientMessage::Move { game, cell: 3 },
        ErrorCode::GameOver,
    )
    .await;
    o.expect_error(91, ClientMessage::Resign { game }, ErrorCode::GameOver)
        .await;
    watcher
        .expect_error(
            92,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::NotAPlayer,
        )
        .await;

    // The server is still up and serving, and shuts down cleanly.
    let mut last = server.join("last").await;
    assert_eq!(
        last.request(1, ClientMessage::Ping).await,
        ServerMessage::Pong
    );
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a task panicked");
    let mut server = server;
    server.shut_down().await.expect("a clean shutdown");
}

/// Moves out of turn, off the board, in other people's games and by watchers; limits per player.
async fn game_rules(server: &TestServer, reference: &mut Reference) {
    let game = reference.game;
    // X to move.
    reference
        .o
        .expect_error(
            10,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::NotYourTurn,
        )
        .await;
    for (id, cell) in [(11, 9), (12, 4), (13, 0), (14, usize::MAX)] {
        reference
            .x
            .expect_error(
                id,
                ClientMessage::Move { game, cell },
                ErrorCode::IllegalMove,
            )
            .await;
    }
    let watcher = &mut reference.watcher;
    watcher
        .expect_error(
            10,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::NotAPlayer,
        )
        .await;
    watcher
        .expect_error(11, ClientMessage::Resign { game }, ErrorCode::NotAPlayer)
        .await;
    watcher
        .expect_error(12, ClientMessage::Rematch { game }, ErrorCode::NotAPlayer)
        .await;
    reference
        .x
        .expect_error(15, ClientMessage::Rematch { game }, ErrorCode::GameNotOver)
        .await;

    // Cells off every board, in games against the AI where it is always the player's move.
    let mut solo = server.join("solo").await;
    let mut id = 100;
    let mut ai_games = Vec::new();
    for variant in [
        Variant::Four,
        Variant::Cube,
        Variant::Qubic,
        Variant::Classic,
        Variant::Classic,
    ] {
        id += 1;
        let play = ClientMessage::PlayAi {
            variant,
            level: Level::Easy,
            side: SideChoice::X,
            clock: None,
        };
        let ServerMessage::GameState(state) = solo.request(id, play).await else {
            panic!("an AI game")
        };
        for cell in [variant.cells(), variant.cells() + 1, usize::MAX] {
            id += 1;
            solo.expect_error(
                id,
                ClientMessage::Move {
                    game: state.game,
                    cell,
                },
                ErrorCode::IllegalMove,
            )
            .await;
        }
        ai_games.push(state.game);
    }
    // A sixth game is one too many.
    solo.expect_error(
        200,
        ClientMessage::PlayAi {
            variant: Variant::Classic,
            level: Level::Easy,
            side: SideChoice::X,
            clock: None,
        },
        ErrorCode::LimitReached,
    )
    .await;
    // Someone else's game, both ways.
    reference
        .x
        .expect_error(
            16,
            ClientMessage::Move {
                game: ai_games[0],
                cell: 0,
            },
            ErrorCode::NotAPlayer,
        )
        .await;
    solo.expect_error(
        201,
        ClientMessage::Move { game, cell: 3 },
        ErrorCode::NotAPlayer,
    )
    .await;
    // A taken cell, once the AI has answered.
    let four = ai_games[0];
    solo.send(ClientMessage::Move {
        game: four,
        cell: 0,
    })
    .await;
    solo.saw(|m| matches!(m, ServerMessage::Moved { game: g, mark: Mark::O, .. } if *g == four))
        .await;
    solo.expect_error(
        202,
        ClientMessage::Move {
            game: four,
            cell: 0,
        },
        ErrorCode::IllegalMove,
    )
    .await;
    for (i, &g) in ai_games.iter().enumerate() {
        assert!(matches!(
            solo.request(210 + i as u64, ClientMessage::Resign { game: g })
                .await,
            ServerMessage::GameOver { .. }
        ));
    }

    // One seek at a time (on a clock nobody else uses, so nobody is matched).
    let mut solo = server.join("roomy").await;
    let seek = ClientMessage::Seek {
        variant: Variant::Qubic,
        clock: Some(ClockSpec {
            initial_ms: 4321,
            increment_ms: 7,
        }),
        rated: false,
    };
    assert!(matches!(
        solo.request(220, seek.clone()).await,
        ServerMessage::Seeking { .. }
    ));
    solo.expect_error(221, seek, ErrorCode::AlreadySeeking)
        .await;
    assert_eq!(
        solo.request(222, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );
    solo.expect_error(223, ClientMessage::CancelSeek, ErrorCode::NotSeeking)
        .await;

    // Three rooms at most, and never one's own.
    let mut codes = Vec::new();
    for i in 0..3 {
        let create = ClientMessage::CreateRoom {
            variant: Variant::Classic,
            clock: None,
            private: true,
            rated: false,
        };
        let ServerMessage::RoomCreated { code, .. } = solo.request(230 + i, create).await else {
            panic!("a room")
        };
        codes.push(code);
    }
    solo.expect_error(
        233,
        ClientMessage::CreateRoom {
            variant: Variant::Classic,
            clock: None,
            private: false,
            rated: false,
        },
        ErrorCode::LimitReached,
    )
    .await;
    solo.expect_error(
        234,
        ClientMessage::JoinRoom {
            code: codes[0].clone(),
        },
        ErrorCode::OwnRoom,
    )
    .await;
    for (i, code) in codes.into_iter().enumerate() {
        assert_eq!(
            solo.request(240 + i as u64, ClientMessage::CloseRoom { code })
                .await,
            ServerMessage::Ok
        );
    }
    // Before hello, nothing but hello (yet bad JSON is still called bad JSON).
    let mut early = connect(&server.url()).await;
    for (id, message) in [
        (1, ClientMessage::Ping),
        (2, ClientMessage::Move { game, cell: 3 }),
        (3, ClientMessage::Watch { game, code: None }),
        (4, ClientMessage::SubscribeLobby),
    ] {
        send_frame(
            &mut early,
            &ClientFrame {
                id: Some(RequestId::Number(id)),
                message,
            },
        )
        .await;
        let frame = read_frame(&mut early).await.expect("a reply");
        assert_eq!(frame.id, Some(RequestId::Number(id)));
        assert!(
            matches!(
                frame.message,
                ServerMessage::Error {
                    code: ErrorCode::HelloFirst,
                    ..
                }
            ),
            "{frame:?}"
        );
    }
}

/// Says hello on a new connection and returns the reply.
async fn hello(
    socket: &mut Socket,
    protocol: serde_json::Value,
    name: serde_json::Value,
    token: Option<serde_json::Value>,
) -> ServerFrame {
    let mut hello =
        serde_json::json!({"type": "hello", "id": 7, "protocol": protocol, "name": name});
    if let Some(token) = token {
        hello["token"] = token;
    }
    socket
        .send(Message::text(hello.to_string()))
        .await
        .expect("send hello");
    read_frame(socket).await.expect("a reply to hello")
}

fn assert_code(frame: &ServerFrame, code: ErrorCode, what: &str) {
    assert_eq!(frame.id, Some(RequestId::Number(7)), "{what}");
    assert!(
        matches!(&frame.message, ServerMessage::Error { code: got, .. } if *got == code),
        "{what}: expected {code:?}, got {frame:?}"
    );
}

/// Names full of escapes and control characters, odd versions, and stale or forged tokens. After
/// each refusal the same connection can still say hello properly.
async fn names_and_tokens(server: &TestServer) {
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
        let frame = hello(&mut socket, json!(1), json!(name), None).await;
        assert_code(&frame, ErrorCode::BadName, &format!("name {name:?}"));
        let frame = hello(&mut socket, json!(1), json!("fine"), None).await;
        assert!(
            matches!(frame.message, ServerMessage::Welcome { .. }),
            "{frame:?}"
        );
    }
    // The longest name there may be, in characters rather than bytes, and one trimmed to size.
    let mut socket = connect(&server.url()).await;
    let frame = hello(&mut socket, json!(1), json!("♛".repeat(24)), None).await;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { name, .. } if *name == "♛".repeat(24)),
        "{frame:?}"
    );
    let mut socket = connect(&server.url()).await;
    let frame = hello(
        &mut socket,
        json!(1),
        json!(format!("  {}  ", "y".repeat(24))),
        None,
    )
    .await;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { name, .. } if *name == "y".repeat(24)),
        "{frame:?}"
    );

    let odd_hellos: [(Value, Value, ErrorCode); 9] = [
        (json!(2), json!("ada"), ErrorCode::UnsupportedVersion),
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
        (json!(1), Value::Null, ErrorCode::BadRequest),
        (json!(1), json!(["ada"]), ErrorCode::BadRequest),
    ];
    for (protocol, name, code) in odd_hellos {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, protocol.clone(), name.clone(), None).await;
        assert_code(&frame, code, &format!("hello {protocol} {name}"));
        let frame = hello(&mut socket, json!(1), json!("fine"), None).await;
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
        let frame = hello(&mut socket, json!(1), json!("thief"), Some(json!(token))).await;
        assert_code(&frame, ErrorCode::UnknownToken, &format!("token {token:?}"));
        let frame = hello(&mut socket, json!(1), json!("fine"), None).await;
        assert!(
            matches!(&frame.message, ServerMessage::Welcome { player, .. } if *player != real.player),
            "{frame:?}"
        );
    }
    for token in [json!(12345), json!(["a"]), json!({})] {
        let mut socket = connect(&server.url()).await;
        let frame = hello(&mut socket, json!(1), json!("thief"), Some(token.clone())).await;
        assert_code(&frame, ErrorCode::BadRequest, &format!("token {token}"));
    }
    // The real token is the player: whoever presents it takes the session over, and the old
    // connection gives way with 1000.
    let mut owner = real;
    let mut socket = connect(&server.url()).await;
    let frame = hello(
        &mut socket,
        json!(1),
        json!("anything"),
        Some(json!(owner.token)),
    )
    .await;
    let expected: PlayerId = owner.player;
    assert!(
        matches!(&frame.message, ServerMessage::Welcome { player, resumed: true, name, .. } if *player == expected && name == "owner"),
        "{frame:?}"
    );
    assert_eq!(owner.closed().await, Some(close::REPLACED));
}

/// Requests faster than the rate limit are refused with `rate_limited`; a connection that keeps it
/// up is closed with 1008; nobody else notices.
async fn floods(server: &TestServer) {
    // A burst just over the limit: every request answered once, the excess refused, and the
    // connection still open.
    let mut eager = server.join("eager").await;
    let extra = 5;
    let total = u64::from(BURST) + extra;
    for id in 1..=total {
        eager
            .socket
            .feed(Message::text(format!("{{\"type\":\"ping\",\"id\":{id}}}")))
            .await
            .expect("feed");
    }
    eager.socket.flush().await.expect("flush");
    let mut limited = 0;
    for id in 1..=total {
        let frame = eager.next().await;
        assert_eq!(frame.id, Some(RequestId::Number(id)));
        match frame.message {
            ServerMessage::Pong => {}
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            other => panic!("{other:?}"),
        }
    }
    // hello took one token; a slow machine may have earned some back meanwhile.
    assert!((1..=extra + 1).contains(&limited), "{limited} refused");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(
        eager.request(999, ClientMessage::Ping).await,
        ServerMessage::Pong
    );

    // Persistent flooding with requests, with garbage, and with chat: refused, then closed.
    let floods: [(&str, String); 3] = [
        ("pings", "{\"type\":\"ping\",\"id\":1}".to_owned()),
        ("garbage", "{\"type\":".to_owned()),
        ("unknown types", "{\"type\":\"spam\"}".to_owned()),
    ];
    for (what, text) in floods {
        let mut flooder = server.join("flooder").await;
        let (errors, code) = flood(&mut flooder.socket, std::iter::repeat_n(text, 300)).await;
        assert_eq!(code, Some(close::POLICY_VIOLATION), "{what}");
        let refused = errors
            .iter()
            .filter(|&&c| c == ErrorCode::RateLimited)
            .count();
        assert!(
            refused >= BURST as usize,
            "{what}: {refused} refused before the close"
        );
    }
}

/// Many lobby subscriptions from one connection are one subscription; thousands close it.
async fn lobby_subscriptions(server: &TestServer) {
    let mut keen = server.join("keen").await;
    for id in 1..=30 {
        assert!(matches!(
            keen.request(id, ClientMessage::SubscribeLobby).await,
            ServerMessage::Lobby { .. }
        ));
    }
    let mut host = server.join("host").await;
    let mut flooder = server.join("subscriber").await;
    let (_, code) = flood(
        &mut flooder.socket,
        std::iter::repeat_n("{\"type\":\"subscribe_lobby\"}".to_owned(), 2000),
    )
    .await;
    assert_eq!(code, Some(close::POLICY_VIOLATION));
    let create = ClientMessage::CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    };
    let ServerMessage::RoomCreated { code, .. } = host.request(1, create).await else {
        panic!("a room")
    };
    assert_eq!(
        host.request(2, ClientMessage::CloseRoom { code: code.clone() })
            .await,
        ServerMessage::Ok
    );
    let mut announced = 0;
    loop {
        match keen.next().await.message {
            ServerMessage::LobbyRoom { room } if room.code == code => announced += 1,
            ServerMessage::LobbyRoomRemoved { code: removed } if removed == code => break,
            _ => {}
        }
    }
    assert_eq!(announced, 1, "one connection, one subscription");
}

/// Chat full of escapes is relayed without them; chat with nothing left is refused; a chat flood
/// is rate limited.
async fn chat(server: &TestServer, reference: &mut Reference) {
    let game = reference.game;
    let lines = [
        ("\u{1b}[31mred\u{1b}[0m alert\u{7}", "[31mred[0m alert"),
        ("a\u{9b}2Jb\u{0}c\u{7f}\u{202e}d\u{200b}e", "a2Jbcde"),
        ("line\nbreak\ttab\rcr", "line break tab cr"),
        ("\u{1b}]0;pwned\u{7}title", "]0;pwnedtitle"),
    ];
    let mut id = 50;
    for (sent, relayed) in lines {
        id += 1;
        let reply = reference
            .watcher
            .request(
                id,
                ClientMessage::Chat {
                    game,
                    text: sent.to_owned(),
                },
            )
            .await;
        assert!(
            matches!(&reply, ServerMessage::Chat { line, .. } if line.text == relayed && line.from == "watcher"),
            "{sent:?}: {reply:?}"
        );
        for player in [&mut reference.x, &mut reference.o] {
            player
                .saw(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == relayed))
                .await;
        }
    }
    // Escapes do not count towards the length; nothing but escapes is nothing.
    let padded: String = "a"
        .repeat(280)
        .chars()
        .flat_map(|c| [c, '\u{1b}'])
        .collect();
    let reply = reference
        .x
        .request(60, ClientMessage::Chat { game, text: padded })
        .await;
    assert!(
        matches!(&reply, ServerMessage::Chat { line, .. } if line.text == "a".repeat(280)),
        "{reply:?}"
    );
    for text in [
        "\u{1b}\u{7}\u{0}\u{9b}\u{202e}",
        "",
        "a".repeat(281).as_str(),
    ] {
        reference
            .o
            .expect_error(
                61,
                ClientMessage::Chat {
                    game,
                    text: text.to_owned(),
                },
                ErrorCode::BadChat,
            )
            .await;
    }

    // A chat flood from another watcher: a burst of five, then refused.
    let mut chatty = server.join("chatty").await;
    assert!(matches!(
        chatty
            .request(1, ClientMessage::Watch { game, code: None })
            .await,
        ServerMessage::GameState(_)
    ));
    let mut replies = Vec::new();
    for id in 2..=8 {
        let text = format!("spam {id}");
        replies.push(chatty.request(id, ClientMessage::Chat { game, text }).await);
    }
    for reply in &replies[..5] {
        assert!(matches!(reply, ServerMessage::Chat { .. }), "{reply:?}");
    }
    assert!(
        replies[5..].iter().any(|reply| matches!(
            reply,
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            }
        )),
        "{replies:?}"
    );
}
