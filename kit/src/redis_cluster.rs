//! A real Redis Cluster of the test's own: a number of shards, each a primary `redis-server` with
//! one replica (`cluster-enabled yes`, slots spread by `redis-cli --cluster create`), on free
//! loopback ports, nothing saved but the cluster's own node files in a scratch directory; every
//! process stopped when dropped. Each node asks for a password as [`crate::redis::TestRedis`]
//! does (`default` off, the ACL user `noughts`, replicas logging in to their primaries as it), and
//! [`TestRedisCluster::url`] names every node as a `redis+cluster://` URL. A test may fail over
//! the shard holding a key, gracefully (`CLUSTER FAILOVER` on its replica) or by killing its
//! primary.

use std::hash::{BuildHasher, RandomState};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::Scratch;
use crate::redis::{USER, write_private};

/// How long a node of the cluster may be silent before the others take it for failed: short, so
/// that a test's failover by a killed primary is over in a few seconds.
const NODE_TIMEOUT_MS: u64 = 1_000;

/// One `redis-server` of the cluster.
#[derive(Debug)]
struct Node {
    port: u16,
    /// `None` once killed.
    child: Option<Child>,
    /// Its settings, to start it again.
    config: PathBuf,
}

/// A running Redis Cluster.
#[derive(Debug)]
pub struct TestRedisCluster {
    nodes: Vec<Node>,
    password: String,
    /// The certificate `redis-cli` checks the nodes' against, when they speak TLS.
    ca: Option<PathBuf>,
    /// `redis+cluster://noughts:PASSWORD@127.0.0.1:PORT,…`, every node a seed.
    pub url: String,
    /// The URL in a file of mode 600, for `--redis-url-file`.
    pub url_file: PathBuf,
    /// The cluster's secret, mode 600.
    pub secret_file: PathBuf,
    /// The nodes' settings and files; removed when dropped (after the nodes stop).
    _scratch: Scratch,
}

/// A node of the cluster as `CLUSTER NODES` lists it.
#[derive(Debug, Clone)]
struct Listed {
    id: String,
    port: u16,
    flags: String,
    /// The id of its primary, for a replica.
    primary: String,
    /// The slot ranges it serves, for a primary.
    slots: Vec<(u16, u16)>,
}

/// Two free loopback ports: `port` for clients, and `port + 10000`, the cluster bus.
fn free_pair() -> u16 {
    loop {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("an address").port();
        if port < 50_000 && std::net::TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok() {
            return port;
        }
    }
}

impl TestRedisCluster {
    /// Starts `shards` shards (one at least) of a primary and a replica each, or `None` (said
    /// loudly) on a machine without `redis-server`; in CI (`CI` set) a missing one fails the test instead.
    pub async fn start(shards: usize) -> Option<TestRedisCluster> {
        TestRedisCluster::launch(shards, None).await
    }

    /// Starts one that speaks TLS alone, between its nodes too, with the certificate chain and
    /// key in the PEM files `cert` and `key` (the certificate its own authority); its URL is
    /// `rediss+cluster://`.
    pub async fn start_tls(shards: usize, cert: &Path, key: &Path) -> Option<TestRedisCluster> {
        TestRedisCluster::launch(shards, Some((cert, key))).await
    }

    async fn launch(shards: usize, tls: Option<(&Path, &Path)>) -> Option<TestRedisCluster> {
        assert!(shards >= 1, "a Redis Cluster needs a primary at least");
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server cannot run, and CI must run the cluster tests"
            );
            eprintln!("SKIPPED: redis-server cannot run here; .ci/run installs it");
            return None;
        }
        let scratch = Scratch::new("redis-cluster");
        let state = RandomState::new();
        let password = format!("{:016x}{:016x}", state.hash_one(1), state.hash_one(2));
        let mut nodes = Vec::new();
        for _ in 0..shards * 2 {
            let port = free_pair();
            let dir = scratch.dir.join(port.to_string());
            std::fs::create_dir_all(&dir).expect("a node's directory");
            let config = dir.join("redis.conf");
            let listen = match tls {
                None => format!("port {port}\n"),
                Some((cert, key)) => format!(
                    "port 0\ntls-port {port}\ntls-cluster yes\ntls-replication yes\n\
                     tls-cert-file {cert}\ntls-key-file {key}\ntls-ca-cert-file {cert}\n\
                     tls-auth-clients no\n",
                    cert = cert.display(),
                    key = key.display()
                ),
            };
            write_private(
                &config,
                &format!(
                    "bind 127.0.0.1\n{listen}dir {dir}\nsave \"\"\nappendonly no\n\
                     cluster-enabled yes\ncluster-config-file nodes.conf\n\
                     cluster-node-timeout {NODE_TIMEOUT_MS}\n\
                     user default off\nuser {USER} on >{password} ~* &* +@all\n\
                     masteruser {USER}\nmasterauth {password}\n",
                    dir = dir.display()
                ),
            );
            nodes.push(Node {
                port,
                child: Some(server(&config)),
                config,
            });
        }
        let hosts: Vec<String> = nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port))
            .collect();
        let scheme = if tls.is_some() { "rediss" } else { "redis" };
        let url = format!("{scheme}+cluster://{USER}:{password}@{}", hosts.join(","));
        let url_file = scratch.dir.join("url");
        let secret_file = scratch.dir.join("secret");
        write_private(&url_file, &format!("{url}\n"));
        write_private(
            &secret_file,
            &format!(
                "the test Redis Cluster's secret, its first node on {}\n",
                hosts[0]
            ),
        );
        let cluster = TestRedisCluster {
            nodes,
            password,
            ca: tls.map(|(cert, _)| cert.to_owned()),
            url,
            url_file,
            secret_file,
            _scratch: scratch,
        };
        for node in &cluster.nodes {
            super::redis::wait_for_port(node.port).await;
        }
        if shards < 3 {
            // `redis-cli --cluster create` wants three primaries: fewer are joined by hand.
            cluster.join_by_hand(shards).await;
            return Some(cluster);
        }
        let created = cluster
            .authed(Command::new("redis-cli"))
            .args(["--cluster", "create"])
            .args(&hosts)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdout(Stdio::null())
            .output()
            .expect("run redis-cli --cluster create");
        assert!(
            created.status.success(),
            "redis-cli --cluster create: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        cluster.until_whole().await;
        Some(cluster)
    }

    /// Makes a cluster of the first `shards` nodes as primaries, the slots split evenly between
    /// them, and the rest as their replicas in turn, as `redis-cli --cluster create` would.
    async fn join_by_hand(&self, shards: usize) {
        const SLOTS: usize = 16_384;
        let ports: Vec<u16> = self.nodes.iter().map(|node| node.port).collect();
        for (i, port) in ports.iter().take(shards).enumerate() {
            let (from, to) = (i * SLOTS / shards, (i + 1) * SLOTS / shards - 1);
            let answer = self.run(
                *port,
                &[
                    "CLUSTER",
                    "ADDSLOTSRANGE",
                    &from.to_string(),
                    &to.to_string(),
                ],
            );
            assert!(answer.contains("OK"), "CLUSTER ADDSLOTSRANGE: {answer}");
        }
        for port in &ports[1..] {
            let answer = self.run(
                *port,
                &["CLUSTER", "MEET", "127.0.0.1", &ports[0].to_string()],
            );
            assert!(answer.contains("OK"), "CLUSTER MEET: {answer}");
        }
        for _ in 0..400 {
            let known = ports.iter().all(|port| {
                self.listed(*port).len() == ports.len()
                    && self
                        .run(*port, &["CLUSTER", "INFO"])
                        .contains("cluster_state:ok")
            });
            if known {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for (i, port) in ports.iter().enumerate().skip(shards) {
            let primary = self.run(ports[i % shards], &["CLUSTER", "MYID"]);
            let answer = self.run(*port, &["CLUSTER", "REPLICATE", primary.trim()]);
            assert!(answer.contains("OK"), "CLUSTER REPLICATE: {answer}");
        }
        self.until_whole().await;
    }

    /// `command` logged in as the nodes are, its password in the environment (not on its
    /// command line).
    fn authed(&self, mut command: Command) -> Command {
        command
            .args(["--no-auth-warning", "--user", USER])
            .env("REDISCLI_AUTH", &self.password);
        if let Some(ca) = &self.ca {
            command.arg("--tls").arg("--cacert").arg(ca);
        }
        command
    }

    /// `redis-cli` to the node at `port`, logged in as the nodes are.
    pub fn cli(&self, port: u16) -> Command {
        let mut cli = self.authed(Command::new("redis-cli"));
        cli.args(["-p", &port.to_string()]);
        cli
    }

    /// `redis-cli` in cluster mode (following `MOVED`), for a test to look at what the cluster
    /// holds.
    pub fn cli_any(&self) -> Command {
        let mut cli = self.cli(self.live_port());
        cli.arg("-c");
        cli
    }

    fn live_port(&self) -> u16 {
        self.nodes
            .iter()
            .find(|node| node.child.is_some())
            .expect("a live node")
            .port
    }

    fn run(&self, port: u16, args: &[&str]) -> String {
        let out = self.cli(port).args(args).output().expect("run redis-cli");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The cluster as the live node at `port` sees it.
    fn listed(&self, port: u16) -> Vec<Listed> {
        self.run(port, &["CLUSTER", "NODES"])
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let address = fields.get(1)?.split('@').next()?;
                let port = address.rsplit(':').next()?.parse().ok()?;
                let slots = fields
                    .get(8..)
                    .unwrap_or_default()
                    .iter()
                    .filter(|range| !range.starts_with('['))
                    .filter_map(|range| {
                        let (from, to) = range.split_once('-').unwrap_or((range, range));
                        Some((from.parse().ok()?, to.parse().ok()?))
                    })
                    .collect();
                Some(Listed {
                    id: (*fields.first()?).to_owned(),
                    port,
                    flags: (*fields.get(2)?).to_owned(),
                    primary: (*fields.get(3)?).to_owned(),
                    slots,
                })
            })
            .collect()
    }

    /// Waits until every live node says the cluster is whole (`cluster_state:ok`, every slot
    /// served) and every live replica has caught up with its primary.
    async fn until_whole(&self) {
        for _ in 0..600 {
            let whole = self
                .nodes
                .iter()
                .filter(|node| node.child.is_some())
                .all(|node| {
                    let info = self.run(node.port, &["CLUSTER", "INFO"]);
                    let replication = self.run(node.port, &["INFO", "replication"]);
                    info.contains("cluster_state:ok")
                        && !replication.contains("master_link_status:down")
                        && !replication.contains("master_sync_in_progress:1")
                });
            if whole {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the Redis Cluster never came whole");
    }

    /// The slot `key` falls in.
    pub fn slot_of(&self, key: &str) -> u16 {
        self.run(self.live_port(), &["CLUSTER", "KEYSLOT", key])
            .trim()
            .parse()
            .expect("a slot")
    }

    /// The port of the primary serving `key`'s slot, and of its replica, as the cluster sees it.
    pub fn shard_of(&self, key: &str) -> (u16, Option<u16>) {
        let slot = self.slot_of(key);
        let listed = self.listed(self.live_port());
        let primary = listed
            .iter()
            .find(|node| {
                node.flags.contains("master")
                    && !node.flags.contains("fail")
                    && node.slots.iter().any(|&(a, b)| a <= slot && slot <= b)
            })
            .unwrap_or_else(|| panic!("no primary serves slot {slot}"));
        let replica = listed
            .iter()
            .find(|node| node.primary == primary.id && !node.flags.contains("fail"))
            .map(|node| node.port);
        (primary.port, replica)
    }

    /// Fails over the shard holding `key` gracefully: its replica asks its primary to hand over
    /// (`CLUSTER FAILOVER`), and the two swap. Returns once the cluster is whole again under the
    /// new primary (the old one now its replica).
    pub async fn fail_over(&self, key: &str) -> u16 {
        let (primary, replica) = self.shard_of(key);
        let replica = replica.expect("the shard has a replica");
        let answer = self.run(replica, &["CLUSTER", "FAILOVER"]);
        assert!(answer.contains("OK"), "CLUSTER FAILOVER: {answer}");
        self.until_primary(replica, primary).await;
        replica
    }

    /// Kills the primary of the shard holding `key` (as `kill -9` would); its replica is promoted
    /// once the others take the primary for failed. Returns once it serves the shard's slots,
    /// with the port of the new primary.
    pub async fn kill_primary(&mut self, key: &str) -> u16 {
        let (primary, replica) = self.shard_of(key);
        let replica = replica.expect("the shard has a replica");
        let node = self
            .nodes
            .iter_mut()
            .find(|node| node.port == primary)
            .expect("the primary is one of ours");
        if let Some(mut child) = node.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.until_primary(replica, primary).await;
        replica
    }

    /// Waits until the node at `port` is a primary that the cluster routes to, in place of
    /// `old`.
    async fn until_primary(&self, port: u16, old: u16) {
        for _ in 0..400 {
            let listed = self.listed(port);
            let promoted = listed
                .iter()
                .any(|node| node.port == port && node.flags.contains("myself,master"));
            let others_agree = self
                .nodes
                .iter()
                .filter(|node| node.child.is_some() && node.port != port && node.port != old)
                .all(|node| {
                    self.listed(node.port).iter().any(|listed| {
                        listed.port == port
                            && listed.flags.contains("master")
                            && !listed.slots.is_empty()
                    })
                });
            // The old primary, if it lives, follows the new one, as every node sees it, and has
            // caught up with it (so that the shard may fail over again).
            let new_id = listed
                .iter()
                .find(|node| node.port == port)
                .map(|n| n.id.clone());
            let old_alive = self
                .nodes
                .iter()
                .any(|n| n.port == old && n.child.is_some());
            let old_follows = !old_alive
                || (self.ports().into_iter().all(|at| {
                    self.listed(at).iter().any(|listed| {
                        listed.port == old
                            && listed.flags.contains("slave")
                            && Some(&listed.primary) == new_id.as_ref()
                    })
                }) && self
                    .run(old, &["INFO", "replication"])
                    .contains("master_link_status:up"));
            if promoted && others_agree && old_follows {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the replica on {port} was never promoted in place of {old}");
    }

    /// The ports of the live nodes.
    pub fn ports(&self) -> Vec<u16> {
        self.nodes
            .iter()
            .filter(|node| node.child.is_some())
            .map(|node| node.port)
            .collect()
    }
}

/// `redis-server` with the settings in `config`.
fn server(config: &std::path::Path) -> Child {
    Command::new("redis-server")
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts")
}

impl TestRedisCluster {
    /// The port of every node, live or killed, in the order the URL lists them: a client that
    /// subscribes through the first that answers subscribes through the first live one.
    pub fn seeds(&self) -> Vec<u16> {
        self.nodes.iter().map(|node| node.port).collect()
    }

    /// Kills the node at `port` (as `kill -9` would); if it was a primary, returns once its
    /// replica serves its slots in its place.
    pub async fn kill(&mut self, port: u16) {
        let listed = self.listed(self.live_port());
        let me = listed.iter().find(|node| node.port == port).cloned();
        let replica = me.as_ref().and_then(|me| {
            listed
                .iter()
                .find(|node| node.primary == me.id && !node.flags.contains("fail"))
                .map(|node| node.port)
        });
        let was_primary = me.is_some_and(|me| me.flags.contains("master"));
        if let Some(mut child) = self
            .nodes
            .iter_mut()
            .find(|node| node.port == port)
            .and_then(|node| node.child.take())
        {
            let _ = child.kill();
            let _ = child.wait();
        }
        if was_primary {
            let replica = replica.expect("a primary killed has a replica to take over");
            self.until_primary(replica, port).await;
        }
    }

    /// Starts every killed node again: each rejoins the cluster (from its node file) as a
    /// replica of the primary that took its place. Returns once the cluster is whole and every
    /// replica has caught up.
    pub async fn restart_killed(&mut self) {
        let mut restarted = Vec::new();
        for node in &mut self.nodes {
            if node.child.is_none() {
                node.child = Some(server(&node.config));
                restarted.push(node.port);
            }
        }
        for port in self.ports() {
            super::redis::wait_for_port(port).await;
        }
        // Every node sees each one restarted as a healthy replica.
        for _ in 0..400 {
            let rejoined = self.ports().into_iter().all(|at| {
                let listed = self.listed(at);
                restarted.iter().all(|port| {
                    listed.iter().any(|node| {
                        node.port == *port
                            && node.flags.contains("slave")
                            && !node.flags.contains("fail")
                    })
                })
            });
            if rejoined {
                self.until_whole().await;
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the nodes restarted on {restarted:?} never rejoined as replicas");
    }
}

impl Drop for TestRedisCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            if let Some(mut child) = node.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}
