//! The operator's commands refuse what would go wrong quietly: `noughts-server backup` does not
//! overwrite a file unless told to (`--force`), and an admin action on a player or a game the
//! database does not hold says so and exits non-zero, writing nothing, instead of "done".

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use noughts_tests::process::{ServerProcess, admin};
use noughts_tests::{Client, Scratch, binary};

/// `noughts-server ARGS`, run to its end.
fn run(args: &[&str], more: &[&Path]) -> Output {
    Command::new(binary::path("noughts-server"))
        .args(args)
        .args(more)
        .output()
        .expect("run noughts-server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_does_not_overwrite_a_file_unless_forced() {
    let dir = Scratch::new("backup-no-clobber");
    let server = ServerProcess::start(&binary::path("noughts-server"), &dir.dir, &[]);
    let db = server.db.to_str().unwrap().to_owned();
    let to = dir.dir.join("yesterday.db");
    std::fs::write(&to, "yesterday's backup").unwrap();
    let refused = tokio::task::spawn_blocking({
        let (db, to) = (db.clone(), to.clone());
        move || run(&["--db", &db, "backup", "--to"], &[&to])
    })
    .await
    .unwrap();
    assert!(!refused.status.success(), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("exists") && said.contains("--force"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "yesterday's backup");

    let forced = tokio::task::spawn_blocking({
        let to = to.clone();
        move || run(&["--db", &db, "backup", "--force", "--to"], &[&to])
    })
    .await
    .unwrap();
    assert!(forced.status.success(), "{forced:?}");
    let copy = std::fs::read(&to).unwrap();
    assert!(copy.starts_with(b"SQLite format 3\0"), "not a database");
}

/// `noughts-server admin ARGS` through the server running on `db`.
fn admin_output(db: &OsStr, args: &[&str]) -> Output {
    Command::new(binary::path("noughts-server"))
        .arg("--db")
        .arg(db)
        .args(["admin", "--operator", "ops"])
        .args(args)
        .output()
        .expect("run noughts-server admin")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_action_on_an_unknown_id_says_so_and_does_nothing() {
    let dir = Scratch::new("admin-unknown");
    let server = ServerProcess::start(&binary::path("noughts-server"), &dir.dir, &[]);
    let db = server.db.clone();
    let ada = Client::join(&server.url, "ada").await;
    let unknown = (ada.player.0 + 1000).to_string();
    let cases: [(&[&str], &str); 6] = [
        (&["ban", "--player", &unknown], "player"),
        (&["unban", "--player", &unknown], "player"),
        (&["mute", "--player", &unknown, "--minutes", "5"], "player"),
        (&["unmute", "--player", &unknown], "player"),
        (&["end-game", "--game", "987654"], "game"),
        (&["end-game", "--game", &unknown], "game"),
    ];
    for (args, what) in cases {
        let args = [args, &["--reason", "a mistyped id"]].concat();
        let out = tokio::task::spawn_blocking({
            let (db, args) = (db.clone(), args.iter().map(|a| a.to_string()));
            let args: Vec<String> = args.collect();
            move || admin_output(&db, &args.iter().map(String::as_str).collect::<Vec<_>>())
        })
        .await
        .unwrap();
        assert!(!out.status.success(), "{args:?} succeeded: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains(&format!("there is no {what} ")),
            "{args:?}: {said}"
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("done"));
    }
    // Nothing was written; an action on a player who exists still is.
    let db_for_audit = db.clone();
    let audit = tokio::task::spawn_blocking(move || admin(&db_for_audit, &["audit"]))
        .await
        .unwrap();
    assert_eq!(audit, "no operator actions\n");
    let player = ada.player.0.to_string();
    let done = tokio::task::spawn_blocking(move || {
        admin(
            &db,
            &[
                "mute",
                "--player",
                &player,
                "--minutes",
                "5",
                "--reason",
                "flood",
            ],
        )
    })
    .await
    .unwrap();
    assert!(done.starts_with("done: chat_mute player"), "{done}");
}
