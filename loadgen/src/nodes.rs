//! The servers of a cluster benchmark: the Redis and PostgreSQL it is given, or ones it starts
//! through the kit (a lone Redis, or a Redis Cluster of some shards); `noughts-server` nodes on one Redis and one PostgreSQL database, a lone server
//! on PostgreSQL, fresh databases made with PostgreSQL's `createdb`, and a node killed with
//! SIGKILL.

use std::path::PathBuf;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use noughts_kit::postgres::{Postgres, client_program as pg_program};
use noughts_kit::redis::TestRedis;
use noughts_kit::redis_cluster::TestRedisCluster;

use crate::target::{self, Target};

/// Where a benchmark's servers come from.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The `noughts-server` binary.
    pub server_bin: PathBuf,
    /// The cluster's Redis, `redis://HOST:PORT` or a Redis Cluster's `redis+cluster://…`.
    pub redis: String,
    /// A PostgreSQL server as `postgres://USER[:PASSWORD]@HOST[:PORT][/NAME]`: each part of the
    /// run gets a fresh database on it, named after NAME (default `noughts_bench`).
    pub postgres: String,
    /// Connections each server must admit.
    pub connections: usize,
    /// The cluster's secret file, given to every node; `None` runs them with
    /// `--insecure-cluster`, signing nothing.
    pub secret: Option<PathBuf>,
}

/// The Redis and PostgreSQL a run started of its own through the kit: stopped (their files
/// removed) when dropped.
#[derive(Debug, Default)]
pub struct OwnBacking {
    _redis: Option<TestRedis>,
    _cluster: Option<TestRedisCluster>,
    _postgres: Option<Postgres>,
}

impl OwnBacking {
    /// Starts a `redis-server` of the run's own on `port` (a free one if `None`): its URL.
    pub async fn redis(&mut self, port: Option<u16>) -> anyhow::Result<String> {
        if !TestRedis::installed() {
            bail!("redis-server is not installed (or give --redis)");
        }
        taken(port)?;
        let redis = TestRedis::start_on(port)
            .await
            .context("redis-server did not start")?;
        Ok(self._redis.insert(redis).url.clone())
    }

    /// Starts a Redis Cluster of the run's own, `shards` primaries with a replica each on free
    /// ports: its `redis+cluster://` URL.
    pub async fn redis_cluster(&mut self, shards: usize) -> anyhow::Result<String> {
        let cluster = TestRedisCluster::start(shards)
            .await
            .context("redis-server is not installed (or give --redis)")?;
        Ok(self._cluster.insert(cluster).url.clone())
    }

    /// Starts a PostgreSQL of the run's own, as a site runs one (durable), on `port` (a free one
    /// if `None`): the URL of a database `bench` there, named after which each part gets one.
    pub async fn postgres(&mut self, port: Option<u16>) -> anyhow::Result<String> {
        if !Postgres::installed() {
            bail!("PostgreSQL (initdb) is not installed (or give --postgres)");
        }
        taken(port)?;
        let postgres = tokio::task::spawn_blocking(move || Postgres::start_durable(port))
            .await?
            .context("PostgreSQL did not start")?;
        Ok(self._postgres.insert(postgres).url("bench"))
    }
}

/// Fails if `port` is taken: a server started there would fail, and another's be found instead.
fn taken(port: Option<u16>) -> anyhow::Result<()> {
    if let Some(port) = port {
        std::net::TcpListener::bind(("127.0.0.1", port))
            .with_context(|| format!("port {port} is taken: choose another with --backing-port"))?;
    }
    Ok(())
}

impl Launch {
    /// A lone server (no Redis) on a fresh PostgreSQL database.
    pub fn lone_postgres(&self, part: &str) -> anyhow::Result<Target> {
        let db = self.database(part)?;
        let mut args = target::server_args(self.connections);
        args.extend(["--db".to_owned(), db]);
        Target::start(&self.server_bin, &args, None)
    }

    /// `count` nodes of one cluster on a fresh PostgreSQL database, named `{part}1`… (a name is
    /// never reused within a run, so a node of an earlier part, dead but not yet swept from
    /// Redis, is never taken for one of these), each holding its games by a lease of `lease_ms`.
    pub fn cluster(&self, part: &str, count: usize, lease_ms: u64) -> anyhow::Result<Vec<Target>> {
        let db = self.database(part)?;
        let stamp = stamp();
        (1..=count)
            .map(|i| {
                let mut args = target::server_args(self.connections);
                args.extend(
                    [
                        "--db",
                        &db,
                        "--redis",
                        &self.redis,
                        "--node-id",
                        &format!("{part}{i}-{stamp}"),
                        "--lease-ms",
                        &lease_ms.to_string(),
                        // Players whose node dies keep their seats while they come back.
                        "--grace-secs",
                        "120",
                    ]
                    .map(str::to_owned),
                );
                match &self.secret {
                    Some(secret) => args.extend([
                        "--cluster-secret-file".to_owned(),
                        secret.display().to_string(),
                    ]),
                    None => args.push("--insecure-cluster".to_owned()),
                }
                Target::start(&self.server_bin, &args, None)
            })
            .collect()
    }

    /// A fresh database for `part` of the run; its URL.
    fn database(&self, part: &str) -> anyhow::Result<String> {
        let url = PgUrl::parse(&self.postgres)?;
        let name = format!("{}_{part}_{}", url.name, stamp());
        let mut command = Command::new(pg_program("createdb"));
        command.args(["-h", &url.host, "-p", &url.port, "-U", &url.user, &name]);
        if let Some(password) = &url.password {
            command.env("PGPASSWORD", password);
        }
        let out = command
            .output()
            .context("cannot run createdb (PostgreSQL's client programs are needed)")?;
        if !out.status.success() {
            bail!(
                "createdb {name} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(url.with_name(&name))
    }
}

/// Kills a server at once, as a crash would (SIGKILL); the [`Target`] reaps it when dropped.
pub fn kill(target: &Target) -> anyhow::Result<()> {
    let pid = target.probe.pid.context("the node's pid is unknown")?;
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid)?);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).context("cannot kill the node")
}

/// Distinguishes this run's databases and nodes from earlier runs' on the same servers.
fn stamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{}_{}", std::process::id(), secs % 1_000_000)
}

/// The parts of a `postgres://` URL that `createdb` needs.
#[derive(Debug, PartialEq, Eq)]
struct PgUrl {
    user: String,
    password: Option<String>,
    host: String,
    port: String,
    name: String,
}

impl PgUrl {
    fn parse(url: &str) -> anyhow::Result<PgUrl> {
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .context("--postgres must be a postgres:// URL")?;
        let (authority, name) = rest.split_once('/').unwrap_or((rest, ""));
        let (credentials, address) = authority
            .rsplit_once('@')
            .context("--postgres must name a user (postgres://USER@HOST:PORT/)")?;
        let (user, password) = match credentials.split_once(':') {
            Some((user, password)) => (user, Some(password.to_owned())),
            None => (credentials, None),
        };
        let (host, port) = address.rsplit_once(':').unwrap_or((address, "5432"));
        let name = name.split('?').next().unwrap_or("");
        Ok(PgUrl {
            user: user.to_owned(),
            password,
            host: host.to_owned(),
            port: port.to_owned(),
            name: if name.is_empty() {
                "noughts_bench".to_owned()
            } else {
                name.to_owned()
            },
        })
    }

    /// The URL of database `name` on the same server.
    fn with_name(&self, name: &str) -> String {
        let credentials = match &self.password {
            Some(password) => format!("{}:{password}", self.user),
            None => self.user.clone(),
        };
        format!(
            "postgres://{credentials}@{}:{}/{name}",
            self.host, self.port
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postgres_url_gives_createdb_its_parts() {
        let url = PgUrl::parse("postgres://noughts:pw@127.0.0.1:7883/bench").unwrap();
        assert_eq!(
            url,
            PgUrl {
                user: "noughts".into(),
                password: Some("pw".into()),
                host: "127.0.0.1".into(),
                port: "7883".into(),
                name: "bench".into(),
            }
        );
        assert_eq!(
            url.with_name("b_1"),
            "postgres://noughts:pw@127.0.0.1:7883/b_1"
        );
        let bare = PgUrl::parse("postgres://me@db").unwrap();
        assert_eq!(
            (bare.port.as_str(), bare.name.as_str()),
            ("5432", "noughts_bench")
        );
        assert!(PgUrl::parse("mysql://x@y/z").is_err());
    }
}
