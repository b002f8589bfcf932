//! The operator's plane asks who is calling. A server on a SQLite file listens for its operator
//! on a Unix socket beside the file, of its own user alone (mode 0600), made afresh over a stale
//! one and gone when it stops; another user can neither connect nor, were the socket opened to
//! everyone, be served (`SO_PEERCRED`); the audit names the user the kernel saw, whatever name
//! the caller gave; `noughts-server backup --to FILE` needs nothing more; and the metrics port
//! serves neither backups nor commands, and nothing to a request addressed by another name.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use noughts_tests::process::{ServerProcess, admin, own_uid};
use noughts_tests::{Client, Scratch, WAIT, binary};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

/// The operator's socket of a server on `db`.
fn socket_of(db: &OsStr) -> PathBuf {
    let mut path = db.to_owned();
    path.push(".admin");
    path.into()
}

/// Sends `request` whole on `stream` and returns the answer.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, request: &str) -> String {
    let talk = async {
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    tokio::time::timeout(WAIT, talk)
        .await
        .expect("an answer in time")
}

/// `noughts-server ARGS` as this test's user, run to its end.
async fn run(args: Vec<String>, env: Vec<(&'static str, PathBuf)>) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut command = Command::new(binary::path("noughts-server"));
        command.args(&args).env_remove("NOUGHTS_DB");
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("run noughts-server")
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_is_the_server_s_users_alone_made_over_a_stale_one_and_gone_at_the_end() {
    let dir = Scratch::new("admin-socket");
    let db = dir.db();
    let socket = socket_of(db.as_os_str());
    // A server that was killed left its socket behind.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let mut live = ServerProcess::start(&binary::path("noughts-server"), &dir.dir, &[]);
    // Once a player is served, the server has made its socket.
    drop(Client::join(&live.url, "ada").await);
    let meta = std::fs::symlink_metadata(&socket).expect("a socket beside the database");
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // The server's own user is served.
    let stream = UnixStream::connect(&socket).await.unwrap();
    let answer = exchange(stream, "GET /backup HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(
        answer.starts_with("HTTP/1.1 200 "),
        "{:?}",
        answer.lines().next()
    );
    assert!(answer.contains("SQLite format 3\0"));
    live.terminate();
    assert!(live.exited().await.success());
    assert!(!socket.exists(), "the socket outlived its server");
}

/// Whether this test may act as another user: root may (CI runs as root); anyone else skips,
/// loudly, outside CI.
fn may_be_somebody_else() -> bool {
    if own_uid() == 0 {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run the test of another user's call, as root"
    );
    eprintln!("SKIPPED: another user's call needs root (runuser -u nobody)");
    false
}

/// `noughts-server ARGS` run as the user `nobody`: whether it succeeded, and what it said.
fn as_nobody(binary: &Path, args: &[OsString]) -> (bool, String) {
    let output = Command::new("runuser")
        .args(["-u", "nobody", "--"])
        .arg(binary)
        .args(args)
        .env_remove("NOUGHTS_DB")
        .output()
        .expect("run runuser");
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

/// Arguments of a command, as given.
fn args(list: &[&OsStr]) -> Vec<OsString> {
    list.iter().map(|arg| arg.to_os_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_user_gets_no_backup_and_runs_no_command() {
    if !may_be_somebody_else() {
        return;
    }
    let dir = Scratch::new("admin-nobody");
    // Everyone may pass through the directory, and run the binary from it: only the socket's
    // own mode and the server's check of its caller stand in the way.
    std::fs::set_permissions(&dir.dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.dir.join("noughts-server");
    std::fs::copy(binary::path("noughts-server"), &bin).unwrap();
    let live = ServerProcess::start(&bin, &dir.dir, &[]);
    let ada = Client::join(&live.url, "ada").await;
    let socket = socket_of(&live.db);
    let to = dir.dir.join("stolen.db");
    let db = live.db.as_os_str();
    let backup = args(&[
        "--db".as_ref(),
        db,
        "backup".as_ref(),
        "--to".as_ref(),
        to.as_os_str(),
    ]);
    let player = ada.player.0.to_string();
    let ban = args(&[
        "--db".as_ref(),
        db,
        "admin".as_ref(),
        "--operator=root".as_ref(),
        "ban".as_ref(),
        "--player".as_ref(),
        player.as_ref(),
        "--reason".as_ref(),
        "because".as_ref(),
    ]);
    let attempts = tokio::task::spawn_blocking({
        let (bin, socket) = (bin.clone(), socket.clone());
        move || {
            // The socket's mode keeps nobody out.
            let first = (as_nobody(&bin, &backup), as_nobody(&bin, &ban));
            // And were it opened to all, the server asks who calls.
            std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();
            let second = (as_nobody(&bin, &backup), as_nobody(&bin, &ban));
            [first, second]
        }
    })
    .await
    .unwrap();
    let [(backup_closed, ban_closed), (backup_open, ban_open)] = attempts;
    for (done, said) in [&backup_closed, &ban_closed] {
        assert!(!done, "{said}");
        assert!(
            said.contains("for the server's own user and root"),
            "{said}"
        );
    }
    for (done, said) in [&backup_open, &ban_open] {
        assert!(!done, "{said}");
        assert!(said.contains("403"), "{said}");
        assert!(
            said.contains("own user (uid 0) and root only, not uid 65534"),
            "{said}"
        );
    }
    assert!(!to.exists(), "nobody took a copy");
    // Nothing was banned, and ada plays on.
    let audit = tokio::task::spawn_blocking({
        let db = live.db.clone();
        move || admin(&db, &["audit"])
    })
    .await
    .unwrap();
    assert_eq!(audit, "no operator actions\n");
    drop(ada);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_names_the_user_the_kernel_saw_whatever_name_was_given() {
    let dir = Scratch::new("admin-audit");
    let live = ServerProcess::start(&binary::path("noughts-server"), &dir.dir, &[]);
    let ada = Client::join(&live.url, "ada").await;
    let me = format!("(uid {})", own_uid());
    // Through the command, with a name of the operator's choosing.
    let said = run(
        [
            "--db",
            live.db.to_str().unwrap(),
            "admin",
            "--operator",
            "alice",
            "mute",
            "--player",
            &ada.player.0.to_string(),
            "--minutes",
            "5",
            "--reason",
            "flood",
        ]
        .map(str::to_owned)
        .to_vec(),
        Vec::new(),
    )
    .await;
    assert!(said.status.success(), "{said:?}");
    // By hand, claiming to be root and somebody else in the name.
    let request = format!(
        "{{\"operator\":\"root (uid 0)\",\"action\":{{\"Unmute\":{{\"player\":{},\"reason\":\"forged\"}}}}}}",
        ada.player.0
    );
    let stream = UnixStream::connect(socket_of(&live.db)).await.unwrap();
    let answer = exchange(
        stream,
        &format!("POST /admin HTTP/1.1\r\nX-Noughts-Admin: {request}\r\nContent-Length: 0\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    let audit = tokio::task::spawn_blocking({
        let db = live.db.clone();
        move || admin(&db, &["audit"])
    })
    .await
    .unwrap();
    let line = |kind: &str| {
        audit
            .lines()
            .find(|line| line.contains(kind))
            .unwrap_or_else(|| panic!("no {kind} in the audit:\n{audit}"))
            .to_owned()
    };
    let mute = line(": chat_mute player");
    assert!(mute.contains(&format!(" {me} as \"alice\": ")), "{mute}");
    let unmute = line(": chat_unmute player");
    assert!(
        unmute.contains(&format!(" {me} as \"root (uid 0)\": ")),
        "{unmute}"
    );
    drop(ada);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_is_one_command_and_admin_works_on_the_file_once_the_server_is_gone() {
    let dir = Scratch::new("admin-default");
    // The server on the default database of a user whose data directory is here.
    let data = dir.dir.join("data");
    let db = data.join("noughts").join("noughts.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let live = ServerProcess::start_on(
        &binary::path("noughts-server"),
        &dir.dir,
        db.as_os_str(),
        &[],
    );
    let ada = Client::join(&live.url, "ada").await;
    let env = vec![("HOME", dir.dir.clone()), ("XDG_DATA_HOME", data.clone())];
    let to = dir.dir.join("copy.db");
    let args = vec![
        "backup".to_owned(),
        "--to".to_owned(),
        to.to_str().unwrap().to_owned(),
    ];
    let backup = run(args, env.clone()).await;
    assert!(backup.status.success(), "{backup:?}");
    assert!(String::from_utf8_lossy(&backup.stdout).starts_with("backed up "));
    assert!(
        std::fs::read(&to)
            .unwrap()
            .starts_with(b"SQLite format 3\0")
    );
    // Killed, the server leaves its socket; the commands then open the file themselves.
    live.kill();
    assert!(socket_of(db.as_os_str()).exists());
    let player = ada.player.0.to_string();
    let mute = ["admin", "--operator", "ops", "mute", "--player", &player];
    let mute = [&mute[..], &["--minutes", "5", "--reason", "flood"]].concat();
    let said = run(mute.iter().map(|a| (*a).to_owned()).collect(), env.clone()).await;
    assert!(said.status.success(), "{said:?}");
    assert!(String::from_utf8_lossy(&said.stdout).starts_with("done: chat_mute"));
    // And a backup, which only a running server makes, says so.
    let again = run(
        vec![
            "backup".to_owned(),
            "--to".to_owned(),
            dir.dir.join("again.db").to_str().unwrap().to_owned(),
        ],
        env,
    )
    .await;
    assert!(!again.status.success());
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("no server answers on"), "{said}");
}

/// `request` to the metrics port `at`, whole; the answer.
async fn ask_metrics(at: &str, request: &str) -> String {
    exchange(TcpStream::connect(at).await.unwrap(), request).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_port_serves_no_backup_nor_command_and_only_by_its_own_address() {
    let dir = Scratch::new("metrics-host");
    let live = ServerProcess::start(
        &binary::path("noughts-server"),
        &dir.dir,
        &["--metrics-listen", "127.0.0.1:0"],
    );
    let ada = Client::join(&live.url, "ada").await;
    let metrics = live.metrics.clone().unwrap();
    let at = metrics
        .trim_start_matches("http://")
        .trim_end_matches("/metrics");
    let port = at.rsplit_once(':').unwrap().1;
    let ban = format!(
        "{{\"operator\":\"root\",\"action\":{{\"Ban\":{{\"player\":{},\"range\":null,\"reason\":\"x\"}}}}}}",
        ada.player.0
    );
    let policy = [
        "Content-Security-Policy: default-src 'none'",
        "X-Content-Type-Options: nosniff\r\n",
        "Referrer-Policy: no-referrer\r\n",
        "X-Frame-Options: DENY\r\n",
    ];
    for request in [
        format!("GET /backup HTTP/1.1\r\nHost: {at}\r\n\r\n"),
        format!("POST /admin HTTP/1.1\r\nHost: {at}\r\nX-Noughts-Admin: {ban}\r\n\r\n"),
    ] {
        let answer = ask_metrics(at, &request).await;
        assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
        assert!(answer.contains("admin socket"), "{answer}");
        assert!(!answer.contains("SQLite format"), "{answer}");
        for header in policy {
            assert!(answer.contains(header), "no {header:?} in {answer}");
        }
    }
    // Addressed by its own address, or localhost and its port, the port answers.
    for host in [at.to_owned(), format!("localhost:{port}")] {
        let answer = ask_metrics(
            at,
            &format!("GET /metrics HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{host}: {answer}");
        assert!(answer.contains("noughts_connections"), "{answer}");
        for header in policy {
            assert!(answer.contains(header), "no {header:?} in {answer}");
        }
    }
    // By any other name (a name rebound to this address by someone's DNS), or none, it does not.
    for host in [
        format!("Host: rebound.example:{port}\r\n"),
        "Host: 127.0.0.1\r\n".to_owned(),
        String::new(),
    ] {
        for path in ["/metrics", "/readyz", "/backup"] {
            let answer = ask_metrics(at, &format!("GET {path} HTTP/1.1\r\n{host}\r\n")).await;
            assert!(
                answer.starts_with("HTTP/1.1 421 "),
                "{host}{path}: {answer}"
            );
            assert!(!answer.contains("noughts_"), "{answer}");
            for header in policy {
                assert!(answer.contains(header), "no {header:?} in {answer}");
            }
        }
    }
    // Nothing was banned: ada's connection is still served.
    let audit = tokio::task::spawn_blocking({
        let db = live.db.clone();
        move || admin(&db, &["audit"])
    })
    .await
    .unwrap();
    assert_eq!(audit, "no operator actions\n");
    drop(ada);
}
