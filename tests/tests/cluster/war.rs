//! War games through failovers, on three real `noughts-server` nodes over one Redis and one
//! PostgreSQL with the shortest lease the server allows: round after round, the node holding a
//! variant's war games (and, every other round, a second node too) is killed with SIGKILL, then
//! started again under its name; after each kill and each restart, every node's lobby lists
//! exactly one war game per variant, the same one on every node, and the killed holder's war game
//! goes on at another node, all within less time than a war game lasts; and every node counts
//! the same league games of each variant, read from the store.

use std::collections::BTreeMap;
use std::time::Duration;

use noughts_protocol::{ClientMessage, GameId, GameKind, ServerMessage, Variant};
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch};

use super::failover::launch;

/// The shortest lease `--lease-ms` takes.
const LEASE_MS: u64 = 100;

/// Rounds of kills and restarts.
const ROUNDS: usize = 20;

/// The time between two moves of a war game: a classic war game lasts at least five moves, so
/// at least [`AGREE_WITHIN`] and a little more.
const WAR_MOVE_MS: u64 = 3000;

/// How long the nodes may take to agree on one war game per variant after a kill or a restart:
/// many lease times (a dead node's slots and leases run out in one, its listings are swept in
/// two; the lobby shows another node's games within two seconds, more on a loaded machine), yet
/// shorter than any war game, which a second war game beside it would outlive.
const AGREE_WITHIN: Duration = Duration::from_secs(14);

/// A node with war games of every variant, between quick AIs three seconds a move, on `redis`/`db`.
fn war_node(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    let lease = LEASE_MS.to_string();
    let war_move = WAR_MOVE_MS.to_string();
    let args = [
        ["--lease-ms", &lease, "--war-x", "easy", "--war-o", "easy"],
        [
            "--war-budget-ms",
            "5",
            "--war-move-ms",
            &war_move,
            "--war-restart-ms",
            "100",
        ],
    ]
    .concat();
    launch(
        dir,
        db,
        redis,
        name,
        &args,
        ServerProcess::start_with_war_games,
    )
}

/// The war games a node lists, by variant.
type Wars = BTreeMap<Variant, Vec<GameId>>;

/// How far a war game has gone, as a node lists it: its id and its moves.
type WarProgress = (GameId, u32);

/// The war games `client`'s node lists now, and how far the first of `variant`'s has gone.
async fn wars(client: &mut Client, id: u64, variant: Variant) -> (Wars, Option<WarProgress>) {
    let ServerMessage::Lobby { games, .. } =
        client.request(id, ClientMessage::SubscribeLobby).await
    else {
        panic!("a lobby snapshot");
    };
    let mut wars = Wars::new();
    let mut progress = None;
    for game in games.iter().filter(|g| g.kind == GameKind::War) {
        wars.entry(game.variant).or_default().push(game.game);
        if game.variant == variant && progress.is_none() {
            progress = Some((game.game, game.moves));
        }
    }
    (wars, progress)
}

/// Whether `wars` has one war game per variant, and every node the same.
fn one_each(wars: &[Wars]) -> bool {
    wars.iter().all(|w| {
        Variant::ALL
            .iter()
            .all(|v| w.get(v).is_some_and(|games| games.len() == 1))
            && *w == wars[0]
    })
}

/// Waits (up to [`AGREE_WITHIN`]) until the nodes `lookers` look at agree on one war game per
/// variant, twice in a row, and `variant`'s war game has been seen to go on (a move played, or
/// the next game begun) since a node's first look: played by a live node, not listed by a dead
/// one.
/// How long that took, or what they listed last if they do not.
async fn agree(
    lookers: &mut [Client],
    next_id: &mut u64,
    url: &str,
    variant: Variant,
) -> Result<Duration, String> {
    let start = tokio::time::Instant::now();
    let deadline = start + AGREE_WITHIN;
    let mut agreed = 0;
    let mut firsts: Vec<Option<Option<WarProgress>>> = vec![None; lookers.len()];
    let mut went_on = false;
    loop {
        let mut seen = Vec::new();
        for (looker, first) in lookers.iter_mut().zip(&mut firsts) {
            *next_id += 1;
            let (wars, progress) = wars(looker, *next_id, variant).await;
            seen.push(wars);
            let first = *first.get_or_insert(progress);
            went_on |= progress.is_some() && progress != first;
        }
        agreed = if one_each(&seen) { agreed + 1 } else { 0 };
        if agreed >= 2 && went_on {
            return Ok(start.elapsed());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(format!(
                "the nodes list {seen:?}, and {variant}'s war game went on: {went_on}; Redis: {}",
                redis_state(url)
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What Redis at `url` holds of the war games: the lobby's games, the war slots and what each
/// holder noted, the games' leases and the nodes; for a failure to say.
fn redis_state(url: &str) -> String {
    let run = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["--no-auth-warning", "-u", url])
            .args(args)
            .output()
            .expect("run redis-cli");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .replace('\n', " | ")
    };
    let mut state = format!("{{lobby}}:games = {}", run(&["HGETALL", "{lobby}:games"]));
    for pattern in ["{slot:*", "{g*}:owner"] {
        for key in run(&["KEYS", pattern])
            .split(" | ")
            .filter(|k| !k.is_empty())
        {
            state += &format!("; {key} = {}", run(&["GET", key]));
        }
    }
    state + &format!("; {{nodes}} = {}", run(&["SMEMBERS", "{nodes}"]))
}

/// Copies the nodes' logs out of `dir` (removed when the test ends) to a directory of their own,
/// and says where.
fn keep_logs(dir: &Scratch, names: &[&str]) {
    let kept = std::env::temp_dir().join(format!("noughts-war-logs-{}", std::process::id()));
    if std::fs::create_dir_all(&kept).is_err() {
        return;
    }
    for name in names {
        let from = dir.dir.join(name).join("server.log");
        let _ = std::fs::copy(from, kept.join(format!("{name}.log")));
    }
    eprintln!("the nodes' logs are kept in {}", kept.display());
}

/// The node holding `variant`'s war slot, as Redis at `url` says.
pub(super) fn slot_holder(url: &str, variant: Variant) -> Option<String> {
    let out = std::process::Command::new("redis-cli")
        .args(["--no-auth-warning", "-u", url])
        .args(["GET", &format!("{{slot:war:{variant}}}")])
        .output()
        .expect("run redis-cli");
    let holder = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!holder.is_empty()).then_some(holder)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_variant_has_one_war_game_on_every_node_after_every_kill_and_restart() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("war_rounds");
    let dir = Scratch::new("war-rounds");
    let names = ["w0", "w1", "w2"];
    let mut nodes: Vec<Option<ServerProcess>> = names
        .iter()
        .map(|name| Some(war_node(&dir, &db, &redis, name)))
        .collect();
    let mut next_id = 0;
    let mut lookers = Vec::new();
    for node in nodes.iter().flatten() {
        lookers.push(Client::join(&node.url, "looker").await);
    }
    agree(&mut lookers, &mut next_id, &redis.url, Variant::Classic)
        .await
        .expect("one war game per variant from the start");
    let mut failed = Vec::new();
    let mut slowest = Duration::ZERO;
    for round in 0..ROUNDS {
        let variant = Variant::ALL[round % Variant::ALL.len()];
        let holder = slot_holder(&redis.url, variant).expect("a node holds the slot");
        let first = names.iter().position(|n| *n == holder).unwrap();
        // Every other round, a second node dies with the first.
        let killed = if round.is_multiple_of(2) {
            vec![first]
        } else {
            vec![first, (first + 1 + round / 2 % 2) % 3]
        };
        for &k in &killed {
            nodes[k].take().unwrap().kill();
        }
        let mut survivors = Vec::new();
        for node in nodes.iter().flatten() {
            survivors.push(Client::join(&node.url, "looker").await);
        }
        match agree(&mut survivors, &mut next_id, &redis.url, variant).await {
            Ok(took) => slowest = slowest.max(took),
            Err(why) => failed.push(format!("round {round}, after killing {killed:?}: {why}")),
        }
        for &k in &killed {
            nodes[k] = Some(war_node(&dir, &db, &redis, names[k]));
        }
        lookers.clear();
        for node in nodes.iter().flatten() {
            lookers.push(Client::join(&node.url, "looker").await);
        }
        match agree(&mut lookers, &mut next_id, &redis.url, variant).await {
            Ok(took) => slowest = slowest.max(took),
            Err(why) => failed.push(format!("round {round}, after restarting {killed:?}: {why}")),
        }
    }
    eprintln!("the slowest agreement took {slowest:?}");
    for why in &failed {
        eprintln!("{why}");
    }
    if !failed.is_empty() {
        keep_logs(&dir, &names);
    }
    assert!(
        failed.is_empty(),
        "{} of {} checks found the nodes disagreeing: {failed:?}",
        failed.len(),
        2 * ROUNDS
    );
    // The war games are the engines' league's, counted in the store as they end: every node
    // reads the same count of each variant's games, whichever node played them.
    for variant in Variant::ALL {
        let deadline = tokio::time::Instant::now() + AGREE_WITHIN;
        loop {
            let mut counts = Vec::new();
            for looker in &mut lookers {
                next_id += 1;
                counts.push(league_games(looker, next_id, variant).await);
            }
            if counts.windows(2).all(|two| two[0] == two[1]) {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{variant}: the nodes count {counts:?} league games"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// How many of `variant`'s league games `client`'s node counts.
async fn league_games(client: &mut Client, id: u64, variant: Variant) -> u32 {
    let ask = ClientMessage::League(noughts_protocol::League {
        variant,
        follow: false,
    });
    match client.request(id, ask).await {
        ServerMessage::LeagueTable(table) => table.games,
        other => panic!("a league table, got {other:?}"),
    }
}
