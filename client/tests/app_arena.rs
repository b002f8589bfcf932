//! The arena screen through the app: opened from the lobby's arena row (following its
//! standings, the lobby left), the leaders with our own line kept in sight below them, join,
//! withdraw, the best game, pages of the rest; the game a pairing opens by itself and the
//! standings coming back after it; the podium of a finished arena; leaving with `unwatch_arena`.

mod common;

use std::time::{Duration, Instant};

use common::*;
use noughts_client::app::{Effect, Event, Screen};
use noughts_protocol::{
    ArenaId, ArenaInfo, ArenaLine, ArenaStatus, ArenaTotals, ArenaView, ClientMessage, ClockSpec,
    GameId, LobbyUpdate, PlayerId, ServerMessage, Variant, Watch,
};
use ratatui::crossterm::event::KeyCode;

const ARENA: ArenaId = ArenaId(4);

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn info(status: ArenaStatus, players: u32) -> ArenaInfo {
    // Running for a quarter of an hour, 41½ minutes to go: "ends in 42m" for half a minute.
    let end_ms = now_ms() + 41 * 60_000 + 30_000;
    ArenaInfo {
        arena: ARENA,
        name: "Hourly classic blitz".into(),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        start_ms: end_ms - 57 * 60_000,
        end_ms,
        status,
        players,
        creator: None,
        private: false,
        bots_only: false,
    }
}

/// The line of the player at `rank`: ada (player 7, us) at 23, the leader on fire.
fn line(rank: u32) -> ArenaLine {
    let (player, name) = match rank {
        23 => (7, "ada".to_owned()),
        1 => (31, "zoe".to_owned()),
        _ => (100 + u64::from(rank), format!("player{rank}")),
    };
    let score = 30u32.saturating_sub(rank);
    ArenaLine {
        rank,
        player: PlayerId(player),
        name,
        rating: 1700 - 10 * rank,
        score,
        games: score / 2 + 1,
        wins: score / 3,
        fire: rank == 1,
        playing: rank <= 2,
        withdrawn: rank == 3,
    }
}

fn running(me: Option<ArenaLine>, my_game: Option<u64>) -> ServerMessage {
    ServerMessage::Arena(Box::new(ArenaView {
        info: info(ArenaStatus::Running, 45),
        top: (1..=20).map(line).collect(),
        me,
        totals: ArenaTotals {
            players: 45,
            games: 61,
            playing: 3,
        },
        best_game: Some(GameId(131)),
        my_game: my_game.map(GameId),
        podium: Vec::new(),
    }))
}

fn send(message: ClientMessage) -> Effect {
    Effect::Send(message)
}

/// A welcomed app in the lobby, the arena listed last, opened with ⏎.
fn opened() -> noughts_client::app::App {
    let mut app = welcomed(Instant::now());
    frame(&mut app, lobby_message());
    let update = LobbyUpdate {
        arenas: Some(vec![info(ArenaStatus::Running, 45)]),
        ..LobbyUpdate::default()
    };
    frame(&mut app, ServerMessage::LobbyUpdate(Box::new(update)));
    key(&mut app, KeyCode::End);
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Arena);
    assert_eq!(
        effects,
        vec![
            send(ClientMessage::Arena {
                arena: ARENA,
                code: None
            }),
            send(ClientMessage::UnsubscribeLobby)
        ],
        "the standings followed, the lobby left"
    );
    app
}

#[test]
fn the_standings_keep_our_line_in_sight_and_page_through_the_rest() {
    let mut app = opened();
    assert!(render(&app).contains("Asking the server"));
    frame(&mut app, running(Some(line(23)), None));
    let screen = render(&app);
    assert!(screen.contains("ends in 42m"), "{screen}");
    assert!(
        screen.contains("45 players · 61 games counted · 3 in play"),
        "{screen}"
    );
    assert!(screen.contains("You: #23 · 7 points"), "{screen}");
    assert!(screen.contains("▸  23  ada"), "our line, pinned: {screen}");
    assert!(screen.contains("29 fire"), "the leader's fire: {screen}");
    assert!(screen.contains("Best game: #131"), "{screen}");
    insta::assert_snapshot!(screen);

    // Keys: join says we are in; withdraw and the best game are asked for.
    assert!(key(&mut app, KeyCode::Char('j')).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Char('x')),
        vec![send(ClientMessage::WithdrawArena { arena: ARENA })]
    );
    let watch = key(&mut app, KeyCode::Char('w'));
    assert_eq!(
        watch,
        vec![send(ClientMessage::Watch(Watch {
            game: GameId(131),
            code: None
        }))]
    );
    // n: places 21 on, by arena_page; our line is on that page.
    assert_eq!(
        key(&mut app, KeyCode::Char('n')),
        vec![send(ClientMessage::ArenaPage {
            arena: ARENA,
            offset: 20
        })]
    );
    frame(
        &mut app,
        ServerMessage::ArenaPage {
            arena: ARENA,
            offset: 20,
            lines: (21..=45).map(line).collect(),
        },
    );
    let screen = render(&app);
    assert!(screen.contains("Places 21–45 of 45"), "{screen}");
    assert!(screen.contains("  21  player21"), "{screen}");
    assert!(screen.contains("▸  23  ada"), "{screen}");
    assert!(!screen.contains("  1  zoe"), "{screen}");
    assert_eq!(
        screen.matches("ada ").count(),
        2,
        "not pinned again: {screen}"
    );
    // No page after the last; p goes back to the live leaders.
    assert!(key(&mut app, KeyCode::Char('n')).is_empty());
    assert!(key(&mut app, KeyCode::Char('p')).is_empty());
    assert!(render(&app).contains("Places 1–20 of 45"));

    // ? shows the arena's keys.
    key(&mut app, KeyCode::Char('?'));
    let help = render(&app);
    assert!(help.contains("withdraw: no more pairings"), "{help}");
    assert!(help.contains("watch the arena's best game"), "{help}");
    key(&mut app, KeyCode::Esc);
    // A new session after a lost connection follows nothing: the arena is asked for again.
    let effects = welcome(&mut app, false);
    assert!(
        effects.contains(&send(ClientMessage::Arena {
            arena: ARENA,
            code: None
        })),
        "{effects:?}"
    );

    // Withdrawn: j joins again. q leaves: unwatch_arena, and the lobby is followed again.
    let mut withdrawn = line(23);
    withdrawn.withdrawn = true;
    frame(&mut app, running(Some(withdrawn), None));
    assert!(render(&app).contains("You withdrew (#23 · 7 points): j joins again."));
    assert_eq!(
        key(&mut app, KeyCode::Char('j')),
        vec![send(ClientMessage::JoinArena {
            arena: ARENA,
            code: None
        })]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('q')),
        vec![
            send(ClientMessage::UnwatchArena { arena: ARENA }),
            send(ClientMessage::SubscribeLobby)
        ]
    );
    assert_eq!(app.screen, Screen::Lobby);
    assert!(app.arena.is_none());
}

#[test]
fn a_pairing_opens_the_game_and_its_end_brings_the_standings_back() {
    let mut app = opened();
    frame(&mut app, running(None, None));
    assert!(render(&app).contains("You have not joined: j joins."));
    assert_eq!(
        key(&mut app, KeyCode::Char('j')),
        vec![send(ClientMessage::JoinArena {
            arena: ARENA,
            code: None
        })]
    );
    frame(&mut app, running(Some(line(23)), None));
    assert!(render(&app).contains("waiting for an opponent"));
    // The pairing: the server sends the game's state; it opens by itself.
    let mut paired = state(Variant::Classic, ".........", &[]);
    paired.rated = true;
    frame(&mut app, ServerMessage::GameState(Box::new(paired)));
    assert_eq!(app.screen, Screen::Game);
    frame(&mut app, running(Some(line(23)), Some(42)));
    // It ends: a moment on the result, then the standings again.
    frame(&mut app, x_wins_top_row(11));
    // No rematch in an arena: it pairs us again.
    assert!(key(&mut app, KeyCode::Char('r')).is_empty());
    let screen = render(&app);
    assert!(screen.contains("No rematch in an arena"), "{screen}");
    let t0 = app.now;
    app.update(Event::Tick(t0 + Duration::from_millis(200)));
    assert_eq!(app.screen, Screen::Game);
    let screen = render(&app);
    assert!(
        screen.contains("Back to Hourly classic blitz in a moment"),
        "{screen}"
    );
    app.update(Event::Tick(t0 + Duration::from_millis(3300)));
    assert_eq!(app.screen, Screen::Arena, "back to the standings");
    assert!(app.game.is_none());
    // The next pairing opens again; q from a finished game goes back to the arena too.
    let mut next = state(Variant::Classic, ".........", &[]);
    next.game = GameId(43);
    frame(&mut app, ServerMessage::GameState(Box::new(next)));
    assert_eq!(app.screen, Screen::Game);
    let mut over = x_wins_top_row(12);
    if let ServerMessage::GameOver { game, .. } = &mut over {
        *game = GameId(43);
    }
    frame(&mut app, over);
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.screen, Screen::Arena);
    // Watching the best game and leaving it comes back to the arena, not the lobby.
    let mut best = state(Variant::Classic, "X...O....", &[0, 4]);
    best.game = GameId(131);
    best.you = None;
    frame(&mut app, ServerMessage::GameState(Box::new(best)));
    assert_eq!(app.screen, Screen::Game);
    let effects = key(&mut app, KeyCode::Char('q'));
    assert_eq!(
        effects,
        vec![send(ClientMessage::Unwatch { game: GameId(131) })]
    );
    assert_eq!(app.screen, Screen::Arena);
}

#[test]
fn a_finished_arena_shows_its_podium() {
    let mut app = opened();
    let mut podium: Vec<ArenaLine> = (1..=3).map(line).collect();
    for line in &mut podium {
        line.playing = false;
    }
    let view = ArenaView {
        info: info(ArenaStatus::Finished, 3),
        top: podium.clone(),
        me: None,
        totals: ArenaTotals {
            players: 3,
            games: 9,
            playing: 0,
        },
        best_game: None,
        my_game: None,
        podium,
    };
    let mut bots = ServerMessage::Arena(Box::new(view));
    frame(&mut app, bots.clone());
    let screen = render(&app);
    for place in [
        "1st  zoe · 29 points",
        "2nd  player2 · 28 points",
        "3rd  player3 · 27 points",
    ] {
        assert!(screen.contains(place), "{place}: {screen}");
    }
    assert!(
        screen.contains("You did not play in this arena."),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
    assert!(key(&mut app, KeyCode::Char('j')).is_empty());
    assert!(render(&app).contains("This arena is over."));
    // In an arena for bots, every player is a bot account: marked as everywhere.
    if let ServerMessage::Arena(view) = &mut bots {
        view.info.bots_only = true;
    }
    frame(&mut app, bots);
    let screen = render(&app);
    assert!(screen.contains("1st  BOT zoe · 29 points"), "{screen}");
    assert!(screen.contains("   1  BOT zoe "), "{screen}");
}
