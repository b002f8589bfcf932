//! Three nodes on a real Redis Cluster of three shards, a replica each, and one PostgreSQL: a game
//! is played across two nodes and watched from the third while the shard holding its keys fails
//! over twice (its replica takes over by `CLUSTER FAILOVER`, then the new primary is killed and
//! the old one takes over again), and while the first Redis node the URL names dies. The nodes
//! talk over sharded channels (`SPUBLISH`), each on the shard of its slot; a shard's failover
//! drops their subscriptions there, and they subscribe again. Every move acknowledged is seen by
//! the opponent, and by the watcher on the third node, and kept; every variant's war game runs
//! once in the cluster; and the lobby lists on every node the rooms made before and after. And `deploy/cluster up
//! --redis-shards 3` runs the local cluster on a Redis Cluster of its own.

use std::collections::BTreeMap;
use std::time::Duration;

use noughts_engine::Budget;
use noughts_kit::redis_cluster::TestRedisCluster;
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, GameKind, Level, Mark, ServerMessage, Variant, Watch,
};
use noughts_server::{ClusterConfig, ClusterSecret, Config, StoreConfig};
use noughts_tests::postgres::Postgres;
use noughts_tests::{Client, Scratch, TestServer, test_config};
use tokio::time::{Instant, sleep, timeout};

use super::deploy::{Deployed, free_ports, programs_present, war_games};

/// The nodes' lease: long beside a failover by a killed primary (the cluster takes it for
/// failed after a second, and promotes its replica within another), so that a game may go on
/// through it; a game whose lease lapses meanwhile pauses, and goes on once Redis answers.
const LEASE: Duration = Duration::from_secs(10);

/// A game of four that X wins down the first column on the thirteenth move, neither player
/// making a line before.
const MOVES: [usize; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// `n` nodes of one cluster on `redis`, keeping everything in the PostgreSQL database `db`, each
/// ready to run every variant's war games between quick AIs.
async fn nodes(redis: &TestRedisCluster, db: &str, n: usize) -> Vec<TestServer> {
    let secret = ClusterSecret::from_file(&redis.secret_file).expect("the cluster's secret");
    let mut nodes = Vec::new();
    for i in 1..=n {
        let cluster = ClusterConfig {
            redis: redis.url.clone(),
            node: format!("node{i}"),
            lease: LEASE,
            secret: Some(secret.clone()),
            insecure_redis: false,
            redis_ca: None,
        };
        nodes.push(
            TestServer::start(Config {
                cluster: Some(cluster),
                store: StoreConfig::Postgres(db.to_owned()),
                war_games: true,
                war_variants: Variant::ALL.to_vec(),
                war_levels: Some((Level::Easy, Level::Easy)),
                war_budget: Budget::millis(5),
                war_move_delay: Duration::from_millis(500),
                war_restart_delay: Duration::from_millis(300),
                ..test_config()
            })
            .await,
        );
    }
    nodes
}

/// Plays `cell` in `game` as `mover` until it is acknowledged: a move refused while the game is
/// paused (its lease lapsed in the failover) is sent again.
async fn play(mover: &mut Client, game: GameId, cell: usize, id: &mut u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        *id += 1;
        let reply = timeout(
            Duration::from_secs(20),
            mover.request(*id, ClientMessage::Move { game, cell }),
        )
        .await
        .unwrap_or_else(|_| panic!("{}: move {cell} was never answered", mover.name));
        match reply {
            ServerMessage::Moved {
                game: g, cell: c, ..
            } if g == game && c == cell => return,
            ServerMessage::Error {
                code: ErrorCode::GamePaused,
                ..
            } if Instant::now() < deadline => sleep(Duration::from_millis(200)).await,
            other => panic!("{}: move {cell}: {other:?}", mover.name),
        }
    }
}

/// Waits until `client` has seen `cell` played in `game`: as a move, or in a fresh snapshot (one
/// is sent after a game paused goes on, or a watcher's subscription is made again).
async fn sees(client: &mut Client, game: GameId, cell: usize) {
    client
        .until(|m| match m {
            ServerMessage::Moved {
                game: g, cell: c, ..
            } => *g == game && *c == cell,
            ServerMessage::GameState(state) => state.game == game && state.moves.contains(&cell),
            _ => false,
        })
        .await;
}

/// The game's two players and its watcher.
struct Table {
    x: Client,
    o: Client,
    watcher: Client,
}

impl Table {
    /// Plays `cells` in turn, `played` moves into the game (X first), each seen by the opponent
    /// and the watcher.
    async fn play_all(&mut self, game: GameId, cells: &[usize], played: usize, id: &mut u64) {
        for (i, &cell) in cells.iter().enumerate() {
            let (mover, other) = if (played + i).is_multiple_of(2) {
                (&mut self.x, &mut self.o)
            } else {
                (&mut self.o, &mut self.x)
            };
            play(mover, game, cell, id).await;
            sees(other, game, cell).await;
            sees(&mut self.watcher, game, cell).await;
        }
    }
}

/// The war games and the number of rooms a node lists now, asked by `client`.
async fn listed(client: &mut Client, id: u64) -> (BTreeMap<Variant, Vec<GameId>>, usize) {
    let ServerMessage::Lobby { games, rooms, .. } =
        client.request(id, ClientMessage::SubscribeLobby).await
    else {
        panic!("a lobby snapshot");
    };
    let mut wars = BTreeMap::<Variant, Vec<GameId>>::new();
    for game in games.iter().filter(|g| g.kind == GameKind::War) {
        wars.entry(game.variant).or_default().push(game.game);
    }
    (wars, rooms.len())
}

/// Waits until every node lists one war game per variant, the same on every node, and `rooms`
/// rooms, twice in a row.
async fn lobby_whole(lookers: &mut [Client], rooms: usize, id: &mut u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut agreed = 0;
    loop {
        let mut seen = Vec::new();
        for looker in lookers.iter_mut() {
            *id += 1;
            seen.push(listed(looker, *id).await);
        }
        let whole = seen.iter().all(|(wars, listed_rooms)| {
            *listed_rooms == rooms
                && *wars == seen[0].0
                && Variant::ALL
                    .iter()
                    .all(|v| wars.get(v).is_some_and(|games| games.len() == 1))
        });
        agreed = if whole { agreed + 1 } else { 0 };
        if agreed == 2 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the nodes never showed one lobby with {rooms} rooms and a war game a variant: {seen:?}"
        );
        sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_nodes_goes_on_through_failovers_of_its_redis_cluster_shard() {
    let (Some(mut redis), Some(postgres)) = (TestRedisCluster::start(3).await, Postgres::shared())
    else {
        return;
    };
    let nodes = nodes(&redis, &postgres.database("sharded"), 3).await;
    let mut lookers = Vec::new();
    for node in &nodes {
        lookers.push(node.join("looker").await);
    }
    let mut id = 100;
    // A room listed before the failovers, and the game: made on the first node, joined from the
    // third, watched from the second.
    let mut before = nodes[1].join("bea").await;
    before.create_room(1, Variant::Cube, false).await;
    let mut host = nodes[0].join("hal").await;
    let code = host.create_room(1, Variant::Four, false).await;
    let mut guest = nodes[2].join("gil").await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let state = host.game_state().await;
    let game = state.game;
    guest.game_state().await;
    let (x, o) = if state.you == Some(Mark::X) {
        (host, guest)
    } else {
        (guest, host)
    };
    let mut watcher = nodes[1].join("wes").await;
    watcher
        .send(ClientMessage::Watch(Watch { game, code: None }))
        .await;
    watcher.game_state().await;
    lobby_whole(&mut lookers, 1, &mut id).await;
    let mut table = Table { x, o, watcher };
    table.play_all(game, &MOVES[..4], 0, &mut id).await;

    // The shard holding the game's keys hands over to its replica.
    let owner = format!("{{g{}}}:owner", game.0);
    let (first_primary, _) = redis.shard_of(&owner);
    let promoted = redis.fail_over(&owner).await;
    assert_eq!(
        redis.shard_of(&owner).0,
        promoted,
        "the replica serves the game's keys"
    );
    table.play_all(game, &MOVES[4..8], 4, &mut id).await;

    // Its new primary is killed: the old one, its replica now, takes over again.
    let back = redis.kill_primary(&owner).await;
    assert_eq!(
        back, first_primary,
        "the first primary serves the game's keys again"
    );
    table.play_all(game, &MOVES[8..10], 8, &mut id).await;

    // The first Redis node the URL lists dies, once the node killed is back as a replica: the
    // lobby, the watcher's game and the mail are followed on, whichever shards they live on.
    redis.restart_killed().await;
    let first_seed = redis.seeds()[0];
    redis.kill(first_seed).await;
    table.play_all(game, &MOVES[10..], 10, &mut id).await;

    // The game ended with every move, as both players and the watcher saw it and as it is kept.
    for client in [&mut table.x, &mut table.o, &mut table.watcher] {
        let over = client
            .until(|m| {
                matches!(m, ServerMessage::GameOver { game: g, .. } if *g == game)
                    || matches!(m, ServerMessage::GameState(s) if s.game == game && s.result.is_some())
            })
            .await;
        let winner = match over {
            ServerMessage::GameOver { result, .. } => result.winner,
            ServerMessage::GameState(state) => state.result.and_then(|r| r.winner),
            _ => unreachable!(),
        };
        assert_eq!(winner, Some(Mark::X), "{}: X won", client.name);
    }
    id += 1;
    let record = table.o.record(id, game).await;
    assert_eq!(
        record.moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        MOVES,
        "every acknowledged move kept"
    );
    // A room made after the failovers is listed beside the first on every node, and each
    // variant's war game runs once.
    let mut after = nodes[2].join("al").await;
    after.create_room(1, Variant::Classic, false).await;
    lobby_whole(&mut lookers, 2, &mut id).await;
    assert!(
        !redis.ports().contains(&first_seed),
        "the first seed was killed"
    );
    // Each node reads its mail again, a sharded channel on the shard of its slot.
    for node in ["node1", "node2", "node3"] {
        let listening: u64 = redis
            .ports()
            .into_iter()
            .map(|port| {
                let out = redis
                    .cli(port)
                    .args(["PUBSUB", "SHARDNUMSUB", &format!("mail:{node}")])
                    .output()
                    .expect("run redis-cli");
                let said = String::from_utf8_lossy(&out.stdout).into_owned();
                said.lines()
                    .last()
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(listening, 1, "{node} reads its mail once");
    }
}

/// Ports for `deploy/cluster` on a Redis Cluster of three shards: the balancer's and the eight
/// after it, and the six Redis nodes' from the balancer's + 20 on, with their buses (+ 10000).
fn shard_ports() -> u16 {
    for _ in 0..100 {
        let base = free_ports();
        let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
        if (base + 20..base + 26).all(|port| free(port) && free(port + 10_000)) {
            return base;
        }
    }
    panic!("no ports free for a Redis Cluster");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_cluster_runs_on_a_redis_cluster_of_three_shards() {
    if !programs_present() || Postgres::shared().is_none() {
        return;
    }
    let deployed = Deployed {
        dir: Scratch::new("deploy-shards"),
        port: shard_ports(),
    };
    // Its war games between quick AIs: the other tests run beside it.
    let up = Deployed::command(&deployed.dir.dir, deployed.port, "up --redis-shards 3")
        .envs([
            ("NOUGHTS_WAR_X", "easy"),
            ("NOUGHTS_WAR_O", "easy"),
            ("NOUGHTS_WAR_BUDGET_MS", "5"),
        ])
        .output()
        .expect("run deploy/cluster");
    assert!(
        up.status.success(),
        "deploy/cluster up --redis-shards 3 failed: {}{}",
        String::from_utf8_lossy(&up.stdout),
        String::from_utf8_lossy(&up.stderr)
    );
    // Six Redis nodes, three primaries and their replicas, and every node ready.
    let status = String::from_utf8_lossy(&deployed.run("status").stdout).into_owned();
    let redis: Vec<&str> = status
        .lines()
        .filter(|line| line.starts_with("redis ") && line.contains(": running (pid "))
        .collect();
    assert_eq!(redis.len(), 6, "{status}");
    for role in ["role: master", "role: slave"] {
        let count = redis.iter().filter(|line| line.ends_with(role)).count();
        assert_eq!(count, 3, "three of {role}: {status}");
    }
    for i in 1..=3 {
        assert!(
            status.contains(&format!("node{i}: running"))
                && status
                    .lines()
                    .any(|line| line.starts_with(&format!("node{i}:"))
                        && line.ends_with("200 ready")),
            "{status}"
        );
    }
    // Players through the balancer see the four war games, the same ones, and play a game.
    let url = format!("ws://127.0.0.1:{}/", deployed.port);
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let mut seen = Vec::new();
        for i in 0..3 {
            seen.push(war_games(&url, &format!("p{i}")).await);
        }
        if seen.iter().all(|wars| wars.len() == 4 && *wars == seen[0]) {
            break;
        }
        assert!(Instant::now() < deadline, "never one lobby: {seen:?}");
        sleep(Duration::from_millis(200)).await;
    }
    let (mut x, mut o, state) = noughts_tests::quick_match(&url, Variant::Classic).await;
    let (x, o) = if state.you == Some(Mark::X) {
        (&mut x, &mut o)
    } else {
        (&mut o, &mut x)
    };
    noughts_tests::alternate(x, o, state.game, &[0, 3, 1, 4, 2]).await;
    let over = o
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    assert!(
        matches!(over, ServerMessage::GameOver { result, .. } if result.winner == Some(Mark::X))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_reach_a_redis_cluster_over_tls_checked_against_its_authority() {
    let cert = noughts_tests::tls::TestCert::localhost();
    let (Some(redis), Some(postgres)) = (
        TestRedisCluster::start_tls(3, &cert.cert, &cert.key).await,
        Postgres::shared(),
    ) else {
        return;
    };
    assert!(redis.url.starts_with("rediss+cluster://"), "{}", redis.url);
    let secret = ClusterSecret::from_file(&redis.secret_file).expect("the cluster's secret");
    let db = postgres.database("sharded_tls");
    let mut nodes = Vec::new();
    for name in ["tls1", "tls2"] {
        let cluster = ClusterConfig {
            redis: redis.url.clone(),
            node: name.to_owned(),
            lease: LEASE,
            secret: Some(secret.clone()),
            insecure_redis: false,
            redis_ca: Some(cert.cert.clone()),
        };
        nodes.push(
            TestServer::start(Config {
                cluster: Some(cluster),
                store: StoreConfig::Postgres(db.clone()),
                ..test_config()
            })
            .await,
        );
    }
    // A room made on one node is joined from the other, and played through.
    let mut host = nodes[0].join("tia").await;
    let code = host.create_room(1, Variant::Classic, false).await;
    let mut guest = nodes[1].join("tom").await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let state = host.game_state().await;
    guest.game_state().await;
    let (mut x, mut o) = if state.you == Some(Mark::X) {
        (host, guest)
    } else {
        (guest, host)
    };
    noughts_tests::alternate(&mut x, &mut o, state.game, &[0, 3, 1, 4, 2]).await;
    let over = o
        .until(|m| matches!(m, ServerMessage::GameOver { .. }))
        .await;
    assert!(
        matches!(over, ServerMessage::GameOver { result, .. } if result.winner == Some(Mark::X))
    );
}
