//! `deploy/cluster`, the local cluster anyone can start: Redis, PostgreSQL, three nodes and
//! HAProxy in front. Players who connect through the load balancer land on different nodes and
//! see one lobby, with one war game per variant.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use noughts_protocol::{ClientMessage, GameKind, ServerMessage};
use noughts_tests::{Client, Scratch, binary};

/// The cluster started by the script, stopped (and its files removed) when dropped.
pub(super) struct Deployed {
    pub(super) dir: Scratch,
    pub(super) port: u16,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/cluster")
}

impl Deployed {
    /// Runs `deploy/cluster VERB` on this cluster.
    pub(super) fn run(&self, verb: &str) -> std::process::Output {
        Deployed::run_in(&self.dir.dir, self.port, verb)
    }

    /// Runs `deploy/cluster VERB` on the cluster in `dir` on `port` (from another thread).
    pub(super) fn run_in(dir: &std::path::Path, port: u16, verb: &str) -> std::process::Output {
        Command::new("bash")
            .arg(script())
            .arg(verb)
            .env("NOUGHTS_CLUSTER_DIR", dir.join("cluster"))
            .env("NOUGHTS_CLUSTER_PORT", port.to_string())
            .env("NOUGHTS_SERVER_BIN", binary::path("noughts-server"))
            // Every test client comes from 127.0.0.1: the per-address caps count them all as one.
            .env("NOUGHTS_MAX_CONNECTIONS_PER_IP", "100000")
            .env("NOUGHTS_MAX_ROOMS_PER_IP", "100000")
            .env("NOUGHTS_MAX_SEEKS_PER_IP", "100000")
            .output()
            .expect("run deploy/cluster")
    }
}

impl Drop for Deployed {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("NOUGHTS_KEEP_CLUSTER_LOGS").is_some() {
            self.keep_logs();
        }
        let _ = self.run("down");
    }
}

impl Deployed {
    /// Copies the nodes', the balancer's and Redis's logs out of the cluster's directory (which
    /// `down` removes) to a directory of their own, and says where.
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

/// A port with the five after it free too: the balancer's, the nodes', Redis's and PostgreSQL's.
/// They are taken below the range the system picks the local ports of outgoing connections from
/// (32768 and up on Linux): the cluster's own hundreds of connections could otherwise take a
/// node's port while the node restarts.
pub(super) fn free_ports() -> u16 {
    use std::hash::{BuildHasher, RandomState};
    for attempt in 0..1000_u64 {
        let random = RandomState::new().hash_one((std::process::id(), attempt));
        let base = 20_000 + u16::try_from(random % 12_000).expect("below 12000");
        if (base..base + 6).all(|port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()) {
            return base;
        }
    }
    panic!("no six free ports in a row");
}

/// Whether every program the script needs is here; under CI they must be.
pub(super) fn programs_present() -> bool {
    let missing: Vec<&str> = ["haproxy", "redis-server"]
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
async fn war_games(url: &str, name: &str) -> HashSet<u64> {
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
    assert!(
        up.status.success(),
        "deploy/cluster up failed: {}{}",
        String::from_utf8_lossy(&up.stdout),
        String::from_utf8_lossy(&up.stderr)
    );
    let url = format!("ws://127.0.0.1:{}/", deployed.port);
    // Players spread over the nodes by the balancer; each sees the four war games, the same ones.
    for _ in 0..200 {
        let mut seen = Vec::new();
        for i in 0..3 {
            seen.push(war_games(&url, &format!("p{i}")).await);
        }
        if seen.iter().all(|wars| wars.len() == 4 && *wars == seen[0]) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the nodes behind the balancer never showed one lobby");
}
