//! The screens, drawn into an 80×24 test terminal after feeding the app events, kept as insta
//! snapshots. The app is driven exactly as the real loop drives it: server frames and keys in.

use std::time::{Duration, Instant};

use insta::assert_snapshot;
use noughts_client::app::{App, Effect, Event, NetEvent, Screen};
use noughts_protocol::{
    ChatLine, ClientMessage, ClockSpec, Clocks, EndReason, GameId, GameInfo, GameKind, GameResult,
    GameState, Level, Mark, PlayerId, RoomInfo, SeatInfo, ServerFrame, ServerMessage, Variant,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn render(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .unwrap();
    terminal.backend().to_string()
}

fn frame(app: &mut App, message: ServerMessage) -> Vec<Effect> {
    app.update(Event::Net(NetEvent::Frame(ServerFrame::event(message))))
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.update(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn human(name: &str, id: u64) -> SeatInfo {
    SeatInfo {
        name: name.into(),
        player: Some(PlayerId(id)),
        level: None,
        connected: true,
    }
}

fn ai(level: Level) -> SeatInfo {
    SeatInfo {
        name: format!("{level} AI"),
        player: None,
        level: Some(level),
        connected: true,
    }
}

fn welcomed(t0: Instant) -> App {
    let mut app = App::new("ada", t0, true);
    let effects = frame(
        &mut app,
        ServerMessage::Welcome {
            protocol: 1,
            player: PlayerId(7),
            name: "ada".into(),
            token: "secret".into(),
            resumed: false,
        },
    );
    assert_eq!(
        effects,
        vec![Effect::Send(ClientMessage::SubscribeLobby)],
        "a new session subscribes to the lobby"
    );
    app
}

fn state(variant: Variant, board: &str, moves: &[usize]) -> GameState {
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
    }
}

fn lobby_message() -> ServerMessage {
    let game = |id, variant, kind, x, o, moves, watchers| GameInfo {
        game: GameId(id),
        variant,
        kind,
        x,
        o,
        moves,
        watchers,
        clock: None,
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

#[test]
fn lobby() {
    let t0 = Instant::now();
    let mut app = welcomed(t0);
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::Down);
    assert_snapshot!(render(&app));
    // Enter on a game watches it; on a room joins it.
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Watch { game: GameId(12) })]
    );
    key(&mut app, KeyCode::Home);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::JoinRoom {
            code: "K7QM-4TXP-2D".into()
        })]
    );
}

#[test]
fn play_ai_form() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Right); // variant: four
    assert_snapshot!(render(&app));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::PlayAi {
            variant: Variant::Four,
            level: Level::Perfect,
            side: noughts_protocol::SideChoice::X,
            clock: None,
        })]
    );
}

#[test]
fn room_with_invite_code() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::Char('c'));
    let effects = key(&mut app, KeyCode::Enter);
    assert!(matches!(
        effects.as_slice(),
        [Effect::Send(ClientMessage::CreateRoom { .. })]
    ));
    frame(
        &mut app,
        ServerMessage::RoomCreated {
            code: "K7QM-4TXP-2D".into(),
            variant: Variant::Classic,
            clock: None,
            private: false,
        },
    );
    assert_snapshot!(render(&app));
    assert_eq!(
        key(&mut app, KeyCode::Esc),
        vec![Effect::Send(ClientMessage::CloseRoom {
            code: "K7QM-4TXP-2D".into()
        })]
    );
}

#[test]
fn classic_mid_game_with_cursor() {
    let t0 = Instant::now();
    let mut app = welcomed(t0);
    frame(&mut app, lobby_message());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    assert_eq!(app.screen, Screen::Game);
    // The clock of the side to move runs between ticks.
    app.update(Event::Tick(t0 + Duration::from_millis(2_500)));
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Up);
    assert_snapshot!(render(&app));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Move {
            game: GameId(42),
            cell: 2
        })]
    );
    // Digits are laid out like the board: 9 is the bottom-right cell.
    assert_eq!(
        key(&mut app, KeyCode::Char('9')),
        vec![Effect::Send(ClientMessage::Move {
            game: GameId(42),
            cell: 8
        })]
    );
    // A taken cell is refused without bothering the server.
    assert!(key(&mut app, KeyCode::Char('5')).is_empty());
}

#[test]
fn mouse_click_places_on_the_cell_drawn_there() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, ".........", &[]))),
    );
    let screen = render(&app);
    // Find the digit 9 drawn in the bottom-right cell and click on it.
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, line)| line.contains(" 9 "))
        .expect("empty cells show their digit");
    let column = line.chars().position(|c| c == '9').unwrap() - 1; // the opening quote
    let effects = app.update(Event::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: column as u16,
        row: row as u16,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(
        effects,
        vec![Effect::Send(ClientMessage::Move {
            game: GameId(42),
            cell: 8
        })]
    );
}

#[test]
fn cube_game_as_layers() {
    let mut app = welcomed(Instant::now());
    let mut cube = state(Variant::Cube, "X........ ....O.... ........X", &[0, 13, 26]);
    cube.clock = None;
    cube.clocks = None;
    cube.kind = GameKind::Ai;
    cube.x = ai(Level::Perfect);
    cube.o = human("ada", 7);
    cube.you = Some(Mark::O);
    frame(&mut app, ServerMessage::GameState(Box::new(cube)));
    key(&mut app, KeyCode::Char(']'));
    assert_snapshot!(render(&app));
}

#[test]
fn game_over_with_the_winning_line() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(
            Variant::Classic,
            "XX..OO...",
            &[0, 4, 1, 5],
        ))),
    );
    frame(
        &mut app,
        ServerMessage::Moved {
            game: GameId(42),
            seq: 11,
            mark: Mark::X,
            cell: 2,
            board: "XXX.OO...".into(),
            to_move: None,
            clocks: None,
        },
    );
    frame(
        &mut app,
        ServerMessage::GameOver {
            game: GameId(42),
            seq: 12,
            board: "XXX.OO...".into(),
            result: GameResult {
                winner: Some(Mark::X),
                reason: EndReason::Line,
                cells: vec![0, 1, 2],
            },
            clocks: None,
        },
    );
    frame(
        &mut app,
        ServerMessage::RematchOffered {
            game: GameId(42),
            seq: 13,
            by: Mark::O,
        },
    );
    assert_snapshot!(render(&app));
    assert_eq!(
        key(&mut app, KeyCode::Char('r')),
        vec![Effect::Send(ClientMessage::Rematch { game: GameId(42) })]
    );
}

#[test]
fn help_overlay() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    key(&mut app, KeyCode::Char('?'));
    assert_snapshot!(render(&app));
    key(&mut app, KeyCode::Esc);
    assert!(!app.help);
}

#[test]
fn opponent_disconnected() {
    let t0 = Instant::now();
    let mut app = welcomed(t0);
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O...X", &[0, 4, 8]))),
    );
    frame(
        &mut app,
        ServerMessage::Presence {
            game: GameId(42),
            seq: 11,
            mark: Mark::O,
            connected: false,
            grace_ms: Some(30_000),
        },
    );
    app.update(Event::Tick(t0 + Duration::from_millis(7_400)));
    assert_snapshot!(render(&app));
}

#[test]
fn resign_asks_first() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    assert!(key(&mut app, KeyCode::Char('r')).is_empty());
    assert!(
        key(&mut app, KeyCode::Char('n')).is_empty(),
        "n keeps playing"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(
        key(&mut app, KeyCode::Char('y')),
        vec![Effect::Send(ClientMessage::Resign { game: GameId(42) })]
    );
}

#[test]
fn chat_is_typed_and_sent() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    key(&mut app, KeyCode::Char('c'));
    for c in "gg".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Chat {
            game: GameId(42),
            text: "gg".into()
        })]
    );
}

#[test]
fn watching_is_read_only_and_jumps_to_war_games() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let mut watched = state(Variant::Classic, "X...O....", &[0, 4]);
    watched.you = None;
    watched.game = GameId(3);
    frame(&mut app, ServerMessage::GameState(Box::new(watched)));
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "watchers cannot move"
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('g')),
        vec![Effect::Send(ClientMessage::Watch { game: GameId(4) })]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Send(ClientMessage::Unwatch { game: GameId(3) })]
    );
    assert_eq!(app.screen, Screen::Lobby);
}

#[test]
fn hostile_names_cannot_reach_the_terminal() {
    let mut app = welcomed(Instant::now());
    let mut hostile = state(Variant::Classic, ".........", &[]);
    hostile.o.name = "\u{1b}]0;pwned\u{7}\u{1b}[31mbob".into();
    frame(&mut app, ServerMessage::GameState(Box::new(hostile)));
    let screen = render(&app);
    assert!(!screen.contains('\u{1b}'));
    assert!(screen.contains("]0;pwned[31mbob"));
}

#[test]
fn no_color_draws_with_modifiers_only() {
    use ratatui::style::Color;
    let mut app = welcomed(Instant::now());
    app.color = false;
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(&app, frame.area()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|cell| cell.fg == Color::Reset && cell.bg == Color::Reset)
    );
}

fn render_sized(app: &mut App, width: u16, height: u16) -> String {
    app.update(Event::Resize(width, height));
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(&*app, frame.area()))
        .unwrap();
    terminal.backend().to_string()
}

#[test]
fn qubic_fits_in_80_by_24() {
    let mut app = welcomed(Instant::now());
    let mut qubic = state(Variant::Qubic, &".".repeat(64), &[]);
    qubic.board = format!("X{}O{}", ".".repeat(20), ".".repeat(42));
    qubic.moves = vec![0, 21];
    qubic.clock = None;
    qubic.clocks = None;
    frame(&mut app, ServerMessage::GameState(Box::new(qubic)));
    key(&mut app, KeyCode::PageDown);
    assert_snapshot!(render(&app));
}

#[test]
fn cube_layers_stack_when_narrow() {
    let mut app = welcomed(Instant::now());
    let mut cube = state(Variant::Cube, "X........ ....O.... .........", &[0, 13]);
    cube.clock = None;
    cube.clocks = None;
    frame(&mut app, ServerMessage::GameState(Box::new(cube)));
    assert_snapshot!(render_sized(&mut app, 28, 40));
}

#[test]
fn watching_a_war_game() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let mut war = state(Variant::Four, "X..O.X..O..X....", &[0, 3, 5, 8, 11]);
    war.game = GameId(3);
    war.kind = GameKind::War;
    war.x = ai(Level::Perfect);
    war.o = ai(Level::Hard);
    war.you = None;
    war.clock = None;
    war.clocks = None;
    war.chat.clear();
    frame(&mut app, ServerMessage::GameState(Box::new(war)));
    assert_snapshot!(render(&app));
}

#[test]
fn losing_the_connection_shows_the_retry() {
    let t0 = Instant::now();
    let mut app = welcomed(t0);
    frame(&mut app, lobby_message());
    app.update(Event::Net(NetEvent::Lost {
        reason: "connection lost: reset by peer".into(),
        retry_in: Duration::from_secs(4),
    }));
    app.update(Event::Tick(t0 + Duration::from_millis(1_200)));
    let screen = render(&app);
    assert!(screen.contains("reconnecting in 2s"), "{screen}");
    assert!(
        screen.contains("connection lost: reset by peer"),
        "{screen}"
    );
}

#[test]
fn quick_match_can_be_cancelled() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('m'));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Seek {
            variant: Variant::Classic,
            clock: None
        })]
    );
    frame(
        &mut app,
        ServerMessage::Seeking {
            variant: Variant::Classic,
            clock: None,
        },
    );
    assert!(render(&app).contains("Looking for an opponent"));
    assert_eq!(
        key(&mut app, KeyCode::Esc),
        vec![Effect::Send(ClientMessage::CancelSeek)]
    );
    assert!(app.modal.is_none());
}

#[test]
fn joining_by_code() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('i'));
    for c in "k7qm-4txp-2d".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert!(render(&app).contains("Invite code: K7QM-4TXP-2D"));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::JoinRoom {
            code: "K7QM-4TXP-2D".into()
        })]
    );
    // The game that starts replaces the lobby.
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, ".........", &[]))),
    );
    assert_eq!(app.screen, Screen::Game);
}

#[test]
fn watch_war_on_start_picks_a_running_war_game() {
    let mut app = welcomed(Instant::now());
    app.want_war = Some(Variant::Cube);
    assert_eq!(
        frame(&mut app, lobby_message()),
        vec![Effect::Send(ClientMessage::Watch { game: GameId(4) })]
    );
}

#[test]
fn a_rematch_replaces_the_finished_game() {
    let mut app = welcomed(Instant::now());
    let mut over = state(Variant::Classic, "XXXOO....", &[0, 3, 1, 4, 2]);
    over.to_move = None;
    over.result = Some(GameResult {
        winner: Some(Mark::X),
        reason: EndReason::Line,
        cells: vec![0, 1, 2],
    });
    frame(&mut app, ServerMessage::GameState(Box::new(over)));
    key(&mut app, KeyCode::Char('r'));
    let mut next = state(Variant::Classic, ".........", &[]);
    next.game = GameId(43);
    next.you = Some(Mark::O);
    next.rematch_of = Some(GameId(42));
    frame(&mut app, ServerMessage::GameState(Box::new(next)));
    let game = app.game.as_ref().unwrap();
    assert_eq!((game.id(), game.you()), (GameId(43), Some(Mark::O)));
    assert!(render(&app).contains("X (ada) to move") || render(&app).contains("to move"));
}

#[test]
fn clicking_a_lobby_row_selects_it_and_a_second_click_opens_it() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let screen = render(&app);
    let row = screen
        .lines()
        .position(|line| line.contains("dave vs erin"))
        .unwrap() as u16;
    let click = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 10,
        row,
        modifiers: KeyModifiers::NONE,
    };
    assert!(app.update(Event::Mouse(click)).is_empty());
    assert_eq!(app.lobby.selected, 1);
    assert_eq!(
        app.update(Event::Mouse(click)),
        vec![Effect::Send(ClientMessage::Watch { game: GameId(12) })]
    );
}

#[test]
fn watchers_follow_the_war_games_from_one_to_the_next() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let mut war = state(Variant::Classic, "XOXXOOOXX", &[0, 1, 2, 4, 3, 5, 7, 6, 8]);
    war.game = GameId(3);
    war.kind = GameKind::War;
    war.you = None;
    war.to_move = None;
    war.result = Some(GameResult {
        winner: None,
        reason: EndReason::Draw,
        cells: vec![],
    });
    frame(&mut app, ServerMessage::GameState(Box::new(war)));
    frame(
        &mut app,
        ServerMessage::LobbyGameRemoved { game: GameId(3) },
    );
    let next = |id| GameInfo {
        game: GameId(id),
        variant: Variant::Classic,
        kind: GameKind::War,
        x: ai(Level::Perfect),
        o: ai(Level::Perfect),
        moves: 0,
        watchers: 0,
        clock: None,
    };
    assert_eq!(
        frame(&mut app, ServerMessage::LobbyGame { game: next(20) }),
        vec![Effect::Send(ClientMessage::Watch { game: GameId(20) })]
    );
    // Updates of a game already listed are not new games.
    assert!(frame(&mut app, ServerMessage::LobbyGame { game: next(20) }).is_empty());
}
