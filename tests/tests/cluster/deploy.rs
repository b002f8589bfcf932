//! `deploy/cluster`, the local cluster anyone can start: Redis, PostgreSQL, three nodes and
//! HAProxy in front. Players who connect through the load balancer land on different nodes and
//! see one lobby, with one war game per variant; `status` shows every part, each node serves
//! its metrics and answers a plain `/readyz` on its own port (where a PROXY header is not
//! believed), Redis keeps its append-only file in the cluster's directory, and `down` keeps
//! the logs. Nothing in it lets in a process without its password: Redis answers `NOAUTH`, the
//! nodes' Redis user runs no admin command, PostgreSQL asks every role for a password and the
//! nodes' role is no superuser; the secrets are files of this user's alone, and no process shows
//! one on its command line.

use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use noughts_protocol::{ClientMessage, GameKind, ServerMessage};
use noughts_tests::{Client, Scratch, WAIT, binary};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The cluster started by the script, stopped and its files removed (`purge`) when dropped.
pub(super) struct Deployed {
    pub(super) dir: Scratch,
    pub(super) port: u16,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/cluster")
}

impl Deployed {
    /// Runs `deploy/cluster VERB` on this cluster (`VERB` may carry options: `up --redis-shards 3`).
    pub(super) fn run(&self, verb: &str) -> std::process::Output {
        Deployed::run_in(&self.dir.dir, self.port, verb)
    }

    /// Runs `deploy/cluster VERB` on the cluster in `dir` on `port` (from another thread).
    pub(super) fn run_in(dir: &std::path::Path, port: u16, verb: &str) -> std::process::Output {
        Deployed::command(dir, port, verb)
            .output()
            .expect("run deploy/cluster")
    }

    /// `deploy/cluster VERB` on the cluster in `dir` on `port`, to run.
    pub(super) fn command(dir: &std::path::Path, port: u16, verb: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .arg(script())
            .args(verb.split_whitespace())
            .env("NOUGHTS_CLUSTER_DIR", dir.join("cluster"))
            .env("NOUGHTS_CLUSTER_PORT", port.to_string())
            .env("NOUGHTS_SERVER_BIN", binary::path("noughts-server"))
            // Every test client comes from 127.0.0.1: the per-address caps count them all as one.
            .env("NOUGHTS_MAX_CONNECTIONS_PER_IP", "100000")
            .env("NOUGHTS_MAX_ROOMS_PER_IP", "100000")
            .env("NOUGHTS_MAX_SEEKS_PER_IP", "100000");
        command
    }
}

impl Drop for Deployed {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("NOUGHTS_KEEP_CLUSTER_LOGS").is_some() {
            self.keep_logs();
        }
        let _ = self.run("purge");
    }
}

impl Deployed {
    /// Copies the nodes', the balancer's and Redis's logs out of the cluster's directory (which
    /// `purge` removes) to a directory of their own, and says where.
    fn keep_logs(&self) {
        let from = self.dir.dir.join("cluster");
        let kept = std::env::temp_dir().join(format!(
            "noughts-cluster-logs-{}-{}",
            std::process::id(),
            self.port
        ));
        if std::fs::create_dir_all(&kept).is_err() {
            return;
        }
        for entry in std::fs::read_dir(&from).into_iter().flatten().flatten() {
            let path = entry.path();
            if path
                .extension()
                .is_some_and(|ext| ext == "log" || ext == "cfg")
            {
                let _ = std::fs::copy(&path, kept.join(entry.file_name()));
            }
        }
        let _ = std::fs::copy(from.join("pg/log"), kept.join("postgresql.log"));
        eprintln!("the cluster's logs are kept in {}", kept.display());
    }
}

/// The secret `name` (`redis-admin.url`, `db.password`, ...) of the cluster in `cluster`, as
/// `deploy/cluster` keeps it in its `secrets` directory; `None` if there is no such file.
pub(super) fn secret(cluster: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(cluster.join("secrets").join(name))
        .ok()
        .map(|text| text.trim().to_owned())
}

/// A port with the eight after it free too: the balancer's, the nodes', Redis's, PostgreSQL's
/// and the nodes' metrics ports.
/// They are taken below the range the system picks the local ports of outgoing connections from
/// (32768 and up on Linux): the cluster's own hundreds of connections could otherwise take a
/// node's port while the node restarts.
pub(super) fn free_ports() -> u16 {
    use std::hash::{BuildHasher, RandomState};
    for attempt in 0..1000_u64 {
        let random = RandomState::new().hash_one((std::process::id(), attempt));
        let base = 20_000 + u16::try_from(random % 12_000).expect("below 12000");
        if (base..base + 9).all(|port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()) {
            return base;
        }
    }
    panic!("no nine free ports in a row");
}

/// Whether every program the script needs is here; under CI they must be.
pub(super) fn programs_present() -> bool {
    let missing: Vec<&str> = ["haproxy", "redis-server", "redis-cli"]
        .into_iter()
        .filter(|program| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {program}")])
                .output()
                .is_ok_and(|out| out.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{missing:?} missing, and CI must run the deployment test"
    );
    eprintln!("SKIPPED: {missing:?} not installed; .ci/run installs them");
    false
}

/// The war games the lobby lists, as seen through the balancer by a new player.
pub(super) async fn war_games(url: &str, name: &str) -> HashSet<u64> {
    let mut client = Client::join(url, name).await;
    match client.request(1, ClientMessage::SubscribeLobby).await {
        ServerMessage::Lobby { games, .. } => games
            .iter()
            .filter(|g| g.kind == GameKind::War)
            .map(|g| g.game.0)
            .collect(),
        other => panic!("a lobby snapshot, got {other:?}"),
    }
}

/// The whole answer to `request`, sent raw to `port` on this machine.
async fn ask(port: u16, request: &[u8]) -> String {
    let exchange = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.write_all(request).await?;
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        // A reset after the answer (the node closes on bytes it did not read) ends it too.
        while let Ok(n @ 1..) = stream.read(&mut buf).await {
            answer.extend_from_slice(&buf[..n]);
        }
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&answer).into_owned())
    };
    tokio::time::timeout(WAIT, exchange)
        .await
        .expect("an answer in time")
        .unwrap_or_else(|err| panic!("nothing answers on port {port}: {err}"))
}

/// `GET path` on `port`, as a plain client asks it.
async fn get(port: u16, path: &str) -> String {
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    ask(port, request.as_bytes()).await
}

/// What `deploy/cluster status` says, checked to show every part running and every node ready.
fn everything_runs(deployed: &Deployed) -> String {
    let status = deployed.run("status");
    assert!(status.status.success(), "{status:?}");
    let said = String::from_utf8_lossy(&status.stdout).into_owned();
    let line = |part: &str| {
        said.lines()
            .find(|line| line.starts_with(&format!("{part}: ")))
            .unwrap_or_else(|| panic!("status says nothing of {part}:\n{said}"))
    };
    assert!(
        line("redis").contains("running") && line("redis").ends_with("PING: PONG"),
        "{said}"
    );
    assert!(
        line("postgres").starts_with("postgres: running (pid "),
        "{said}"
    );
    assert!(
        line("haproxy").starts_with("haproxy: running (pid "),
        "{said}"
    );
    for i in 1..=3 {
        let node = line(&format!("node{i}"));
        assert!(
            node.contains("running") && node.ends_with("/readyz: 200 ready"),
            "{said}"
        );
    }
    said
}

/// `program` run as someone else than the cluster's user (`nobody`, when this test runs as
/// root), with no password from the environment or a password file.
fn as_stranger(program: &Path) -> Command {
    let root = noughts_tests::process::own_uid() == 0;
    let mut command = if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "nobody", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command
        .env_remove("PGPASSWORD")
        .env_remove("REDISCLI_AUTH")
        .env("PGPASSFILE", "/nonexistent/pgpass")
        .env("PGCONNECT_TIMEOUT", "5");
    command
}

/// `psql … -c sql` on the cluster's PostgreSQL (`host` an address or the socket's directory),
/// as `command` runs it.
fn psql(mut command: Command, host: &Path, port: u16, user: &str, sql: &str) -> (bool, String) {
    let out = command
        .args(["-X", "-w", "-t", "-A", "-h"])
        .arg(host)
        .args([
            "-p",
            &port.to_string(),
            "-U",
            user,
            "-d",
            "noughts",
            "-c",
            sql,
        ])
        .output()
        .expect("run psql");
    let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (
        out.status.success(),
        format!("{said}{}", String::from_utf8_lossy(&out.stderr)),
    )
}

/// Checks that the cluster in `cluster` on `port` lets in nobody without a password, and keeps
/// its passwords to its own user.
fn nobody_gets_in_without_a_password(cluster: &Path, port: u16) {
    let (redis_port, pg_port) = (port + 4, port + 5);
    // Redis answers nothing but NOAUTH to a client without a password.
    let ping = Command::new("redis-cli")
        .args(["-p", &redis_port.to_string(), "PING"])
        .env_remove("REDISCLI_AUTH")
        .output()
        .expect("run redis-cli");
    let said = String::from_utf8_lossy(&ping.stdout);
    assert!(
        said.contains("NOAUTH"),
        "redis-cli PING with no password: {said}"
    );
    // The nodes' user runs their commands, and no admin or dangerous one.
    let nodes = |args: &[&str]| {
        let out = Command::new("redis-cli")
            .args(["--user", "noughts", "-p", &redis_port.to_string()])
            .args(args)
            .env("REDISCLI_AUTH", secret(cluster, "redis.password").unwrap())
            .output()
            .expect("run redis-cli");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(nodes(&["PING"]), "PONG");
    for refused in [&["CONFIG", "GET", "dir"][..], &["FLUSHALL"], &["KEYS", "*"]] {
        let said = nodes(refused);
        assert!(
            said.starts_with("NOPERM"),
            "{refused:?} as the nodes' user: {said}"
        );
    }

    // PostgreSQL lets no role in without its password, over TCP or its socket, as another user.
    let opts = std::fs::read_to_string(cluster.join("pg/data/postmaster.opts"))
        .expect("PostgreSQL's postmaster.opts");
    let postgres = opts.split_whitespace().next().expect("the server's path");
    let psql_bin = Path::new(postgres).with_file_name("psql");
    for user in ["noughts", "postgres"] {
        for host in [Path::new("127.0.0.1"), &cluster.join("pg")] {
            let (ok, said) = psql(as_stranger(&psql_bin), host, pg_port, user, "select 1");
            assert!(
                !ok && said.contains("password"),
                "psql -U {user} -h {} with no password: {said}",
                host.display()
            );
        }
    }
    // With its password, the nodes' role is in, and no superuser.
    let mut superuser = Command::new(&psql_bin);
    superuser.env("PGPASSWORD", secret(cluster, "db-admin.password").unwrap());
    let sql = "select rolsuper from pg_roles where rolname = 'noughts'";
    let localhost = Path::new("127.0.0.1");
    assert_eq!(
        psql(superuser, localhost, pg_port, "postgres", sql),
        (true, "f".to_owned())
    );
    let mut node = Command::new(&psql_bin);
    node.env("PGPASSWORD", secret(cluster, "db.password").unwrap());
    assert_eq!(
        psql(node, localhost, pg_port, "noughts", "select current_user"),
        (true, "noughts".to_owned())
    );

    // The secrets are this user's alone, and none shows on a command line.
    let mode = |path: &Path| {
        std::fs::metadata(path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
            .permissions()
            .mode()
            & 0o777
    };
    let secrets = cluster.join("secrets");
    assert_eq!(mode(&secrets), 0o700, "{}", secrets.display());
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&secrets).unwrap().flatten() {
        assert_eq!(mode(&entry.path()), 0o600, "{}", entry.path().display());
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    assert_eq!(
        names,
        [
            "cluster.secret",
            "db-admin.password",
            "db-admin.url",
            "db.password",
            "db.url",
            "redis-admin.password",
            "redis-admin.url",
            "redis.password",
            "redis.url",
        ]
    );
    assert_eq!(mode(&cluster.join("redis.conf")), 0o600);
    let passwords: Vec<String> = names
        .iter()
        .filter(|name| !name.ends_with(".url"))
        .map(|name| secret(cluster, name).unwrap())
        .collect();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(line) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&line).replace('\0', " ");
        for password in &passwords {
            assert!(
                !line.contains(password.as_str()),
                "a password on a command line: {line}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_cluster_serves_one_lobby_through_its_load_balancer() {
    if !programs_present() || noughts_tests::postgres::Postgres::shared().is_none() {
        return;
    }
    let deployed = Deployed {
        dir: Scratch::new("deploy"),
        port: free_ports(),
    };
    let up = deployed.run("up");
    let said = String::from_utf8_lossy(&up.stdout);
    assert!(
        up.status.success(),
        "deploy/cluster up failed: {said}{}",
        String::from_utf8_lossy(&up.stderr)
    );
    let (port, cluster) = (deployed.port, deployed.dir.dir.join("cluster"));
    everything_runs(&deployed);
    nobody_gets_in_without_a_password(&cluster, port);
    for i in 1..=3 {
        let (node, metrics) = (port + i, port + 5 + i);
        assert!(
            said.contains(&format!("http://127.0.0.1:{metrics}/metrics")),
            "{said}"
        );
        let scraped = get(metrics, "/metrics").await;
        assert!(scraped.starts_with("HTTP/1.1 200 "), "{scraped}");
        assert!(
            scraped.contains("noughts_dependency_up{dependency=\"redis\"} 1"),
            "{scraped}"
        );
        // A node's own port answers a plain request, and believes no PROXY header: one that
        // claims another client is a malformed request.
        let ready = get(node, "/readyz").await;
        assert!(ready.starts_with("HTTP/1.1 200 "), "{ready}");
        let mut forged = b"\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c".to_vec();
        forged.extend_from_slice(&[203, 0, 113, 7, 127, 0, 0, 1, 0x12, 0x67, 0x1e, 0xde]);
        forged.extend_from_slice(b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        let refused = ask(node, &forged).await;
        assert!(refused.starts_with("HTTP/1.1 400 "), "{refused}");
    }
    // Redis keeps its append-only file in the cluster's directory.
    let aof = cluster.join("redis/appendonlydir");
    let files = std::fs::read_dir(&aof).map_or(0, |dir| dir.count());
    assert!(files > 0, "no append-only file in {}", aof.display());

    // Players spread over the nodes by the balancer; each sees the four war games, the same ones.
    let url = format!("ws://127.0.0.1:{port}/");
    let mut one_lobby = false;
    for _ in 0..200 {
        let mut seen = Vec::new();
        for i in 0..3 {
            seen.push(war_games(&url, &format!("p{i}")).await);
        }
        if seen.iter().all(|wars| wars.len() == 4 && *wars == seen[0]) {
            one_lobby = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        one_lobby,
        "the nodes behind the balancer never showed one lobby"
    );

    // `down` drains the nodes and stops everything, and keeps the logs.
    let down = deployed.run("down");
    assert!(down.status.success(), "{down:?}");
    let status = String::from_utf8_lossy(&deployed.run("status").stdout).into_owned();
    for part in ["redis", "postgres", "haproxy", "node1", "node2", "node3"] {
        assert!(status.contains(&format!("{part}: stopped")), "{status}");
    }
    for log in ["node1.log", "node2.log", "node3.log", "redis.log", "pg/log"] {
        let kept = std::fs::metadata(cluster.join(log)).map_or(0, |file| file.len());
        assert!(kept > 0, "{log} was not kept");
    }
    let node_log = std::fs::read_to_string(cluster.join("node1.log")).unwrap();
    assert!(
        node_log.contains("draining"),
        "node1 was not drained:\n{node_log}"
    );
}
