//! The lobby at scale, through the app: the client follows the lobby only while it shows it, the
//! lobby's totals and featured games, our own games from their states, and the all-games tab
//! paging through `list_games`.

mod common;

use std::time::Instant;

use common::*;
use noughts_client::app::{App, Effect, Event, Screen};
use noughts_client::screen::tab::Tab;
use noughts_protocol::{
    ClientMessage, EndReason, GameId, GameInfo, GameKind, GameResult, Level, ListGames,
    LobbyUpdate, ServerMessage, Totals, Variant, Watch,
};
use ratatui::crossterm::event::KeyCode;

const SUBSCRIBE: Effect = Effect::Send(ClientMessage::SubscribeLobby);
const UNSUBSCRIBE: Effect = Effect::Send(ClientMessage::UnsubscribeLobby);

fn listed(id: u64, variant: Variant, kind: GameKind) -> GameInfo {
    GameInfo {
        game: GameId(id),
        variant,
        kind,
        x: human("gus", 40 + id),
        o: ai(Level::Hard),
        moves: 2,
        board: String::new(),
        watchers: 0,
        clock: None,
        rated: false,
    }
}

fn playing(app: &mut App) -> Vec<Effect> {
    frame(
        app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    )
}

#[test]
fn the_lobby_is_followed_only_while_it_is_shown() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    assert_eq!(
        playing(&mut app),
        vec![UNSUBSCRIBE],
        "a game leaves the lobby"
    );
    assert!(!app.lobby.loaded, "what it held goes stale");
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![SUBSCRIBE],
        "back to it"
    );
    // The snapshot on coming back replaces everything held.
    let ServerMessage::Lobby { totals, .. } = lobby_message() else {
        unreachable!()
    };
    frame(
        &mut app,
        ServerMessage::Lobby {
            seeks: vec![],
            seeks_total: 0,
            rooms: vec![],
            rooms_total: 0,
            games: vec![listed(50, Variant::Four, GameKind::Human)],
            totals,
            arenas: Vec::new(),
        },
    );
    assert!(app.lobby.seeks.is_empty() && app.lobby.rooms.is_empty());
    assert_eq!(app.lobby.games.len(), 1);
    // Another tab that does not show the live lobby: leaderboard, history, all games.
    for (code, tab) in [
        (KeyCode::Char('L'), Tab::Leaderboard),
        (KeyCode::Char('H'), Tab::History),
        (KeyCode::Char('b'), Tab::Browse),
    ] {
        let effects = key(&mut app, code);
        assert_eq!(app.tab, tab);
        assert_eq!(effects.last(), Some(&UNSUBSCRIBE), "{tab:?}: {effects:?}");
        assert_eq!(key(&mut app, KeyCode::Esc), vec![SUBSCRIBE], "{tab:?}");
        assert_eq!(app.tab, Tab::Games);
    }
    // A replay leaves it too.
    app.screen = Screen::Replay;
    let now = app.now;
    assert_eq!(app.update(Event::Tick(now)), vec![UNSUBSCRIBE]);
}

#[test]
fn watching_a_game_unsubscribes_and_a_lost_session_subscribes_again() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    key(&mut app, KeyCode::End);
    let effects = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(
            effects[..],
            [Effect::Send(ClientMessage::Watch(Watch { .. }))]
        ),
        "{effects:?}"
    );
    let mut watched = state(Variant::Classic, "X...O....", &[0, 4]);
    watched.you = None;
    watched.game = GameId(4);
    assert_eq!(
        frame(&mut app, ServerMessage::GameState(Box::new(watched))),
        vec![UNSUBSCRIBE]
    );
    // Nothing more goes out while the game is on screen, whatever arrives.
    assert!(frame(&mut app, lobby_message()).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![
            Effect::Send(ClientMessage::Unwatch { game: GameId(4) }),
            SUBSCRIBE
        ]
    );
}

#[test]
fn the_lobby_shows_featured_games_totals_and_how_many_more_wait() {
    let mut app = welcomed(Instant::now());
    let ServerMessage::Lobby {
        seeks,
        rooms,
        games,
        ..
    } = lobby_message()
    else {
        unreachable!()
    };
    frame(
        &mut app,
        ServerMessage::Lobby {
            seeks,
            seeks_total: 41,
            rooms,
            rooms_total: 3,
            games,
            totals: Totals {
                online: 1234,
                games: 987,
            },
            arenas: Vec::new(),
        },
    );
    let screen = render(&app);
    assert!(screen.contains("Featured games"), "{screen}");
    assert!(screen.contains("and 40 more"), "{screen}");
    assert!(screen.contains("and 2 more"), "{screen}");
    assert!(screen.contains("1234 online, 987 playing"), "{screen}");
    insta::assert_snapshot!(screen);
    // A later frame changes only what it carries.
    frame(
        &mut app,
        ServerMessage::LobbyUpdate(Box::new(LobbyUpdate {
            seeks_total: Some(1),
            games_removed: vec![GameId(12)],
            totals: Some(Totals {
                online: 1300,
                games: 986,
            }),
            ..LobbyUpdate::default()
        })),
    );
    let screen = render(&app);
    assert!(!screen.contains("and 40 more"), "{screen}");
    assert!(screen.contains("and 2 more"), "{screen}");
    assert!(!screen.contains("#12 "), "{screen}");
    assert!(screen.contains("1300 online, 986 playing"), "{screen}");
}

#[test]
fn my_games_are_listed_first_from_their_own_updates() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    playing(&mut app);
    key(&mut app, KeyCode::Char('q'));
    frame(&mut app, lobby_message());
    // bob moves in our game while we look at the lobby: it is our move again.
    frame(
        &mut app,
        ServerMessage::Moved {
            game: GameId(42),
            seq: 11,
            mark: noughts_protocol::Mark::X,
            cell: 8,
            board: "X...O...X".into(),
            to_move: Some(noughts_protocol::Mark::O),
            clocks: None,
        },
    );
    let screen = render(&app);
    let mine = screen.find("Your games").expect("a section for my games");
    assert!(mine < screen.find("Featured games").unwrap(), "{screen}");
    assert!(screen.contains("#42"), "{screen}");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(42),
            code: None
        }))]
    );
    // The game ends: it leaves the list.
    frame(&mut app, x_wins_top_row(12));
    assert!(app.lobby.mine.is_empty());
    assert!(!render(&app).contains("▸ #42"));
}

#[test]
fn all_games_page_by_list_games_and_filter_by_variant() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    app.browse.limit = 3;
    let ask = |variant, after: Option<u64>| {
        Effect::Send(ClientMessage::ListGames(ListGames {
            variant,
            after: after.map(GameId),
            limit: Some(3),
        }))
    };
    assert_eq!(
        key(&mut app, KeyCode::Char('b')),
        vec![ask(None, None), UNSUBSCRIBE]
    );
    assert!(render(&app).contains("Asking the server"));
    let page = |ids: &[u64], next: Option<u64>| ServerMessage::GameList {
        games: ids
            .iter()
            .map(|&id| listed(id, Variant::Classic, GameKind::Ai))
            .collect(),
        next: next.map(GameId),
    };
    frame(&mut app, page(&[1, 2, 3], Some(3)));
    let screen = render(&app);
    assert!(screen.contains("Page 1, more: n"), "{screen}");
    insta::assert_snapshot!(screen);
    assert!(
        key(&mut app, KeyCode::Char('p')).is_empty(),
        "no page before the first"
    );
    assert_eq!(key(&mut app, KeyCode::Char('n')), vec![ask(None, Some(3))]);
    frame(&mut app, page(&[5, 8], None));
    let screen = render(&app);
    assert!(screen.contains("Page 2, back: p"), "{screen}");
    assert!(
        screen.contains("#8 ") && !screen.contains("#1 "),
        "{screen}"
    );
    assert!(
        key(&mut app, KeyCode::Char('n')).is_empty(),
        "no page after the last"
    );
    key(&mut app, KeyCode::Down);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(8),
            code: None
        }))]
    );
    assert_eq!(key(&mut app, KeyCode::Char('p')), vec![ask(None, None)]);
    assert_eq!(
        key(&mut app, KeyCode::Right),
        vec![ask(Some(Variant::Classic), None)]
    );
    assert_eq!(app.browse.page(), 1);
    assert_eq!(key(&mut app, KeyCode::Left), vec![ask(None, None)]);
}

#[test]
fn a_watcher_follows_the_lobby_only_until_the_next_war_game_appears() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let mut war = state(Variant::Classic, "X...O....", &[0, 4]);
    war.game = GameId(3);
    war.kind = GameKind::War;
    war.you = None;
    assert_eq!(
        frame(&mut app, ServerMessage::GameState(Box::new(war.clone()))),
        vec![UNSUBSCRIBE]
    );
    let over = ServerMessage::GameOver {
        game: GameId(3),
        seq: 11,
        board: "XOXXOOOXX".into(),
        result: GameResult {
            winner: None,
            reason: EndReason::Draw,
            cells: vec![],
        },
        ratings: None,
        clocks: None,
    };
    assert_eq!(
        frame(&mut app, over),
        vec![SUBSCRIBE],
        "look for the next one"
    );
    // The snapshot still shows the old one only: wait.
    assert!(frame(&mut app, lobby_message()).is_empty());
    let next = GameInfo {
        game: GameId(20),
        ..listed(20, Variant::Classic, GameKind::War)
    };
    assert_eq!(
        frame(
            &mut app,
            ServerMessage::LobbyUpdate(Box::new(LobbyUpdate {
                games: vec![next],
                games_removed: vec![GameId(3)],
                ..LobbyUpdate::default()
            }))
        ),
        vec![Effect::Send(ClientMessage::Watch(Watch {
            game: GameId(20),
            code: None
        }))]
    );
    war.game = GameId(20);
    war.moves.clear();
    war.board = ".........".into();
    assert_eq!(
        frame(&mut app, ServerMessage::GameState(Box::new(war))),
        vec![UNSUBSCRIBE],
        "found: the lobby is left again"
    );
}

#[test]
fn the_war_game_key_away_from_the_lobby_follows_it_until_the_snapshot() {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let mut watched = state(Variant::Four, "X...O...........", &[0, 4]);
    watched.you = None;
    watched.game = GameId(12);
    frame(&mut app, ServerMessage::GameState(Box::new(watched)));
    assert_eq!(key(&mut app, KeyCode::Char('g')), vec![SUBSCRIBE]);
    assert_eq!(
        frame(&mut app, lobby_message()),
        vec![
            Effect::Send(ClientMessage::Watch(Watch {
                game: GameId(3),
                code: None
            })),
            UNSUBSCRIBE
        ]
    );
}

#[test]
fn the_lobby_lists_the_arenas_with_when_they_start_or_end() {
    use noughts_protocol::{ArenaId, ArenaInfo, ArenaStatus, ClockSpec};
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let arena = |id: u64, name: &str, status: ArenaStatus, start_ms: u64, players: u32| ArenaInfo {
        arena: ArenaId(id),
        name: name.to_owned(),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        start_ms,
        end_ms: start_ms + 30 * 60_000,
        status,
        players,
        creator: None,
        private: false,
        bots_only: false,
    };
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let update = LobbyUpdate {
        arenas: Some(vec![
            // Running since ten minutes (and a half): twenty to go.
            arena(
                1,
                "Hourly blitz",
                ArenaStatus::Running,
                now_ms - 630_000,
                12,
            ),
            arena(
                2,
                "Evening classic",
                ArenaStatus::Upcoming,
                now_ms + 1_770_000,
                0,
            ),
        ]),
        ..LobbyUpdate::default()
    };
    frame(&mut app, ServerMessage::LobbyUpdate(Box::new(update)));
    let screen = render_sized(&mut app, 100, 40);
    assert!(screen.contains(" Arenas"), "{screen}");
    assert!(
        screen.contains("Hourly blitz        classic 3+2   ends in 20m     12 players"),
        "{screen}"
    );
    assert!(
        screen.contains("Evening classic     classic 3+2   starts in 30m    0 players"),
        "{screen}"
    );
    // A later update without arenas keeps them; one with an empty list clears them.
    frame(&mut app, ServerMessage::LobbyUpdate(Box::default()));
    assert!(render_sized(&mut app, 100, 40).contains("Hourly blitz"));
    let update = LobbyUpdate {
        arenas: Some(Vec::new()),
        ..LobbyUpdate::default()
    };
    frame(&mut app, ServerMessage::LobbyUpdate(Box::new(update)));
    assert!(!render_sized(&mut app, 100, 40).contains("Arenas"));
}
