//! The health endpoints of the real `noughts-server`: `/healthz` and `/readyz`, for `GET` and
//! `HEAD`, on the main port and on the metrics port; a healthy node, a draining one (SIGTERM
//! with a drain time), and nodes of a cluster whose PostgreSQL or Redis is stopped: still ready
//! (saying what fails) for the readiness grace, then not.

use std::time::Duration;

use noughts_protocol::ServerMessage;
use noughts_tests::postgres::Postgres;
use noughts_tests::process::ServerProcess;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, Scratch, WAIT, binary};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, sleep};

/// The `host:port` of a `ws://` or `http://` URL.
fn host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

/// Sends `METHOD path` to `addr` and returns the status and the body.
async fn ask(addr: &str, method: &str, path: &str) -> (u16, String) {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        let request =
            format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = tokio::time::timeout(WAIT, exchange)
        .await
        .expect("an answer in time");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_owned());
    (status, body)
}

/// Waits (bounded) until `/readyz` on `addr` answers `status`, and returns its body.
async fn readyz_becomes(addr: &str, status: u16) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let (now, body) = ask(addr, "GET", "/readyz").await;
        if now == status {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "/readyz stayed {now} ({body:?}), not {status}"
        );
        sleep(Duration::from_millis(50)).await;
    }
}

fn server(dir: &Scratch, args: &[&str]) -> ServerProcess {
    ServerProcess::start(&binary::path("noughts-server"), &dir.dir, args)
}

#[tokio::test]
async fn a_healthy_node_answers_get_and_head_on_both_ports() {
    let dir = Scratch::new("health");
    let node = server(&dir, &["--metrics-listen", "127.0.0.1:0"]);
    let main = host(&node.url);
    let metrics = host(node.metrics.as_deref().unwrap());
    for addr in [&main, &metrics] {
        assert_eq!(ask(addr, "GET", "/healthz").await, (200, "ok\n".to_owned()));
        assert_eq!(
            ask(addr, "GET", "/readyz").await,
            (200, "ready\n".to_owned())
        );
        assert_eq!(ask(addr, "HEAD", "/healthz").await, (200, String::new()));
        assert_eq!(ask(addr, "HEAD", "/readyz").await, (200, String::new()));
        assert_eq!(ask(addr, "GET", "/readyz?verbose").await.0, 200);
    }
    // The metrics say what the probes found and what /readyz answers.
    let (_, scraped) = ask(&metrics, "GET", "/metrics").await;
    for line in [
        "noughts_dependency_up{dependency=\"sqlite\"} 1",
        "noughts_ready 1",
    ] {
        assert!(scraped.lines().any(|l| l == line), "no {line} in {scraped}");
    }
    // The page answers HEAD too, without its body; other methods are still refused.
    assert_eq!(ask(&main, "HEAD", "/").await, (200, String::new()));
    assert_eq!(ask(&main, "POST", "/healthz").await.0, 405);
    // Polled many times over, it goes on answering.
    for _ in 0..50 {
        assert_eq!(ask(&main, "GET", "/readyz").await.0, 200);
    }
}

#[tokio::test]
async fn a_draining_node_is_alive_but_not_ready_then_tells_its_players_and_stops() {
    let dir = Scratch::new("health-drain");
    let mut node = server(
        &dir,
        &["--metrics-listen", "127.0.0.1:0", "--drain-ms", "4000"],
    );
    let main = host(&node.url);
    let metrics = host(node.metrics.as_deref().unwrap());
    let mut player = Client::join(&node.url, "ada").await;
    assert_eq!(ask(&main, "GET", "/readyz").await.0, 200);
    node.terminate();
    let body = readyz_becomes(&main, 503).await;
    assert_eq!(body, "not ready: draining\n");
    assert_eq!(ask(&metrics, "GET", "/readyz").await.0, 503);
    assert_eq!(ask(&main, "HEAD", "/readyz").await, (503, String::new()));
    assert_eq!(
        ask(&main, "GET", "/healthz").await.0,
        200,
        "alive while draining"
    );
    // Then the player is told, and the node stops cleanly.
    player
        .saw(|m| matches!(m, ServerMessage::Shutdown { .. }))
        .await;
    assert_eq!(player.closed().await, Some(1001));
    assert!(node.exited().await.success());
}

/// A node of a cluster on `redis` and the PostgreSQL database `db`, with its metrics port.
fn node(dir: &Scratch, db: &str, redis: &TestRedis, name: &str) -> ServerProcess {
    ServerProcess::start_on(
        &binary::path("noughts-server"),
        &dir.dir,
        std::ffi::OsStr::new(db),
        &[
            "--redis",
            &redis.url,
            "--node-id",
            name,
            "--cluster-secret-file",
            redis.secret_file.to_str().unwrap(),
            "--metrics-listen",
            "127.0.0.1:0",
            "--readiness-grace-ms",
            "3000",
        ],
    )
}

/// Waits (bounded) until `/readyz` on `addr` says, while still ready, that `dependency` fails.
async fn ready_while_failing(addr: &str, dependency: &str) -> String {
    let deadline = Instant::now() + WAIT;
    let failing = format!("ready ({dependency} failing for ");
    loop {
        let (status, body) = ask(addr, "GET", "/readyz").await;
        if body.starts_with(&failing) {
            assert_eq!(status, 200, "{body}");
            return body;
        }
        assert!(
            status == 200 && Instant::now() < deadline,
            "/readyz answered {status} {body:?} before it said {dependency} fails"
        );
        sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_whose_postgres_stops_is_not_ready() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::start()) else {
        return;
    };
    let db = postgres.database("health_pg");
    let dir = Scratch::new("health-pg");
    let node = node(&dir, &db, &redis, "pg");
    let main = host(&node.url);
    let metrics = host(node.metrics.as_deref().unwrap());
    assert_eq!(readyz_becomes(&main, 200).await, "ready\n");
    drop(postgres);
    ready_while_failing(&main, "postgres").await;
    let body = readyz_becomes(&main, 503).await;
    assert!(
        body.starts_with("not ready: postgres failing for "),
        "{body}"
    );
    assert_eq!(ask(&metrics, "GET", "/readyz").await.0, 503);
    assert_eq!(ask(&main, "GET", "/healthz").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_whose_redis_stops_is_not_ready() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("health_redis");
    let dir = Scratch::new("health-redis");
    let node = node(&dir, &db, &redis, "redis");
    let main = host(&node.url);
    assert_eq!(readyz_becomes(&main, 200).await, "ready\n");
    drop(redis);
    ready_while_failing(&main, "redis").await;
    let body = readyz_becomes(&main, 503).await;
    assert!(body.starts_with("not ready: redis failing for "), "{body}");
    let metrics = host(node.metrics.as_deref().unwrap());
    let (_, scraped) = ask(&metrics, "GET", "/metrics").await;
    for line in [
        "noughts_dependency_up{dependency=\"redis\"} 0",
        "noughts_dependency_up{dependency=\"postgres\"} 1",
        "noughts_ready 0",
    ] {
        assert!(scraped.lines().any(|l| l == line), "no {line} in {scraped}");
    }
    assert_eq!(ask(&main, "GET", "/healthz").await.0, 200);
}
