//! The real `noughts-server` binary on a real SQLite file, and on a real PostgreSQL database,
//! killed with SIGKILL in the middle of games and started again on the same database: the live
//! games come back with the same board, seq and clocks, both players resume them with their tokens
//! and finish them, nothing played before is missing from the history, and no token is ever
//! written to the database or the log; whether moves reach the disk before they are answered
//! (`--durability move`) or within an interval after (`interval`).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_engine::Board;
use noughts_protocol::{
    ClientFrame, ClientMessage, ClockSpec, CreateRoom, EndReason, GameId, GameState, History,
    Level, Mark, PROTOCOL_VERSION, PlayAi, RequestId, Seek, ServerFrame, ServerMessage, SideChoice,
    Variant,
};
use noughts_tests::accounts::register_request;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const WAIT: Duration = Duration::from_secs(20);
const CLOCK: ClockSpec = ClockSpec {
    initial_ms: 600_000,
    increment_ms: 1_000,
};

/// A `noughts-server` child process on `db` (a SQLite file or a PostgreSQL URL), logging
/// everything it can into `dir`/server.log.
fn start(dir: &Path, db: &OsStr) -> ServerProcess {
    start_in(dir, db, Durability::Move)
}

/// When the server under test has its moves reach the disk (`--durability`).
#[derive(Debug, Clone, Copy)]
enum Durability {
    /// Each on disk before anyone hears of it.
    Move,
    /// Each answered once written, on disk within 10 ms.
    Interval,
}

fn start_in(dir: &Path, db: &OsStr, durability: Durability) -> ServerProcess {
    let durability = match durability {
        Durability::Move => "move",
        Durability::Interval => "interval",
    };
    ServerProcess::start_on(
        &noughts_tests::binary::path("noughts-server"),
        dir,
        db,
        &["--grace-secs", "60", "--durability", durability],
    )
}

/// A player's connection that has said hello.
struct Player {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    name: &'static str,
    token: String,
    welcome: ServerMessage,
    /// Frames read while waiting for something else.
    backlog: VecDeque<ServerFrame>,
    next_id: u64,
}

impl Player {
    async fn hello(url: &str, name: &'static str, token: Option<&str>) -> Player {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect");
        let mut player = Player {
            ws,
            name,
            token: String::new(),
            welcome: ServerMessage::Ok,
            backlog: VecDeque::new(),
            next_id: 1,
        };
        let welcome = player
            .request(ClientMessage::Hello {
                protocol: PROTOCOL_VERSION,
                name: name.to_owned(),
                token: token.map(str::to_owned),
                credentials: None,
            })
            .await;
        let ServerMessage::Welcome { token, .. } = &welcome else {
            panic!("{name}: expected welcome, got {welcome:?}");
        };
        player.token = token.clone();
        player.welcome = welcome;
        player
    }

    async fn read(&mut self) -> ServerFrame {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("{}: nothing came in time", self.name));
            match message {
                Some(Ok(Message::Text(text))) => {
                    return serde_json::from_str(text.as_str())
                        .unwrap_or_else(|err| panic!("unparsable {text:?}: {err}"));
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                    panic!("{}: the connection closed", self.name)
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Makes this guest an account, as a rated game needs.
    async fn make_account(&mut self) {
        let ServerMessage::Welcome { player, .. } = self.welcome else {
            unreachable!("said hello")
        };
        let reply = self.request(register_request(self.name, player)).await;
        assert!(
            matches!(reply, ServerMessage::Registered { .. }),
            "{}: {reply:?}",
            self.name
        );
    }

    /// Sends `message` with a fresh id and returns the reply that echoes it.
    async fn request(&mut self, message: ClientMessage) -> ServerMessage {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        let frame = ClientFrame {
            id: Some(id.clone()),
            message,
        };
        self.ws.send(Message::text(frame.to_json())).await.unwrap();
        loop {
            let frame = self.read().await;
            if frame.id.as_ref() == Some(&id) {
                return frame.message;
            }
            self.backlog.push_back(frame);
        }
    }

    /// The next message matching `what`, backlog first; others are dropped.
    async fn until(&mut self, what: impl Fn(&ServerMessage) -> bool) -> ServerMessage {
        while let Some(frame) = self.backlog.pop_front() {
            if what(&frame.message) {
                return frame.message;
            }
        }
        loop {
            let frame = self.read().await;
            if what(&frame.message) {
                return frame.message;
            }
        }
    }

    async fn game_state(&mut self, game: GameId) -> GameState {
        match self
            .until(|m| matches!(m, ServerMessage::GameState(s) if s.game == game))
            .await
        {
            ServerMessage::GameState(state) => *state,
            _ => unreachable!(),
        }
    }

    /// Plays `cell` in `game` and returns the `moved` update.
    async fn play(&mut self, game: GameId, cell: usize) -> ServerMessage {
        let reply = self.request(ClientMessage::Move { game, cell }).await;
        assert!(
            matches!(reply, ServerMessage::Moved { .. }),
            "{}: {reply:?}",
            self.name
        );
        reply
    }

    fn classic_rating(&self) -> (u32, u32) {
        let ServerMessage::Welcome { ratings, .. } = &self.welcome else {
            unreachable!()
        };
        let classic = ratings
            .iter()
            .find(|r| r.variant == Variant::Classic)
            .expect("a classic rating in welcome");
        (classic.rating, classic.games)
    }
}

/// Both players of a new human game, X first, from the first one's snapshot.
async fn seated<'a>(
    a: &'a mut Player,
    b: &'a mut Player,
    game: GameId,
) -> (&'a mut Player, &'a mut Player) {
    let state = a.game_state(game).await;
    if state.you == Some(Mark::X) {
        (a, b)
    } else {
        (b, a)
    }
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("noughts-restart-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn a_killed_server_restores_its_games_and_loses_nothing() {
    killed_and_restored("sqlite", None, Durability::Move).await;
}

#[tokio::test]
async fn a_killed_server_answering_moves_once_written_restores_its_games_and_loses_nothing() {
    killed_and_restored("sqlite-interval", None, Durability::Interval).await;
}

#[tokio::test]
async fn a_killed_server_on_postgres_restores_its_games_and_loses_nothing() {
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    let db = postgres.database("restart");
    killed_and_restored("postgres", Some(db), Durability::Move).await;
}

#[tokio::test]
async fn a_killed_server_on_postgres_answering_moves_once_written_loses_nothing() {
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    let db = postgres.database("restart_interval");
    killed_and_restored("postgres-interval", Some(db), Durability::Interval).await;
}

/// Games played, the server killed, started again on the same database (`postgres`, or
/// noughts.db in the test's directory), the games resumed and finished; the server's moves
/// reaching the disk as `durability` says (a crash of the server loses nothing either way).
async fn killed_and_restored(name: &str, postgres: Option<String>, durability: Durability) {
    let dir = scratch_dir(name);
    let db: OsString = match postgres {
        Some(url) => url.into(),
        None => dir.join("noughts.db").into(),
    };
    let before = before_the_crash(&dir, &db, durability).await;
    let Before {
        a_winner,
        game_b,
        b_seq,
        b_board,
        b_clocks,
        game_c,
        c_seq,
        c_board,
        ada_token,
        bob_token,
        ..
    } = &before;
    let (game_b, game_c) = (*game_b, *game_c);
    let (b_seq, c_seq, b_clocks) = (*b_seq, *c_seq, *b_clocks);
    // The same database, a new process.
    let server = start_in(&dir, &db, durability);
    let mut eve = Player::hello(&server.url, "eve", None).await;
    let lobby = eve.request(ClientMessage::SubscribeLobby).await;
    let ServerMessage::Lobby { games, .. } = lobby else {
        panic!("{lobby:?}")
    };
    // Featured games come best-ranked first; by id here.
    let mut listed: Vec<(GameId, u32)> = games.iter().map(|g| (g.game, g.moves)).collect();
    listed.sort();
    assert_eq!(
        listed,
        [(game_b, 3), (game_c, 2)],
        "B is listed from its seek"
    );
    assert!(games.iter().all(|g| !g.x.connected || g.x.level.is_some()));

    // Ada first, and her snapshots before Bob comes, so the order of events is known.
    let mut ada = Player::hello(&server.url, "ada", Some(ada_token)).await;
    let b_ada = ada.game_state(game_b).await;
    let c_ada = ada.game_state(game_c).await;
    let mut bob = Player::hello(&server.url, "bob", Some(bob_token)).await;
    let b_bob = bob.game_state(game_b).await;
    for player in [&ada, &bob] {
        let ServerMessage::Welcome { resumed, .. } = player.welcome else {
            unreachable!()
        };
        assert!(resumed, "{} resumes the restored session", player.name);
        let (rating, games) = player.classic_rating();
        assert_eq!(games, 1, "game A is rated");
        if player.name == *a_winner {
            assert!(rating > 1500, "the winner of A went up: {rating}");
        } else {
            assert!(rating < 1500, "the loser of A went down: {rating}");
        }
    }
    // Ada's snapshot comes after her own return was announced; Bob's after both returns.
    assert_eq!(
        (b_ada.board.as_str(), b_ada.moves.as_slice()),
        (b_board.as_str(), &[4, 1, 0][..])
    );
    // A restored game goes on above every `seq` sent before the crash (it continues from the
    // mark the store kept ahead of them), one update at a time.
    assert!(b_ada.seq > b_seq, "{} after {b_seq}", b_ada.seq);
    assert_eq!(b_bob.seq, b_ada.seq + 1);
    assert_eq!(&b_bob.board, b_board);
    assert!(b_ada.rated);
    // When Ada came back, O's time had not run since the crash (if she is O, it starts now).
    let clocks = b_ada.clocks.expect("B keeps its clock");
    assert_eq!(
        (clocks.x_ms, clocks.o_ms),
        (b_clocks.x_ms, b_clocks.o_ms),
        "the time the server was down is charged to nobody"
    );
    assert_eq!(
        (c_ada.board.as_str(), c_ada.moves.len()),
        (c_board.as_str(), 2)
    );
    assert!(c_ada.seq > c_seq, "{} after {c_seq}", c_ada.seq);

    finish_and_read_the_records(&mut ada, &mut bob, &before).await;
    server.kill();
    tokens_are_only_hashes(&dir, [ada_token, bob_token]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What was played before the crash.
struct Before {
    game_a: GameId,
    a_winner: String,
    game_b: GameId,
    b_x: String,
    b_seq: u64,
    b_board: String,
    b_clocks: noughts_protocol::Clocks,
    game_c: GameId,
    c_seq: u64,
    c_board: String,
    ada_token: String,
    bob_token: String,
}

/// Game A played to its end, B three moves in on a clock, C one move each against the AI; then
/// the server is killed.
async fn before_the_crash(dir: &Path, db: &OsStr, durability: Durability) -> Before {
    let server = start_in(dir, db, durability);
    let mut ada = Player::hello(&server.url, "ada", None).await;
    let mut bob = Player::hello(&server.url, "bob", None).await;
    assert_eq!(ada.classic_rating(), (1500, 0));
    ada.make_account().await;
    bob.make_account().await;

    // Game A, rated, from a room: X wins on the top row.
    let ServerMessage::RoomCreated { code, .. } = ada
        .request(ClientMessage::CreateRoom(CreateRoom {
            variant: Variant::Classic,
            clock: None,
            private: true,
            rated: true,
        }))
        .await
    else {
        panic!("room_created")
    };
    let joined = bob.request(ClientMessage::JoinRoom { code }).await;
    let ServerMessage::GameState(state) = joined else {
        panic!("{joined:?}")
    };
    let game_a = state.game;
    assert!(state.rated);
    let (x, o) = seated(&mut ada, &mut bob, game_a).await;
    let a_winner = x.name;
    for (i, cell) in [0, 3, 1, 4, 2].into_iter().enumerate() {
        if i % 2 == 0 {
            x.play(game_a, cell).await;
        } else {
            o.play(game_a, cell).await;
        }
    }
    x.until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;

    // Game B, rated and timed, from a seek: three moves, then the crash.
    for player in [&mut ada, &mut bob] {
        let reply = player
            .request(ClientMessage::Seek(Seek {
                variant: Variant::Classic,
                clock: Some(CLOCK),
                rated: true,
                bots: false,
            }))
            .await;
        assert!(matches!(reply, ServerMessage::Seeking { .. }), "{reply:?}");
    }
    let game_b = ada
        .until(|m| matches!(m, ServerMessage::GameState(s) if s.game > game_a))
        .await;
    let ServerMessage::GameState(state) = game_b else {
        unreachable!()
    };
    let game_b = state.game;
    ada.backlog
        .push_front(ServerFrame::event(ServerMessage::GameState(state)));
    let (x, o) = seated(&mut ada, &mut bob, game_b).await;
    let b_x = x.name;
    x.play(game_b, 4).await;
    o.play(game_b, 1).await;
    let last = x.play(game_b, 0).await;
    let ServerMessage::Moved {
        seq: b_seq,
        board: b_board,
        clocks: Some(b_clocks),
        ..
    } = last
    else {
        panic!("{last:?}")
    };

    // Game C, against the AI: Ada takes the centre and the AI answers.
    let reply = ada
        .request(ClientMessage::PlayAi(PlayAi {
            variant: Variant::Classic,
            level: Level::Perfect,
            side: SideChoice::X,
            clock: None,
        }))
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("{reply:?}")
    };
    let game_c = state.game;
    ada.play(game_c, 4).await;
    let answer = ada
        .until(|m| matches!(m, ServerMessage::Moved { game, mark: Mark::O, .. } if *game == game_c))
        .await;
    let ServerMessage::Moved {
        seq: c_seq,
        board: c_board,
        ..
    } = answer
    else {
        unreachable!()
    };

    server.kill();
    Before {
        game_a,
        a_winner: a_winner.to_owned(),
        game_b,
        b_x: b_x.to_owned(),
        b_seq,
        b_board,
        b_clocks,
        game_c,
        c_seq,
        c_board,
        ada_token: ada.token.clone(),
        bob_token: bob.token.clone(),
    }
}

/// Both finish B (O blunders; X completes the diagonal), Ada resigns C; the history and B's record
/// hold everything, and new games take new ids.
async fn finish_and_read_the_records(ada: &mut Player, bob: &mut Player, before: &Before) {
    let (game_a, game_b, game_c) = (before.game_a, before.game_b, before.game_c);
    let (x, o) = if before.b_x == "ada" {
        (&mut *ada, &mut *bob)
    } else {
        (&mut *bob, &mut *ada)
    };
    o.play(game_b, 2).await;
    x.play(game_b, 8).await;
    let over = o
        .until(|m| matches!(m, ServerMessage::GameOver { game, .. } if *game == game_b))
        .await;
    let ServerMessage::GameOver {
        board: b_final,
        result: b_result,
        ..
    } = over
    else {
        unreachable!()
    };
    assert_eq!(b_result.winner, Some(Mark::X));
    assert_eq!(b_result.cells, [0, 4, 8]);
    let resigned = ada.request(ClientMessage::Resign { game: game_c }).await;
    assert!(
        matches!(resigned, ServerMessage::GameOver { .. }),
        "{resigned:?}"
    );

    // Nothing is missing from the history, newest first, a page at a time.
    let page = ada
        .request(ClientMessage::History(History {
            player: None,
            before: None,
            limit: Some(2),
        }))
        .await;
    let ServerMessage::History { games, more, .. } = page else {
        panic!("{page:?}")
    };
    assert_eq!(
        games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [game_c, game_b]
    );
    assert!(more);
    let page = ada
        .request(ClientMessage::History(History {
            player: None,
            before: Some(game_b),
            limit: Some(2),
        }))
        .await;
    let ServerMessage::History { games, more, .. } = page else {
        panic!("{page:?}")
    };
    assert_eq!(games.iter().map(|g| g.game).collect::<Vec<_>>(), [game_a]);
    assert!(!more);
    assert_eq!(games[0].moves, 5);
    assert_eq!(games[0].result.reason, EndReason::Line);

    // B's record replays, move by move, to the board and result everyone saw.
    let record = bob
        .request(ClientMessage::GameRecord { game: game_b })
        .await;
    let ServerMessage::GameRecord(record) = record else {
        panic!("{record:?}")
    };
    let mut board = Board::new(Variant::Classic);
    for played in &record.moves {
        assert_eq!(board.to_move(), played.mark);
        board = board.play(played.cell).expect("a legal move");
    }
    assert_eq!(
        record.moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        [4, 1, 0, 2, 8]
    );
    assert_eq!(board.to_compact(), b_final);
    assert_eq!(record.board, b_final);
    assert_eq!(record.result, Some(b_result));
    assert!(record.moves.iter().all(|m| m.clock_ms.is_some()));
    assert!(record.x.rating_change.is_some_and(|change| change > 0));

    // New games take new ids.
    let reply = bob
        .request(ClientMessage::PlayAi(PlayAi {
            variant: Variant::Four,
            level: Level::Easy,
            side: SideChoice::X,
            clock: None,
        }))
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("{reply:?}")
    };
    assert!(state.game > game_c, "ids are not reused after a restart");
}

/// Tokens are kept only as hashes, and never logged.
fn tokens_are_only_hashes(dir: &Path, tokens: [&String; 2]) {
    let log = std::fs::read(dir.join("server.log")).unwrap();
    assert!(log.len() > 1000, "the debug log was captured");
    for token in tokens {
        let raw: Vec<u8> = (0..token.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&token[i..i + 2], 16).unwrap())
            .collect();
        for file in ["noughts.db", "noughts.db-wal", "server.log"] {
            let Ok(bytes) = std::fs::read(dir.join(file)) else {
                continue;
            };
            for needle in [token.as_bytes(), token.to_uppercase().as_bytes(), &raw] {
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle),
                    "a token is in {file}"
                );
            }
        }
    }
}

#[tokio::test]
async fn an_unreachable_postgres_stops_the_server_at_start_with_a_clear_error() {
    let dir = scratch_dir("unreachable");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let url = format!("postgres://noughts:s3cret@127.0.0.1:{port}/noughts");
    let mut server = start(&dir, url.as_ref());
    let status = server.exited().await;
    assert!(!status.success(), "{status:?}");
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(
        log.contains(&format!(
            "cannot connect to PostgreSQL at postgres://noughts:***@127.0.0.1:{port}/noughts"
        )),
        "{log}"
    );
    assert!(!log.contains("s3cret"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
