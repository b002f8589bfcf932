//! The app's lists and records without a terminal: the leaderboard, history, replays and
//! ratings, fed server messages and keys, checked through its state and its effects.
//! effects (requests for the server) out.

mod common;

use std::time::{Duration, Instant};

use common::*;
use noughts_client::app::{App, Effect, Event, Screen};
use noughts_client::net::NetEvent;
use noughts_client::screen::rows::PAGE;
use noughts_client::screen::tab::Tab;
use noughts_protocol::{
    ClientMessage, CreateRoom, GameId, History, PlayerId, Seek, ServerMessage, Variant,
};
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

#[test]
fn the_leaderboard_follows_the_variant_and_leads_to_a_players_games() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('L'));
    assert_eq!(app.tab, Tab::Leaderboard);
    assert_eq!(
        key(&mut app, KeyCode::Right),
        vec![Effect::Send(ClientMessage::Leaderboard(
            noughts_protocol::Leaderboard {
                variant: Variant::Four,
                offset: None,
                limit: Some(PAGE),
            }
        ))]
    );
    // A late answer for the variant shown before is not shown.
    frame(&mut app, leaderboard_message(Variant::Classic));
    assert!(app.leaderboard.players.is_none());
    frame(&mut app, leaderboard_message(Variant::Four));
    let players = app.leaderboard.players.as_ref().unwrap();
    assert_eq!(players.len(), 5);
    assert_eq!(players[2].name, "erin", "names are sanitised");
    // Enter on bob (row 4): his games.
    for _ in 0..3 {
        key(&mut app, KeyCode::Down);
    }
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![
            Effect::Send(ClientMessage::Profile {
                player: Some(PlayerId(8)),
                username: None,
            }),
            Effect::Send(ClientMessage::History(History {
                player: Some(PlayerId(8)),
                before: None,
                limit: Some(PAGE),
            }))
        ]
    );
    assert_eq!(app.tab, Tab::History);
    assert!(render(&app).contains("Games of bob"));
    // His profile heads the tab: his name, and his rating and results where he played.
    let stats = |variant, games| noughts_protocol::VariantStats {
        variant,
        rating: 1600,
        deviation: 80,
        rated_games: games,
        games,
        wins: games,
        draws: 0,
        losses: 0,
    };
    let profile = noughts_protocol::Profile {
        player: PlayerId(8),
        name: "bob".into(),
        guest: false,
        bot: false,
        created_ms: 0,
        last_seen_ms: 0,
        variants: vec![stats(Variant::Classic, 0), stats(Variant::Four, 3)],
        podiums: vec![
            noughts_protocol::Podium {
                arena: noughts_protocol::ArenaId(4),
                name: "Hourly blitz".into(),
                variant: Variant::Classic,
                place: 1,
                score: 24,
                ended_ms: 0,
            },
            noughts_protocol::Podium {
                arena: noughts_protocol::ArenaId(2),
                name: "Four sprint".into(),
                variant: Variant::Four,
                place: 3,
                score: 9,
                ended_ms: 0,
            },
        ],
    };
    frame(&mut app, ServerMessage::Profile(Box::new(profile)));
    let screen = render(&app);
    assert!(screen.contains(" bob "), "{screen}");
    assert!(
        screen.contains("four 1600 ±80 (3 rated; 3-0-0)"),
        "{screen}"
    );
    assert!(!screen.contains("classic 1600"), "{screen}");
    assert!(
        screen.contains("Arena podiums: 1st Hourly blitz (classic, 24) · …"),
        "{screen}"
    );
    // Our own history is not bob's: a page for player 7 is dropped.
    frame(&mut app, history_message());
    assert!(app.history.games.is_none());
    // q goes back from bob's games to ours, and again to the lobby.
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![
            Effect::Send(ClientMessage::Profile {
                player: None,
                username: None
            }),
            Effect::Send(ClientMessage::History(History {
                player: None,
                before: None,
                limit: Some(PAGE),
            }))
        ]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![Effect::Send(ClientMessage::SubscribeLobby)],
        "back on the lobby, which is followed again"
    );
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
        vec![Effect::Send(ClientMessage::History(History {
            player: None,
            before: Some(GameId(7)),
            limit: Some(PAGE),
        }))]
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
        vec![Effect::Send(ClientMessage::Seek(Seek {
            variant: Variant::Classic,
            clock: None,
            rated: true,
            bots: false,
        }))]
    );
    frame(
        &mut app,
        ServerMessage::Seeking {
            seek: noughts_protocol::SeekId(1),
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
        vec![Effect::Send(ClientMessage::Seek(Seek {
            variant: Variant::Classic,
            clock: None,
            rated: true,
            bots: false,
        }))]
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char(' '));
    assert!(matches!(
        key(&mut app, KeyCode::Enter).as_slice(),
        [Effect::Send(ClientMessage::CreateRoom(CreateRoom {
            rated: true,
            ..
        }))]
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
        vec![Effect::Send(ClientMessage::Profile {
            player: None,
            username: None
        })]
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
            guest: false,
            bot: false,
            podiums: Vec::new(),
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
        vec![
            Effect::Send(ClientMessage::Profile {
                player: None,
                username: None
            }),
            Effect::Send(ClientMessage::History(History {
                player: None,
                before: None,
                limit: Some(PAGE),
            })),
            Effect::Send(ClientMessage::UnsubscribeLobby)
        ]
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
    assert_eq!(
        app.update(click(column, row)),
        vec![Effect::Send(ClientMessage::SubscribeLobby)]
    );
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
        bot: false,
    };
    let page = |offset: u32, count: u32| ServerMessage::Leaderboard {
        variant: Variant::Classic,
        offset,
        players: (offset + 1..=offset + count).map(entry).collect(),
    };
    frame(&mut app, page(0, PAGE));
    assert_eq!(
        key(&mut app, KeyCode::End),
        vec![Effect::Send(ClientMessage::Leaderboard(
            noughts_protocol::Leaderboard {
                variant: Variant::Classic,
                offset: Some(PAGE),
                limit: Some(PAGE),
            }
        ))]
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

#[test]
fn renamed_changes_the_name_in_the_header_and_asks_for_our_history_again() {
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('H'));
    assert_eq!(app.tab, Tab::History);
    let old = app.name.clone();
    assert!(render(&app).contains(&old));
    let effects = frame(
        &mut app,
        ServerMessage::Renamed {
            name: "ted_walk".into(),
        },
    );
    assert_eq!(app.name, "ted_walk");
    let screen = render(&app);
    assert!(screen.contains("ted_walk"), "{screen}");
    assert!(screen.contains("You are now ted_walk."), "{screen}");
    assert_eq!(
        effects,
        vec![
            Effect::Send(ClientMessage::Profile {
                player: None,
                username: None
            }),
            Effect::Send(ClientMessage::History(History {
                player: None,
                before: None,
                limit: Some(PAGE),
            }))
        ],
        "our history and profile, which name us, are asked for again"
    );
    // The same name again changes nothing and asks for nothing.
    let again = frame(
        &mut app,
        ServerMessage::Renamed {
            name: "ted_walk".into(),
        },
    );
    assert!(again.is_empty());
}

/// A league table of `variant` in which medium is rated 1568 ± 2 × 58.
fn league_table(variant: Variant) -> ServerMessage {
    use noughts_protocol::{Entrant, LeaguePairing, LeagueStanding, LeagueTable, Level};
    let line = |level: Level, rating, points| LeagueStanding {
        entrant: Entrant {
            level: Some(level),
            bot: None,
        },
        name: format!("AI ({level})"),
        games: 8,
        wins: 2,
        draws: 4,
        losses: 2,
        points,
        rating,
        deviation: 58,
    };
    let pairing = |x, o| LeaguePairing {
        x: Entrant {
            level: Some(x),
            bot: None,
        },
        o: Entrant {
            level: Some(o),
            bot: None,
        },
        game: None,
    };
    ServerMessage::LeagueTable(Box::new(LeagueTable {
        variant,
        games: 20,
        round_games: 20,
        standings: vec![
            line(Level::Perfect, 1712, 5.5),
            line(Level::Medium, 1568, 4.0),
        ],
        playing: Some(LeaguePairing {
            game: Some(GameId(77)),
            ..pairing(Level::Hard, Level::Easy)
        }),
        next: vec![pairing(Level::Medium, Level::Perfect)],
    }))
}

#[test]
fn the_engines_league_is_followed_while_shown_and_rates_the_ai_levels() {
    let follow = |variant| {
        Effect::Send(ClientMessage::League(noughts_protocol::League {
            variant,
            follow: true,
        }))
    };
    let mut app = welcomed(Instant::now());
    key(&mut app, KeyCode::Char('L'));
    assert_eq!(
        key(&mut app, KeyCode::Char('e')),
        vec![follow(Variant::Classic)]
    );
    assert!(render(&app).contains("Asking the server"));
    frame(&mut app, league_table(Variant::Classic));
    let shown = render(&app);
    assert!(shown.contains("Engines' league · 20 games"), "{shown}");
    assert!(
        shown.contains("AI (perfect)") && shown.contains("1712±116"),
        "{shown}"
    );
    assert!(shown.contains("Now: hard vs easy (#77)"), "{shown}");
    // Another variant's league is followed in its place.
    let effects = key(&mut app, KeyCode::Right);
    assert_eq!(effects.last(), Some(&follow(Variant::Four)));
    // Leaving the tab stops following; coming back follows again.
    assert!(
        key(&mut app, KeyCode::Char('q')).contains(&Effect::Send(ClientMessage::UnfollowLeague))
    );
    assert!(key(&mut app, KeyCode::Char('L')).contains(&follow(Variant::Four)));
    // Back to the players: no longer followed.
    assert_eq!(
        key(&mut app, KeyCode::Char('e')),
        vec![Effect::Send(ClientMessage::UnfollowLeague)]
    );
    // The AI's form says how the league rates the level chosen (medium to begin with).
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Char('a'));
    let form = render(&app);
    assert!(form.contains("plays like 1568 ± 116"), "{form}");
}
