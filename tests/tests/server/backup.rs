//! Operating a server: a backup of its live SQLite database taken with `noughts-server backup`
//! (through the operator's socket beside the database) while a hundred tables play, restored into a new server that serves every game finished
//! before it; and the systemd unit in `deploy/`, checked by `systemd-analyze verify`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use noughts_protocol::{ClientMessage, GameId, Mark, ServerMessage, Variant};
use noughts_tests::process::ServerProcess;
use noughts_tests::{Client, Scratch, WAIT, alternate, binary};
use tokio::time::{Instant, sleep};

/// X's win along the top row.
const WIN: [usize; 5] = [0, 3, 1, 4, 2];

/// Games played at once, each table starting the next as soon as one ends.
const TABLES: usize = 100;

/// Two players meet in a room and play [`WIN`] to its end; the game.
async fn play_one_game(url: &str, n: usize) -> GameId {
    let mut host = Client::join(url, &format!("host{n}")).await;
    let code = host.create_room(1, Variant::Classic, false).await;
    let mut guest = Client::join(url, &format!("guest{n}")).await;
    guest.send(ClientMessage::JoinRoom { code }).await;
    let state = host.game_state().await;
    let _ = guest.game_state().await;
    let (mut x, mut o) = if state.you == Some(Mark::X) {
        (host, guest)
    } else {
        (guest, host)
    };
    alternate(&mut x, &mut o, state.game, &WIN).await;
    x.saw(|m| matches!(m, ServerMessage::GameOver { .. })).await;
    state.game
}

/// `noughts-server --db DB backup --to TO`, and `more` options: through the operator's socket
/// of the server running on `db`.
fn run_backup(db: &OsStr, to: &Path, more: &[&OsStr]) -> std::process::Output {
    Command::new(binary::path("noughts-server"))
        .arg("--db")
        .arg(db)
        .args(["backup", "--to"])
        .arg(to)
        .args(more)
        .output()
        .expect("run noughts-server backup")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_during_play_restores_every_finished_game() {
    let dir = Scratch::new("backup");
    let bin = binary::path("noughts-server");
    // Every player comes from 127.0.0.1: the per-address caps would count them as one.
    let mut live = ServerProcess::start(
        &bin,
        &dir.dir,
        &[
            "--max-connections-per-ip",
            "100000",
            "--max-rooms-per-ip",
            "100000",
        ],
    );
    let url = live.url.clone();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for table in 0..TABLES {
        let (url, finished, stop) = (url.clone(), finished.clone(), stop.clone());
        players.push(tokio::spawn(async move {
            let mut n = table * 1000;
            while !stop.load(Ordering::Relaxed) {
                let game = play_one_game(&url, n).await;
                finished.lock().unwrap().push(game);
                n += 1;
            }
        }));
    }
    let deadline = Instant::now() + WAIT;
    while finished.lock().unwrap().len() < TABLES {
        assert!(Instant::now() < deadline, "games did not finish");
        sleep(std::time::Duration::from_millis(20)).await;
    }
    // Taken while the tables play on.
    let before: Vec<GameId> = finished.lock().unwrap().clone();
    let copy = dir.dir.join("copy.db");
    let db = live.db.clone();
    let backup = tokio::task::spawn_blocking(move || run_backup(&db, &copy, &[]))
        .await
        .unwrap();
    assert!(
        backup.status.success(),
        "backup failed: {}",
        String::from_utf8_lossy(&backup.stderr)
    );
    assert!(String::from_utf8_lossy(&backup.stdout).starts_with("backed up "));
    let during = finished.lock().unwrap().len();
    // Play goes on after it, too.
    let deadline = Instant::now() + WAIT;
    while finished.lock().unwrap().len() < during + TABLES {
        assert!(Instant::now() < deadline, "games stopped after the backup");
        sleep(std::time::Duration::from_millis(20)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for player in players {
        player.await.unwrap();
    }
    live.terminate();
    assert!(live.exited().await.success());
    let copy = dir.dir.join("copy.db");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the copy holds token hashes");
    }

    // Restored: a server on the copy serves every game finished before the backup.
    let restored_dir = Scratch::new("backup-restored");
    let restored_db = restored(&copy, &restored_dir.dir);
    // One reader asks for every record at once: past the usual rate of requests.
    let restored = ServerProcess::start_on(
        &bin,
        &restored_dir.dir,
        restored_db.as_os_str(),
        &["--rate", "10000", "--burst", "10000"],
    );
    let mut reader = Client::join(&restored.url, "reader").await;
    for (i, game) in before.iter().enumerate() {
        let record = reader.record(i as u64 + 1, *game).await;
        let cells: Vec<usize> = record.moves.iter().map(|m| m.cell).collect();
        assert_eq!(cells, WIN, "game {game:?}");
        assert!(record.ended_ms.is_some() && record.result.is_some());
    }
}

/// The restore an operator does: the copy put in the database's place (no `-wal` beside it).
fn restored(copy: &Path, dir: &Path) -> PathBuf {
    let db = dir.join("noughts.db");
    std::fs::copy(copy, &db).expect("restore the copy");
    db
}

#[tokio::test]
async fn a_backup_is_refused_for_a_store_that_is_not_sqlite() {
    let dir = Scratch::new("backup-memory");
    let bin = binary::path("noughts-server");
    // Given an operator's socket, a server in memory takes the admin commands there.
    let socket = dir.dir.join("memory.admin");
    let socket_arg = socket.to_str().unwrap();
    let _server = ServerProcess::start_on(
        &bin,
        &dir.dir,
        ":memory:".as_ref(),
        &["--admin-socket", socket_arg],
    );
    let to = dir.dir.join("copy.db");
    let out = tokio::task::spawn_blocking({
        let to = to.clone();
        let more: [OsString; 2] = ["--admin-socket".into(), socket.into_os_string()];
        move || {
            let more: Vec<&OsStr> = more.iter().map(AsRef::as_ref).collect();
            run_backup(":memory:".as_ref(), &to, &more)
        }
    })
    .await
    .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("pg_dump"), "{said}");
    assert!(!to.exists() && !dir.dir.join("copy.db.partial").exists());
}

#[test]
fn the_service_unit_passes_systemd_analyze_verify() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "systemd-analyze is missing, and CI must verify the unit"
        );
        eprintln!("SKIPPED: systemd-analyze is not installed here; .ci/run installs it");
        return;
    }
    let unit = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/noughts-server.service");
    let text = std::fs::read_to_string(&unit).expect("read the unit");
    // Verified with the real binary in the place the unit names.
    let binary = binary::path("noughts-server");
    let text = text.replace(
        "ExecStart=/usr/local/bin/noughts-server",
        &format!("ExecStart={}", binary.display()),
    );
    assert!(
        text.contains(&binary.display().to_string()),
        "the unit's ExecStart moved"
    );
    let dir = Scratch::new("unit");
    let copy = dir.dir.join("noughts-server.service");
    std::fs::write(&copy, &text).unwrap();
    let verify = |path: &Path| {
        Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(path)
            .output()
            .expect("run systemd-analyze")
    };
    let out = verify(&copy);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
    for line in [
        "DynamicUser=yes",
        "StateDirectory=noughts",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
    ] {
        assert!(text.lines().any(|l| l == line), "the unit lacks {line}");
    }
    // The check itself can fail: a misspelt setting is reported.
    let broken = dir.dir.join("broken.service");
    std::fs::write(&broken, text.replace("NoNewPrivileges=", "NoNewPrivilege=")).unwrap();
    let said = String::from_utf8_lossy(&verify(&broken).stderr).into_owned();
    assert!(said.contains("NoNewPrivilege"), "{said}");
}
