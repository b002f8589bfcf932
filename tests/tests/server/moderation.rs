//! Moderation end to end on one node with a real SQLite file: players muting (their chat no
//! longer reaches the muter), blocking (never paired, rooms refused) and reporting; and the
//! operator's `noughts-server admin` commands through the running server's operator's socket:
//! reports listed with their games, bans of a player and of an address range, chat mutes,
//! reserved names, an ended game, and the audit of them all, naming the user who ran them.

use std::ffi::OsStr;

use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, Report, ReportCategory, Seek, ServerMessage, Variant, close,
};
use noughts_tests::process::{ServerProcess, admin, own_uid};
use noughts_tests::{Client, Scratch, TestServer, WAIT, binary, file_config};
use tokio::time::{Instant, sleep};

/// `host` opens a room and `guest` joins it; both with the game's snapshot read.
async fn room_game(host: &mut Client, guest: &mut Client) -> GameId {
    let code = host.create_room(1, Variant::Classic, false).await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let state = host.game_state().await;
    let _ = guest.game_state().await;
    state.game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_muted_players_chat_no_longer_reaches_the_muter() {
    let dir = Scratch::new("mute");
    let server = TestServer::start(file_config(dir.db())).await;
    let mut ada = Client::join(&server.url(), "ada").await;
    let mut bo = Client::join(&server.url(), "bo").await;
    let game = room_game(&mut ada, &mut bo).await;
    let mute = ClientMessage::Mute { player: bo.player };
    assert_eq!(ada.request(10, mute).await, ServerMessage::Ok);
    bo.say(game, "you will not read this").await;
    ada.send(ClientMessage::Chat {
        game,
        text: "quiet here".to_owned(),
    })
    .await;
    assert_eq!(ada.chat_until("quiet here").await, Vec::<String>::new());
    // The list names whom ada mutes; unmuting lets bo's next line through.
    let list = ada.request(11, ClientMessage::ModerationList).await;
    let ServerMessage::ModerationList { muted, blocked } = list else {
        panic!("expected moderation_list, got {list:?}");
    };
    assert_eq!(muted.len(), 1);
    assert_eq!((muted[0].player, muted[0].name.as_str()), (bo.player, "bo"));
    assert!(blocked.is_empty());
    let unmute = ClientMessage::Unmute { player: bo.player };
    assert_eq!(ada.request(12, unmute).await, ServerMessage::Ok);
    bo.say(game, "hello again").await;
    ada.send(ClientMessage::Chat {
        game,
        text: "welcome back".to_owned(),
    })
    .await;
    assert_eq!(ada.chat_until("welcome back").await, vec!["hello again"]);
    ada.expect_error(
        13,
        ClientMessage::Mute { player: ada.player },
        ErrorCode::OwnPlayer,
    )
    .await;
    let nobody = noughts_protocol::PlayerId(999_999);
    ada.expect_error(
        14,
        ClientMessage::Block { player: nobody },
        ErrorCode::NoSuchPlayer,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_players_are_never_paired_and_cannot_join_each_others_rooms() {
    let dir = Scratch::new("block");
    let server = TestServer::start(file_config(dir.db())).await;
    let url = server.url();
    let mut cy = Client::join(&url, "cy").await;
    let mut di = Client::join(&url, "di").await;
    let block = ClientMessage::Block { player: di.player };
    assert_eq!(cy.request(1, block).await, ServerMessage::Ok);
    // A room of either is refused to the other, whoever blocked.
    let code = cy.create_room(2, Variant::Classic, false).await;
    di.expect_error(
        3,
        ClientMessage::JoinRoom { code: code.clone() },
        ErrorCode::Blocked,
    )
    .await;
    let close_room = ClientMessage::CloseRoom { code };
    assert_eq!(cy.request(4, close_room).await, ServerMessage::Ok);
    // Quick match passes the blocked seek over: di waits, and the next player meets cy.
    let seek = || {
        ClientMessage::Seek(Seek {
            variant: Variant::Four,
            clock: None,
            rated: false,
            bots: false,
        })
    };
    let seeking = cy.request(5, seek()).await;
    assert!(
        matches!(seeking, ServerMessage::Seeking { .. }),
        "{seeking:?}"
    );
    let seeking = di.request(6, seek()).await;
    let ServerMessage::Seeking { seek: di_seek, .. } = seeking else {
        panic!("di should wait, got {seeking:?}");
    };
    let mut ed = Client::join(&url, "ed").await;
    ed.send(seek()).await;
    let met = ed.game_state().await;
    let cy_game = cy.game_state().await;
    assert_eq!(met.game, cy_game.game);
    // And cy may not take di's seek from the lobby either.
    let accept = ClientMessage::AcceptSeek { seek: di_seek };
    cy.expect_error(8, accept, ErrorCode::Blocked).await;
    assert_eq!(
        di.request(9, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );
    let unblock = ClientMessage::Unblock { player: di.player };
    assert_eq!(cy.request(10, unblock).await, ServerMessage::Ok);
    let code = di.create_room(11, Variant::Classic, false).await;
    cy.send(ClientMessage::JoinRoom { code }).await;
    let _ = cy.game_state().await;
}

/// Every operator action of the test is in the audit, with who and why: the user the command
/// ran as, as the server saw it, and the name it gave.
fn check_audit(db: &OsStr) {
    let audit = admin(db, &["audit"]);
    let by = format!("(uid {}) as \"ops\": ", own_uid());
    for line in [
        "end_game game",
        "chat_mute player",
        "reserve Zed: the owner's name",
        "ban player",
        "ban_range 127.0.0.0/8: closed for now",
        "unban_range 127.0.0.0/8: open again",
    ] {
        let line = format!("{by}{line}");
        assert!(audit.contains(&line), "no {line:?} in the audit:\n{audit}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_commands_hold_on_a_running_server() {
    let dir = Scratch::new("admin");
    let bin = binary::path("noughts-server");
    let live = ServerProcess::start(&bin, &dir.dir, &[]);
    let (url, db) = (live.url.clone(), live.db.clone());
    let mut ada = Client::join(&url, "ada").await;
    let mut bo = Client::join(&url, "bo").await;
    let game = room_game(&mut ada, &mut bo).await;
    // A report, kept with its game and listed for the operator.
    let report = |reason: &str| {
        ClientMessage::Report(Report {
            player: bo.player,
            category: ReportCategory::Abuse,
            reason: reason.to_owned(),
            game: Some(game),
        })
    };
    ada.expect_error(1, report("  "), ErrorCode::BadReport)
        .await;
    assert_eq!(
        ada.request(2, report("insults after the game")).await,
        ServerMessage::Ok
    );
    let reports = admin(&db, &["reports"]);
    assert!(
        reports.contains(&format!(
            "player {} reports player {} for abuse: insults after the game",
            ada.player.0, bo.player.0
        )),
        "{reports}"
    );
    assert!(
        reports.contains(&format!("in game {}: classic", game.0)),
        "{reports}"
    );
    // The operator ends the game: both players hear it ended, aborted.
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
    for player in [&mut ada, &mut bo] {
        let over = player
            .until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        let ServerMessage::GameOver { result, .. } = over else {
            unreachable!()
        };
        assert_eq!(result.reason, noughts_protocol::EndReason::Aborted);
    }
    // A chat mute for a time.
    let game = room_game(&mut ada, &mut bo).await;
    admin(
        &db,
        &[
            "mute",
            "--player",
            &ada.player.0.to_string(),
            "--minutes",
            "5",
            "--reason",
            "flooding",
        ],
    );
    ada.until_chat_muted(game).await;
    // Reserved names: the built-in ones at once, the operator's once written.
    noughts_tests::hello::until_hello_refused(&url, "AI (perfect)", None, ErrorCode::ReservedName)
        .await;
    noughts_tests::hello::until_hello_refused(&url, "Admin", None, ErrorCode::ReservedName).await;
    admin(
        &db,
        &["reserve", "--name", "Zed", "--reason", "the owner's name"],
    );
    noughts_tests::hello::until_hello_refused(&url, "zed", None, ErrorCode::ReservedName).await;
    // A ban ends bo's live connection and refuses his token.
    admin(
        &db,
        &[
            "ban",
            "--player",
            &bo.player.0.to_string(),
            "--reason",
            "abuse",
        ],
    );
    let banned = bo.until(|m| matches!(m, ServerMessage::Error { .. })).await;
    assert!(
        matches!(&banned, ServerMessage::Error { code: ErrorCode::Banned, message } if message.contains("abuse")),
        "{banned:?}"
    );
    assert_eq!(bo.closed().await, Some(close::POLICY_VIOLATION));
    noughts_tests::hello::until_hello_refused(
        &url,
        "bo",
        Some(bo.token.clone()),
        ErrorCode::Banned,
    )
    .await;
    // A range: every new connection from it is refused at hello.
    admin(
        &db,
        &[
            "ban",
            "--range",
            "127.0.0.0/8",
            "--reason",
            "closed for now",
        ],
    );
    noughts_tests::hello::until_hello_refused(&url, "fay", None, ErrorCode::Banned).await;
    admin(
        &db,
        &["unban", "--range", "127.0.0.0/8", "--reason", "open again"],
    );
    let deadline = Instant::now() + WAIT;
    while !matches!(
        noughts_tests::hello::hello_answer(&url, "fay", None).await,
        ServerMessage::Welcome { .. }
    ) {
        assert!(Instant::now() < deadline, "the range stayed banned");
        sleep(std::time::Duration::from_millis(50)).await;
    }
    check_audit(&db);
}
