//! Moderation across two nodes on one real Redis and one real PostgreSQL: what the operator's
//! `noughts-server admin` writes to the database holds on a node it never spoke to (a ban ends a
//! player's session there, a chat mute refuses chat there, a game is ended where it is played,
//! a reserved name and a banned range are refused there), and a player's block made on one
//! node refuses a player of the other.

use std::process::Command;

use noughts_protocol::{ClientMessage, EndReason, ErrorCode, ServerMessage, Variant, Watch, close};
use noughts_server::{Config, StoreConfig};
use noughts_tests::hello::{hello_answer, until_hello_refused};
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, WAIT, binary, test_config};

/// Runs `noughts-server --db db admin --operator ops ARGS`, straight against the database.
fn admin(db: &str, args: &[&str]) -> String {
    let output = Command::new(binary::path("noughts-server"))
        .args(["--db", db, "admin", "--operator", "ops"])
        .args(args)
        .output()
        .expect("run noughts-server admin");
    assert!(
        output.status.success(),
        "admin {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_ban_and_mute_hold_on_every_node() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("moderation");
    let store = StoreConfig::Postgres(db.clone());
    let nodes = super::nodes(&redis, 2, || Config {
        store: store.clone(),
        ..test_config()
    })
    .await;
    let url = |n: usize| nodes[n].url();
    // A block made on node 2 refuses a player of node 1 there.
    let mut ada = Client::join(&url(0), "ada").await;
    let mut bo = Client::join(&url(1), "bo").await;
    let block = ClientMessage::Block { player: ada.player };
    assert_eq!(bo.request(1, block).await, ServerMessage::Ok);
    let code = bo.create_room(2, Variant::Classic, false).await;
    ada.expect_error(3, ClientMessage::JoinRoom { code }, ErrorCode::Blocked)
        .await;
    // The operator mutes bo's chat and then bans him, writing only to PostgreSQL; node 2, where
    // bo is connected, learns of both from the database.
    let mut cy = Client::join(&url(1), "cy").await;
    let code = cy.create_room(4, Variant::Classic, false).await;
    bo.send(ClientMessage::JoinRoom { code }).await;
    let _ = cy.game_state().await;
    let game = bo.game_state().await.game;
    let bo_id = bo.player.0.to_string();
    admin(
        &db,
        &[
            "mute",
            "--player",
            &bo_id,
            "--minutes",
            "10",
            "--reason",
            "flood",
        ],
    );
    bo.until_chat_muted(game).await;
    admin(&db, &["ban", "--player", &bo_id, "--reason", "abuse"]);
    let banned = bo.until(|m| matches!(m, ServerMessage::Error { .. })).await;
    assert!(
        matches!(
            banned,
            ServerMessage::Error {
                code: ErrorCode::Banned,
                ..
            }
        ),
        "{banned:?}"
    );
    assert_eq!(bo.closed().await, Some(close::POLICY_VIOLATION));
    // The operator ends a game node 1 plays, and reserves a name and bans a range that node 2
    // then refuses at hello: all written only to PostgreSQL.
    let mut dee = Client::join(&url(0), "dee").await;
    let mut eve = Client::join(&url(0), "eve").await;
    let code = dee.create_room(10, Variant::Classic, false).await;
    eve.send(ClientMessage::JoinRoom { code }).await;
    let game = dee.game_state().await.game;
    let _ = eve.game_state().await;
    admin(
        &db,
        &[
            "end-game",
            "--game",
            &game.0.to_string(),
            "--reason",
            "test",
        ],
    );
    for player in [&mut dee, &mut eve] {
        let over = player
            .until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        let ServerMessage::GameOver { result, .. } = over else {
            unreachable!()
        };
        assert_eq!(result.reason, EndReason::Aborted);
    }
    admin(
        &db,
        &["reserve", "--name", "Zed", "--reason", "the owner's name"],
    );
    until_hello_refused(&url(1), "zed", None, ErrorCode::ReservedName).await;
    admin(
        &db,
        &["ban", "--range", "127.0.0.0/8", "--reason", "closed"],
    );
    until_hello_refused(&url(1), "fay", None, ErrorCode::Banned).await;
    admin(
        &db,
        &["unban", "--range", "127.0.0.0/8", "--reason", "open"],
    );
    let deadline = tokio::time::Instant::now() + WAIT;
    while !matches!(
        hello_answer(&url(1), "fay", None).await,
        ServerMessage::Welcome { .. }
    ) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the range stayed banned"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let audit = admin(&db, &["audit"]);
    for line in [
        "by ops: chat_mute player".to_owned(),
        format!("by ops: ban player {bo_id}: abuse"),
        format!("by ops: end_game game {}", game.0),
        "by ops: reserve Zed: the owner's name".to_owned(),
        "by ops: ban_range 127.0.0.0/8: closed".to_owned(),
        "by ops: unban_range 127.0.0.0/8: open".to_owned(),
    ] {
        assert!(audit.contains(&line), "no {line:?} in the audit:\n{audit}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_on_another_node_is_spared_the_chat_of_players_they_mute() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let store = StoreConfig::Postgres(postgres.database("remote_mute"));
    let nodes = super::nodes(&redis, 2, || Config {
        store: store.clone(),
        ..test_config()
    })
    .await;
    // ada and bo play on node 1; cy watches from node 2 and mutes bo.
    let mut ada = Client::join(&nodes[0].url(), "ada").await;
    let mut bo = Client::join(&nodes[0].url(), "bo").await;
    let code = ada.create_room(1, Variant::Classic, false).await;
    bo.send(ClientMessage::JoinRoom { code }).await;
    let game = ada.game_state().await.game;
    let _ = bo.game_state().await;
    let mut cy = Client::join(&nodes[1].url(), "cy").await;
    let mute = ClientMessage::Mute { player: bo.player };
    assert_eq!(cy.request(2, mute).await, ServerMessage::Ok);
    let watch = ClientMessage::Watch(Watch { game, code: None });
    assert!(matches!(
        cy.request(3, watch.clone()).await,
        ServerMessage::GameState(_)
    ));
    for (who, text) in [(&mut bo, "from bo"), (&mut ada, "from ada")] {
        who.say(game, text).await;
    }
    assert_eq!(cy.chat_until("from ada").await, Vec::<String>::new());
    // Watching again, the snapshot holds ada's line and not bo's.
    assert_eq!(
        cy.request(4, ClientMessage::Unwatch { game }).await,
        ServerMessage::Ok
    );
    let ServerMessage::GameState(state) = cy.request(5, watch).await else {
        panic!("watch again");
    };
    let lines: Vec<&str> = state.chat.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(lines, ["from ada"]);
    // dee, who mutes nobody, watching from node 2 too, reads both.
    let mut dee = Client::join(&nodes[1].url(), "dee").await;
    let ServerMessage::GameState(state) = dee
        .request(1, ClientMessage::Watch(Watch { game, code: None }))
        .await
    else {
        panic!("dee watches");
    };
    let lines: Vec<&str> = state.chat.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(lines, ["from bo", "from ada"]);
}
