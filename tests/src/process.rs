//! The real `noughts-server` binary as a child process (started through the kit, as the load
//! generator starts it): on a loopback port with a database (a SQLite file, or PostgreSQL) and a
//! log in a directory of the test's, stopped with SIGTERM or SIGKILL.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use crate::WAIT;

/// A running `noughts-server` process.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// The `ws://` URL it printed.
    pub url: String,
    /// Its metrics URL (`http://HOST:PORT/metrics`), when started with `--metrics-listen`.
    pub metrics: Option<String>,
    /// Its `--db`: a SQLite file (with the operator's socket beside it), or a URL.
    pub db: std::ffi::OsString,
}

impl ServerProcess {
    /// Starts `binary` on a loopback port with `dir`/noughts.db, war games off, no AI pause and
    /// `args` after those; its log (at `RUST_LOG=trace`) goes to `dir`/server.log, and its home
    /// is `dir`, so nothing lands in the real one.
    pub fn start(binary: &Path, dir: &Path, args: &[&str]) -> ServerProcess {
        ServerProcess::start_on(binary, dir, dir.join("noughts.db").as_os_str(), args)
    }

    /// [`ServerProcess::start`] with `--db db`: another SQLite file, or a `postgres://` URL.
    pub fn start_on(binary: &Path, dir: &Path, db: &OsStr, args: &[&str]) -> ServerProcess {
        ServerProcess::launch(
            binary,
            dir,
            db,
            &[&["--no-war-games", "--no-arena-schedule"], args].concat(),
        )
    }

    /// [`ServerProcess::start_on`] with the war games on, as `args` set them.
    pub fn start_with_war_games(
        binary: &Path,
        dir: &Path,
        db: &OsStr,
        args: &[&str],
    ) -> ServerProcess {
        ServerProcess::launch(binary, dir, db, args)
    }

    /// [`ServerProcess::start_with_war_games`] logging what `filter` (a `RUST_LOG` value)
    /// lets through, rather than everything.
    pub fn start_logging(binary: &Path, dir: &Path, filter: &str, args: &[&str]) -> ServerProcess {
        let db = dir.join("noughts.db");
        ServerProcess::launch_logging(binary, dir, db.as_os_str(), args, filter)
    }

    fn launch(binary: &Path, dir: &Path, db: &OsStr, args: &[&str]) -> ServerProcess {
        ServerProcess::launch_logging(binary, dir, db, args, "trace")
    }

    fn launch_logging(
        binary: &Path,
        dir: &Path,
        db: &OsStr,
        args: &[&str],
        filter: &str,
    ) -> ServerProcess {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("server.log"))
            .expect("open the server log");
        let mut command = Command::new(binary);
        command
            .args(["--listen", "127.0.0.1:0"])
            .args(["--ai-think-ms", "0", "--db"])
            .arg(db)
            .args(args)
            .env("RUST_LOG", filter)
            .env("HOME", dir)
            .env("XDG_DATA_HOME", dir.join("data"))
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .stderr(log);
        let metrics = args.contains(&"--metrics-listen");
        let (child, listening) = noughts_kit::process::start(&mut command, metrics, WAIT)
            .unwrap_or_else(|err| panic!("{err}"));
        wait_for_admin_socket(db, args);
        ServerProcess {
            child,
            url: listening.url,
            metrics: listening.metrics,
            db: db.to_owned(),
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM: the graceful way.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits (bounded by [`WAIT`]) for the process to exit by itself, and returns its status.
    pub async fn exited(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status;
            }
            assert!(start.elapsed() < WAIT, "the server did not exit");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Stops the process the hard way (SIGKILL): no shutdown, no flushing, no goodbyes.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("reap the server");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (bounded by [`WAIT`]) for the operator's socket of a server on `db` started with `args`
/// to be made, if it has one: the server makes it after it says where it listens, and a command
/// run at once would find no server.
fn wait_for_admin_socket(db: &OsStr, args: &[&str]) {
    let chosen = args
        .iter()
        .position(|arg| *arg == "--admin-socket")
        .and_then(|at| args.get(at + 1));
    let socket = match chosen {
        Some(path) => std::path::PathBuf::from(path),
        None if db == ":memory:" || db.to_string_lossy().starts_with("postgres") => return,
        None => {
            let mut path = db.to_owned();
            path.push(".admin");
            path.into()
        }
    };
    let start = Instant::now();
    while !socket.exists() {
        assert!(
            start.elapsed() < WAIT,
            "no admin socket at {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `noughts-server --db DB admin` as operator "ops": through the server running on `db`
/// (its operator's socket beside it), or on the database itself; its output, or a panic with its
/// error.
pub fn admin(db: &OsStr, args: &[&str]) -> String {
    let output = Command::new(crate::binary::path("noughts-server"))
        .arg("--db")
        .arg(db)
        .args(["admin", "--operator", "ops"])
        .args(args)
        .output()
        .expect("run noughts-server admin");
    let said = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "admin {args:?} failed: {said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    said
}

/// This process's user id, as the kernel gives it to a peer of a Unix socket.
pub fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .expect("this process's /proc entry")
        .uid()
}
