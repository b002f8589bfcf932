//! A move whose commit was cut off: the database stopped as it committed, so the mover was told
//! nothing was played, yet the move was stored. The row is written here straight into the real
//! PostgreSQL, as that earlier try left it; the mover then tries another cell at that ply. The
//! stored move stands: both players see it played, the new try is refused saying why, and the
//! game goes on from the store's position.

use std::process::Command;

use noughts_protocol::{ClientMessage, ErrorCode, Mark, ServerMessage, Variant};
use noughts_server::{Config, StoreConfig};
use noughts_tests::postgres::Postgres;
use noughts_tests::{TestServer, alternate, quick_match, test_config};

#[tokio::test]
async fn a_move_stored_by_a_try_whose_answer_was_lost_stands_over_another_cell() {
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    let db = postgres.database("cut_off");
    let server = TestServer::start(Config {
        store: StoreConfig::Postgres(db.clone()),
        ..test_config()
    })
    .await;
    let (mut x, mut o, state) = quick_match(&server.url(), Variant::Classic).await;
    let game = state.game;
    alternate(&mut x, &mut o, game, &[0]).await;
    // O's earlier try at 4: committed, its answer lost.
    let sql = format!(
        "INSERT INTO moves (game, ply, cell, at_ms, clock_ms) VALUES ({}, 1, 4, 0, NULL)",
        game.0
    );
    let out = Command::new(postgres.program("psql"))
        .args(["-v", "ON_ERROR_STOP=1", "-d", &db, "-c", &sql])
        .output()
        .expect("run psql");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // O tries another cell: the stored move is played instead, and the try refused.
    let reply = o.request(7, ClientMessage::Move { game, cell: 8 }).await;
    let ServerMessage::Error { code, message } = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(code, ErrorCode::NotYourTurn, "{message}");
    assert!(message.contains("earlier move at 4"), "{message}");
    for client in [&mut x, &mut o] {
        client
            .saw(|m| {
                matches!(m, ServerMessage::Moved { game: g, cell: 4, mark: Mark::O, .. } if *g == game)
            })
            .await;
    }
    // The game goes on from there, and the store has it as everyone saw it.
    alternate(&mut x, &mut o, game, &[1, 8, 2]).await;
    let record = x.record(9, game).await;
    let cells: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
    assert_eq!(cells, [0, 4, 1, 8, 2]);
}
