//! A real `redis-server` of the test's own on a free loopback port, nothing saved to disk,
//! stopped when dropped: what the nodes of a test cluster coordinate through.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`.
#[derive(Debug)]
pub struct TestRedis {
    child: Child,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
}

impl TestRedis {
    /// Starts one, or `None` (said loudly) on a machine without `redis-server`; in CI (`CI`
    /// set) a missing one fails the test instead.
    pub async fn start() -> Option<TestRedis> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(err) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "redis-server cannot run ({err}), and CI must run the cluster tests"
                );
                eprintln!("SKIPPED: redis-server cannot run here ({err}); .ci/run installs it");
                return None;
            }
        };
        let redis = TestRedis {
            child,
            url: format!("redis://127.0.0.1:{port}"),
        };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Some(redis);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("redis-server did not start");
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
