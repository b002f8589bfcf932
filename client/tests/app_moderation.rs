//! Mute, block and report in the app: the `P` menu on the game screen and in the lobby, the
//! requests it sends with their ids, what an `ok` or an error to them changes, and the chat lines
//! of muted players kept off the screen.

mod common;

use std::time::Instant;

use common::*;
use noughts_client::app::{App, Effect, Event};
use noughts_client::net::NetEvent;
use noughts_client::screen::modal::Modal;
use noughts_protocol::{
    ChatLine, ClientMessage, ErrorCode, GameId, Level, Mark, ModeratedPlayer, PlayerId, Report,
    ReportCategory, RequestId, ServerFrame, ServerMessage, Variant,
};
use ratatui::crossterm::event::KeyCode;

/// The answer to request `id`, as the connection hands it on.
fn reply(app: &mut App, id: Option<RequestId>, message: ServerMessage) -> Vec<Effect> {
    app.update(Event::Net(NetEvent::Frame(ServerFrame::reply(id, message))))
}

/// The one request with an id among `effects`.
fn request(effects: &[Effect]) -> (Option<RequestId>, ClientMessage) {
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Request(frame) => Some((frame.id.clone(), frame.message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "{effects:?}");
    assert!(asked[0].0.is_some(), "{effects:?}");
    asked[0].clone()
}

fn bob_says(text: &str) -> ChatLine {
    ChatLine {
        from: "bob".into(),
        player: Some(PlayerId(8)),
        mark: Some(Mark::O),
        text: text.into(),
        guest: false,
        bot: false,
    }
}

fn shown_chat(app: &App) -> Vec<String> {
    let game = app.game.as_ref().expect("a game on screen");
    game.state
        .chat
        .iter()
        .map(|line| line.text.clone())
        .collect()
}

/// A welcomed app with game 42 on screen against bob (player 8), who has said something.
fn in_game() -> App {
    let mut app = welcomed(Instant::now());
    let mut game = state(Variant::Classic, "X...O....", &[0, 4]);
    game.chat.push(bob_says("you will lose"));
    frame(&mut app, ServerMessage::GameState(Box::new(game)));
    app
}

#[test]
fn muting_the_opponent_hides_their_chat_and_says_so() {
    let mut app = in_game();
    key(&mut app, KeyCode::Char('P'));
    assert!(
        matches!(app.modal, Some(Modal::People(_))),
        "{:?}",
        app.modal
    );
    assert!(render(&app).contains("Mute: hide their chat"));
    let effects = key(&mut app, KeyCode::Char('m'));
    let (id, message) = request(&effects);
    assert_eq!(
        message,
        ClientMessage::Mute {
            player: PlayerId(8)
        }
    );
    assert!(app.modal.is_none());
    // Nothing changes before the server agrees.
    assert!(shown_chat(&app).contains(&"you will lose".to_owned()));
    reply(&mut app, id, ServerMessage::Ok);
    assert!(app.moderation.muted.contains(&PlayerId(8)));
    assert!(render(&app).contains("Muted bob"), "{}", render(&app));
    assert!(!shown_chat(&app).contains(&"you will lose".to_owned()));
    assert!(shown_chat(&app).contains(&"good luck!".to_owned()));
    // A line of theirs still on its way when the mute took effect is not shown either.
    frame(
        &mut app,
        ServerMessage::Chat {
            game: GameId(42),
            seq: 11,
            line: bob_says("late line"),
        },
    );
    assert!(!shown_chat(&app).contains(&"late line".to_owned()));

    // Now the menu offers to unmute; a refusal is shown and changes nothing.
    key(&mut app, KeyCode::Char('P'));
    assert!(render(&app).contains("Unmute"));
    let (id, message) = request(&key(&mut app, KeyCode::Enter));
    assert_eq!(
        message,
        ClientMessage::Unmute {
            player: PlayerId(8)
        }
    );
    reply(
        &mut app,
        id,
        ServerMessage::Error {
            code: ErrorCode::NoSuchPlayer,
            message: "no player 8 here".into(),
        },
    );
    assert!(app.moderation.muted.contains(&PlayerId(8)));
    assert!(render(&app).contains("no player 8 here"));
}

#[test]
fn a_report_goes_with_its_category_reason_and_game() {
    let mut app = in_game();
    key(&mut app, KeyCode::Char('P'));
    key(&mut app, KeyCode::Char('r'));
    assert!(render(&app).contains("Abuse in chat"), "{}", render(&app));
    key(&mut app, KeyCode::Down);
    for c in "spam!".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let (id, message) = request(&key(&mut app, KeyCode::Enter));
    assert_eq!(
        message,
        ClientMessage::Report(Report {
            player: PlayerId(8),
            category: ReportCategory::Spam,
            reason: "spam!".into(),
            game: Some(GameId(42)),
        })
    );
    reply(&mut app, id, ServerMessage::Ok);
    assert!(render(&app).contains("Reported bob"));
    // Blocking from the same menu.
    key(&mut app, KeyCode::Char('P'));
    let (id, message) = request(&key(&mut app, KeyCode::Char('b')));
    assert_eq!(
        message,
        ClientMessage::Block {
            player: PlayerId(8)
        }
    );
    reply(&mut app, id, ServerMessage::Ok);
    assert!(app.moderation.blocked.contains(&PlayerId(8)));
}

#[test]
fn never_offered_for_oneself_nor_the_ai() {
    let mut app = welcomed(Instant::now());
    let mut game = state(Variant::Classic, "X...O....", &[0, 4]);
    game.o = ai(Level::Perfect);
    frame(&mut app, ServerMessage::GameState(Box::new(game)));
    let effects = key(&mut app, KeyCode::Char('P'));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(app.modal.is_none());
    assert!(render(&app).contains("Nobody here"), "{}", render(&app));
}

#[test]
fn the_lists_answer_sets_what_the_lobby_menu_offers() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    reply(
        &mut app,
        Some(RequestId::Number(1)),
        ServerMessage::ModerationList {
            muted: vec![ModeratedPlayer {
                player: PlayerId(21),
                name: "dave".into(),
            }],
            blocked: Vec::new(),
        },
    );
    // The first row is dave's seek: his menu offers to unmute him and to block him.
    let wide = render_sized(&mut app, 120, 24);
    assert!(wide.contains("P people"), "{wide}");
    key(&mut app, KeyCode::Char('P'));
    let screen = render(&app);
    assert!(screen.contains("dave"), "{screen}");
    assert!(!screen.contains("#21"), "no ids beside names: {screen}");
    assert!(screen.contains("Unmute"), "{screen}");
    assert!(screen.contains("Block: never paired"), "{screen}");
    let (_, message) = request(&key(&mut app, KeyCode::Char('b')));
    assert_eq!(
        message,
        ClientMessage::Block {
            player: PlayerId(21)
        }
    );
}

#[test]
fn a_rooms_host_is_offered_from_the_lobby() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    // The second row is carol's room (after dave's seek).
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char('P'));
    let screen = render(&app);
    assert!(screen.contains("carol"), "{screen}");
    let (_, message) = request(&key(&mut app, KeyCode::Char('m')));
    assert_eq!(
        message,
        ClientMessage::Mute {
            player: PlayerId(3)
        }
    );
}
