//! The parts of `deploy/cluster` the faults are injected into: its Redis, its PostgreSQL and its
//! nodes, found from the nodes' own settings and from the parts themselves, and started again as
//! they were started.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use futures_util::SinkExt;
use noughts_protocol::{ClientFrame, ClientMessage, GameKind, PROTOCOL_VERSION, ServerMessage};
use noughts_tests::{connect_with, read_frame};
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;

use super::super::deploy::Deployed;
use super::Fault;

/// The nodes' lease: `deploy/cluster` leaves the default.
pub(super) const LEASE: Duration = Duration::from_secs(5);

/// Runs `command` off the players' threads: its output.
async fn run(mut command: Command) -> std::process::Output {
    let what = format!("{command:?}");
    tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("a blocking task")
        .unwrap_or_else(|err| panic!("cannot run {what}: {err}"))
}

/// `kill -SIGNAL pid`.
async fn signal(pid: u32, signal: &str) {
    let mut kill = Command::new("kill");
    kill.args([&format!("-{signal}"), &pid.to_string()]);
    let out = run(kill).await;
    assert!(
        out.status.success(),
        "kill -{signal} {pid}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `command` run as `user` (when this test runs as root and `user` is someone else).
fn as_user(user: &str, program: &Path) -> Command {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0");
    if root && user != "root" {
        let mut command = Command::new("runuser");
        command.args(["-u", user, "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// A setting a node was started with: `--NAME` (or `--NAME-file`) on its command line, or
/// `NOUGHTS_NAME` (or `NOUGHTS_NAME_FILE`, `NOUGHTS_NAME_URL_FILE`) in its environment; a file
/// named is read.
fn node_setting(pid: u32, name: &str) -> Option<String> {
    let split = |path: String| -> Vec<String> {
        std::fs::read(path)
            .unwrap_or_default()
            .split(|b| *b == 0)
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .collect()
    };
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_owned())
    };
    let args = split(format!("/proc/{pid}/cmdline"));
    for (flag, is_file) in [
        (format!("--{name}"), false),
        (format!("--{name}-file"), true),
        (format!("--{name}-url-file"), true),
    ] {
        let value = args.iter().enumerate().find_map(|(i, arg)| {
            if *arg == flag {
                args.get(i + 1).cloned()
            } else {
                arg.strip_prefix(&format!("{flag}=")).map(str::to_owned)
            }
        });
        if let Some(value) = value {
            return if is_file { read(&value) } else { Some(value) };
        }
    }
    let environment = split(format!("/proc/{pid}/environ"));
    let variable = format!("NOUGHTS_{}", name.to_ascii_uppercase());
    for (key, is_file) in [
        (variable.clone(), false),
        (format!("{variable}_FILE"), true),
        (format!("{variable}_URL_FILE"), true),
    ] {
        let value = environment
            .iter()
            .find_map(|entry| entry.strip_prefix(&format!("{key}=")));
        if let Some(value) = value {
            return if is_file {
                read(value)
            } else {
                Some(value.to_owned())
            };
        }
    }
    None
}

/// The Redis of the cluster, and how to start it again as it runs.
pub(super) struct Redis {
    pub(super) url: String,
    /// `redis-server` and its settings as `deploy/cluster` started it.
    pub(super) command: Vec<String>,
    /// Settings added for every later start (a data directory of the test's own).
    pub(super) overrides: Vec<String>,
    /// Its data directory and the files of its data there.
    pub(super) dir: PathBuf,
    pub(super) data: Vec<String>,
    /// The persistence settings it was started with.
    pub(super) appendonly: String,
    pub(super) save: String,
    /// Whether it detaches (else the test keeps its process).
    pub(super) daemon: bool,
    pub(super) child: Option<std::process::Child>,
    pub(super) pid: u32,
}

impl Redis {
    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, String> {
        let client = redis::Client::open(self.url.as_str()).map_err(|e| e.to_string())?;
        timeout(
            Duration::from_secs(2),
            client.get_multiplexed_async_connection(),
        )
        .await
        .map_err(|_| "no connection in 2 s".to_owned())?
        .map_err(|e| e.to_string())
    }

    async fn query<T: redis::FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, String> {
        let mut connection = self.connection().await?;
        timeout(Duration::from_secs(5), command.query_async(&mut connection))
            .await
            .map_err(|_| "no answer in 5 s".to_owned())?
            .map_err(|e| e.to_string())
    }

    /// What `INFO server` says of `field`.
    async fn info(&self, field: &str) -> String {
        let info: String = self
            .query(redis::cmd("INFO").arg("server"))
            .await
            .unwrap_or_else(|err| panic!("Redis INFO: {err}"));
        info.lines()
            .find_map(|line| line.strip_prefix(&format!("{field}:")))
            .unwrap_or_default()
            .trim()
            .to_owned()
    }

    /// The cluster's Redis at `url`, with the settings it runs with.
    pub(super) async fn find(url: String) -> Redis {
        let mut redis = Redis {
            url,
            command: Vec::new(),
            overrides: Vec::new(),
            dir: PathBuf::new(),
            data: Vec::new(),
            appendonly: String::new(),
            save: String::new(),
            daemon: true,
            child: None,
            pid: 0,
        };
        redis.pid = redis.info("process_id").await.parse().expect("Redis's pid");
        let executable = redis.info("executable").await;
        let config_file = redis.info("config_file").await;
        let config: HashMap<String, String> = redis
            .query(redis::cmd("CONFIG").arg("GET").arg("*"))
            .await
            .unwrap_or_else(|err| panic!("Redis CONFIG GET: {err}"));
        let get = |key: &str| config.get(key).cloned().unwrap_or_default();
        // INFO's path is the one it was started by, joined to its working directory.
        redis.command.push(if Path::new(&executable).is_file() {
            executable
        } else {
            "redis-server".to_owned()
        });
        if config_file.is_empty() {
            for key in [
                "port",
                "bind",
                "unixsocket",
                "unixsocketperm",
                "protected-mode",
                "dir",
                "dbfilename",
                "appendonly",
                "appendfsync",
                "appendfilename",
                "appenddirname",
                "save",
                "daemonize",
                "pidfile",
                "logfile",
                "requirepass",
                "aclfile",
            ] {
                let value = get(key);
                if value.is_empty() && key != "save" {
                    continue;
                }
                redis.command.push(format!("--{key}"));
                if value.is_empty() {
                    redis.command.push(String::new());
                } else {
                    redis
                        .command
                        .extend(value.split_whitespace().map(str::to_owned));
                }
            }
            // Users made on its command line (none are kept in a file).
            if get("aclfile").is_empty() {
                let users: Vec<String> = redis
                    .query(redis::cmd("ACL").arg("LIST"))
                    .await
                    .unwrap_or_default();
                let default = users.len() == 1 && users[0].starts_with("user default on nopass");
                if !default {
                    for user in users {
                        let mut words = user.split_whitespace();
                        words.next();
                        redis.command.push("--user".to_owned());
                        redis.command.extend(words.map(str::to_owned));
                    }
                }
            }
        } else {
            redis.command.push(config_file);
        }
        redis.dir = PathBuf::from(get("dir"));
        redis.data = vec![get("dbfilename"), get("appenddirname")];
        redis.data.retain(|name| !name.is_empty());
        redis.appendonly = get("appendonly");
        redis.save = get("save");
        redis.daemon = get("daemonize") == "yes";
        redis
    }

    /// Whether Redis answers.
    async fn answers(&self) -> bool {
        self.query::<String>(&redis::cmd("PING")).await.is_ok()
    }

    /// `kill -9`, and waits until it is gone.
    async fn kill(&mut self) {
        signal(self.pid, "KILL").await;
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.answers().await {
            assert!(
                Instant::now() < deadline,
                "Redis still answers after kill -9"
            );
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// Starts it again with its settings, and `extra` ones; waits until it answers.
    async fn start(&mut self, extra: &[&str]) {
        let mut command = Command::new(&self.command[0]);
        command
            .args(&self.command[1..])
            .args(&self.overrides)
            .args(extra);
        if self.daemon {
            let out = run(command).await;
            assert!(
                out.status.success(),
                "redis-server did not start: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        } else {
            let child = command
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("start redis-server");
            self.child = Some(child);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.answers().await {
            assert!(
                Instant::now() < deadline,
                "Redis did not answer within 20 s of starting it again: {:?} {:?} {extra:?}",
                self.command,
                self.overrides
            );
            sleep(Duration::from_millis(50)).await;
        }
        self.pid = self.info("process_id").await.parse().expect("Redis's pid");
    }

    /// Starts it again from an empty data directory, persisting nothing: its own directory's
    /// data removed if that directory is the cluster's, else a new directory of the test's.
    async fn start_empty(&mut self, cluster: &Path, scratch: &Path, round: usize) {
        if self.dir.starts_with(cluster) {
            for name in &self.data {
                let path = self.dir.join(name);
                let _ = std::fs::remove_dir_all(&path);
                let _ = std::fs::remove_file(&path);
            }
        } else {
            let fresh = scratch.join(format!("redis-empty-{round}"));
            std::fs::create_dir_all(&fresh).expect("a fresh directory for Redis");
            self.overrides = vec!["--dir".to_owned(), fresh.display().to_string()];
            self.dir = fresh;
        }
        self.start(&["--appendonly", "no", "--save", ""]).await;
    }

    /// Persists again as it was started to.
    pub(super) async fn persist_again(&self) {
        for (key, value) in [("appendonly", &self.appendonly), ("save", &self.save)] {
            let set: Result<String, String> = self
                .query(redis::cmd("CONFIG").arg("SET").arg(key).arg(value))
                .await;
            set.unwrap_or_else(|err| panic!("Redis CONFIG SET {key} {value:?}: {err}"));
        }
    }
}

/// The cluster's PostgreSQL, and how to start it again as it runs.
pub(super) struct Postgres {
    pub(super) url: String,
    pub(super) bin: PathBuf,
    pub(super) data: PathBuf,
    /// Its server's arguments after the data directory, as `postmaster.opts` has them.
    pub(super) options: Vec<String>,
    /// Who owns its files.
    pub(super) owner: String,
}

impl Postgres {
    pub(super) fn find(cluster: &Path, url: String) -> Postgres {
        let data = find_file(cluster, "postmaster.opts", 4)
            .and_then(|opts| opts.parent().map(Path::to_path_buf))
            .expect("PostgreSQL's data directory in the cluster's");
        let opts = std::fs::read_to_string(data.join("postmaster.opts")).expect("postmaster.opts");
        // `/path/postgres "-D" "/data" "-p" "5432" ...`
        let mut words = opts.trim().splitn(2, ' ');
        let postgres = PathBuf::from(words.next().expect("the server's path"));
        let mut options = Vec::new();
        let mut rest = words.next().unwrap_or_default().split('"');
        rest.next();
        let quoted: Vec<&str> = rest.step_by(2).collect();
        let mut skip = false;
        for word in quoted {
            if skip {
                skip = false;
            } else if word == "-D" {
                skip = true;
            } else {
                options.push(word.to_owned());
            }
        }
        let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&data).expect("data"));
        let owner = Command::new("id")
            .args(["-nu", &uid.to_string()])
            .output()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            .expect("the owner's name");
        Postgres {
            url,
            bin: postgres.parent().expect("a bin directory").to_path_buf(),
            data,
            options,
            owner,
        }
    }

    fn pg_ctl(&self) -> Command {
        let mut command = as_user(&self.owner, &self.bin.join("pg_ctl"));
        command.arg("-D").arg(&self.data);
        command
    }

    async fn stop(&self) {
        let mut stop = self.pg_ctl();
        stop.args(["-m", "fast", "-w", "stop"]);
        let out = run(stop).await;
        assert!(
            out.status.success(),
            "pg_ctl stop: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    async fn start(&self) {
        let options: Vec<String> = self
            .options
            .iter()
            .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
            .collect();
        let log = self
            .data
            .parent()
            .map_or_else(|| self.data.join("log"), |dir| dir.join("log"));
        let mut start = self.pg_ctl();
        start
            .arg("-l")
            .arg(log)
            .args(["-w", "-o", &options.join(" "), "start"]);
        let out = run(start).await;
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The rows `sql` selects, each as its columns' text; an error if PostgreSQL cannot say.
    pub(super) async fn select(&self, sql: &str) -> Result<Vec<Vec<String>>, String> {
        let mut psql = Command::new(self.bin.join("psql"));
        psql.args(["-X", "-q", "-t", "-A", "-F", "|", "-v", "ON_ERROR_STOP=1"])
            .args(["-d", &self.url, "-c", sql])
            .env("PGCONNECT_TIMEOUT", "5");
        let out = run(psql).await;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|line| !line.is_empty())
            .map(|line| line.split('|').map(str::to_owned).collect())
            .collect())
    }
}

/// The first file named `name` under `dir`, at most `depth` directories down.
fn find_file(dir: &Path, name: &str, depth: usize) -> Option<PathBuf> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .collect();
    if let Some(found) = entries
        .iter()
        .find(|path| path.file_name().is_some_and(|n| n == name))
    {
        return Some(found.clone());
    }
    if depth == 0 {
        return None;
    }
    entries
        .iter()
        .filter(|path| path.is_dir())
        .find_map(|path| find_file(path, name, depth - 1))
}

/// A count per variant, by its name.
pub(super) type PerVariant = HashMap<String, usize>;

/// The parts of `deploy/cluster` the faults are injected into.
pub(super) struct Site {
    /// The cluster's directory.
    pub(super) dir: PathBuf,
    /// The test's own directory, beside it.
    pub(super) scratch: PathBuf,
    pub(super) url: String,
    pub(super) redis: Redis,
    pub(super) postgres: Postgres,
}

impl Site {
    pub(super) async fn find(deployed: &Deployed) -> Site {
        let dir = deployed.dir.dir.join("cluster");
        let node = Site::node_pid(&dir, 1);
        // The operator's: the nodes' user may not run INFO, CONFIG or FLUSHALL.
        let redis_url = super::super::deploy::secret(&dir, "redis-admin.url").expect("Redis");
        let db_url = node_setting(node, "db").expect("the nodes' database");
        let redis = Redis::find(redis_url).await;
        let postgres = Postgres::find(&dir, db_url);
        Site {
            scratch: deployed.dir.dir.clone(),
            url: format!("ws://127.0.0.1:{}/", deployed.port),
            dir,
            redis,
            postgres,
        }
    }

    fn node_pid(dir: &Path, node: usize) -> u32 {
        std::fs::read_to_string(dir.join(format!("node{node}.pid")))
            .ok()
            .and_then(|pid| pid.trim().parse().ok())
            .unwrap_or_else(|| panic!("node{node}'s pid file in {}", dir.display()))
    }

    /// Node `node`'s pid; fails the test with the end of its log if it no longer runs.
    pub(super) fn running_node(&self, node: usize) -> u32 {
        let pid = Site::node_pid(&self.dir, node);
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let zombie = status.lines().any(|line| line.starts_with("State:\tZ"));
        if status.is_empty() || zombie {
            let log = std::fs::read_to_string(self.dir.join(format!("node{node}.log")))
                .unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(20)..].join("\n");
            panic!("node{node} (pid {pid}) no longer runs; the end of its log:\n{tail}");
        }
        pid
    }

    /// Injects `fault` (round `round`), holds it, and heals it.
    pub(super) async fn inject(&mut self, fault: Fault, round: usize) -> String {
        match fault {
            Fault::RedisKilled => {
                self.redis.kill().await;
                sleep(Duration::from_secs(5)).await;
                self.redis.start(&[]).await;
                format!(
                    "restarted with appendonly {}, in {}",
                    self.redis.appendonly,
                    self.redis.dir.display()
                )
            }
            Fault::RedisKilledEmpty => {
                self.redis.kill().await;
                sleep(Duration::from_secs(5)).await;
                self.redis
                    .start_empty(&self.dir, &self.scratch, round)
                    .await;
                "restarted empty".to_owned()
            }
            Fault::RedisFlushed => {
                let flushed: Result<String, String> =
                    self.redis.query(&redis::cmd("FLUSHALL")).await;
                flushed.unwrap_or_else(|err| panic!("FLUSHALL: {err}"));
                String::new()
            }
            Fault::RedisStopped => {
                signal(self.redis.pid, "STOP").await;
                sleep(Duration::from_secs(10)).await;
                signal(self.redis.pid, "CONT").await;
                String::new()
            }
            Fault::PostgresStopped => {
                self.postgres.stop().await;
                sleep(Duration::from_secs(5)).await;
                self.postgres.start().await;
                String::new()
            }
            Fault::NodeStopped => {
                let node = round % 3 + 1;
                let pid = self.running_node(node);
                signal(pid, "STOP").await;
                sleep(LEASE + Duration::from_secs(3)).await;
                signal(pid, "CONT").await;
                format!("node{node}")
            }
        }
    }

    /// The lines of every node's log (and PostgreSQL's) that `pick` picks, but DEBUG's, in the
    /// order of their times, at most `most` of them.
    pub(super) fn log_lines(&self, pick: impl Fn(&str) -> bool, most: usize) -> Vec<String> {
        let mut logs: Vec<PathBuf> = (1..=3)
            .map(|node| self.dir.join(format!("node{node}.log")))
            .collect();
        logs.extend(find_file(&self.dir, "log", 1).filter(|log| log.is_file()));
        let mut lines = Vec::new();
        for log in logs {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let name = log
                .strip_prefix(&self.dir)
                .unwrap_or(&log)
                .display()
                .to_string();
            lines.extend(
                text.lines()
                    .filter(|line| !line.contains(" DEBUG ") && pick(line))
                    .map(|line| (line.to_owned(), name.clone())),
            );
        }
        lines.sort();
        lines.truncate(most);
        lines
            .into_iter()
            .map(|(line, name)| format!("{name}: {line}"))
            .collect()
    }

    /// The live war games per variant in PostgreSQL (an error if it cannot say), and the war
    /// games the lobby lists per variant to a new player through the balancer (an error if the
    /// balancer or the node turns it away).
    pub(super) async fn war_games(
        &self,
    ) -> Result<(PerVariant, Result<PerVariant, String>), String> {
        let rows = self
            .postgres
            .select(
                "SELECT variant, count(*) FROM games WHERE kind = 'war' AND ended_ms IS NULL \
                 GROUP BY variant",
            )
            .await?;
        let stored = rows
            .into_iter()
            .map(|row| (row[0].clone(), row[1].parse().unwrap_or(0)))
            .collect();
        let listed = timeout(Duration::from_secs(10), listed_wars(&self.url))
            .await
            .map_err(|_| "no lobby within 10 s".to_owned())?
            .map_err(|err| format!("the lobby: {err}"));
        Ok((stored, listed))
    }
}

/// The war games the lobby lists per variant to a new player through the balancer; an error if
/// the balancer turns it away.
async fn listed_wars(url: &str) -> Result<PerVariant, String> {
    let mut ws = connect_with(url, None)
        .await
        .map_err(|err| err.to_string())?;
    for message in [
        ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "looker".to_owned(),
            token: None,
            credentials: None,
        },
        ClientMessage::SubscribeLobby,
    ] {
        ws.send(Message::text(ClientFrame::new(message).to_json()))
            .await
            .map_err(|err| err.to_string())?;
    }
    loop {
        let frame = read_frame(&mut ws)
            .await
            .map_err(|code| format!("closed ({code:?})"))?;
        match frame.message {
            ServerMessage::Lobby { games, .. } => {
                let mut listed = HashMap::new();
                for game in games.iter().filter(|g| g.kind == GameKind::War) {
                    *listed
                        .entry(wire(serde_json::to_value(game.variant)))
                        .or_default() += 1;
                }
                return Ok(listed);
            }
            ServerMessage::Error { code, message } => return Err(format!("{code}: {message}")),
            _ => {}
        }
    }
}

/// A value's name on the wire (and in the store), from `serde_json::to_value`.
pub(super) fn wire(value: serde_json::Result<serde_json::Value>) -> String {
    match value {
        Ok(serde_json::Value::String(text)) => text,
        _ => String::new(),
    }
}
