//! The app's logic without a terminal: events in (keys, clicks, ticks, server messages), state and
//! effects (requests for the server) out.

mod common;

use std::time::{Duration, Instant};

use common::*;
use noughts_client::app::{App, Effect, Event, Screen};
use noughts_client::net::NetEvent;
use noughts_client::tabs::{PAGE, Tab};
use noughts_protocol::{
    ClientMessage, EndReason, GameId, GameInfo, GameKind, GameResult, Level, Mark, PlayerId,
    ServerMessage, Variant,
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
        vec![Effect::Send(ClientMessage::Watch {
            game: GameId(4),
            code: None
        })]
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
            clock: None,
            rated: false,
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
        vec![Effect::Send(ClientMessage::Watch {
            game: GameId(4),
            code: None
        })]
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
    assert_eq!(app.lobby.selected, 1);
    assert_eq!(
        app.update(Event::Mouse(click)),
        vec![Effect::Send(ClientMessage::Watch {
            game: GameId(12),
            code: None
        })]
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
        rated: false,
    };
    assert_eq!(
        frame(&mut app, ServerMessage::LobbyGame { game: next(20) }),
        vec![Effect::Send(ClientMessage::Watch {
            game: GameId(20),
            code: None
        })]
    );
    // Updates of a game already listed are not new games.
    assert!(frame(&mut app, ServerMessage::LobbyGame { game: next(20) }).is_empty());
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
    assert!(
        key(&mut app, KeyCode::Char('q')).is_empty(),
        "no unwatch for a player"
    );
    assert_eq!(app.screen, Screen::Lobby);
    assert!(app.status.as_ref().unwrap().0.contains("goes on"));
}

#[test]
fn my_games_are_listed_first_and_open_on_enter() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    frame(
        &mut app,
        ServerMessage::LobbyGame {
            game: GameInfo {
                game: GameId(30),
                variant: Variant::Classic,
                kind: GameKind::Human,
                x: human("bob", 8),
                o: human("ada", 7),
                moves: 3,
                watchers: 0,
                clock: None,
                rated: false,
            },
        },
    );
    let screen = render(&app);
    let mine = screen.find("Your games").expect("a section for my games");
    assert!(
        screen.contains("▸ #30"),
        "ada is O, and three moves were played:\n{screen}"
    );
    assert!(mine < screen.find("Live games").unwrap(), "{screen}");
    key(&mut app, KeyCode::Down);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Watch {
            game: GameId(30),
            code: None
        })]
    );
}

fn welcome(app: &mut App, resumed: bool) -> Vec<Effect> {
    frame(
        app,
        ServerMessage::Welcome {
            protocol: 1,
            player: PlayerId(if resumed { 7 } else { 9 }),
            name: "ada".into(),
            token: "secret".into(),
            resumed,
            ratings: Vec::new(),
        },
    )
}

#[test]
fn a_seek_is_renewed_after_a_reconnect() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Enter);
    frame(
        &mut app,
        ServerMessage::Seeking {
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
        vec![Effect::Send(ClientMessage::Seek {
            variant: Variant::Classic,
            clock: None,
            rated: false,
        })]
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
        vec![
            Effect::Send(ClientMessage::SubscribeLobby),
            Effect::Send(ClientMessage::Watch {
                game: GameId(42),
                code: None
            })
        ]
    );
    assert!(
        welcome(&mut app, true).is_empty(),
        "a resumed session still watches"
    );
}

#[test]
fn the_leaderboard_follows_the_variant_and_leads_to_a_players_games() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.tab, Tab::Leaderboard);
    assert_eq!(
        key(&mut app, KeyCode::Right),
        vec![Effect::Send(ClientMessage::Leaderboard {
            variant: Variant::Four,
            offset: None,
            limit: Some(PAGE),
        })]
    );
    // A late answer for the variant shown before is not shown.
    frame(&mut app, leaderboard_message(Variant::Classic));
    assert!(app.leaderboard.players.is_none());
    frame(&mut app, leaderboard_message(Variant::Four));
    let players = app.leaderboard.players.as_ref().unwrap();
    assert_eq!(players.len(), 5);
    assert_eq!(players[2].name, "erin[31m", "names are sanitised");
    // Enter on bob (row 4): his games.
    for _ in 0..3 {
        key(&mut app, KeyCode::Down);
    }
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::History {
            player: Some(PlayerId(8)),
            before: None,
            limit: Some(PAGE),
        })]
    );
    assert_eq!(app.tab, Tab::History);
    assert!(render(&app).contains("Games of bob (player 8)"));
    // Our own history is not bob's: a page for player 7 is dropped.
    frame(&mut app, history_message());
    assert!(app.history.games.is_none());
    // q goes back from bob's games to ours, and again to the lobby.
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Send(ClientMessage::History {
            player: None,
            before: None,
            limit: Some(PAGE),
        })]
    );
    assert!(key(&mut app, KeyCode::Char('q')).is_empty());
    assert_eq!(app.tab, Tab::Games);
    assert!(!app.quitting, "q on a tab does not quit");
}

#[test]
fn history_pages_back_when_the_selection_reaches_the_end() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('H'));
    frame(&mut app, history_message());
    assert!(key(&mut app, KeyCode::Down).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Down),
        vec![Effect::Send(ClientMessage::History {
            player: None,
            before: Some(GameId(7)),
            limit: Some(PAGE),
        })]
    );
    assert!(
        key(&mut app, KeyCode::Down).is_empty(),
        "one request at a time"
    );
    let ServerMessage::History { games, .. } = history_message() else {
        unreachable!()
    };
    let older: Vec<_> = games
        .into_iter()
        .map(|mut g| {
            g.game = GameId(g.game.0 - 5);
            g
        })
        .collect();
    frame(
        &mut app,
        ServerMessage::History {
            player: PlayerId(7),
            games: older,
            more: false,
        },
    );
    let ids: Vec<u64> = app
        .history
        .games
        .as_ref()
        .unwrap()
        .iter()
        .map(|g| g.game.0)
        .collect();
    assert_eq!(ids, [9, 8, 7, 4, 3, 2]);
    assert!(!app.history.more);
    assert!(key(&mut app, KeyCode::End).is_empty(), "nothing older");
}

#[test]
fn a_replay_steps_through_the_record_and_returns_to_the_lobby() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('H'));
    frame(&mut app, history_message());
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::GameRecord { game: GameId(9) })]
    );
    // A record nobody asked for is not opened.
    let mut other = record();
    other.game = GameId(5);
    frame(&mut app, ServerMessage::GameRecord(Box::new(other)));
    assert_eq!(app.screen, Screen::Lobby);
    frame(&mut app, ServerMessage::GameRecord(Box::new(record())));
    assert_eq!(app.screen, Screen::Replay);
    let ply = |app: &App| app.replay.as_ref().unwrap().ply;
    let board = |app: &App| app.replay.as_ref().unwrap().board().to_compact();
    assert_eq!(ply(&app), 7, "it opens on the final position");
    assert_eq!(board(&app), "OOX.XXO.X");
    key(&mut app, KeyCode::Right);
    assert_eq!(ply(&app), 7, "no step past the end");
    key(&mut app, KeyCode::Home);
    assert_eq!(board(&app), ".........");
    key(&mut app, KeyCode::Left);
    assert_eq!(ply(&app), 0, "no step before the start");
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    assert_eq!(board(&app), "O...X....");
    key(&mut app, KeyCode::PageDown);
    assert_eq!(ply(&app), 7);
    key(&mut app, KeyCode::Up);
    assert_eq!(ply(&app), 2);
    key(&mut app, KeyCode::End);
    assert!(render(&app).contains("X wins (three in a row)"));
    assert!(key(&mut app, KeyCode::Char('q')).is_empty());
    assert_eq!(app.screen, Screen::Lobby);
    assert_eq!(app.tab, Tab::History, "back where the replay was opened");
    assert!(app.replay.is_none());
}

#[test]
fn a_game_the_server_does_not_have_is_not_waited_for() {
    let mut app = welcomed(Instant::now());
    app.open_replay(GameId(99), &mut Vec::new());
    frame(
        &mut app,
        ServerMessage::Error {
            code: noughts_protocol::ErrorCode::NoSuchGame,
            message: "the server has kept no game 99".into(),
        },
    );
    assert!(app.replay_wanted.is_none());
    assert!(render(&app).contains("no_such_game: the server has kept no game 99"));
}

#[test]
fn a_replay_on_its_own_quits_with_q() {
    let view = noughts_client::replay::ReplayView::new(record()).unwrap();
    let mut app = App::replaying(view, Instant::now(), true);
    let screen = render(&app);
    assert!(screen.contains("replay of game #9"), "{screen}");
    assert!(
        !screen.contains("offline"),
        "no connection to speak of:\n{screen}"
    );
    key(&mut app, KeyCode::Left);
    assert_eq!(app.replay.as_ref().unwrap().ply, 6);
    assert_eq!(key(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
}

#[test]
fn seeks_and_rooms_can_be_rated() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right); // casual → rated
    assert!(render(&app).contains("rated (counts for ratings)"));
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Seek {
            variant: Variant::Classic,
            clock: None,
            rated: true,
        })]
    );
    frame(
        &mut app,
        ServerMessage::Seeking {
            variant: Variant::Classic,
            clock: None,
        },
    );
    assert!(render(&app).contains("classic, no clock, rated"));
    // A reconnect renews the seek as it was: rated.
    app.update(Event::Net(NetEvent::Lost {
        reason: "gone".into(),
        retry_in: Duration::from_secs(1),
    }));
    assert_eq!(
        welcome(&mut app, true),
        vec![Effect::Send(ClientMessage::Seek {
            variant: Variant::Classic,
            clock: None,
            rated: true,
        })]
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char(' '));
    assert!(matches!(
        key(&mut app, KeyCode::Enter).as_slice(),
        [Effect::Send(ClientMessage::CreateRoom { rated: true, .. })]
    ));
}

#[test]
fn ratings_come_with_the_welcome_and_are_renewed_after_a_rated_game() {
    let mut app = welcomed(Instant::now());
    assert_eq!(app.rating(Variant::Classic).unwrap().rating, 1562);
    let mut rated = state(Variant::Classic, "XX..OO...", &[0, 4, 1, 5]);
    rated.rated = true;
    frame(&mut app, ServerMessage::GameState(Box::new(rated)));
    let over = x_wins_top_row(11);
    assert_eq!(
        frame(&mut app, over.clone()),
        vec![Effect::Send(ClientMessage::Profile { player: None })]
    );
    assert!(frame(&mut app, over).is_empty(), "once");
    let stats = |variant, rating| noughts_protocol::VariantStats {
        variant,
        rating,
        deviation: 80,
        rated_games: 15,
        games: 20,
        wins: 9,
        draws: 4,
        losses: 7,
    };
    let profile = |player| {
        ServerMessage::Profile(Box::new(noughts_protocol::Profile {
            player: PlayerId(player),
            name: "ada".into(),
            created_ms: 0,
            last_seen_ms: 0,
            variants: vec![stats(Variant::Classic, 1574)],
        }))
    };
    frame(&mut app, profile(8));
    assert_eq!(
        app.rating(Variant::Classic).unwrap().rating,
        1562,
        "not ours"
    );
    frame(&mut app, profile(7));
    assert_eq!(app.rating(Variant::Classic).unwrap().rating, 1574);
    // A casual game changes nothing, so nothing is asked.
    let casual = state(Variant::Classic, "XX..OO...", &[0, 4, 1, 5]);
    frame(&mut app, ServerMessage::GameState(Box::new(casual)));
    let over = x_wins_top_row(11);
    assert!(frame(&mut app, over).is_empty());
}

#[test]
fn tabs_and_their_rows_answer_the_mouse() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let click = |column: usize, row: usize| {
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: column as u16,
            row: row as u16,
            modifiers: KeyModifiers::NONE,
        })
    };
    let find = |screen: &str, text: &str| {
        screen
            .lines()
            .enumerate()
            .find_map(|(row, line)| {
                let at = line.find(text)?;
                // Columns count characters; the line starts with a quote.
                Some((line[..at].chars().count() - 1, row))
            })
            .unwrap_or_else(|| panic!("{text} is on screen:\n{screen}"))
    };
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let (column, row) = find(&render(&app), "History");
    assert_eq!(
        app.update(click(column + 2, row)),
        vec![Effect::Send(ClientMessage::History {
            player: None,
            before: None,
            limit: Some(PAGE),
        })]
    );
    assert_eq!(app.tab, Tab::History);
    frame(&mut app, history_message());
    let (column, row) = find(&render(&app), "#8 ");
    assert!(app.update(click(column, row)).is_empty());
    assert_eq!(app.history.selected, 1);
    assert_eq!(
        app.update(click(column, row)),
        vec![Effect::Send(ClientMessage::GameRecord { game: GameId(8) })]
    );
    let (column, row) = find(&render(&app), "Lobby");
    assert!(app.update(click(column, row)).is_empty());
    assert_eq!(app.tab, Tab::Games);
}

#[test]
fn a_session_resumed_at_start_subscribes_to_the_lobby() {
    // The identity may last have been used by `noughts history` or a bot, which never subscribe.
    let mut app = App::new("ada", Instant::now(), true);
    assert_eq!(
        welcome(&mut app, true),
        vec![Effect::Send(ClientMessage::SubscribeLobby)]
    );
    assert!(
        welcome(&mut app, true).is_empty(),
        "a reconnect keeps the subscription"
    );
}

#[test]
fn the_leaderboard_loads_the_next_places_at_its_end() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('L'));
    let entry = |rank: u32| noughts_protocol::LeaderboardEntry {
        rank,
        player: PlayerId(100 + u64::from(rank)),
        name: format!("p{rank}"),
        rating: 2000 - rank,
        deviation: 60,
        games: 10,
        wins: 5,
        draws: 3,
        losses: 2,
    };
    let page = |offset: u32, count: u32| ServerMessage::Leaderboard {
        variant: Variant::Classic,
        offset,
        players: (offset + 1..=offset + count).map(entry).collect(),
    };
    frame(&mut app, page(0, PAGE));
    assert_eq!(
        key(&mut app, KeyCode::End),
        vec![Effect::Send(ClientMessage::Leaderboard {
            variant: Variant::Classic,
            offset: Some(PAGE),
            limit: Some(PAGE),
        })]
    );
    assert!(
        key(&mut app, KeyCode::Down).is_empty(),
        "one request at a time"
    );
    frame(&mut app, page(PAGE, 3));
    let players = app.leaderboard.players.as_ref().unwrap();
    assert_eq!(players.len(), PAGE as usize + 3);
    assert_eq!(players.last().unwrap().rank, PAGE + 3);
    assert!(
        key(&mut app, KeyCode::End).is_empty(),
        "a short page was the last"
    );
}

#[test]
fn a_finished_game_can_be_replayed_from_its_screen() {
    let mut app = welcomed(Instant::now());
    let mut over = record();
    over.game = GameId(42);
    let mut state = state(Variant::Classic, "OOX.XXO.X", &[4, 0, 8, 1, 2, 6, 5]);
    state.to_move = None;
    state.result = over.result.clone();
    frame(&mut app, ServerMessage::GameState(Box::new(state)));
    assert_eq!(
        key(&mut app, KeyCode::Char('v')),
        vec![Effect::Send(ClientMessage::GameRecord { game: GameId(42) })]
    );
    frame(&mut app, ServerMessage::GameRecord(Box::new(over)));
    assert_eq!(app.screen, Screen::Replay);
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::Game, "back to the game replayed");
}
