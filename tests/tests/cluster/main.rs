//! Several nodes over one real `redis-server`: one lobby on every node, war games run once in
//! the cluster, and a node that stops is swept out of the lobby.

mod accounts;
mod arena;
mod arena_paused;
mod arena_restart;
mod credentials;
mod deploy;
mod failover;
mod faults;
mod forgery;
mod handover;
mod league;
mod league_follow;
mod moderation;
mod play;
mod players;
mod rolling;
mod rounds;
mod sharded;
mod war;

use std::time::Duration;

use noughts_protocol::{ClientMessage, CreateRoom, GameKind, Seek, ServerMessage, Variant, Watch};
use noughts_server::Config;
use noughts_tests::lobby::LobbyView;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, TestServer, alternate, test_config};

/// How long a node's hold outlives it in these tests: short, so a gone node is noticed quickly.
const LEASE: Duration = Duration::from_millis(600);

/// `n` nodes of one cluster on `redis`, each with `config`.
async fn nodes(redis: &TestRedis, n: usize, config: impl Fn() -> Config) -> Vec<TestServer> {
    let mut nodes = Vec::new();
    for i in 1..=n {
        nodes.push(
            TestServer::start(Config {
                cluster: Some(noughts_tests::cluster::config(
                    redis,
                    &format!("node{i}"),
                    LEASE,
                )),
                ..config()
            })
            .await,
        );
    }
    nodes
}

/// `redis-cli monitor`: every command the Redis runs while it lasts.
struct Monitor {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Monitor {
    /// Starts monitoring `redis`; returns once Redis said it monitors.
    fn start(redis: &TestRedis) -> Monitor {
        use std::io::BufRead;
        let mut child = redis
            .cli()
            .arg("monitor")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run redis-cli monitor");
        let stdout = child.stdout.take().expect("its output");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let ok = lines.recv_timeout(Duration::from_secs(10));
        assert_eq!(ok.as_deref(), Ok("OK"), "redis-cli monitor started");
        Monitor { child, lines }
    }

    /// Stops monitoring: the commands seen, one a line.
    fn stop(mut self) -> Vec<String> {
        // What Redis ran before now reaches the pipe within moments.
        std::thread::sleep(Duration::from_millis(200));
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.lines.try_iter().collect()
    }
}

/// A fresh lobby snapshot as seen from `node`.
async fn lobby(node: &TestServer) -> (Vec<noughts_protocol::GameInfo>, usize, usize) {
    let mut client = node.join("looker").await;
    match client.request(1, ClientMessage::SubscribeLobby).await {
        ServerMessage::Lobby {
            games,
            rooms,
            seeks,
            ..
        } => (games, rooms.len(), seeks.len()),
        other => panic!("a lobby snapshot, got {other:?}"),
    }
}

/// A player on `node` following the lobby, with the lobby as it knows it.
async fn follower(node: &TestServer, name: &str) -> (Client, LobbyView) {
    let mut client = node.join(name).await;
    let view = client.follow_lobby(1).await;
    (client, view)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn war_games_run_once_in_the_cluster_and_every_node_lists_the_same_one() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 3, || Config {
        war_games: true,
        war_variants: vec![Variant::Classic],
        war_move_delay: Duration::from_millis(300),
        war_restart_delay: Duration::from_millis(300),
        ..test_config()
    })
    .await;
    let mut agreed = 0;
    for _ in 0..100 {
        let mut wars = Vec::new();
        for node in &nodes {
            let (games, _, _) = lobby(node).await;
            wars.push(
                games
                    .iter()
                    .filter(|g| g.kind == GameKind::War)
                    .map(|g| g.game)
                    .collect::<Vec<_>>(),
            );
        }
        assert!(
            wars.iter().all(|w| w.len() <= 1),
            "never two classic war games at once: {wars:?}"
        );
        if wars.iter().all(|w| w.len() == 1 && w == &wars[0]) {
            agreed += 1;
            if agreed == 3 {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the nodes never agreed on one war game");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_and_seeks_made_on_one_node_are_listed_on_every_node_until_they_go() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 3, test_config).await;
    let mut on_b = follower(&nodes[1], "bea").await;
    let mut on_c = follower(&nodes[2], "cy").await;
    let mut host = nodes[0].join("ada").await;
    let code = host.create_room(2, Variant::Four, false).await;
    for (client, view) in [&mut on_b, &mut on_c] {
        client
            .lobby_until(view, |view| view.rooms.contains_key(&code))
            .await;
    }
    host.request(3, ClientMessage::CloseRoom { code: code.clone() })
        .await;
    let (client, view) = &mut on_c;
    client
        .lobby_until(view, |view| !view.rooms.contains_key(&code))
        .await;
    // A seek on the second node shows on the first, and goes when it is withdrawn.
    let (mut on_a, mut view) = follower(&nodes[0], "al").await;
    let mut seeker = nodes[1].join("sam").await;
    let seek = ClientMessage::Seek(Seek {
        variant: Variant::Cube,
        clock: None,
        rated: false,
        bots: false,
    });
    seeker.send(seek).await;
    on_a.lobby_until(&mut view, |view| !view.seeks.is_empty())
        .await;
    let seek = view.seeks.values().next().cloned().unwrap();
    assert_eq!((seek.name.as_str(), seek.variant), ("sam", Variant::Cube));
    seeker.send(ClientMessage::CancelSeek).await;
    on_a.lobby_until(&mut view, |view| view.seeks.is_empty())
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_games_get_ids_no_other_node_gives() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 2, test_config).await;
    let (_, _, first) = nodes[0].quick_match(Variant::Classic).await;
    let (_, _, second) = nodes[1].quick_match(Variant::Classic).await;
    assert_ne!(first.game, second.game);
    assert_ne!(first.x.player, second.x.player);
    assert_ne!(first.o.player, second.o.player);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_held_by_one_node_is_watched_from_another_move_by_move() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 2, test_config).await;
    let (mut x, mut o, state) = nodes[0].quick_match(Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[4]).await;
    // From the other node: the snapshot as it stands, then every move after it, in order.
    let mut watcher = nodes[1].join("wes").await;
    let ServerMessage::GameState(snapshot) = watcher
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await
    else {
        panic!("a snapshot first");
    };
    // The snapshot may come from just before the first move reached the other node; the moves
    // after it follow, whichever it is.
    let played = [4, 0, 3, 1, 5];
    assert_eq!(snapshot.game, game);
    assert_eq!(snapshot.moves, played[..snapshot.moves.len()]);
    assert_eq!(snapshot.you, None);
    // Every command Redis runs from here on, to count what the game sends it.
    let monitor = Monitor::start(&redis);
    alternate(&mut o, &mut x, game, &[0, 3, 1, 5]).await;
    let mut seq = snapshot.seq;
    for &cell in &played[snapshot.moves.len()..] {
        let ServerMessage::Moved {
            cell: seen, seq: s, ..
        } = watcher
            .until(|m| matches!(m, ServerMessage::Moved { .. }))
            .await
        else {
            unreachable!()
        };
        assert_eq!(seen, cell);
        assert!(s > seq, "seq only grows");
        seq = s;
    }
    let over = watcher
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    assert!(matches!(over, ServerMessage::GameOver { game: g, .. } if g == game));
    // The watchers' snapshot is set once for each update published after it, not again for the
    // lobby's entry: one SET a move.
    let commands = monitor.stop();
    let count = |command: &str, key: String| {
        let line = format!("\"{command}\" \"{key}\"");
        commands.iter().filter(|c| c.contains(&line)).count()
    };
    let sets = count("SET", format!("{{g{}}}:state", game.0));
    let publishes = count("PUBLISH", format!("{{g{}}}:updates", game.0));
    assert!(
        publishes >= 5,
        "four moves and the end published: {publishes}"
    );
    assert_eq!(sets, publishes, "one snapshot an update: {commands:#?}");
    assert!(matches!(
        watcher.request(2, ClientMessage::Unwatch { game }).await,
        ServerMessage::Ok
    ));
    // A game no node holds is, from here too, no such game.
    watcher
        .expect_error(
            3,
            ClientMessage::Watch(Watch {
                game: noughts_protocol::GameId(999_999),
                code: None,
            }),
            noughts_protocol::ErrorCode::NoSuchGame,
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_from_another_node_comes_back_after_redis_drops_its_subscribers() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 2, test_config).await;
    let (mut x, mut o, state) = nodes[0].quick_match(Variant::Classic).await;
    let game = state.game;
    let mut watcher = nodes[1].join("wes").await;
    let first = watcher
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    assert!(matches!(first, ServerMessage::GameState(_)));
    alternate(&mut x, &mut o, game, &[4, 0]).await;
    // Redis drops every subscriber; the watcher's node subscribes again.
    let killed = redis
        .cli()
        .args(["CLIENT", "KILL", "TYPE", "pubsub"])
        .output()
        .expect("run redis-cli");
    assert!(killed.status.success());
    tokio::time::sleep(Duration::from_millis(800)).await;
    alternate(&mut x, &mut o, game, &[3, 1, 5]).await;
    // Whatever was missed, the watcher ends with the final board, its seq never going back.
    let mut seq = 0;
    loop {
        let frame = watcher.next().await;
        match frame.message {
            // A fresh snapshot after the lost subscription: never behind what was seen.
            ServerMessage::GameState(state) => {
                assert!(state.seq >= seq);
                seq = state.seq;
            }
            ServerMessage::GameOver { board, seq: s, .. } => {
                assert!(s > seq);
                assert_eq!(board, "OO.XXX...");
                return;
            }
            other => {
                if let Some((_, s)) = noughts_tests::seq_of(&other) {
                    assert!(s > seq, "seq only grows: {s} after {seq}");
                    seq = s;
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_per_address_cap_on_rooms_counts_every_node() {
    let Some(redis) = TestRedis::start().await else {
        return;
    };
    let nodes = nodes(&redis, 2, || Config {
        max_rooms_per_ip: 2,
        ..test_config()
    })
    .await;
    let mut on_a = nodes[0].join("ada").await;
    let mut on_b = nodes[1].join("bob").await;
    on_a.create_room(1, Variant::Classic, false).await;
    on_b.create_room(1, Variant::Classic, true).await;
    // Both from 127.0.0.1: the third is over the cap, whichever node it asks.
    let room = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Four,
        clock: None,
        private: false,
        rated: false,
    });
    for client in [&mut on_a, &mut on_b] {
        client
            .expect_error(2, room.clone(), noughts_protocol::ErrorCode::LimitReached)
            .await;
    }
}
