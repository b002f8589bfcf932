//! What the services a cluster shares (Redis, PostgreSQL) did over a measured window: commands,
//! transactions, rows and bytes, and their CPU, read before and after. Divided by the moves of
//! the window they are the per-move costs a capacity model is built from. On a Redis Cluster
//! every node is read, and each one's work is kept apart: the primaries' sums are the cluster's,
//! and each primary's CPU a move is its shard's.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use anyhow::Context;
use noughts_kit::postgres::client_program as pg_program;
use serde::{Deserialize, Serialize};

use crate::usage::ProcStat;

/// Redis's counters at one moment (from `INFO`).
#[derive(Debug, Clone, Default)]
struct RedisCounters {
    /// `master` or `slave`, as `INFO replication` says.
    role: String,
    commands: f64,
    /// Calls by command name (`INFO commandstats`).
    calls: BTreeMap<String, f64>,
    bytes_in: f64,
    bytes_out: f64,
    cpu_secs: f64,
}

/// PostgreSQL's counters at one moment, over every database of the server.
#[derive(Debug, Clone, Copy, Default)]
struct PgCounters {
    commits: f64,
    rows_written: f64,
    wal_bytes: f64,
    cpu_secs: f64,
}

/// The two services' counters at the start of a window.
#[derive(Debug)]
pub struct Backing {
    /// Each Redis node read (one, or every node of a cluster), its address and counters.
    redis: Vec<(String, redis::Client, RedisCounters)>,
    pg: Option<(String, PgCounters)>,
}

/// What the services did over a window, in all (divide by the window's moves for per-move costs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BackingWork {
    pub redis_commands: f64,
    /// Redis calls by command name.
    #[serde(default)]
    pub redis_calls: BTreeMap<String, f64>,
    pub redis_bytes_in: f64,
    pub redis_bytes_out: f64,
    pub redis_cpu_secs: f64,
    /// Each Redis node's part, in the order the URL names them (one for a lone Redis).
    #[serde(default)]
    pub redis_nodes: Vec<RedisNodeWork>,
    pub pg_commits: f64,
    pub pg_rows_written: f64,
    pub pg_wal_bytes: f64,
    pub pg_cpu_secs: f64,
}

/// What one Redis node did over a window.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RedisNodeWork {
    /// `HOST:PORT`.
    pub address: String,
    /// `master` or `slave` at the start of the window.
    pub role: String,
    pub commands: f64,
    pub cpu_secs: f64,
}

impl Backing {
    /// Reads the counters of the services given (either may be absent); `redis` may name a
    /// Redis Cluster (`redis+cluster://`), whose every node is read.
    pub async fn start(redis: Option<&str>, postgres: Option<&str>) -> anyhow::Result<Backing> {
        let mut nodes = Vec::new();
        for (address, url) in redis.map(node_urls).unwrap_or_default() {
            let client = redis::Client::open(url)?;
            let counters = redis_counters(&client).await?;
            nodes.push((address, client, counters));
        }
        let pg = match postgres {
            Some(url) => {
                let url = maintenance_url(url);
                let counters = pg_counters_off_thread(&url).await?;
                Some((url, counters))
            }
            None => None,
        };
        Ok(Backing { redis: nodes, pg })
    }

    /// What the services did since [`Backing::start`].
    pub async fn end(&self) -> anyhow::Result<BackingWork> {
        let mut work = BackingWork::default();
        for (address, client, before) in &self.redis {
            let after = redis_counters(client).await?;
            let node = RedisNodeWork {
                address: address.clone(),
                role: before.role.clone(),
                commands: after.commands - before.commands,
                cpu_secs: after.cpu_secs - before.cpu_secs,
            };
            // A replica runs its primary's writes again: the cluster's work is its primaries'.
            if node.role != "slave" {
                work.redis_commands += node.commands;
                for (name, calls) in &after.calls {
                    let was = before.calls.get(name).copied().unwrap_or(0.0);
                    if calls > &was {
                        *work.redis_calls.entry(name.clone()).or_default() += calls - was;
                    }
                }
                work.redis_bytes_in += after.bytes_in - before.bytes_in;
                work.redis_bytes_out += after.bytes_out - before.bytes_out;
                work.redis_cpu_secs += node.cpu_secs;
            }
            work.redis_nodes.push(node);
        }
        if let Some((url, before)) = &self.pg {
            let after = pg_counters_off_thread(url).await?;
            work.pg_commits = after.commits - before.commits;
            work.pg_rows_written = after.rows_written - before.rows_written;
            work.pg_wal_bytes = after.wal_bytes - before.wal_bytes;
            work.pg_cpu_secs = after.cpu_secs - before.cpu_secs;
        }
        Ok(work)
    }
}

impl BackingWork {
    /// The work divided by `moves`.
    pub fn per(&self, moves: f64) -> BackingWork {
        let d = moves.max(1.0);
        BackingWork {
            redis_commands: self.redis_commands / d,
            redis_calls: (self.redis_calls.iter())
                .map(|(name, calls)| (name.clone(), calls / d))
                .collect(),
            redis_bytes_in: self.redis_bytes_in / d,
            redis_bytes_out: self.redis_bytes_out / d,
            redis_cpu_secs: self.redis_cpu_secs / d,
            redis_nodes: (self.redis_nodes.iter())
                .map(|node| RedisNodeWork {
                    commands: node.commands / d,
                    cpu_secs: node.cpu_secs / d,
                    ..node.clone()
                })
                .collect(),
            pg_commits: self.pg_commits / d,
            pg_rows_written: self.pg_rows_written / d,
            pg_wal_bytes: self.pg_wal_bytes / d,
            pg_cpu_secs: self.pg_cpu_secs / d,
        }
    }
}

async fn redis_counters(client: &redis::Client) -> anyhow::Result<RedisCounters> {
    let mut conn = client.get_multiplexed_async_connection().await?;
    let info: String = redis::cmd("INFO")
        .arg("everything")
        .query_async(&mut conn)
        .await?;
    let fields = info_fields(&info);
    let get = |name: &str| fields.get(name).copied().unwrap_or(0.0);
    // The INFO command that reads these counts itself once; the window's two reads cancel out.
    let calls = (info.lines())
        .filter_map(|line| {
            let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = stats.split(',').find_map(|s| s.strip_prefix("calls="))?;
            Some((name.to_owned(), calls.parse().ok()?))
        })
        .collect();
    Ok(RedisCounters {
        role: (info.lines())
            .find_map(|line| line.strip_prefix("role:"))
            .unwrap_or("master")
            .trim()
            .to_owned(),
        commands: get("total_commands_processed"),
        calls,
        bytes_in: get("total_net_input_bytes"),
        bytes_out: get("total_net_output_bytes"),
        cpu_secs: get("used_cpu_sys") + get("used_cpu_user"),
    })
}

/// Each node `url` names, as its address and a URL of its own: one for `redis://`, every seed of
/// a `redis+cluster://` (or `rediss+cluster://`) URL.
pub fn node_urls(url: &str) -> Vec<(String, String)> {
    let Some((scheme, rest)) = url.split_once("+cluster://") else {
        let address = url.rsplit('@').next().unwrap_or(url);
        return vec![(address.trim_end_matches('/').to_owned(), url.to_owned())];
    };
    let (credentials, hosts) = match rest.rsplit_once('@') {
        Some((credentials, hosts)) => (format!("{credentials}@"), hosts),
        None => (String::new(), rest),
    };
    let hosts = hosts.split(['/', '?']).next().unwrap_or(hosts);
    hosts
        .split(',')
        .map(|host| (host.to_owned(), format!("{scheme}://{credentials}{host}")))
        .collect()
}

/// The numeric `name:value` lines of Redis's `INFO`.
fn info_fields(info: &str) -> HashMap<&str, f64> {
    info.lines()
        .filter_map(|line| line.split_once(':'))
        .filter_map(|(name, value)| Some((name, value.trim().parse().ok()?)))
        .collect()
}

/// `url` with its database replaced by `postgres`, which every server has: the counters read
/// are the server's, whichever database a part uses.
fn maintenance_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let server = rest.split(['/', '?']).next().unwrap_or(rest);
    format!("{scheme}://{server}/postgres")
}

const PG_COUNTERS: &str = "select sum(xact_commit)::bigint, \
     sum(tup_inserted + tup_updated + tup_deleted)::bigint, \
     (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, \
     current_setting('data_directory') \
     from pg_stat_database";

/// [`pg_counters`] on a thread of its own: `psql` takes some milliseconds, which the moves beside
/// it should not wait for.
async fn pg_counters_off_thread(url: &str) -> anyhow::Result<PgCounters> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || pg_counters(&url)).await?
}

fn pg_counters(url: &str) -> anyhow::Result<PgCounters> {
    // Pending statistics reach pg_stat_database within a second; a window is many.
    let out = Command::new(pg_program("psql"))
        .args(["-At", "-F", "|", "-d", url, "-c", PG_COUNTERS])
        .output()
        .context("cannot run psql (PostgreSQL's client programs are needed)")?;
    anyhow::ensure!(
        out.status.success(),
        "psql failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = text.trim().split('|').collect();
    let [commits, rows_written, wal_bytes, data_directory] = fields[..] else {
        anyhow::bail!("psql answered {text:?}");
    };
    let number = |n: &str| {
        n.parse::<f64>()
            .with_context(|| format!("psql answered {n:?} for a number"))
    };
    Ok(PgCounters {
        commits: number(commits)?,
        rows_written: number(rows_written)?,
        wal_bytes: number(wal_bytes)?,
        cpu_secs: postmaster_cpu_secs(Path::new(data_directory))
            .context("cannot read the PostgreSQL server's CPU time from /proc")?,
    })
}

/// The CPU seconds of the PostgreSQL server whose data are in `data_directory`: its
/// postmaster's (named in the directory's `postmaster.pid`) and every live child's, with the
/// children that have ended (counted into the postmaster's).
fn postmaster_cpu_secs(data_directory: &Path) -> Option<f64> {
    let pid_file = std::fs::read_to_string(data_directory.join("postmaster.pid")).ok()?;
    let postmaster: u32 = pid_file.lines().next()?.trim().parse().ok()?;
    let own = ProcStat::of(postmaster)?;
    let mut total = own.cpu_secs + own.children_cpu_secs;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(child) = ProcStat::of(pid).filter(|s| s.ppid == postmaster) {
            total += child.cpu_secs;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_fields_are_read_by_name() {
        let info = "# Stats\r\ntotal_commands_processed:42\r\nused_cpu_sys:1.5\r\nrole:master\r\n";
        let fields = info_fields(info);
        assert_eq!(fields.get("total_commands_processed"), Some(&42.0));
        assert_eq!(fields.get("used_cpu_sys"), Some(&1.5));
        assert!(!fields.contains_key("role"));
    }

    #[test]
    fn every_node_of_a_cluster_url_is_read() {
        assert_eq!(
            node_urls("redis+cluster://u:p@127.0.0.1:7001,127.0.0.1:7002"),
            [
                (
                    "127.0.0.1:7001".to_owned(),
                    "redis://u:p@127.0.0.1:7001".to_owned()
                ),
                (
                    "127.0.0.1:7002".to_owned(),
                    "redis://u:p@127.0.0.1:7002".to_owned()
                ),
            ]
        );
        assert_eq!(
            node_urls("redis://u:p@127.0.0.1:7990"),
            [(
                "127.0.0.1:7990".to_owned(),
                "redis://u:p@127.0.0.1:7990".to_owned()
            )]
        );
    }

    #[test]
    fn counters_are_read_from_the_maintenance_database() {
        assert_eq!(
            maintenance_url("postgres://noughts@127.0.0.1:7991/bench"),
            "postgres://noughts@127.0.0.1:7991/postgres"
        );
        assert_eq!(
            maintenance_url("postgres://u:p@h"),
            "postgres://u:p@h/postgres"
        );
    }

    #[test]
    fn this_process_has_a_stat() {
        let me = ProcStat::of(std::process::id()).unwrap();
        assert!(me.ppid > 0 && me.cpu_secs >= 0.0);
    }
}
