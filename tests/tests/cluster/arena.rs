//! An arena over three real nodes on one Redis and one PostgreSQL, with 40 players spread over
//! them, each playing every game the arena starts for them at once (the first empty cell, after a
//! moment's thought). Mid-arena the node that directs it is killed with SIGKILL and started again:
//! its players come back on the other nodes with their tokens and join again, their games in play
//! are taken over, and another node carries the arena on within seconds. Every player keeps their
//! own log of the games they finished; when the arena ends (on time) every node's standings are
//! the same, and each line is its player's own log, each game counted once.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use noughts_protocol::{
    ArenaId, ArenaLine, ArenaStatus, ClientFrame, ClientMessage, ClockSpec, CreateArena, GameId,
    Mark, PlayerId, RequestId, ServerMessage, Variant,
};
use noughts_tests::accounts::make_account;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch, read_frame};

use super::failover::launch;

const PLAYERS: usize = 40;
const LENGTH_SECS: u32 = 40;
/// When the directing node is killed, after the arena's start.
const KILL_AFTER: Duration = Duration::from_secs(14);
/// How long a player thinks before each move.
const THINK: Duration = Duration::from_millis(150);
/// The request id of a player's `join_arena`.
const JOIN: u64 = 50;

pub(super) fn now_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

/// A node of the cluster with a one-second lease, taking arenas as short as a test needs.
pub(super) fn start(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    let args = [
        "--lease-ms",
        "1000",
        "--grace-secs",
        "60",
        "--arena-min-secs",
        "1",
        // Every player registers from the loopback address.
        "--registrations-per-hour",
        "100",
        "--accounts-per-day",
        "100",
    ];
    launch(dir, db, redis, name, &args, ServerProcess::start_on)
}

/// One finished game as its player saw it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Finished {
    won: Option<bool>,
    moves: u32,
}

/// The points of a player's games by the arena's rules: 2 a win, 1 a draw, 0 a loss, doubled
/// after two wins in a row; a draw of fewer than 8 moves scores nothing.
fn points(games: &[Finished]) -> u32 {
    let (mut score, mut streak) = (0, 0);
    for game in games {
        let fire = if streak >= 2 { 2 } else { 1 };
        match game.won {
            Some(true) => {
                score += 2 * fire;
                streak += 1;
            }
            Some(false) => streak = 0,
            None => {
                score += if game.moves < 8 { 0 } else { fire };
                streak = 0;
            }
        }
    }
    score
}

/// What a player's task gives back.
pub(super) struct Log {
    pub(super) client: Client,
    /// Every game they finished, by id.
    pub(super) finished: BTreeMap<GameId, Finished>,
    /// When they first saw each of their games (milliseconds since the epoch).
    pub(super) first_seen: HashMap<GameId, u64>,
    /// When they saw each of their games end, for those whose end they saw.
    pub(super) over_seen: HashMap<GameId, u64>,
    /// How many pushed standings they got with their own line in them.
    pub(super) own_lines: u32,
    /// When they saw the arena finished.
    pub(super) finished_ms: u64,
}

/// One player: plays each game the arena starts for them until it has finished; when their
/// node dies, comes back on one of `others` with their token and joins again.
pub(super) async fn play(mut client: Client, arena: ArenaId, others: Vec<String>) -> Log {
    let mut finished = BTreeMap::new();
    let mut first_seen = HashMap::new();
    let mut over_seen = HashMap::new();
    let mut own_lines = 0;
    let mut marks: HashMap<GameId, Mark> = HashMap::new();
    let mut due: Option<(tokio::time::Instant, GameId, usize)> = None;
    let mut rejoin: Option<tokio::time::Instant> = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(u64::from(LENGTH_SECS) + 60);
    let name = client.name.clone();
    let mut next_node = 0;
    let finished_ms = loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name}: the arena never finished; played {marks:?}, finished {finished:?}"
        );
        let now = tokio::time::Instant::now();
        let mut frame = None;
        let mut lost = false;
        if let Some((at, game, cell)) = due.take_if(|(at, _, _)| *at <= now) {
            let _ = at;
            lost |= send(&mut client, None, ClientMessage::Move { game, cell }).await;
        }
        if let Some(at) = rejoin.take_if(|at| *at <= now) {
            let _ = at;
            let join = ClientMessage::JoinArena { arena, code: None };
            lost |= send(&mut client, Some(JOIN), join).await;
        }
        if !lost {
            match tokio::time::timeout(Duration::from_millis(50), read_frame(&mut client.socket))
                .await
            {
                Ok(Ok(read)) => frame = Some(read),
                Ok(Err(_)) => lost = true,
                Err(_) => {}
            }
        }
        if lost {
            // The node died: back on another with the token, and into the arena again.
            let url = &others[next_node % others.len()];
            next_node += 1;
            client = Client::resume(url, &name, &client.token.clone()).await;
            due = None;
            rejoin = Some(tokio::time::Instant::now());
            continue;
        }
        let Some(frame) = frame else { continue };
        match frame.message {
            ServerMessage::GameState(state) => {
                let (Some(mark), None) = (state.you, &state.result) else {
                    continue;
                };
                marks.insert(state.game, mark);
                first_seen.entry(state.game).or_insert_with(now_ms);
                if state.to_move == Some(mark) {
                    due = Some((now + THINK, state.game, first_empty(&state.board)));
                }
            }
            ServerMessage::Moved {
                game,
                board,
                to_move,
                ..
            } => {
                if let Some(&mark) = marks.get(&game)
                    && to_move == Some(mark)
                {
                    due = Some((now + THINK, game, first_empty(&board)));
                }
            }
            ServerMessage::GameOver {
                game,
                board,
                result,
                ..
            } => {
                if let Some(&mark) = marks.get(&game) {
                    let moves = board.chars().filter(|c| *c != '.').count() as u32;
                    let won = result.winner.map(|w| w == mark);
                    finished.insert(game, Finished { won, moves });
                    over_seen.entry(game).or_insert_with(now_ms);
                }
            }
            ServerMessage::Arena(view) => {
                // Pushed standings carry the player's own line, whichever node directs.
                if let Some(me) = &view.me {
                    assert_eq!(me.player, client.player, "{name}: another's line as mine");
                    own_lines += u32::from(frame.id.is_none());
                }
                if view.info.status == ArenaStatus::Finished {
                    break now_ms();
                }
            }
            ServerMessage::Error { .. } if frame.id == Some(RequestId::Number(JOIN)) => {
                // The arena is moving to another node: again in a moment.
                rejoin = Some(tokio::time::Instant::now() + Duration::from_millis(300));
            }
            _ => {}
        }
    };
    // A game whose end this player missed while their node died: its record says how it went.
    let missed: Vec<GameId> = marks
        .keys()
        .filter(|g| !finished.contains_key(g))
        .copied()
        .collect();
    for (i, game) in missed.into_iter().enumerate() {
        let record = client.record(200 + i as u64, game).await;
        let result = record
            .result
            .expect("every game of a finished arena has ended");
        let moves = record.moves.len() as u32;
        let won = result.winner.map(|w| w == marks[&game]);
        finished.insert(game, Finished { won, moves });
    }
    Log {
        client,
        finished,
        first_seen,
        over_seen,
        own_lines,
        finished_ms,
    }
}

fn first_empty(board: &str) -> usize {
    board.find('.').expect("an empty cell")
}

/// Sends `message` (with request id `id`); true if the connection has gone.
async fn send(client: &mut Client, id: Option<u64>, message: ClientMessage) -> bool {
    let frame = ClientFrame {
        id: id.map(RequestId::Number),
        message,
    };
    noughts_kit::client::send_frame(&mut client.socket, &frame)
        .await
        .is_err()
}

/// Every line of `arena`'s standings as `node` has them.
pub(super) async fn standings(url: &str, arena: ArenaId, name: &str) -> (Vec<ArenaLine>, u32) {
    let mut client = Client::join(url, name).await;
    let view = match client
        .request(1, ClientMessage::Arena { arena, code: None })
        .await
    {
        ServerMessage::Arena(view) => view,
        other => panic!("{name}: expected the arena, got {other:?}"),
    };
    assert_eq!(view.info.status, ArenaStatus::Finished, "{name}");
    let lines = match client
        .request(2, ClientMessage::ArenaPage { arena, offset: 0 })
        .await
    {
        ServerMessage::ArenaPage { lines, .. } => lines,
        other => panic!("{name}: expected arena_page, got {other:?}"),
    };
    (lines, view.totals.games)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_over_three_nodes_outlives_its_directing_node() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("arena_cluster");
    let dir = Scratch::new("arena-cluster");
    let names = ["node1", "node2", "node3"];
    let mut nodes: Vec<Option<ServerProcess>> = names
        .iter()
        .map(|name| Some(start(&dir, &db, &redis, name)))
        .collect();
    let urls: Vec<String> = nodes.iter().flatten().map(|n| n.url.clone()).collect();
    let mut clients = Vec::new();
    for i in 0..PLAYERS {
        let mut client = Client::join(&urls[i % 3], &format!("arena{i}")).await;
        make_account(&mut client).await;
        clients.push(client);
    }
    let start_ms = now_ms() + 3_000;
    let request = CreateArena {
        name: Some("Cluster arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: Some(start_ms),
        length_secs: LENGTH_SECS,
        private: false,
        bots_only: false,
    };
    // Created on the first node, which directs it.
    let (arena, end_ms) = match clients[0]
        .request(1, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => (info.arena, info.end_ms),
        other => panic!("expected arena_created, got {other:?}"),
    };
    for client in &mut clients {
        match client
            .request(2, ClientMessage::JoinArena { arena, code: None })
            .await
        {
            ServerMessage::Arena(view) => assert!(view.me.is_some()),
            other => panic!("{}: expected the arena, got {other:?}", client.name),
        }
    }
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|client| tokio::spawn(play(client, arena, urls[1..].to_vec())))
        .collect();
    let start_in = Duration::from_millis(start_ms.saturating_sub(now_ms()));
    tokio::time::sleep(start_in + KILL_AFTER).await;
    let killed_ms = now_ms();
    nodes[0].take().expect("the first node").kill();
    tokio::time::sleep(Duration::from_secs(2)).await;
    nodes[0] = Some(start(&dir, &db, &redis, names[0]));
    let logs = ended_on_time(tasks, end_ms).await;
    // Carried on within seconds: a game first seen after the kill started soon after it.
    let mut first_seen: HashMap<GameId, u64> = HashMap::new();
    for log in &logs {
        for (&game, &at) in &log.first_seen {
            let seen = first_seen.entry(game).or_insert(at);
            *seen = (*seen).min(at);
        }
    }
    let resumed = first_seen.values().filter(|&&at| at > killed_ms).min();
    let resumed = resumed.expect("games were started after the kill");
    assert!(
        resumed - killed_ms < 10_000,
        "the arena paired again {} ms after its node was killed",
        resumed - killed_ms
    );
    let live: Vec<String> = nodes.iter().flatten().map(|n| n.url.clone()).collect();
    let games = counted_once(&live, arena, &logs).await;
    let after_kill = first_seen.values().filter(|&&at| at > killed_ms).count();
    eprintln!("{games} games, {after_kill} of them started after the kill");
    drop(nodes);
}

/// Waits for every player's task and checks that each saw the arena finish on time (the games
/// in play at its end `end_ms` finish in a few seconds); their logs.
pub(super) async fn ended_on_time(
    tasks: Vec<tokio::task::JoinHandle<Log>>,
    end_ms: u64,
) -> Vec<Log> {
    let mut logs = Vec::new();
    for task in tasks {
        logs.push(task.await.expect("a player's task"));
    }
    for log in &logs {
        assert!(
            log.finished_ms <= end_ms + 15_000,
            "{}: the arena finished {} ms after its end",
            log.client.name,
            log.finished_ms.saturating_sub(end_ms)
        );
    }
    logs
}

/// Checks that every node in `live` has the same standings of `arena`, and that each line is
/// its player's own log (each game counted once), and that each player heard pushed standings
/// with their own line in them; returns the number of games.
pub(super) async fn counted_once(live: &[String], arena: ArenaId, logs: &[Log]) -> usize {
    let mut seen = Vec::new();
    for (i, url) in live.iter().enumerate() {
        seen.push(standings(url, arena, &format!("looker{i}")).await);
    }
    let (lines, counted) = seen[0].clone();
    for (i, other) in seen.iter().enumerate().skip(1) {
        assert_eq!(*other, seen[0], "node {} agrees with the first", i + 1);
    }
    assert_eq!(lines.len(), logs.len());
    // Each game counted once: every line is its player's own log.
    let by_player: HashMap<PlayerId, &ArenaLine> = lines.iter().map(|l| (l.player, l)).collect();
    let mut games = HashSet::new();
    let mut total = 0;
    for log in logs {
        assert!(
            log.own_lines > 0,
            "{}: no standings of my own",
            log.client.name
        );
        let line = by_player[&log.client.player];
        // In the order they were played (one at a time): game ids are not in that order, as
        // each node hands out ids of its own block.
        let mut order: Vec<(&GameId, &Finished)> = log.finished.iter().collect();
        order.sort_by_key(|(game, _)| log.first_seen[*game]);
        let played: Vec<Finished> = order.into_iter().map(|(_, f)| *f).collect();
        assert_eq!(
            (line.games as usize, line.score),
            (played.len(), points(&played)),
            "{}: {:?}",
            log.client.name,
            log.finished
        );
        total += played.len();
        games.extend(log.finished.keys().copied());
    }
    assert_eq!(total, 2 * games.len(), "each game has two players");
    assert_eq!(counted as usize, games.len(), "every game counted, once");
    games.len()
}
