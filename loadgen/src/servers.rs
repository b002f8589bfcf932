//! How a run gets its servers: started as child processes (pinned, on a database file or in
//! memory), or already running elsewhere.

use std::path::PathBuf;

use crate::suite::Launcher;
use crate::target::Target;

/// Starts the servers a run needs, or points at running ones.
#[derive(Debug)]
pub struct Servers {
    /// A running server to measure instead of starting one.
    pub external: Option<String>,
    /// A running echo server to measure instead of starting one.
    pub external_echo: Option<String>,
    /// The running server's process, for its CPU and memory.
    pub pid: Option<u32>,
    pub server_bin: PathBuf,
    pub echo_bin: PathBuf,
    /// The CPUs started servers are pinned to.
    pub cpus: Option<String>,
    /// Where started servers keep their database; `None` for memory.
    pub db_dir: Option<PathBuf>,
    /// When their moves reach the disk: `move` or `interval`.
    pub durability: String,
}

impl Servers {
    /// The started servers' flags besides the usual ones: when their moves reach the disk.
    fn durability(&self, durability: &str) -> Vec<String> {
        vec!["--durability".to_owned(), durability.to_owned()]
    }
}

impl Launcher for Servers {
    fn server(&self, connections: usize) -> anyhow::Result<Target> {
        match &self.external {
            Some(url) => Ok(Target::external(url, self.pid)),
            None => Target::start_server_with(
                &self.server_bin,
                connections,
                self.db_dir.as_deref(),
                self.cpus.as_deref(),
                &self.durability(&self.durability),
            ),
        }
    }

    fn interval_server(&self, connections: usize) -> anyhow::Result<Target> {
        match &self.external {
            Some(url) => Ok(Target::external(url, self.pid)),
            None => Target::start_server_with(
                &self.server_bin,
                connections,
                Some(
                    self.db_dir
                        .clone()
                        .unwrap_or_else(std::env::temp_dir)
                        .as_path(),
                ),
                self.cpus.as_deref(),
                &self.durability("interval"),
            ),
        }
    }

    fn memory_server(&self, connections: usize) -> anyhow::Result<Target> {
        match &self.external {
            Some(url) => Ok(Target::external(url, self.pid)),
            None => Target::start_server(&self.server_bin, connections, None, self.cpus.as_deref()),
        }
    }

    fn echo(&self) -> anyhow::Result<Target> {
        match self.external_echo.as_ref().or(self.external.as_ref()) {
            Some(url) => Ok(Target::external(url, None)),
            None => Target::start(
                &self.echo_bin,
                &["--listen".to_owned(), "127.0.0.1:0".to_owned()],
                self.cpus.as_deref(),
            ),
        }
    }
}
