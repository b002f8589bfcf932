//! Failover: live games on one node of a cluster, that node killed with SIGKILL, and every player
//! back with its token on another node. Each player's time runs from the kill to the moment it
//! reads its game's `game_state` again; the game must be where it was (every mark still there,
//! `seq` not behind; the other player of a pair may have moved on meanwhile), and the player
//! whose turn it is must be able to move on.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use noughts_protocol::{ClientMessage, GameId, Mark, ServerMessage, Variant};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::{Instant, timeout};

use crate::client::{self, Socket};
use crate::games::SETUP_AT_ONCE;
use crate::nodes;
use crate::report::{Errors, Latency, Recorder};
use crate::target::Target;

/// How a failover run is shaped.
#[derive(Debug, Clone)]
pub struct FailoverOptions {
    /// Games against the AI (random, on four) on the node that is killed; one player each.
    pub ai_games: usize,
    /// Human pairs in games on that node (both players connected to it).
    pub pairs: usize,
    /// The nodes' lease, for the report (the nodes were started with it).
    pub lease_ms: u64,
}

/// What a failover run measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Failover {
    pub lease_ms: u64,
    /// Players with a live game on the killed node.
    pub players: u64,
    /// Kill → the player's socket seen closed.
    pub closed: Option<Latency>,
    /// Kill → `welcome` (resumed) on the other node.
    pub welcome: Option<Latency>,
    /// Kill → the game's `game_state` on the other node: the failover time.
    pub resumed: Option<Latency>,
    /// Players whose game came back with every mark they had seen, `seq` not behind.
    pub intact: u64,
    /// Players to move after the kill, and how many of them moved and had the move acknowledged.
    pub to_move: u64,
    pub moved_on: u64,
    pub errors: std::collections::BTreeMap<String, u64>,
}

/// A player with a live game on the node to be killed.
#[derive(Debug)]
struct Player {
    ws: Socket,
    token: String,
    game: GameId,
    board: String,
    seq: u64,
}

#[derive(Debug, Default)]
struct Tally {
    closed: Recorder,
    welcome: Recorder,
    resumed: Recorder,
    intact: AtomicU64,
    to_move: AtomicU64,
    moved_on: AtomicU64,
    errors: Errors,
}

/// Connects to `url` and says hello as `name` (with `token`, to come back); the `welcome`'s
/// token.
async fn hello(url: &str, name: &str, token: Option<String>) -> anyhow::Result<(Socket, String)> {
    let mut ws = client::connect(url, None).await?;
    let welcome = client::hello(&mut ws, name, token).await?;
    Ok((ws, welcome.token))
}

/// The first empty cell of a board's text.
fn first_empty(board: &str) -> Option<usize> {
    board.find('.')
}

/// Whether every mark of `before` is still on `now` (the other player of a pair may have moved
/// on before this one came back).
fn still_holds(now: &str, before: &str) -> bool {
    now.len() == before.len()
        && now
            .bytes()
            .zip(before.bytes())
            .all(|(n, b)| b == b'.' || n == b)
}

/// A player against the AI on `url`, one move (and the AI's answer) into its game.
async fn ai_player(url: &str, i: usize) -> anyhow::Result<Player> {
    let (mut ws, token) = hello(url, &format!("f{i}"), None).await?;
    let request = client::request(serde_json::json!({
        "type": "play_ai", "variant": Variant::Four, "level": "random", "side": "x",
    }))?;
    client::send(&mut ws, request).await?;
    let state = client::game_state(&mut ws).await?;
    let cell = first_empty(&state.board).unwrap_or(0);
    let game = state.game;
    client::send(&mut ws, ClientMessage::Move { game, cell }).await?;
    let (board, seq) = client::until(&mut ws, |m| match m {
        ServerMessage::Moved {
            game: g,
            mark: Mark::O,
            board,
            seq,
            ..
        } if g == game => Some((board, seq)),
        _ => None,
    })
    .await?;
    Ok(Player {
        ws,
        token,
        game,
        board,
        seq,
    })
}

/// Two players on `url` in one game, X's first move played and seen by both.
async fn human_pair(url: &str, i: usize) -> anyhow::Result<[Player; 2]> {
    let (mut a, a_token) = hello(url, &format!("fa{i}"), None).await?;
    let (mut b, b_token) = hello(url, &format!("fb{i}"), None).await?;
    let code = client::create_room(&mut a, Variant::Four, true).await?;
    client::send(&mut b, ClientMessage::JoinRoom { code }).await?;
    let state = client::game_state(&mut a).await?;
    client::game_state(&mut b).await?;
    let game = state.game;
    let x = if state.you == Some(Mark::X) {
        &mut a
    } else {
        &mut b
    };
    let cell = first_empty(&state.board).unwrap_or(0);
    client::send(x, ClientMessage::Move { game, cell }).await?;
    let moved = |m| match m {
        ServerMessage::Moved {
            game: g,
            board,
            seq,
            ..
        } if g == game => Some((board, seq)),
        _ => None,
    };
    let (board, seq) = client::until(&mut a, moved).await?;
    client::until(&mut b, moved).await?;
    let player = |ws, token| Player {
        ws,
        token,
        game,
        board: board.clone(),
        seq,
    };
    Ok([player(a, a_token), player(b, b_token)])
}

/// Seats every player on `url`.
async fn seat(url: &str, options: &FailoverOptions, errors: &Errors) -> Vec<Player> {
    let gate = Arc::new(Semaphore::new(SETUP_AT_ONCE));
    let mut set = JoinSet::new();
    for i in 0..options.ai_games + options.pairs {
        let (url, gate, ai) = (url.to_owned(), gate.clone(), i < options.ai_games);
        set.spawn(async move {
            let _permit = gate.acquire_owned().await;
            if ai {
                ai_player(&url, i).await.map(|p| vec![p])
            } else {
                human_pair(&url, i).await.map(Vec::from)
            }
        });
    }
    let mut players = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(Ok(seated)) => players.extend(seated),
            Ok(Err(err)) => errors.add_err(&err),
            Err(_) => errors.add("panic"),
        }
    }
    players
}

/// One player after the kill: waits for its socket to close, comes back on `url` with its token,
/// and reads its game again; moves on if it is its turn.
async fn come_back(player: Player, url: String, killed: Instant, tally: Arc<Tally>) {
    let Player {
        mut ws,
        token,
        game,
        board,
        seq,
    } = player;
    let closed = timeout(Duration::from_secs(10), async {
        while let Some(Ok(_)) = ws.next().await {}
    })
    .await;
    if closed.is_err() {
        tally.errors.add("not_closed");
    }
    tally.closed.record(killed.elapsed());
    drop(ws);
    let back = async {
        // On another node the welcome says `resumed: false` (the session there is new); the
        // player's games follow it all the same.
        let (mut ws, _) = hello(&url, "back", Some(token))
            .await
            .context("welcome back")?;
        tally.welcome.record(killed.elapsed());
        let state = client::until(&mut ws, |m| match m {
            ServerMessage::GameState(state) if state.game == game => Some(*state),
            _ => None,
        })
        .await
        .context("game_state back")?;
        tally.resumed.record(killed.elapsed());
        if still_holds(&state.board, &board) && state.seq >= seq {
            tally.intact.fetch_add(1, Ordering::Relaxed);
        } else {
            tally.errors.add(if state.board == board {
                "seq_behind"
            } else {
                "board_changed"
            });
            eprintln!(
                "failover: game {} came back as {} at seq {} (was {} at seq {seq})",
                game.0, state.board, state.seq, board
            );
        }
        if state.to_move.is_some() && state.to_move == state.you {
            tally.to_move.fetch_add(1, Ordering::Relaxed);
            let cell = first_empty(&state.board).unwrap_or(0);
            client::send(&mut ws, ClientMessage::Move { game, cell }).await?;
            let me = state.you;
            client::until(&mut ws, |m| match m {
                ServerMessage::Moved { game: g, mark, .. } if g == game && Some(mark) == me => {
                    Some(())
                }
                _ => None,
            })
            .await
            .with_context(|| format!("move acknowledged in game {}", game.0))?;
            tally.moved_on.fetch_add(1, Ordering::Relaxed);
        }
        Ok::<_, anyhow::Error>(ws)
    };
    match back.await {
        Ok(ws) => client::close(ws).await,
        Err(err) => tally.errors.add_err(&err),
    }
}

/// Runs a failover: players seated on `nodes[0]`, which is killed; they come back on the others
/// in turn.
pub async fn run(nodes: &[Target], options: &FailoverOptions) -> anyhow::Result<Failover> {
    anyhow::ensure!(nodes.len() >= 2, "a failover needs two nodes at least");
    let tally = Arc::new(Tally::default());
    let players = seat(&nodes[0].url, options, &tally.errors).await;
    let count = players.len() as u64;
    // Let the games settle on their node (leases renewed once, writes done).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let killed = Instant::now();
    nodes::kill(&nodes[0])?;
    let mut set = JoinSet::new();
    for (i, player) in players.into_iter().enumerate() {
        let url = nodes[1 + i % (nodes.len() - 1)].url.clone();
        set.spawn(come_back(player, url, killed, tally.clone()));
    }
    while set.join_next().await.is_some() {}
    Ok(Failover {
        lease_ms: options.lease_ms,
        players: count,
        closed: tally.closed.latency(),
        welcome: tally.welcome.latency(),
        resumed: tally.resumed.latency(),
        intact: tally.intact.load(Ordering::Relaxed),
        to_move: tally.to_move.load(Ordering::Relaxed),
        moved_on: tally.moved_on.load(Ordering::Relaxed),
        errors: tally.errors.snapshot(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_holds_when_every_mark_seen_is_still_there() {
        assert!(still_holds("XO..", "X..."));
        assert!(still_holds("X...", "X..."));
        assert!(!still_holds("....", "X..."));
        assert!(!still_holds("O...", "X..."));
        assert!(!still_holds("X..", "X..."));
    }
}
