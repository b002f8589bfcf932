//! The fault suite: what happens to games when things go wrong around the server. A client killed
//! mid-game (its socket reset, no close frame); a half-open connection that the ping timeout must
//! find; a watcher that never reads, and one that falls behind and catches up; SIGTERM to the real binary with games running; SIGKILL to it
//! in the middle of a flood of moves, and a restart on the same database file.
//!
//! Every timeout here is configured short, so each test takes seconds; every wait is bounded.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::SinkExt;
use noughts_engine::{Board, Variant};
use noughts_protocol::{
    ClientFrame, ClientMessage, EndReason, GameId, GameState, Level, Mark, Seek, ServerMessage,
    SideChoice, Watch, close,
};
use noughts_server::Config;
use noughts_tests::net::{self, Relay};
use noughts_tests::process::ServerProcess;
use noughts_tests::{
    Client, Scratch, Socket, TestServer, alternate, follow_to_end, moves_of, quick_match,
    read_frame, seq_of, test_config,
};
use tokio_tungstenite::tungstenite::Message;

fn server_binary() -> std::path::PathBuf {
    noughts_tests::binary::path("noughts-server")
}

/// The presence update of `mark` going away or coming back in `game`.
fn presence(message: &ServerMessage, game: GameId, mark: Mark, connected: bool) -> bool {
    matches!(message, ServerMessage::Presence { game: g, mark: m, connected: c, .. }
        if *g == game && *m == mark && *c == connected)
}

#[tokio::test]
async fn a_killed_client_comes_back_with_its_token_and_finishes() {
    let server = TestServer::start(test_config()).await;
    let (mut x, o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let (o_name, o_token, o_player) = (o.name.clone(), o.token.clone(), o.player);
    x.send(ClientMessage::Move { game, cell: 0 }).await;
    x.saw(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
        .await;

    // O's process dies: its socket is reset, with no close frame.
    net::reset(o.socket);
    let away = x.until(|m| presence(m, game, Mark::O, false)).await;
    let ServerMessage::Presence {
        grace_ms,
        seq: away_seq,
        ..
    } = away
    else {
        unreachable!()
    };
    assert!(
        grace_ms.is_some_and(|ms| ms > 0 && ms <= 5_000),
        "{grace_ms:?}"
    );

    // O comes back with its token: same identity, same game, same seq, nothing lost.
    let mut o = Client::resume(&server.url(), &o_name, &o_token).await;
    assert_eq!(o.player, o_player);
    let snapshot = o.game_state().await;
    assert_eq!(
        (snapshot.game, snapshot.you, snapshot.board.as_str()),
        (game, Some(Mark::O), "X........")
    );
    assert_eq!(snapshot.moves, [0]);
    assert!(snapshot.seq >= away_seq);
    let back = x.until(|m| presence(m, game, Mark::O, true)).await;
    assert!(seq_of(&back).unwrap().1 > away_seq);

    // The game goes on to the end, and both see the same moves.
    alternate(&mut o, &mut x, game, &[3, 1, 4, 2]).await;
    let seen_by_o = follow_to_end(&mut o, game).await;
    assert_eq!(moves_of(&seen_by_o), [3, 1, 4, 2]);
    let seen_by_x = follow_to_end(&mut x, game).await;
    assert_eq!(moves_of(&seen_by_x), [3, 1, 4, 2]);
    let Some(ServerMessage::GameOver { result, .. }) = seen_by_o.last() else {
        panic!("game over");
    };
    assert_eq!(result.winner, Some(Mark::X));
}

#[tokio::test]
async fn a_killed_client_that_stays_away_loses_by_abandonment() {
    let config = Config {
        grace: Duration::from_millis(300),
        ..test_config()
    };
    let server = TestServer::start(config).await;
    let (mut x, o, state) = quick_match(&server.url(), Variant::Classic).await;
    net::reset(o.socket);
    let events = follow_to_end(&mut x, state.game).await;
    assert!(
        presence(&events[0], state.game, Mark::O, false),
        "{events:?}"
    );
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("game over");
    };
    assert_eq!(
        (result.reason, result.winner),
        (EndReason::Abandon, Some(Mark::X))
    );
}

#[tokio::test]
async fn a_half_open_connection_is_dropped_by_the_ping_timeout() {
    let config = Config {
        // Short, but long enough for a client the test leaves unread for a moment to answer.
        ping_interval: Duration::from_millis(250),
        idle_timeout: Duration::from_secs(2),
        grace: Duration::from_secs(30),
        ..test_config()
    };
    let server = TestServer::start(config).await;
    let relay = Relay::start(server.addr).await;

    // Ada plays direct; Bob through the relay. Eve watches; Cy and Di play a game of their own.
    let mut ada = server.join("ada").await;
    let mut bob = Client::join(&relay.url(), "bob").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: false,
        bots: false,
    });
    ada.send(seek.clone()).await;
    bob.send(seek).await;
    let state = ada.game_state().await;
    let game = state.game;
    let bob_mark = bob.game_state().await.you.expect("a seat");
    let (mut x, mut o) = if bob_mark == Mark::X {
        (bob, ada)
    } else {
        (ada, bob)
    };
    alternate(&mut x, &mut o, game, &[4]).await;
    let mut eve = server.join("eve").await;
    eve.request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    let (mut cy, mut di, other) = quick_match(&server.url(), Variant::Classic).await;

    // The route to Bob goes silent: nothing passes, nothing closes.
    relay.freeze();
    let (bob, mut ada) = if bob_mark == Mark::X { (x, o) } else { (o, x) };
    let (bob_name, bob_token) = (bob.name.clone(), bob.token.clone());
    // The server hears nothing from Bob (no pong) and drops him; his game shows him away.
    // Nothing else is affected: the other game is played to its end meanwhile.
    let other_game = async {
        alternate(&mut cy, &mut di, other.game, &[0, 3, 1, 4, 2]).await;
        follow_to_end(&mut di, other.game).await
    };
    let (_, _, events) = tokio::join!(
        ada.until(|m| presence(m, game, bob_mark, false)),
        eve.until(|m| presence(m, game, bob_mark, false)),
        other_game,
    );
    assert_eq!(moves_of(&events), [0, 3, 1, 4, 2]);

    // Bob's game waits for him; he comes back on a working connection and it goes on.
    let mut bob2 = Client::resume(&server.url(), &bob_name, &bob_token).await;
    let snapshot = bob2.game_state().await;
    assert_eq!((snapshot.game, snapshot.moves.as_slice()), (game, &[4][..]));
    assert!(snapshot.result.is_none());
    ada.until(|m| presence(m, game, bob_mark, true)).await;
    let (mut x, mut o) = if bob_mark == Mark::X {
        (bob2, ada)
    } else {
        (ada, bob2)
    };
    // X has the centre; O takes 0, X 2, O 1, X 6 completes the diagonal 2-4-6.
    alternate(&mut o, &mut x, game, &[0, 2, 1, 6]).await;
    let seen = follow_to_end(&mut eve, game).await;
    assert_eq!(moves_of(&seen), [0, 2, 1, 6]);
    drop(bob);
}

/// A server where players may talk as fast as they like, and a connection's queue holds `queue`
/// frames.
fn chatty(queue: usize) -> Config {
    Config {
        outbound_queue: queue,
        messages_per_second: 1_000_000,
        message_burst: 1_000_000,
        chat_per_minute: 1_000_000,
        chat_burst: 1_000_000,
        ..test_config()
    }
}

#[tokio::test]
async fn a_watcher_that_never_reads_is_dropped_and_the_game_goes_on() {
    let server = TestServer::start(chatty(8)).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let mut eve = server.join("eve").await;
    eve.request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;

    // A full chat makes each snapshot about 6 KiB.
    let long = "x".repeat(270);
    let mut id = 10;
    let mut chat = async |x: &mut Client, o: &mut Client, eve: &mut Client, text: String| {
        id += 1;
        let reply = x
            .request(
                id,
                ClientMessage::Chat {
                    game,
                    text: text.clone(),
                },
            )
            .await;
        assert!(matches!(reply, ServerMessage::Chat { .. }), "{reply:?}");
        // The others read each line, in order, before the next is said; the watcher counts
        // they were told of on the way are returned (Eve's: the same as O's).
        let mut counts = Vec::new();
        for client in [o, eve] {
            let mut seen = Vec::new();
            loop {
                let frame = client.next().await;
                match frame.message {
                    ServerMessage::Chat { line, .. } if line.text == text => break,
                    ServerMessage::Watchers { count, .. } => seen.push(count),
                    other => panic!("{}: unexpected {other:?}", client.name),
                }
            }
            counts = seen;
        }
        counts
    };
    for i in 0..20 {
        chat(&mut x, &mut o, &mut eve, format!("{i}{long}")).await;
    }
    let stalled = net::stalled_watcher(&server.url(), game, 1500).await;

    // The game talks on; the stalled watcher falls behind and is dropped (a fresh snapshot
    // counts Eve alone again). The others hear of one watcher come and one gone, however many
    // requests it left unanswered, or of nothing if the two fell in one coalesced update.
    let mut counts = Vec::new();
    let mut dropped = false;
    for i in 0..2000 {
        counts.extend(chat(&mut x, &mut o, &mut eve, format!("line {i}")).await);
        if i % 10 == 9 {
            let watch = ClientMessage::Watch(Watch { game, code: None });
            let ServerMessage::GameState(snapshot) = eve.request(100_000 + i, watch).await else {
                panic!("eve's snapshot");
            };
            if snapshot.watchers == 1 {
                dropped = true;
                break;
            }
        }
    }
    assert!(dropped, "the watcher that never reads was dropped");
    // Counts are sent at most every 250 ms: after a 2, the 1 that says it left may still be on
    // its way; the players talk on until it has come.
    counts.extend(chat(&mut x, &mut o, &mut eve, "after".to_owned()).await);
    for i in 0..400 {
        if !counts.contains(&2) || counts.last() == Some(&1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        counts.extend(chat(&mut x, &mut o, &mut eve, format!("after {i}")).await);
    }
    // One came and one went: a 2 at most once, and the last word (if any) is 1. Coalescing may
    // fold the two into nothing, or into a single 1.
    assert!(
        counts.iter().all(|&c| c == 1 || c == 2)
            && counts.iter().filter(|&&c| c == 2).count() <= 1
            && counts.last().is_none_or(|&c| c == 1),
        "the watcher that never reads came and went once: {counts:?}"
    );

    // Its connection ends once it reads what the kernel held for it.
    drain_to_end(stalled).await;

    // The players finish the game; Eve sees every move, in order.
    alternate(&mut x, &mut o, game, &[0, 3, 1, 4, 2]).await;
    for client in [&mut o, &mut eve] {
        let events = follow_to_end(client, game).await;
        assert_eq!(moves_of(&events), [0, 3, 1, 4, 2], "{}", client.name);
    }
}

#[tokio::test]
async fn a_watcher_that_falls_behind_and_catches_up_gets_every_update_whole_and_in_order() {
    // A queue long enough to hold everything it misses: it must not be dropped, only delayed.
    let server = TestServer::start(chatty(4096)).await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    let lines: Vec<String> = (0..320)
        .map(|i| format!("{i:03} {}", "y".repeat(270)))
        .collect();
    let (before, after) = lines.split_at(20);
    let mut id = 0;
    let mut say = async |x: &mut Client, o: &mut Client, text: &String| {
        id += 1;
        let chat = ClientMessage::Chat {
            game,
            text: text.clone(),
        };
        let reply = x.request(id, chat).await;
        assert!(matches!(reply, ServerMessage::Chat { .. }), "{reply:?}");
        // O reads each line, so the players stay in step.
        o.until(|m| matches!(m, ServerMessage::Chat { line, .. } if &line.text == text))
            .await;
    };
    // A full chat makes each snapshot about 6 KiB.
    for text in before {
        say(&mut x, &mut o, text).await;
    }
    // A watcher with a small receive buffer asks for 1,500 snapshots and reads none: the socket
    // buffers fill, and its updates go from straight onto the socket to the rest of a frame kept
    // back, to the queue. It goes on not reading while 300 more lines are said.
    let mut watcher = net::small_watcher(&server.url(), game).await;
    net::stall(&mut watcher, game, 1500).await;
    for text in after {
        say(&mut x, &mut o, text).await;
    }
    // Then it reads: every line, whole (each frame parses), in order, and then the moves.
    alternate(&mut x, &mut o, game, &[0, 3, 1, 4, 2]).await;
    let mut heard = Vec::new();
    let mut moves = Vec::new();
    while moves.len() < 5 {
        let frame = read_frame(&mut watcher)
            .await
            .expect("the watcher stays connected");
        match frame.message {
            ServerMessage::Chat { line, .. } => heard.push(line.text),
            ServerMessage::Moved { cell, .. } => moves.push(cell),
            _ => {}
        }
    }
    assert_eq!(heard, after, "every line, in order");
    assert_eq!(moves, [0, 3, 1, 4, 2]);
}

/// Reads a socket until it ends; panics if it ever stops without ending.
async fn drain_to_end(mut socket: Socket) {
    while read_frame(&mut socket).await.is_ok() {}
}

/// A player's connection that says hello, for the tests on the real binary.
async fn hello(server: &ServerProcess, name: &str) -> Client {
    Client::join(&server.url, name).await
}

/// Starts an AI game for `player` as X on classic, plays the centre and waits for the AI's answer.
async fn ai_game(player: &mut Client) -> GameId {
    let state = player
        .play_ai(1, Variant::Classic, Level::Perfect, SideChoice::X)
        .await;
    player
        .send(ClientMessage::Move {
            game: state.game,
            cell: 4,
        })
        .await;
    player
        .until(|m| matches!(m, ServerMessage::Moved { mark: Mark::O, .. }))
        .await;
    state.game
}

/// The snapshot of `game` among those a resumed client gets.
async fn snapshot_of(client: &mut Client, game: GameId) -> GameState {
    match client
        .until(|m| matches!(m, ServerMessage::GameState(s) if s.game == game))
        .await
    {
        ServerMessage::GameState(state) => *state,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn sigterm_tells_every_client_and_the_games_come_back() {
    let scratch = Scratch::new("faults-sigterm");
    let mut server = ServerProcess::start(&server_binary(), &scratch.dir, &["--grace-secs", "60"]);
    let (mut x, mut o, state) = quick_match(&server.url, Variant::Classic).await;
    let human = state.game;
    alternate(&mut x, &mut o, human, &[0, 4]).await;
    let mut ada = hello(&server, "ada").await;
    let ai = ai_game(&mut ada).await;
    let mut eve = hello(&server, "eve").await;
    eve.request(
        1,
        ClientMessage::Watch(Watch {
            game: human,
            code: None,
        }),
    )
    .await;
    let mut idle = hello(&server, "idle").await;

    server.terminate();
    for client in [&mut x, &mut o, &mut ada, &mut eve, &mut idle] {
        client
            .until(|m| matches!(m, ServerMessage::Shutdown { .. }))
            .await;
        assert_eq!(
            client.closed().await,
            Some(close::GOING_AWAY),
            "{}",
            client.name
        );
    }
    let status = server.exited().await;
    assert!(status.success(), "exit status {status}");

    // The same file, a new process: both games are there, as they were.
    let server = ServerProcess::start(&server_binary(), &scratch.dir, &["--grace-secs", "60"]);
    let mut x = Client::resume(&server.url, &x.name, &x.token).await;
    let mut o = Client::resume(&server.url, &o.name, &o.token).await;
    let mut ada = Client::resume(&server.url, &ada.name, &ada.token).await;
    for client in [&mut x, &mut o] {
        let state = snapshot_of(client, human).await;
        assert_eq!(state.moves, [0, 4], "{}", client.name);
        assert!(state.result.is_none());
    }
    let state = snapshot_of(&mut ada, ai).await;
    assert_eq!((state.moves.len(), state.to_move), (2, Some(Mark::X)));
    assert_eq!(state.moves[0], 4);

    // And they finish.
    alternate(&mut x, &mut o, human, &[1, 3, 2]).await;
    let events = follow_to_end(&mut o, human).await;
    let Some(ServerMessage::GameOver { result, .. }) = events.last() else {
        panic!("game over")
    };
    assert_eq!(
        (result.winner, result.cells.as_slice()),
        (Some(Mark::X), &[0, 1, 2][..])
    );
    let over = ada.request(2, ClientMessage::Resign { game: ai }).await;
    assert!(matches!(over, ServerMessage::GameOver { .. }), "{over:?}");
    server.kill();
}

/// The first cell of `board` whose move does not end the game (any legal one if all would).
fn quiet_move(board: &Board) -> usize {
    let mut legal = board.legal_moves();
    let first = legal.next().expect("a legal move");
    std::iter::once(first)
        .chain(legal)
        .find(|&cell| board.play(cell).is_ok_and(|b| !b.is_over()))
        .unwrap_or(first)
}

/// What a flooding player saw of its game: every move, with its seq.
#[derive(Debug, Default, Clone)]
struct Seen {
    moves: Vec<(u64, usize)>,
}

/// Plays `game` as `mark` as fast as the updates come, until the connection ends; counts every
/// move seen in `count`.
async fn flood(mut socket: Socket, game: GameId, mark: Mark, count: Arc<AtomicUsize>) -> Seen {
    let mut seen = Seen::default();
    let mut board = Board::new(Variant::Qubic);
    let mut mine = mark == Mark::X;
    loop {
        if mine {
            let cell = quiet_move(&board);
            let frame = ClientFrame::new(ClientMessage::Move { game, cell });
            if socket.send(Message::text(frame.to_json())).await.is_err() {
                return seen;
            }
            mine = false;
        }
        let Ok(frame) = read_frame(&mut socket).await else {
            return seen;
        };
        match frame.message {
            ServerMessage::Moved {
                seq,
                cell,
                board: text,
                to_move,
                ..
            } => {
                seen.moves.push((seq, cell));
                count.fetch_add(1, Ordering::Relaxed);
                board = Board::parse(Variant::Qubic, &text).expect("a board");
                mine = to_move == Some(mark);
            }
            ServerMessage::GameOver { .. } => return seen,
            _ => {}
        }
    }
}

#[tokio::test]
async fn sigkill_in_a_flood_of_moves_loses_nothing_anyone_saw() {
    sigkill_in_a_flood("faults-sigkill", "move").await;
}

#[tokio::test]
async fn sigkill_in_a_flood_of_moves_answered_once_written_loses_nothing_anyone_saw() {
    sigkill_in_a_flood("faults-sigkill-interval", "interval").await;
}

/// A server on a SQLite file, its moves reaching the disk as `durability` says, killed while two
/// players flood a game with moves: every move either of them saw comes back.
async fn sigkill_in_a_flood(name: &str, durability: &str) {
    let scratch = Scratch::new(name);
    let args = ["--grace-secs", "60", "--durability", durability];
    let server = ServerProcess::start(&server_binary(), &scratch.dir, &args);
    let (mut x, mut o, state) = quick_match(&server.url, Variant::Classic).await;
    let human = state.game;
    alternate(&mut x, &mut o, human, &[0, 4, 8]).await;
    let mut ada = hello(&server, "ada").await;
    let ai = ai_game(&mut ada).await;
    let (fx, fo, state) = quick_match(&server.url, Variant::Qubic).await;
    let flooded = state.game;
    let (fx_name, fx_token, fo_name, fo_token) = (
        fx.name.clone(),
        fx.token.clone(),
        fo.name.clone(),
        fo.token.clone(),
    );
    let count = Arc::new(AtomicUsize::new(0));
    let flood_x = tokio::spawn(flood(fx.socket, flooded, Mark::X, count.clone()));
    let flood_o = tokio::spawn(flood(fo.socket, flooded, Mark::O, count.clone()));
    // Kill it in the thick of the flood.
    let flooding = async {
        while count.load(Ordering::Relaxed) < 16 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    tokio::time::timeout(noughts_tests::WAIT, flooding)
        .await
        .expect("the flood is under way");
    server.kill();
    let seen_x = flood_x.await.unwrap();
    let seen_o = flood_o.await.unwrap();

    let server = ServerProcess::start(&server_binary(), &scratch.dir, &args);
    // The flooded game: every move either player saw is there, in order; the seq goes on.
    let mut fx = Client::resume(&server.url, &fx_name, &fx_token).await;
    let mut fo = Client::resume(&server.url, &fo_name, &fo_token).await;
    let restored = snapshot_of(&mut fx, flooded).await;
    assert!(
        restored.result.is_none() && restored.moves.len() >= 8,
        "killed mid-game"
    );
    for seen in [&seen_x, &seen_o] {
        let cells: Vec<usize> = seen.moves.iter().map(|&(_, c)| c).collect();
        assert!(
            restored.moves.starts_with(&cells),
            "seen {cells:?}, restored {:?}",
            restored.moves
        );
        let last_seq = seen.moves.last().map_or(0, |&(s, _)| s);
        assert!(restored.seq >= last_seq, "{} < {last_seq}", restored.seq);
        let seqs: Vec<u64> = seen.moves.iter().map(|&(s, _)| s).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    }
    assert_eq!(snapshot_of(&mut fo, flooded).await.moves, restored.moves);

    // Both play it out from there to its end.
    let mut board = Board::parse(Variant::Qubic, &restored.board).expect("a board");
    let mut played = restored.moves.clone();
    while !board.is_over() {
        let cell = quiet_move(&board);
        let mover = if board.to_move() == Mark::X {
            &mut fx
        } else {
            &mut fo
        };
        let reply = mover
            .request(
                100 + played.len() as u64,
                ClientMessage::Move {
                    game: flooded,
                    cell,
                },
            )
            .await;
        assert!(matches!(reply, ServerMessage::Moved { .. }), "{reply:?}");
        board = board.play(cell).expect("legal");
        played.push(cell);
    }

    // The other games are there too, and finish.
    let mut x = Client::resume(&server.url, &x.name, &x.token).await;
    let mut o = Client::resume(&server.url, &o.name, &o.token).await;
    let mut ada = Client::resume(&server.url, &ada.name, &ada.token).await;
    assert_eq!(snapshot_of(&mut x, human).await.moves, [0, 4, 8]);
    assert_eq!(snapshot_of(&mut o, human).await.moves, [0, 4, 8]);
    let ai_state = snapshot_of(&mut ada, ai).await;
    assert_eq!((ai_state.moves.len(), ai_state.moves[0]), (2, 4));
    alternate(&mut o, &mut x, human, &[1, 2, 7]).await;
    follow_to_end(&mut x, human).await;
    let over = ada.request(2, ClientMessage::Resign { game: ai }).await;
    assert!(matches!(over, ServerMessage::GameOver { .. }), "{over:?}");

    // The records are complete: every move, as played, in each game.
    let record = fo.record(1, flooded).await;
    let cells: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
    assert_eq!(cells, played);
    assert_eq!(record.board, board.to_compact());
    let record = x.record(1, human).await;
    let cells: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
    assert_eq!(cells, [0, 4, 8, 1, 2, 7]);
    let games = ada.history(3).await;
    assert_eq!(games.iter().map(|g| g.game).collect::<Vec<_>>(), [ai]);
    server.kill();
}
