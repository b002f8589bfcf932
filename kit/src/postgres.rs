//! A PostgreSQL server of the test's own: `initdb` and `postgres` in a temporary directory on a
//! free loopback port, a database per test, stopped (and its directory removed) when dropped or
//! when the test process ends, however it ends. It asks for a password, as a site's must: every
//! connection, over TCP or its Unix socket, logs in by `scram-sha-256` with a password of the
//! test's own, which the URLs it gives carry.
//!
//! PostgreSQL refuses to run as root: where the tests run as root (CI does), the server runs as
//! `nobody`. Where PostgreSQL is not installed the tests that need it skip with a loud message,
//! but never when `CI` is set: there they fail. Only the standard library is used, so the store's
//! own tests in `noughts-server` include this file too.

use std::hash::{BuildHasher, RandomState};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The superuser `initdb` creates, the one role (loopback only, a throwaway cluster).
const USER: &str = "noughts";

/// A running PostgreSQL server.
#[derive(Debug)]
pub struct Postgres {
    /// The shell that runs the server and stops it when its standard input closes.
    keeper: Child,
    /// Its standard input: closed on drop, or by the kernel when the test process dies.
    stdin: Option<ChildStdin>,
    /// The directory with the cluster, the socket and the log.
    dir: PathBuf,
    /// Where `createdb` is.
    bin: PathBuf,
    port: u16,
    /// [`USER`]'s password.
    password: String,
    /// Numbers the databases handed out.
    next: AtomicU64,
}

impl Postgres {
    /// The server this test process shares, started on first use; `None` (said loudly) where
    /// PostgreSQL is not installed, except under CI, where that fails the test.
    pub fn shared() -> Option<&'static Postgres> {
        static SHARED: OnceLock<Option<Postgres>> = OnceLock::new();
        SHARED.get_or_init(Postgres::start).as_ref()
    }

    /// Starts a server of its own; `None` (said loudly) where PostgreSQL is not installed,
    /// except under CI.
    pub fn start() -> Option<Postgres> {
        Postgres::launch(None, Durability::Test, None)
    }

    /// [`Postgres::start`], with TLS on (the certificate chain and key in the PEM files `cert`
    /// and `key`), and required of every connection over TCP.
    pub fn start_tls(cert: &Path, key: &Path) -> Option<Postgres> {
        Postgres::launch(Some((cert, key)), Durability::Test, None)
    }

    /// A server as a site runs one, for a benchmark: PostgreSQL's default settings, durable
    /// commits (fsync on) among them; on `port` if given, else on a free one.
    pub fn start_durable(port: Option<u16>) -> Option<Postgres> {
        Postgres::launch(None, Durability::Site, port)
    }

    /// Whether PostgreSQL's programs are here to start one.
    pub fn installed() -> bool {
        binaries().is_some()
    }

    fn launch(
        tls: Option<(&Path, &Path)>,
        durability: Durability,
        port: Option<u16>,
    ) -> Option<Postgres> {
        let Some(bin) = binaries() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "PostgreSQL (initdb) is not installed; .ci/run installs it"
            );
            eprintln!("SKIPPED: PostgreSQL (initdb) is not installed here; CI installs it");
            return None;
        };
        let owner = unprivileged_user();
        let dir = scratch_dir(owner);
        let data = dir.join("data");
        let state = RandomState::new();
        let password = format!("{:016x}{:016x}", state.hash_one(0), state.hash_one(1));
        let password_file = dir.join("password");
        std::fs::write(&password_file, format!("{password}\n")).expect("write the password");
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&password_file, Some(uid), Some(gid))
                .expect("give the password file away");
        }
        let initdb = as_owner(Command::new(bin.join("initdb")), owner, &dir)
            .arg("-D")
            .arg(&data)
            .arg(format!("--pwfile={}", password_file.display()))
            .args([
                "-U",
                USER,
                "--auth=scram-sha-256",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .output()
            .expect("run initdb");
        let _ = std::fs::remove_file(&password_file);
        assert!(
            initdb.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&initdb.stderr)
        );
        let mut settings = Vec::new();
        if let Some((cert, key)) = tls {
            settings = tls_settings(&dir, owner, cert, key);
            let hba = data.join("pg_hba.conf");
            let rules = std::fs::read_to_string(&hba).expect("read pg_hba.conf");
            let rules: String = rules
                .lines()
                .map(|line| match line.strip_prefix("host ") {
                    Some(rest) => format!("hostssl {rest}\n"),
                    None => format!("{line}\n"),
                })
                .collect();
            std::fs::write(&hba, rules).expect("write pg_hba.conf");
        }
        let port = port.unwrap_or_else(free_port);
        if durability == Durability::Test {
            // A test cluster: speed over durability of the server itself (the tests kill
            // noughts-server, never PostgreSQL).
            settings.extend(["-c", "fsync=off", "-c", "full_page_writes=off"].map(str::to_owned));
        }
        // The shell starts the server, waits for its own standard input to close, then stops
        // the server and removes the directory.
        let mut keeper = as_owner(Command::new("sh"), owner, &dir)
            .arg("-c")
            .arg(
                "\"$0\" \"$@\" >\"$LOG\" 2>&1 </dev/null & pg=$!; \
                 read -r _line; kill -INT \"$pg\"; wait \"$pg\"; rm -rf \"$TOP\"",
            )
            .arg(bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args([
                "-p",
                &port.to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-k",
            ])
            .arg(&dir)
            .args(settings)
            .env("LOG", dir.join("postgres.log"))
            .env("TOP", &dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start postgres");
        let stdin = keeper.stdin.take();
        let postgres = Postgres {
            keeper,
            stdin,
            dir,
            bin,
            port,
            password,
            next: AtomicU64::new(0),
        };
        postgres.wait_ready();
        Some(postgres)
    }

    fn wait_ready(&self) {
        let start = Instant::now();
        loop {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|status| status.success());
            if ready {
                return;
            }
            let log = std::fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default();
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "postgres did not start:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A new, empty database; returns its `postgres://` URL.
    pub fn database(&self, name: &str) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let name: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect();
        let name = format!("{name}_{n}").to_ascii_lowercase();
        let created = Command::new(self.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                &name,
            ])
            .env("PGPASSWORD", &self.password)
            .output()
            .expect("run createdb");
        assert!(
            created.status.success(),
            "createdb failed: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        self.url(&name)
    }

    /// The URL of database `name` on this server, with the password.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres://{USER}:{}@127.0.0.1:{}/{name}",
            self.password, self.port
        )
    }

    /// The port it listens on, on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// PostgreSQL's program `name` (`psql`, `createdb`…), of the version this server runs.
    pub fn program(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"stop\n");
        }
        let _ = self.keeper.wait();
    }
}

/// How a server keeps what it is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// Speed first: no fsync (a test's throwaway cluster).
    Test,
    /// As a site's: PostgreSQL's defaults, fsync on.
    Site,
}

/// The directory with `initdb`, `postgres`, `pg_isready` and `createdb`: where `initdb` on the
/// `PATH` really is, or the newest of Debian's `/usr/lib/postgresql/*/bin`.
fn binaries() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("initdb"))
            .find(|initdb| initdb.is_file())
    });
    if let Some(initdb) = on_path {
        let real = std::fs::canonicalize(&initdb).unwrap_or(initdb);
        return real.parent().map(Path::to_path_buf);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// A PostgreSQL client program: on the `PATH`, or in the newest of Debian's
/// `/usr/lib/postgresql/*/bin`, which are off it.
pub fn client_program(name: &str) -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()));
    if on_path {
        return PathBuf::from(name);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let program = entry.path().join("bin").join(name);
            program.is_file().then_some((version, program))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map_or_else(|| Path::new(name).to_path_buf(), |(_, program)| program)
}

/// `nobody`'s user and group ids when the tests run as root (PostgreSQL refuses root), else
/// `None`: the server runs as the tests' own user.
fn unprivileged_user() -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let me = std::fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid());
    if me != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    let line = passwd
        .lines()
        .find(|line| line.starts_with("nobody:"))
        .expect("a user nobody to run PostgreSQL as");
    let fields: Vec<&str> = line.split(':').collect();
    let id = |i: usize| fields.get(i).and_then(|f| f.parse().ok()).expect("an id");
    Some((id(2), id(3)))
}

/// A fresh directory the server's user owns, under a temporary directory it can reach.
fn scratch_dir(owner: Option<(u32, u32)>) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = match owner {
        Some(_) => PathBuf::from("/tmp"),
        None => std::env::temp_dir(),
    };
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = base.join(format!("noughts-postgres-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create PostgreSQL's directory");
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("give the directory away");
    }
    dir
}

/// The settings that turn TLS on with copies of `cert` and `key` in `dir`, which the server's
/// user alone may read.
fn tls_settings(dir: &Path, owner: Option<(u32, u32)>, cert: &Path, key: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut settings = vec!["-c".to_owned(), "ssl=on".to_owned()];
    for (from, name, setting) in [
        (cert, "server.crt", "ssl_cert_file"),
        (key, "server.key", "ssl_key_file"),
    ] {
        let to = dir.join(name);
        std::fs::copy(from, &to).expect("copy the TLS files");
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600))
            .expect("make the TLS files private");
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&to, Some(uid), Some(gid)).expect("give the TLS files away");
        }
        settings.extend(["-c".to_owned(), format!("{setting}={}", to.display())]);
    }
    settings
}

/// `command` to run as `owner` (when set) from `dir`.
fn as_owner(mut command: Command, owner: Option<(u32, u32)>, dir: &Path) -> Command {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid);
    }
    command.current_dir(dir);
    command
}

/// A loopback port nobody listens on just now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}
