//! The screens, drawn into an 80×24 test terminal after feeding the app events, kept as insta
//! snapshots (the `.snap` files beside this test).

mod common;

use std::time::{Duration, Instant};

use common::*;
use insta::assert_snapshot;
use noughts_client::app::{Effect, Event, Screen};
use noughts_protocol::{
    ClientMessage, CreateRoom, GameId, GameKind, Leaderboard, Level, Mark, PlayAi, ServerMessage,
    Variant, Watch,
};
use ratatui::crossterm::event::KeyCode;

#[test]
fn lobby() {
    let t0 = Instant::now();
    let mut app = welcomed(t0);
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_snapshot!(render(&app));
    // Enter on a game watches it; on a room joins it.
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(12),
            code: None
        }))]
    );
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Down);
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
        vec![Effect::Send(ClientMessage::PlayAi(PlayAi {
            variant: Variant::Four,
            level: Level::Medium,
            side: noughts_protocol::SideChoice::X,
            clock: None,
        }))]
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
        [Effect::Send(ClientMessage::CreateRoom(CreateRoom { .. }))]
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
    frame(&mut app, x_wins_top_row(12));
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
            claim_ms: Some(10_000),
        },
    );
    app.update(Event::Tick(t0 + Duration::from_millis(7_400)));
    assert_snapshot!(render(&app));
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
fn every_screen_draws_at_any_size_without_panicking() {
    let mut apps = Vec::new();
    let mut lobby = welcomed(Instant::now());
    frame(&mut lobby, lobby_message());
    apps.push(lobby);
    for (variant, board) in [
        (Variant::Classic, "X...O...."),
        (Variant::Four, "X...O..........."),
        (Variant::Cube, "X...O......................"),
        (
            Variant::Qubic,
            "X...O...........................................................",
        ),
    ] {
        let mut app = welcomed(Instant::now());
        frame(
            &mut app,
            ServerMessage::GameState(Box::new(state(variant, board, &[0, 4]))),
        );
        apps.push(app);
    }
    let mut help = welcomed(Instant::now());
    key(&mut help, KeyCode::Char('?'));
    apps.push(help);
    let mut form = welcomed(Instant::now());
    key(&mut form, KeyCode::Char('a'));
    apps.push(form);
    let mut board = welcomed(Instant::now());
    key(&mut board, KeyCode::Tab);
    frame(&mut board, leaderboard_message(Variant::Classic));
    apps.push(board);
    let mut history = welcomed(Instant::now());
    key(&mut history, KeyCode::Char('H'));
    frame(&mut history, history_message());
    apps.push(history);
    for variant in Variant::ALL {
        let mut replay = welcomed(Instant::now());
        let view = noughts_client::replay::ReplayView::offline(variant, &[0, 4, 1]).unwrap();
        replay.replay = Some(view);
        replay.screen = Screen::Replay;
        apps.push(replay);
    }
    let mut replay = welcomed(Instant::now());
    key(&mut replay, KeyCode::Char('H'));
    frame(&mut replay, history_message());
    key(&mut replay, KeyCode::Enter);
    frame(&mut replay, ServerMessage::GameRecord(Box::new(record())));
    apps.push(replay);
    let mut room = welcomed(Instant::now());
    frame(
        &mut room,
        ServerMessage::RoomCreated {
            code: "K7QM-4TXP-2D".into(),
            variant: Variant::Classic,
            clock: None,
            private: true,
        },
    );
    apps.push(room);
    for app in &mut apps {
        for width in [1, 2, 5, 12, 20, 33, 50, 63, 64, 79, 80, 120, 250] {
            for height in [1, 2, 3, 6, 10, 17, 24, 40, 80] {
                render_sized(app, width, height);
            }
        }
    }
}

#[test]
fn leaderboard_tab() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    assert_eq!(
        key(&mut app, KeyCode::Char('L')),
        vec![
            Effect::Send(ClientMessage::Leaderboard(Leaderboard {
                variant: Variant::Classic,
                offset: None,
                limit: Some(noughts_client::screen::rows::PAGE),
            })),
            Effect::Send(ClientMessage::UnsubscribeLobby)
        ]
    );
    frame(&mut app, leaderboard_message(Variant::Classic));
    key(&mut app, KeyCode::Down);
    assert_snapshot!(render(&app));
}

#[test]
fn history_tab() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.tab, noughts_client::screen::tab::Tab::History);
    frame(&mut app, history_message());
    assert_snapshot!(render(&app));
}

#[test]
fn replay_screen() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::Char('H'));
    frame(&mut app, history_message());
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::GameRecord { game: GameId(9) })]
    );
    frame(&mut app, ServerMessage::GameRecord(Box::new(record())));
    assert_eq!(app.screen, Screen::Replay);
    // It opens on the final position; three steps back is the position after move 4.
    for _ in 0..3 {
        key(&mut app, KeyCode::Left);
    }
    assert_snapshot!(render(&app));
}

#[test]
fn replay_screen_at_the_end() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('H'));
    frame(&mut app, history_message());
    key(&mut app, KeyCode::Enter);
    frame(&mut app, ServerMessage::GameRecord(Box::new(record())));
    assert_snapshot!(render(&app));
}

#[test]
fn rated_game_shows_both_ratings() {
    let mut app = welcomed(Instant::now());
    let mut rated = state(Variant::Classic, "X...O....", &[0, 4]);
    rated.rated = true;
    frame(&mut app, ServerMessage::GameState(Box::new(rated)));
    let screen = render(&app);
    assert!(screen.contains("Game #42 · rated"), "{screen}");
    assert!(screen.contains("ada (you) 1541"), "{screen}");
    assert!(screen.contains("bob 1554"), "{screen}");
    // A guest is marked as one; an account is named by its username alone.
    let mut guest = state(Variant::Classic, "X...O....", &[0, 4]);
    guest.o.guest = true;
    frame(&mut app, ServerMessage::GameState(Box::new(guest)));
    let screen = render(&app);
    assert!(screen.contains("bob (guest)"), "{screen}");
}

/// A 24-character full-width name takes 48 columns: every screen cuts it by width, so no line
/// grows past the terminal and no border moves.
#[test]
fn full_width_names_are_cut_by_display_width() {
    use unicode_width::UnicodeWidthStr;
    let wide = "名".repeat(24);
    let mut app = welcomed(Instant::now());
    let mut lobby = lobby_message();
    if let ServerMessage::Lobby { games, seeks, .. } = &mut lobby {
        games[1].x = human(&wide, 30);
        seeks[0].name = wide.clone();
    }
    frame(&mut app, lobby);
    let mut game = state(Variant::Classic, "X...O....", &[0, 4]);
    game.o = human(&wide, 31);
    let screens = [render(&app), {
        frame(&mut app, ServerMessage::GameState(Box::new(game)));
        render(&app)
    }];
    for screen in screens {
        for line in screen.lines() {
            // The test backend notes after a line the cells a wide character covers.
            let line = line.find("\" Hidden by").map_or(line, |end| &line[..=end]);
            assert_eq!(
                line.width(),
                82,
                "a line of 80 columns and its quotes: {line}"
            );
            if line.contains('名') && line.contains('│') {
                assert!(line.ends_with("│\"") || line.ends_with("┐\""), "{screen}");
            }
        }
    }
}

#[test]
fn qubic_at_60_by_20() {
    let mut app = welcomed(Instant::now());
    let mut qubic = state(Variant::Qubic, &".".repeat(64), &[]);
    qubic.board = format!("X{}O{}", ".".repeat(20), ".".repeat(42));
    qubic.moves = vec![0, 21];
    qubic.clock = None;
    qubic.clocks = None;
    frame(&mut app, ServerMessage::GameState(Box::new(qubic)));
    assert_snapshot!(render_sized(&mut app, 60, 20));
}
