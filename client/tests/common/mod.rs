//! Fixtures shared by the app and screen tests: server messages, a welcomed app, rendering into a
//! test terminal.

#![allow(dead_code)]

use std::time::Instant;

use noughts_client::app::{App, Effect, Event};
use noughts_client::net::NetEvent;
use noughts_protocol::{
    ChatLine, ClientMessage, ClockSpec, Clocks, EndReason, GameId, GameInfo, GameKind, GameRecord,
    GameResult, GameState, GameSummary, LeaderboardEntry, Level, Mark, MoveRecord, PlayerId,
    Rating, RecordSeat, RoomInfo, SeatInfo, SeekId, SeekInfo, ServerFrame, ServerMessage, Totals,
    Variant,
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

/// A server message as the app gets it: through the connection, which cleans its text once.
pub fn frame(app: &mut App, mut message: ServerMessage) -> Vec<Effect> {
    noughts_client::clean::clean(&mut message);
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
        rating: Some(1450 + 13 * id as u32),
        guest: false,
        bot: false,
    }
}

pub fn ai(level: Level) -> SeatInfo {
    SeatInfo {
        name: format!("{level} AI"),
        player: None,
        level: Some(level),
        connected: true,
        rating: None,
        guest: false,
        bot: false,
    }
}

pub fn welcomed(t0: Instant) -> App {
    let mut app = App::new("ada", t0, true);
    let effects = asked_moderation_list(frame(
        &mut app,
        ServerMessage::Welcome {
            protocol: 2,
            player: PlayerId(7),
            name: "ada".into(),
            token: "secret".into(),
            resumed: false,
            ratings: Variant::ALL
                .iter()
                .enumerate()
                .map(|(i, &variant)| Rating {
                    variant,
                    rating: [1562, 1500, 1431, 1500][i],
                    deviation: [87, 350, 190, 350][i],
                    games: [14, 0, 3, 0][i],
                })
                .collect(),
            device_cookie: None,
            username: None,
            bot: false,
        },
    ));
    assert_eq!(
        effects,
        vec![Effect::Send(ClientMessage::SubscribeLobby)],
        "a new session subscribes to the lobby"
    );
    app
}

/// Game 42 on classic ends at `seq`: X completes the top row against O's two in the middle.
pub fn x_wins_top_row(seq: u64) -> ServerMessage {
    ServerMessage::GameOver {
        game: GameId(42),
        seq,
        board: "XXX.OO...".into(),
        result: GameResult {
            winner: Some(Mark::X),
            reason: EndReason::Line,
            cells: vec![0, 1, 2],
        },
        ratings: None,
        clocks: None,
    }
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
                player: None,
                mark: Some(Mark::O),
                text: "good luck!".into(),
                guest: false,
                bot: false,
            },
            ChatLine {
                from: "eve".into(),
                player: None,
                mark: None,
                text: "\u{1b}[2Jwatching from the back".into(),
                guest: false,
                bot: false,
            },
        ],
        rematch_of: None,
        rated: false,
        offer: None,
        away: Vec::new(),
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
        board: String::new(),
        watchers,
        clock: None,
        rated: false,
    };
    ServerMessage::Lobby {
        seeks: vec![SeekInfo {
            seek: SeekId(12),
            player: PlayerId(21),
            name: "dave".into(),
            rating: 1612,
            variant: Variant::Four,
            clock: Some(ClockSpec {
                initial_ms: 300_000,
                increment_ms: 3_000,
            }),
            rated: true,
            guest: false,
            bot: false,
            bots: false,
        }],
        rooms: vec![RoomInfo {
            code: "K7QM-4TXP-2D".into(),
            variant: Variant::Classic,
            clock: Some(ClockSpec {
                initial_ms: 180_000,
                increment_ms: 2_000,
            }),
            host: "carol".into(),
            player: Some(PlayerId(3)),
            rated: false,
            guest: false,
            bot: false,
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
            GameInfo {
                rated: true,
                ..game(
                    12,
                    Variant::Four,
                    GameKind::Human,
                    human("dave", 3),
                    human("erin", 4),
                    5,
                    1,
                )
            },
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
        seeks_total: 1,
        rooms_total: 1,
        totals: Totals {
            online: 14,
            games: 6,
        },
        arenas: Vec::new(),
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

pub fn leaderboard_message(variant: Variant) -> ServerMessage {
    let entry =
        |rank, player, name: &str, rating, deviation, (wins, draws, losses)| LeaderboardEntry {
            rank,
            player: PlayerId(player),
            name: name.into(),
            rating,
            deviation,
            games: wins + draws + losses,
            wins,
            draws,
            losses,
            bot: false,
        };
    ServerMessage::Leaderboard {
        variant,
        offset: 0,
        players: vec![
            entry(1, 3, "dave", 1688, 64, (21, 9, 4)),
            entry(2, 7, "ada", 1562, 87, (8, 4, 2)),
            entry(3, 4, "erin\u{1b}[31m", 1507, 120, (3, 2, 3)),
            entry(4, 8, "bob", 1474, 95, (3, 4, 5)),
            entry(5, 5, "a-very-long-name-indeed", 1391, 210, (0, 1, 2)),
        ],
    }
}

pub fn record_seat(name: &str, player: u64, rating: u32, change: i32) -> RecordSeat {
    RecordSeat {
        name: name.into(),
        player: Some(PlayerId(player)),
        level: None,
        rating: Some(rating),
        rating_change: Some(change),
        guest: false,
        bot: false,
    }
}

pub fn ai_record_seat(level: Level) -> RecordSeat {
    RecordSeat {
        name: format!("AI ({level})"),
        player: None,
        level: Some(level),
        rating: None,
        rating_change: None,
        guest: false,
        bot: false,
    }
}

/// 2026-01-01 00:00 UTC, in milliseconds since the epoch.
pub const NEW_YEAR_MS: u64 = 1_767_225_600_000;

pub fn history_message() -> ServerMessage {
    let summary = |game, variant, kind, x, o, rated, minutes: u64, moves, result| GameSummary {
        game: GameId(game),
        variant,
        kind,
        x,
        o,
        clock: None,
        rated,
        started_ms: NEW_YEAR_MS + minutes * 60_000,
        ended_ms: NEW_YEAR_MS + (minutes + 2) * 60_000,
        moves,
        result,
    };
    let won = |mark, cells: &[usize]| GameResult {
        winner: Some(mark),
        reason: EndReason::Line,
        cells: cells.to_vec(),
    };
    let draw = GameResult {
        winner: None,
        reason: EndReason::Draw,
        cells: vec![],
    };
    ServerMessage::History {
        player: PlayerId(7),
        games: vec![
            summary(
                9,
                Variant::Classic,
                GameKind::Human,
                record_seat("ada", 7, 1550, 12),
                record_seat("bob", 8, 1486, -12),
                true,
                95,
                7,
                won(Mark::X, &[2, 5, 8]),
            ),
            summary(
                8,
                Variant::Four,
                GameKind::Human,
                record_seat("erin", 4, 1500, 0),
                RecordSeat {
                    rating: None,
                    rating_change: None,
                    ..record_seat("ada", 7, 0, 0)
                },
                false,
                60,
                11,
                won(Mark::X, &[0, 5, 10, 15]),
            ),
            summary(
                7,
                Variant::Classic,
                GameKind::Ai,
                record_seat("ada", 7, 0, 0),
                ai_record_seat(Level::Perfect),
                false,
                30,
                9,
                draw,
            ),
        ]
        .into_iter()
        .map(|mut g: GameSummary| {
            if !g.rated {
                for seat in [&mut g.x, &mut g.o] {
                    seat.rating = None;
                    seat.rating_change = None;
                }
            }
            g
        })
        .collect(),
        more: true,
    }
}

/// Game 9 of the history: ada (X) beats bob on the right-hand column.
pub fn record() -> GameRecord {
    let moves = [
        (4, 2_100),
        (0, 9_800),
        (8, 15_000),
        (1, 31_000),
        (2, 40_000),
        (6, 55_000),
        (5, 71_000),
    ];
    GameRecord {
        game: GameId(9),
        variant: Variant::Classic,
        kind: GameKind::Human,
        x: record_seat("ada", 7, 1550, 12),
        o: record_seat("bob\u{1b}[2J", 8, 1486, -12),
        clock: Some(ClockSpec {
            initial_ms: 60_000,
            increment_ms: 2_000,
        }),
        rated: true,
        started_ms: NEW_YEAR_MS,
        ended_ms: Some(NEW_YEAR_MS + 71_000),
        moves: moves
            .iter()
            .enumerate()
            .map(|(i, &(cell, at_ms))| MoveRecord {
                mark: if i % 2 == 0 { Mark::X } else { Mark::O },
                cell,
                at_ms,
                clock_ms: Some(60_000 - at_ms / 2),
            })
            .collect(),
        board: "OOX.XXO.X".into(),
        result: Some(GameResult {
            winner: Some(Mark::X),
            reason: EndReason::Line,
            cells: vec![2, 5, 8],
        }),
        rematch_of: None,
    }
}

/// `welcome` again after a reconnection: resumed (same player) or a new session.
pub fn welcome(app: &mut App, resumed: bool) -> Vec<Effect> {
    asked_moderation_list(frame(
        app,
        ServerMessage::Welcome {
            protocol: 2,
            player: PlayerId(if resumed { 7 } else { 9 }),
            name: "ada".into(),
            token: "secret".into(),
            resumed,
            ratings: Vec::new(),
            device_cookie: None,
            username: None,
            bot: false,
        },
    ))
}

/// The effects of a `welcome` without the `moderation_list` request every welcome makes (with
/// an id, for its answer), which must be there.
pub fn asked_moderation_list(mut effects: Vec<Effect>) -> Vec<Effect> {
    let at = effects
        .iter()
        .position(|effect| {
            matches!(effect, Effect::Request(frame)
                if frame.message == ClientMessage::ModerationList && frame.id.is_some())
        })
        .unwrap_or_else(|| panic!("a welcome asks for the moderation list: {effects:?}"));
    effects.remove(at);
    effects
}
