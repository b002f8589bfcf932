//! The app's logic without a terminal: events in (keys, clicks, ticks, server messages), state and
//! effects (requests for the server) out.

mod common;

use std::time::{Duration, Instant};

use common::*;
use noughts_client::app::{Effect, Event, Screen};
use noughts_client::net::NetEvent;
use noughts_protocol::{
    ClientMessage, EndReason, GameId, GameInfo, GameKind, GameResult, Level, LobbyUpdate, Mark,
    Seek, SeekId, ServerMessage, Variant, Watch,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

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
fn a_hint_against_the_ai_puts_the_cursor_on_the_engine_s_move() {
    let mut app = welcomed(Instant::now());
    // ada plays X against the AI; the engine's best move is where the cursor goes.
    let mut game = state(Variant::Classic, "XO..X...O", &[0, 1, 4, 8]);
    game.kind = GameKind::Ai;
    game.o = ai(Level::Perfect);
    frame(&mut app, ServerMessage::GameState(Box::new(game)));
    assert!(key(&mut app, KeyCode::Char('i')).is_empty());
    let view = app.game.as_ref().unwrap();
    let board = noughts_engine::Board::parse(Variant::Classic, "XO..X...O").unwrap();
    let best = noughts_engine::analyse(&board, noughts_engine::Budget::millis(300));
    assert_eq!(Some(view.cursor), best.moves.first().map(|m| m.cell));
    assert!(render(&app).contains("Hint: cell"), "{}", render(&app));
}

#[test]
fn a_cell_is_typed_by_its_name_on_the_bigger_boards() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Four, &".".repeat(16), &[]))),
    );
    key(&mut app, KeyCode::Char(':'));
    for c in "z9".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "not a cell of four"
    );
    assert!(render(&app).contains("a column a-d and a row 1-4"));
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Backspace);
    for c in "B3".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    // Column b, row 3: the tenth cell, 9 from 0.
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Move {
            game: GameId(42),
            cell: 9
        })]
    );
    // The empty cells are labelled so.
    assert!(render(&app).contains("b3"));
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
    // Away from the lobby, `g` follows it until its snapshot names the war games.
    assert_eq!(
        key(&mut app, KeyCode::Char('g')),
        vec![Effect::Send(ClientMessage::SubscribeLobby)]
    );
    assert_eq!(
        frame(&mut app, lobby_message()),
        vec![
            Effect::Send(ClientMessage::Watch(Watch {
                game: GameId(4),
                code: None
            })),
            Effect::Send(ClientMessage::UnsubscribeLobby)
        ]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![
            Effect::Send(ClientMessage::Unwatch { game: GameId(3) }),
            Effect::Send(ClientMessage::SubscribeLobby)
        ]
    );
    assert_eq!(app.screen, Screen::Lobby);
}

#[test]
fn a_watcher_switches_between_the_players_and_the_spectators_chat() {
    let mut app = welcomed(Instant::now());
    let mut watched = state(Variant::Classic, "X...O....", &[0, 4]);
    watched.you = None;
    watched.chat = vec![
        noughts_protocol::ChatLine {
            from: "bob".into(),
            player: None,
            mark: Some(Mark::X),
            text: "good luck".into(),
            guest: false,
            bot: false,
        },
        noughts_protocol::ChatLine {
            from: "eve".into(),
            player: None,
            mark: None,
            text: "nice centre".into(),
            guest: false,
            bot: false,
        },
    ];
    frame(&mut app, ServerMessage::GameState(Box::new(watched)));
    let players = render(&app);
    assert!(
        players.contains("good luck") && !players.contains("nice centre"),
        "{players}"
    );
    assert!(key(&mut app, KeyCode::Char('t')).is_empty());
    let spectators = render(&app);
    assert!(
        spectators.contains("nice centre") && !spectators.contains("good luck"),
        "{spectators}"
    );
}

#[test]
fn the_next_war_game_is_offered_only_while_watching_a_war_game() {
    let mut app = welcomed(Instant::now());
    let mut watched = state(Variant::Classic, "X...O....", &[0, 4]);
    watched.you = None;
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(watched.clone())),
    );
    assert!(!render(&app).contains("next war game"), "{}", render(&app));
    watched.game = GameId(3);
    watched.kind = GameKind::War;
    frame(&mut app, ServerMessage::GameState(Box::new(watched)));
    assert!(render(&app).contains("next war game"), "{}", render(&app));
}

#[test]
fn hostile_names_cannot_reach_the_terminal() {
    let mut app = welcomed(Instant::now());
    let mut hostile = state(Variant::Classic, ".........", &[]);
    hostile.o.name = "\u{1b}]0;pwned\u{7}\u{1b}[31mbob".into();
    frame(&mut app, ServerMessage::GameState(Box::new(hostile)));
    let screen = render(&app);
    assert!(!screen.contains('\u{1b}'));
    assert!(screen.contains("bob") && !screen.contains("pwned"));
}

#[test]
fn a_rename_from_another_connection_renames_this_one() {
    let mut app = welcomed(Instant::now());
    // The player signed up from the page: the name is the username from now on.
    frame(
        &mut app,
        ServerMessage::Renamed {
            name: "ada_walk".into(),
        },
    );
    assert_eq!(app.name, "ada_walk");
    assert!(render(&app).contains("ada_walk"));
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

#[test]
fn high_contrast_draws_nothing_dim_and_the_cursor_black_on_white() {
    use ratatui::style::{Color, Modifier};
    let mut app = welcomed(Instant::now());
    app.contrast = true;
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
            .all(|cell| cell.fg != Color::DarkGray
                && cell.bg != Color::DarkGray
                && !cell.modifier.contains(Modifier::DIM))
    );
    assert!(
        buffer
            .content()
            .iter()
            .any(|cell| cell.bg == Color::White && cell.fg == Color::Black),
        "the cursor"
    );
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
        vec![Effect::Send(ClientMessage::Seek(Seek {
            variant: Variant::Classic,
            clock: None,
            rated: false,
            bots: false,
        }))]
    );
    frame(
        &mut app,
        ServerMessage::Seeking {
            seek: SeekId(1),
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
fn a_new_room_s_code_goes_to_the_clipboard() {
    let mut app = welcomed(Instant::now());
    let effects = frame(
        &mut app,
        ServerMessage::RoomCreated {
            code: "K7QM-4TXP-2D".into(),
            variant: Variant::Classic,
            clock: None,
            private: true,
        },
    );
    assert_eq!(effects, vec![Effect::Copy("K7QM-4TXP-2D".into())]);
    assert!(render(&app).contains("copied to your clipboard"));
    assert_eq!(
        noughts_client::interactive::osc52("K7QM-4TXP-2D"),
        "\x1b]52;c;SzdRTS00VFhQLTJE\x07"
    );
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
    // A wrong code keeps what was typed, to be corrected.
    frame(
        &mut app,
        ServerMessage::Error {
            code: noughts_protocol::ErrorCode::NoSuchRoom,
            message: "no open room has that code".into(),
        },
    );
    assert!(render(&app).contains("Invite code: K7QM-4TXP-2D"));
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::JoinRoom {
            code: "K7QM-4TXP-2E".into()
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
    // The league's tables of the war variants come first (the levels' ratings, for the AI's
    // form), asked for once.
    let league = |variant| {
        Effect::Send(ClientMessage::League(noughts_protocol::League {
            variant,
            follow: false,
        }))
    };
    assert_eq!(
        frame(&mut app, lobby_message()),
        vec![
            league(Variant::Classic),
            league(Variant::Cube),
            Effect::Send(ClientMessage::Watch(Watch {
                game: GameId(4),
                code: None
            }))
        ]
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
        .position(|line| line.contains("dave 1489 vs erin"))
        .unwrap() as u16;
    let click = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 10,
        row,
        modifiers: KeyModifiers::NONE,
    };
    assert!(app.update(Event::Mouse(click)).is_empty());
    assert_eq!(app.lobby.selected, 2);
    assert_eq!(
        app.update(Event::Mouse(click)),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(12),
            code: None
        }))]
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
        ServerMessage::LobbyUpdate(Box::new(LobbyUpdate {
            games_removed: vec![GameId(3)],
            ..LobbyUpdate::default()
        })),
    );
    let next = |id| GameInfo {
        game: GameId(id),
        variant: Variant::Classic,
        kind: GameKind::War,
        x: ai(Level::Perfect),
        o: ai(Level::Perfect),
        moves: 0,
        board: String::new(),
        watchers: 0,
        clock: None,
        rated: false,
    };
    assert_eq!(
        frame(&mut app, lobby_game(next(20))),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(20),
            code: None
        }))]
    );
    // Updates of a game already listed are not new games.
    assert!(frame(&mut app, lobby_game(next(20))).is_empty());
}

#[test]
fn ctrl_c_quits_from_anywhere() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('a'));
    let effects = app.update(Event::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(effects, vec![Effect::Quit]);
}

#[test]
fn leaving_a_live_game_keeps_it_going_and_it_can_be_rejoined() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    assert!(
        key(&mut app, KeyCode::Char('g')).is_empty(),
        "no jumping to war games mid-game"
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Send(ClientMessage::SubscribeLobby)],
        "no unwatch for a player; the lobby is followed again"
    );
    assert_eq!(app.screen, Screen::Lobby);
    assert!(app.status.as_ref().unwrap().0.contains("goes on"));
}

#[test]
fn open_seeks_are_listed_first_and_accepted_on_enter() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let screen = render(&app);
    let seeks = screen.find("Open seeks").expect("a section for seeks");
    assert!(seeks < screen.find("Open rooms").unwrap(), "{screen}");
    assert!(screen.contains("dave (1612)"), "{screen}");
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::AcceptSeek { seek: SeekId(12) })]
    );
    frame(
        &mut app,
        ServerMessage::LobbyUpdate(Box::new(LobbyUpdate {
            seeks_removed: vec![SeekId(12)],
            ..LobbyUpdate::default()
        })),
    );
    assert!(!render(&app).contains("Open seeks"));
}

#[test]
fn a_seek_is_renewed_after_a_reconnect() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Enter);
    frame(
        &mut app,
        ServerMessage::Seeking {
            seek: SeekId(1),
            variant: Variant::Classic,
            clock: None,
        },
    );
    app.update(Event::Net(NetEvent::Lost {
        reason: "gone".into(),
        retry_in: Duration::from_secs(1),
    }));
    assert_eq!(
        welcome(&mut app, true),
        vec![Effect::Send(ClientMessage::Seek(Seek {
            variant: Variant::Classic,
            clock: None,
            rated: false,
            bots: false,
        }))]
    );
}

#[test]
fn a_new_session_after_a_reconnect_drops_what_the_old_one_had() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    assert_eq!(
        welcome(&mut app, false),
        vec![Effect::Send(ClientMessage::SubscribeLobby)]
    );
    assert_eq!(app.screen, Screen::Lobby);
    assert!(app.game.is_none());
    assert!(app.status.as_ref().unwrap().0.contains("game #42 is lost"));
}

#[test]
fn a_watched_game_is_watched_again_by_a_new_session() {
    let mut app = welcomed(Instant::now());
    let mut watched = state(Variant::Classic, "X...O....", &[0, 4]);
    watched.you = None;
    frame(&mut app, ServerMessage::GameState(Box::new(watched)));
    assert_eq!(
        welcome(&mut app, false),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(42),
            code: None
        }))],
        "the game is on show, not the lobby: no subscription"
    );
    assert!(
        welcome(&mut app, true).is_empty(),
        "a resumed session still watches"
    );
}

/// A `lobby_update` that shows one game.
fn lobby_game(game: GameInfo) -> ServerMessage {
    ServerMessage::LobbyUpdate(Box::new(LobbyUpdate {
        games: vec![game],
        ..LobbyUpdate::default()
    }))
}
