//! Fixtures shared by the app and screen tests: server messages, a welcomed app, rendering into a
//! test terminal.

#![allow(dead_code)]

use std::time::Instant;

use noughts_client::app::{App, Effect, Event, NetEvent};
use noughts_protocol::{
    ChatLine, ClientMessage, ClockSpec, Clocks, GameId, GameInfo, GameKind, GameState, Level, Mark,
    PlayerId, RoomInfo, SeatInfo, ServerFrame, ServerMessage, Variant,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub fn render(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .unwrap();
    terminal.backend().to_string()
}

pub fn frame(app: &mut App, message: ServerMessage) -> Vec<Effect> {
    app.update(Event::Net(NetEvent::Frame(ServerFrame::event(message))))
}

pub fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.update(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

pub fn human(name: &str, id: u64) -> SeatInfo {
    SeatInfo {
        name: name.into(),
        player: Some(PlayerId(id)),
        level: None,
        connected: true,
        rating: None,
    }
}

pub fn ai(level: Level) -> SeatInfo {
    SeatInfo {
        name: format!("{level} AI"),
        player: None,
        level: Some(level),
        connected: true,
        rating: None,
    }
}

pub fn welcomed(t0: Instant) -> App {
    let mut app = App::new("ada", t0, true);
    let effects = frame(
        &mut app,
        ServerMessage::Welcome {
            protocol: 1,
            player: PlayerId(7),
            name: "ada".into(),
            token: "secret".into(),
            resumed: false,
            ratings: Vec::new(),
        },
    );
    assert_eq!(
        effects,
        vec![Effect::Send(ClientMessage::SubscribeLobby)],
        "a new session subscribes to the lobby"
    );
    app
}

pub fn state(variant: Variant, board: &str, moves: &[usize]) -> GameState {
    let x = board.chars().filter(|&c| c == 'X').count();
    let o = board.chars().filter(|&c| c == 'O').count();
    GameState {
        game: GameId(42),
        variant,
        kind: GameKind::Human,
        x: human("ada", 7),
        o: human("bob", 8),
        you: Some(Mark::X),
        seq: 10,
        board: board.into(),
        moves: moves.to_vec(),
        to_move: Some(if x == o { Mark::X } else { Mark::O }),
        clock: Some(ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        }),
        clocks: Some(Clocks {
            x_ms: 151_000,
            o_ms: 163_400,
            running: Some(if x == o { Mark::X } else { Mark::O }),
        }),
        result: None,
        watchers: 3,
        chat: vec![
            ChatLine {
                from: "bob".into(),
                mark: Some(Mark::O),
                text: "good luck!".into(),
            },
            ChatLine {
                from: "eve".into(),
                mark: None,
                text: "\u{1b}[2Jwatching from the back".into(),
            },
        ],
        rematch_of: None,
        rated: false,
    }
}

pub fn lobby_message() -> ServerMessage {
    let game = |id, variant, kind, x, o, moves, watchers| GameInfo {
        game: GameId(id),
        variant,
        kind,
        x,
        o,
        moves,
        watchers,
        clock: None,
        rated: false,
    };
    ServerMessage::Lobby {
        rooms: vec![RoomInfo {
            code: "K7QM-4TXP-2D".into(),
            variant: Variant::Classic,
            clock: Some(ClockSpec {
                initial_ms: 180_000,
                increment_ms: 2_000,
            }),
            host: "carol".into(),
            rated: false,
        }],
        games: vec![
            game(
                3,
                Variant::Classic,
                GameKind::War,
                ai(Level::Perfect),
                ai(Level::Perfect),
                4,
                2,
            ),
            game(
                4,
                Variant::Cube,
                GameKind::War,
                ai(Level::Perfect),
                ai(Level::Perfect),
                6,
                0,
            ),
            game(
                12,
                Variant::Four,
                GameKind::Human,
                human("dave", 3),
                human("erin", 4),
                5,
                1,
            ),
            game(
                15,
                Variant::Classic,
                GameKind::Ai,
                human("frank", 5),
                ai(Level::Hard),
                2,
                0,
            ),
        ],
    }
}

pub fn render_sized(app: &mut App, width: u16, height: u16) -> String {
    app.update(Event::Resize(width, height));
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(&*app, frame.area()))
        .unwrap();
    terminal.backend().to_string()
}
