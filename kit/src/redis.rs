//! A real `redis-server` of the test's own on a free loopback port, nothing saved to disk,
//! stopped when dropped: what the nodes of a test cluster coordinate through. It asks for a
//! password, as a site's must: its `default` user is off, and the nodes log in as the ACL user
//! `noughts` with a password of the test's own, which [`TestRedis::url`] carries. Beside it, in
//! files of mode 600: that URL (for `--redis-url-file`) and the cluster's secret, which every node
//! of a test cluster is given unless a test says otherwise.

use std::hash::{BuildHasher, RandomState};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The ACL user the nodes log in as.
pub const USER: &str = "noughts";

/// A running `redis-server`.
#[derive(Debug)]
pub struct TestRedis {
    child: Child,
    /// `redis://noughts:PASSWORD@127.0.0.1:PORT` (`redis://127.0.0.1:PORT` for one started by
    /// [`TestRedis::start_open`]).
    pub url: String,
    /// The URL in a file of mode 600, for `--redis-url-file`: removed when dropped.
    pub url_file: PathBuf,
    /// The cluster's secret, mode 600: removed when dropped.
    pub secret_file: PathBuf,
    /// The server's settings, its users and their passwords among them (mode 600): removed when
    /// dropped.
    config_file: PathBuf,
}

impl TestRedis {
    /// Starts one that asks for a password, or `None` (said loudly) on a machine without
    /// `redis-server`; in CI (`CI` set) a missing one fails the test instead.
    pub async fn start() -> Option<TestRedis> {
        TestRedis::launch(true, None, None).await
    }

    /// [`TestRedis::start`] on `port` if given, else on a free one.
    pub async fn start_on(port: Option<u16>) -> Option<TestRedis> {
        TestRedis::launch(true, None, port).await
    }

    /// Whether `redis-server` is here to start one.
    pub fn installed() -> bool {
        Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok()
    }

    /// Starts one that lets in anyone who reaches it, as a Redis without a password does: for
    /// the tests of what a node makes of one.
    pub async fn start_open() -> Option<TestRedis> {
        TestRedis::launch(false, None, None).await
    }

    /// Starts one that asks for a password and speaks TLS alone, with the certificate chain and
    /// key in the PEM files `cert` and `key`; its URL is `rediss://`.
    pub async fn start_tls(cert: &Path, key: &Path) -> Option<TestRedis> {
        TestRedis::launch(true, Some((cert, key)), None).await
    }

    async fn launch(
        with_password: bool,
        tls: Option<(&Path, &Path)>,
        port: Option<u16>,
    ) -> Option<TestRedis> {
        let port = port.unwrap_or_else(|| {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("a free port")
        });
        let file = |what: &str| {
            std::env::temp_dir().join(format!(
                "noughts-test-redis-{what}-{}-{port}",
                std::process::id()
            ))
        };
        let (config_file, url_file, secret_file) = (file("conf"), file("url"), file("secret"));
        let mut settings = "bind 127.0.0.1\nsave \"\"\nappendonly no\n".to_owned();
        let scheme = match tls {
            None => {
                settings += &format!("port {port}\n");
                "redis"
            }
            Some((cert, key)) => {
                let (cert, key) = (cert.display(), key.display());
                settings += &format!(
                    "port 0\ntls-port {port}\ntls-cert-file {cert}\ntls-key-file {key}\n\
                     tls-ca-cert-file {cert}\ntls-auth-clients no\n"
                );
                "rediss"
            }
        };
        let url = if with_password {
            let state = RandomState::new();
            let password = format!("{:016x}{:016x}", state.hash_one(port), state.hash_one(1));
            settings += &format!("user default off\nuser {USER} on >{password} ~* &* +@all\n");
            format!("{scheme}://{USER}:{password}@127.0.0.1:{port}")
        } else {
            format!("{scheme}://127.0.0.1:{port}")
        };
        write_private(&config_file, &settings);
        let child = match server(&config_file) {
            Ok(child) => child,
            Err(err) => {
                let _ = std::fs::remove_file(&config_file);
                assert!(
                    std::env::var_os("CI").is_none(),
                    "redis-server cannot run ({err}), and CI must run the cluster tests"
                );
                eprintln!("SKIPPED: redis-server cannot run here ({err}); .ci/run installs it");
                return None;
            }
        };
        write_private(&url_file, &format!("{url}\n"));
        write_private(
            &secret_file,
            &format!("the test cluster's secret, Redis on port {port}\n"),
        );
        let redis = TestRedis {
            child,
            url,
            url_file,
            secret_file,
            config_file,
        };
        wait_for_port(port).await;
        Some(redis)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .expect("a port")
    }

    /// `redis-cli` logged in as the nodes are, for a test to look at what Redis holds.
    pub fn cli(&self) -> Command {
        let mut cli = Command::new("redis-cli");
        cli.args(["--no-auth-warning", "-u", &self.url]);
        cli
    }
}

/// `redis-server` with the settings in `config_file`.
fn server(config_file: &Path) -> std::io::Result<Child> {
    Command::new("redis-server")
        .arg(config_file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
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
        let port = self.port();
        self.child = server(&self.config_file).expect("redis-server starts again");
        wait_for_port(port).await;
    }
}

/// Writes `text` to a new file at `path` that its owner alone may read (mode 600).
pub fn write_private(path: &Path, text: &str) {
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
        for file in [&self.secret_file, &self.url_file, &self.config_file] {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// Waits until a `redis-server` takes connections on loopback `port` (five seconds at most).
pub(crate) async fn wait_for_port(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("redis-server on {port} did not start");
}
