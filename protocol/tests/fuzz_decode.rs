//! The `decode` fuzz target's invariants on the stable toolchain, so they cannot rot: every input
//! in the committed corpus (`fuzz/corpus/decode`), then random frames, some of them random bytes
//! and some close to real requests.

use proptest::prelude::*;

#[path = "../../fuzz/invariants/decode.rs"]
mod invariant;

#[test]
fn the_committed_corpus_holds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/decode");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("the decode corpus") {
        let path = entry.expect("a corpus entry").path();
        let data = std::fs::read(&path).expect("a corpus file");
        invariant::check_bytes(&data);
        seen += 1;
    }
    assert!(seen > 0, "{} is empty", dir.display());
}

/// Text shaped like a request: a known or unknown type and a few fields of any JSON type.
fn request_like() -> impl Strategy<Value = String> {
    let kind = prop::sample::select(vec![
        "hello",
        "ping",
        "move",
        "chat",
        "seek",
        "watch",
        "resign",
        "rematch",
        "create_room",
        "join_room",
        "play_ai",
        "start_war",
        "history",
        "leaderboard",
        "profile",
        "fly",
        "",
    ]);
    let key = prop::sample::select(vec![
        "id", "game", "cell", "text", "name", "protocol", "token", "variant", "level", "side",
        "clock", "rated", "private", "code", "limit", "offset", "player", "before", "type",
    ]);
    let value = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| format!("{n:?}")),
        "[a-z0-9 \\\\\"\u{1b}\u{202e}]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just("\"classic\"".to_owned()),
        Just("\"perfect\"".to_owned()),
        Just("{\"initial_ms\":60000,\"increment_ms\":0}".to_owned()),
        Just("[1,{}]".to_owned()),
    ];
    (kind, prop::collection::vec((key, value), 0..6)).prop_map(|(kind, fields)| {
        let mut text = format!("{{\"type\":{kind:?}");
        for (key, value) in fields {
            text.push_str(&format!(",{key:?}:{value}"));
        }
        text.push('}');
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_hold(data in prop::collection::vec(any::<u8>(), 0..256)) {
        invariant::check_bytes(&data);
    }

    #[test]
    fn random_text_holds(text in any::<String>()) {
        invariant::check_text(&text);
    }

    #[test]
    fn requests_and_their_prefixes_hold(text in request_like(), cut in any::<prop::sample::Index>()) {
        invariant::check_text(&text);
        let mut end = cut.index(text.len() + 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        invariant::check_text(&text[..end]);
    }
}
