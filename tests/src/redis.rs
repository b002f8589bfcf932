//! A real `redis-server` of the test's own on a free loopback port, nothing saved to disk,
//! stopped when dropped: what the nodes of a test cluster coordinate through; and the cluster's
//! secret in a file of mode 600, which every node of a test cluster is given unless a test says
//! otherwise.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`.
#[derive(Debug)]
pub struct TestRedis {
    child: Child,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
    /// The cluster's secret, mode 600: removed when dropped.
    pub secret_file: PathBuf,
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
        let secret_file =
            std::env::temp_dir().join(format!("noughts-test-secret-{}-{port}", std::process::id()));
        write_private(
            &secret_file,
            &format!("the test cluster's secret, Redis on port {port}\n"),
        );
        let redis = TestRedis {
            child,
            url: format!("redis://127.0.0.1:{port}"),
            secret_file,
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

impl TestRedis {
    /// Kills the server (as `kill -9` would): everything it held is gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts a fresh, empty server on the same port, as a Redis restarted without its data.
    pub async fn restart(&mut self) {
        self.kill();
        let port = self.url.rsplit(':').next().expect("a port").to_owned();
        self.child = Command::new("redis-server")
            .args(["--port", &port, "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts again");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(format!("127.0.0.1:{port}"))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("redis-server did not start again");
    }
}

/// Writes `text` to a new file at `path` that its owner alone may read (mode 600).
pub fn write_private(path: &std::path::Path, text: &str) {
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    file.open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .expect("write a private file");
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.secret_file);
    }
}
