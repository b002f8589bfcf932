//! Failovers repeated, on three real `noughts-server` nodes over one Redis and one PostgreSQL: a
//! game between a player on its node and a player on another, watched from a third, goes on
//! after its node is killed with SIGKILL, and after one node after another is restarted with
//! SIGTERM. Each round, every move acknowledged to one player
//! reaches the other and the watcher, whichever node each of them is on. A failure that shows in
//! one run out of several shows here: each test goes through twenty rounds and tells which ones
//! failed and how.

use std::time::Duration;

use noughts_protocol::{ClientMessage, ErrorCode, GameId, Mark, ServerMessage, Variant, Watch};
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch};

use super::failover::node_with_lease;

/// The lease of the nodes killed round after round: the shortest `--lease-ms` takes, as each
/// round waits about one for the takeover.
const KILL_LEASE_MS: u64 = 100;

/// The lease of the nodes restarted one after another: a node stopped with SIGTERM gives its
/// games back at once, so nobody waits for it, and a node restarts in less than half of it, so
/// that the other nodes' watch on their links does not see it gone, as with the default.
const RESTART_LEASE_MS: u64 = 5_000;

/// Rounds of each test.
const ROUNDS: usize = 20;

/// How long a player may wait to see a move the other was told of before it counts as never
/// seen: far longer than any takeover takes (a lease, and a few round trips).
const SEEN_WITHIN: Duration = Duration::from_secs(10);

/// Who sits at one round's game: the host (on the game's node), the guest (on another node) and
/// a watcher (on the third).
struct Table {
    host: Client,
    guest: Client,
    watcher: Client,
    game: GameId,
    /// The host's mark.
    host_mark: Mark,
    /// Cells played so far, in order.
    moves: Vec<usize>,
}

/// The cells played in every round's game, in order: no four of a mark in a line.
const CELLS: [usize; 6] = [0, 1, 2, 4, 6, 8];

/// Opens a room on `host_url`, joins it from `guest_url` and watches it from `watcher_url`; plays
/// the first two moves.
async fn sit(round: usize, [host_url, guest_url, watcher_url]: [&str; 3]) -> Table {
    let mut host = Client::join(host_url, &format!("host{round}")).await;
    let code = host.create_room(1, Variant::Four, false).await;
    let mut guest = Client::join(guest_url, &format!("guest{round}")).await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let host_state = host.game_state().await;
    let game = guest.game_state().await.game;
    assert_eq!(host_state.game, game);
    let host_mark = host_state.you.expect("the host sits");
    let mut watcher = Client::join(watcher_url, &format!("watcher{round}")).await;
    watch(&mut watcher, game).await;
    let mut table = Table {
        host,
        guest,
        watcher,
        game,
        host_mark,
        moves: Vec::new(),
    };
    for _ in 0..2 {
        table.play().await.expect("a move before the failover");
    }
    table
}

/// Has `watcher` watch `game`.
async fn watch(watcher: &mut Client, game: GameId) {
    let watched = watcher
        .request(2, ClientMessage::Watch(Watch { game, code: None }))
        .await;
    assert!(
        matches!(&watched, ServerMessage::GameState(state) if state.game == game),
        "a snapshot of the game, not {watched:?}"
    );
}

/// Whether `client` sees `cell` played in `game` (as a move, or in a fresh snapshot) within
/// [`SEEN_WITHIN`]; what it saw otherwise.
async fn sees(client: &mut Client, game: GameId, cell: usize) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + SEEN_WITHIN;
    let mut seen = Vec::new();
    loop {
        let Ok(frame) = tokio::time::timeout_at(deadline, client.next()).await else {
            return Err(format!(
                "{} never saw cell {cell} played in game {}; it saw {seen:?}",
                client.name, game.0
            ));
        };
        match &frame.message {
            ServerMessage::Moved {
                game: g, cell: c, ..
            } if *g == game && *c == cell => {
                return Ok(());
            }
            ServerMessage::GameState(state)
                if state.game == game && state.moves.contains(&cell) =>
            {
                return Ok(());
            }
            // A move of this client's refused: the game paused, nothing was played.
            ServerMessage::Error {
                code: ErrorCode::GamePaused,
                ..
            } => return Err(format!("{} was told GamePaused", client.name)),
            other => seen.push(format!("{other:?}").chars().take(80).collect::<String>()),
        }
    }
}

/// Has `mover` play `cell` in `game` until it sees it played. As PROTOCOL.md asks of a client, a
/// move refused with `game_paused` (with a lease this short, a new game pauses while Redis is
/// slow to confirm its lease) is sent again on the game's next `game_state`.
async fn plays(mover: &mut Client, game: GameId, cell: usize) -> Result<(), String> {
    mover.send(ClientMessage::Move { game, cell }).await;
    for _ in 0..3 {
        match sees(mover, game, cell).await {
            Err(why) if why.contains("GamePaused") => {
                mover
                    .until(|m| matches!(m, ServerMessage::GameState(s) if s.game == game))
                    .await;
                mover.send(ClientMessage::Move { game, cell }).await;
            }
            seen => return seen,
        }
    }
    sees(mover, game, cell).await
}

impl Table {
    /// Plays the next cell, by whoever is on turn; every other seat and the watcher must see it.
    async fn play(&mut self) -> Result<(), String> {
        let cell = CELLS[self.moves.len()];
        let to_move = if self.moves.len().is_multiple_of(2) {
            Mark::X
        } else {
            Mark::O
        };
        let (mover, other) = if to_move == self.host_mark {
            (&mut self.host, &mut self.guest)
        } else {
            (&mut self.guest, &mut self.host)
        };
        let game = self.game;
        plays(mover, game, cell)
            .await
            .map_err(|e| format!("not acknowledged: {e}"))?;
        self.moves.push(cell);
        sees(other, game, cell)
            .await
            .map_err(|e| format!("acknowledged to the mover, but: {e}"))?;
        sees(&mut self.watcher, game, cell)
            .await
            .map_err(|e| format!("acknowledged to the mover, but the watcher: {e}"))
    }

    /// After a failover: the next move from each side reaches the other; then the host resigns
    /// and the guest hears the end.
    async fn play_on(mut self) -> Result<(), String> {
        self.play().await?;
        self.play().await?;
        let game = self.game;
        self.host.send(ClientMessage::Resign { game }).await;
        self.guest
            .until(|m| matches!(m, ServerMessage::GameOver { game: g, .. } if *g == game))
            .await;
        Ok(())
    }

    /// The client of each role whose node is gone comes back on the node given for it: the
    /// players with their tokens, the watcher by watching again.
    async fn come_back(&mut self, round: usize, [host, guest, watcher]: [Option<&str>; 3]) {
        if let Some(url) = host {
            self.host = Client::resume(url, &self.host.name, &self.host.token).await;
            let state = self.host.game_state().await;
            assert_eq!(state.game, self.game, "round {round}: the host's game");
            assert_eq!(state.moves, self.moves, "round {round}: the host's moves");
        }
        if let Some(url) = guest {
            self.guest = Client::resume(url, &self.guest.name, &self.guest.token).await;
            let state = self.guest.game_state().await;
            assert_eq!(state.game, self.game, "round {round}: the guest's game");
        }
        if let Some(url) = watcher {
            self.watcher = Client::join(url, &format!("watcher{round}b")).await;
            watch(&mut self.watcher, self.game).await;
        }
    }
}

/// Tells which rounds failed, if any did.
fn report(what: &str, failed: &[(usize, String)]) {
    for (round, why) in failed {
        eprintln!("{what}: round {round}: {why}");
    }
    assert!(
        failed.is_empty(),
        "{what}: {} of {ROUNDS} rounds lost a move: {failed:?}",
        failed.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_its_node_is_killed_a_game_goes_on_for_players_on_every_node_round_after_round() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("kill_rounds");
    let dir = Scratch::new("kill-rounds");
    let start = |n: usize| node_with_lease(&dir, &db, &redis, &format!("k{n}"), KILL_LEASE_MS);
    // The game's node, the guest's, the watcher's; the first is killed each round and a new node
    // takes the last place.
    let mut nodes: Vec<ServerProcess> = (0..3).map(start).collect();
    let mut failed = Vec::new();
    for round in 0..ROUNDS {
        let urls = [&nodes[0].url, &nodes[1].url, &nodes[2].url].map(String::as_str);
        let mut table = sit(round, urls).await;
        nodes.remove(0).kill();
        // The host comes back on the watcher's node, the guest stays where it is.
        table
            .come_back(round, [Some(&nodes[1].url), None, None])
            .await;
        if let Err(why) = table.play_on().await {
            failed.push((round, why));
        }
        nodes.push(start(round + 3));
    }
    report("killed with SIGKILL", &failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_nodes_restart_one_after_another_a_game_goes_on_for_players_on_every_node() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("restart_rounds");
    let dir = Scratch::new("restart-rounds");
    let start = |n: usize| node_with_lease(&dir, &db, &redis, &format!("r{n}"), RESTART_LEASE_MS);
    let mut nodes: Vec<ServerProcess> = (0..3).map(start).collect();
    let mut failed = Vec::new();
    for round in 0..ROUNDS {
        // The game's node, the guest's and the watcher's turn with the rounds; the node restarted
        // is the game's for three rounds, then the guest's, then the watcher's.
        let roles = [round % 3, (round + 1) % 3, (round + 2) % 3];
        let urls = roles.map(|n| nodes[n].url.clone());
        let mut table = sit(round, urls.each_ref().map(String::as_str)).await;
        let role = (round / 3) % 3;
        let restarted = roles[role];
        nodes[restarted].terminate();
        assert!(nodes[restarted].exited().await.success(), "a clean stop");
        nodes[restarted] = start(restarted);
        // Whoever was on it comes back: on the restarted node itself in even rounds, on the
        // node of nobody at the table's next role in odd ones.
        let back = if round.is_multiple_of(2) {
            nodes[restarted].url.clone()
        } else {
            nodes[roles[(role + 1) % 3]].url.clone()
        };
        let mut comes_back = [None, None, None];
        comes_back[role] = Some(back.as_str());
        table.come_back(round, comes_back).await;
        if let Err(why) = table.play_on().await {
            failed.push((round, why));
        }
    }
    report("restarted with SIGTERM", &failed);
}
