//! No `seq` a client saw is given out again after SIGKILL: presence, chat and watcher counts are
//! not stored, yet a restored game goes on above every `seq` sent before the crash, on SQLite
//! and on PostgreSQL alike.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use noughts_protocol::ServerMessage;
use serde_json::json;

use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::raw::*;
use noughts_tests::{Scratch, Socket, connect, seq_of};

fn start(dir: &std::path::Path, db: &OsStr) -> ServerProcess {
    ServerProcess::start_on(
        &noughts_tests::binary::path("noughts-server"),
        dir,
        db,
        &[
            "--grace-secs",
            "60",
            "--chat-per-minute",
            "60000",
            "--chat-burst",
            "1000",
            "--rate",
            "10000",
            "--burst",
            "10000",
        ],
    )
}

#[tokio::test]
async fn no_seq_is_reused_after_sigkill() {
    no_seq_reused("seq-after-kill", |dir| dir.join("noughts.db").into()).await;
}

#[tokio::test]
async fn no_seq_is_reused_after_sigkill_on_postgres() {
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    no_seq_reused("seq-after-kill-pg", |_| {
        postgres.database("seq_after_kill").into()
    })
    .await;
}

/// Two rounds of play, chat past the store's reserve, SIGKILL and a restart, each on a new
/// database that `db` makes (given the round's directory).
async fn no_seq_reused(name: &str, db: impl Fn(&Path) -> OsString) {
    let scratch = Scratch::new(name);
    for round in 0..2 {
        let dir = scratch.dir.join(format!("round-{round}"));
        std::fs::create_dir_all(&dir).unwrap();
        let db = db(&dir);
        let server = start(&dir, &db);
        let (mut ada, ada_token) = hello(&server.url, "ada").await;
        let (mut bob, bob_token) = hello(&server.url, "bob").await;
        for ws in [&mut ada, &mut bob] {
            send(ws, json!({"type": "seek", "variant": "classic"})).await;
            assert!(matches!(next(ws).await, ServerMessage::Seeking { .. }));
        }
        let ServerMessage::GameState(state) = next(&mut ada).await else {
            panic!()
        };
        let game = state.game;
        let _ = next(&mut bob).await;
        // One move, then many updates that are not moves (more than the store's reserve), the
        // last of them read just before the crash.
        let (mut x, mut o) = if state.you == Some(noughts_protocol::Mark::X) {
            (ada, bob)
        } else {
            (bob, ada)
        };
        send(&mut x, json!({"type": "move", "game": game.0, "cell": 4})).await;
        let mut seen = 0;
        for ws in [&mut x, &mut o] {
            if let Some((_, seq)) = seq_of(&next(ws).await) {
                seen = seen.max(seq);
            }
        }
        // Moves in between: a move raises the stored mark only when it runs low, so these
        // check that the marks a move leaves alone still cover every update. Each is read by O
        // before the next line, so that the two sides' moves come in turn.
        let moves: [(usize, bool, usize); 5] = [
            (7, false, 0),
            (15, true, 8),
            (23, false, 2),
            (31, true, 6),
            (39, false, 7),
        ];
        let lines = 40 + round * 7;
        for i in 0..lines {
            send(
                &mut x,
                json!({"type": "chat", "game": game.0, "text": format!("line {i}")}),
            )
            .await;
            if let Some(&(_, by_x, cell)) = moves.iter().find(|(at, ..)| *at == i) {
                let mover = if by_x { &mut x } else { &mut o };
                send(mover, json!({"type": "move", "game": game.0, "cell": cell})).await;
                let moved = |m: &ServerMessage| matches!(m, ServerMessage::Moved { cell: c, .. } if *c == cell);
                read_until(&mut o, &mut seen, moved).await;
            }
        }
        // Both read to the last line: X too, so that it answers the server's pings and is still
        // connected when the server is killed.
        let last = format!("line {}", lines - 1);
        let said =
            |m: &ServerMessage| matches!(m, ServerMessage::Chat { line, .. } if line.text == last);
        read_until(&mut o, &mut seen, said).await;
        read_until(&mut x, &mut seen, said).await;
        server.kill();
        drop((x, o));

        // The same database, a new process: the game comes back above everything seen.
        let server = start(&dir, &db);
        let mut back = connect(&server.url).await;
        let token = if state.you == Some(noughts_protocol::Mark::X) {
            &ada_token
        } else {
            &bob_token
        };
        send(
            &mut back,
            json!({"type": "hello", "id": 1, "protocol": 2, "name": "x", "token": token}),
        )
        .await;
        assert!(matches!(
            next(&mut back).await,
            ServerMessage::Welcome { resumed: true, .. }
        ));
        let ServerMessage::GameState(restored) = next(&mut back).await else {
            panic!("the game comes back")
        };
        assert_eq!(restored.game, game);
        assert!(
            restored.seq > seen,
            "round {round}: the restored game's seq {} is not above {seen}, already seen",
            restored.seq
        );
        send(
            &mut back,
            json!({"type": "chat", "game": game.0, "text": "still here"}),
        )
        .await;
        // Other updates may come first (the opponent's absence, say): every one of them is new
        // too.
        loop {
            let message = next(&mut back).await;
            if let Some((_, seq)) = seq_of(&message) {
                assert!(seq > seen, "a new update's seq {seq} was already given out");
            }
            match message {
                ServerMessage::Chat { .. } => break,
                ServerMessage::Error { .. } => {
                    // What the server said of the game, both processes, for whoever reads this.
                    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
                    let said: Vec<&str> = log
                        .lines()
                        .filter(|l| !l.contains("TRACE") && !l.contains("DEBUG"))
                        .collect();
                    panic!(
                        "round {round}: the chat line was refused: {message:?}\nthe server's log:\n{}",
                        said.join("\n")
                    )
                }
                _ => {}
            }
        }
        server.kill();
    }
}

/// Reads `ws` until a message `until` accepts, keeping in `seen` the highest `seq` read; a
/// refusal on the way fails the test.
async fn read_until(ws: &mut Socket, seen: &mut u64, until: impl Fn(&ServerMessage) -> bool) {
    loop {
        let message = next(ws).await;
        if let Some((_, seq)) = seq_of(&message) {
            *seen = (*seen).max(seq);
        }
        assert!(
            !matches!(message, ServerMessage::Error { .. }),
            "refused before the kill: {message:?}"
        );
        if until(&message) {
            return;
        }
    }
}
