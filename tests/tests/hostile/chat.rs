//! Chat under attack: escape sequences, control characters, empty and oversized lines, chat in
//! games one is not part of, and floods of lines.

use noughts_protocol::{ClientMessage, ErrorCode, ServerMessage, Watch};

use crate::support::{Beside, Reference};

/// Chat lines are cleaned or refused as documented, and chat floods are limited.
#[tokio::test]
async fn hostile_chat_is_cleaned_or_refused() {
    let mut beside = Beside::start().await;
    chat(&beside.server, &mut beside.reference).await;
    beside.finish().await;
}

async fn chat(server: &noughts_tests::TestServer, reference: &mut Reference) {
    let game = reference.game;
    let lines = [
        // Escape sequences go whole, not just their ESC.
        ("\u{1b}[31mred\u{1b}[0m alert\u{7}", "red alert"),
        ("a\u{9b}2Jb\u{0}c\u{7f}\u{202e}d\u{200b}e", "abcde"),
        ("line\nbreak\ttab\rcr", "line break tab cr"),
        ("\u{1b}]0;pwned\u{7}title", "title"),
    ];
    let mut id = 50;
    for (sent, relayed) in lines {
        id += 1;
        // A player's line reaches the other player and the watchers, cleaned the same way.
        let reply = reference
            .x
            .request(
                id,
                ClientMessage::Chat {
                    game,
                    text: sent.to_owned(),
                },
            )
            .await;
        assert!(
            matches!(&reply, ServerMessage::Chat { line, .. } if line.text == relayed && line.mark == Some(noughts_protocol::Mark::X)),
            "{sent:?}: {reply:?}"
        );
        for other in [&mut reference.o, &mut reference.watcher] {
            other
                .saw(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == relayed))
                .await;
        }
    }
    // What is removed does not count towards the length; nothing but it is nothing.
    let padded: String = "a"
        .repeat(280)
        .chars()
        .flat_map(|c| [c, '\u{7}', '\u{200b}'])
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
            .request(1, ClientMessage::Watch(Watch { game, code: None }))
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
