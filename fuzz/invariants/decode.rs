//! What must hold for any text a client sends, whatever it is: shared by the `decode` fuzz target
//! and the stable-toolchain test `protocol/tests/fuzz_decode.rs`.

use noughts_protocol::{ErrorCode, decode_client};

/// Checks the decoder on raw bytes: valid UTF-8 as it is, anything else read lossily (the server
/// never sees invalid UTF-8 in a text frame, but the replacement characters still exercise it).
pub fn check_bytes(data: &[u8]) {
    match std::str::from_utf8(data) {
        Ok(text) => check_text(text),
        Err(_) => check_text(&String::from_utf8_lossy(data)),
    }
}

/// Checks the decoder on one frame's text.
///
/// - It never panics (the caller notices).
/// - A refusal carries one of the three decoding codes and a message for people.
/// - An accepted frame serialises back to JSON that decodes to the same frame, id included.
pub fn check_text(text: &str) {
    match decode_client(text) {
        Ok(frame) => {
            let json = frame.to_json();
            match decode_client(&json) {
                Ok(again) => assert_eq!(again, frame, "{text:?} re-read from {json:?}"),
                Err(err) => panic!("{text:?} decoded, but its own JSON {json:?} did not: {err:?}"),
            }
        }
        Err(err) => {
            assert!(
                matches!(
                    err.code,
                    ErrorCode::BadJson | ErrorCode::UnknownType | ErrorCode::BadRequest
                ),
                "{text:?} refused with {:?}",
                err.code
            );
            assert!(
                !err.message.is_empty(),
                "{text:?} refused without a message"
            );
            if err.code == ErrorCode::BadJson {
                assert_eq!(err.id, None, "{text:?}: bad JSON cannot have a readable id");
            }
        }
    }
}
