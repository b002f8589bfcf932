//! Frames that break the WebSocket rules or the protocol's transport rules: binary, invalid
//! UTF-8, oversized, fragmented wrongly, masked wrongly, control frames misused. Each closes the
//! connection with its documented code.

use noughts_protocol::{MAX_MESSAGE_BYTES, close};
use tokio_tungstenite::tungstenite::Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, FrameHeader};

use crate::support::{Beside, Case, Expect, frame, frames, raw, text};

/// Messages split wrongly, of the wrong kind or with bytes that are not text.
#[tokio::test]
async fn bad_messages_close_with_their_codes() {
    let beside = Beside::start().await;
    beside.run_all(&messages()).await;
    beside.finish().await;
}

/// Frame headers that lie, control frames misused, and raw bytes that are no frame at all.
#[tokio::test]
async fn bad_frames_close_with_their_codes() {
    let beside = Beside::start().await;
    beside.run_all(&headers()).await;
    beside.finish().await;
}

/// Messages split wrongly, binary messages, invalid UTF-8.
fn messages() -> Vec<Case> {
    use Expect::Close;
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
    ]
}

/// Headers that lie, control frames misused, raw bytes.
fn headers() -> Vec<Case> {
    use Expect::Close;
    let oversized = oversized();
    let huge_header = huge_header();
    vec![
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

fn text_frame(payload: &[u8], is_final: bool) -> Frame {
    Frame::message(payload.to_vec(), OpCode::Data(Data::Text), is_final)
}

fn continued(payload: &[u8], is_final: bool) -> Frame {
    Frame::message(payload.to_vec(), OpCode::Data(Data::Continue), is_final)
}

fn with_header(header: FrameHeader, payload: &[u8]) -> Frame {
    Frame::from_payload(header, Bytes::from(payload.to_vec()))
}

/// A request larger than the largest frame.
fn oversized() -> String {
    format!(
        "{{\"type\":\"ping\",\"pad\":\"{}\"}}",
        "a".repeat(MAX_MESSAGE_BYTES)
    )
}

/// A text frame whose header claims 2^62 bytes: refused before anything is allocated.
fn huge_header() -> Vec<u8> {
    let mut bytes = vec![0x81, 0x80 | 127];
    bytes.extend_from_slice(&(1u64 << 62).to_be_bytes());
    bytes.extend_from_slice(&[1, 2, 3, 4]);
    bytes
}
