//! `noughts` without `--server`: a server of the user's own, keeping its games in a SQLite file in
//! the user's data directory (`$XDG_DATA_HOME/noughts` on Linux, or `$NOUGHTS_DATA_DIR`), so that
//! `noughts history` and `noughts replay` find them later and ids go on where they stopped.
//!
//! Only one server may hold the file. The first `noughts` runs it and writes its address beside
//! the file; a second `noughts` started meanwhile (another game, or a one-shot command) joins that
//! server instead of starting its own, so it sees the same lobby, games and history. (Opening the
//! file read-only instead would do for the one-shot commands but not for playing, and would show
//! a second lobby where the first has the live games.) When the first exits, it removes the
//! address; the next start runs a server of its own again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use noughts_server::StoreConfig;

use crate::config::TokenStore;
use crate::embedded::Embedded;

/// The environment variable that overrides the data directory (tests use it).
pub const DATA_DIR_ENV: &str = "NOUGHTS_DATA_DIR";

/// What the tokens of the user's own server are kept under, in place of its address (which
/// changes every start).
pub const LOCAL: &str = "local";

/// The data directory, if one can be found.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "noughts").map(|dirs| dirs.data_dir().to_path_buf())
}

/// The user's own server, whether this process runs it or joined the one already running.
#[derive(Debug)]
pub struct Local {
    pub url: String,
    /// The server, when this process runs it.
    pub server: Option<Embedded>,
    /// The address file this process wrote, removed when it stops.
    address: Option<PathBuf>,
}

/// The built-in server's settings: the defaults, keeping its records in `store`, without the
/// public site's scheduled arenas (nobody else is there to play them).
fn own_server(store: StoreConfig) -> noughts_server::Config {
    noughts_server::Config {
        store,
        arena_schedule: false,
        ..noughts_server::Config::default()
    }
}

impl Local {
    /// Joins the user's running server, or starts one on the data directory's file (in memory if
    /// there is no data directory).
    pub async fn start_or_join() -> anyhow::Result<Local> {
        let Some(dir) = data_dir() else {
            let server = Embedded::start(own_server(StoreConfig::Memory)).await?;
            return Ok(Local {
                url: server.url.clone(),
                server: Some(server),
                address: None,
            });
        };
        let address = dir.join("server");
        if let Some(url) = running(&address).await {
            return Ok(Local {
                url,
                server: None,
                address: None,
            });
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
        let mut server =
            Embedded::start(own_server(StoreConfig::File(dir.join("noughts.db")))).await?;
        server.ready().await.with_context(|| {
            format!(
                "cannot start the built-in server on {}",
                dir.join("noughts.db").display()
            )
        })?;
        std::fs::write(&address, format!("{}\n", server.url))
            .with_context(|| format!("cannot write {}", address.display()))?;
        Ok(Local {
            url: server.url.clone(),
            server: Some(server),
            address: Some(address),
        })
    }

    /// The tokens for this server: kept on disk when the games are, under [`LOCAL`].
    pub fn tokens(&self, config_dir: Option<PathBuf>) -> TokenStore {
        if data_dir().is_some() {
            TokenStore::open(config_dir, LOCAL)
        } else {
            TokenStore::in_memory(&self.url)
        }
    }

    /// Stops the server if this process runs it, and removes its address.
    pub async fn stop(self) {
        if let Some(address) = &self.address
            && std::fs::read_to_string(address).is_ok_and(|text| text.trim() == self.url)
        {
            let _ = std::fs::remove_file(address);
        }
        if let Some(server) = self.server {
            server.stop().await;
        }
    }
}

/// The address in `file`, if a server answers there.
async fn running(file: &Path) -> Option<String> {
    let url = std::fs::read_to_string(file).ok()?.trim().to_owned();
    let host = url.strip_prefix("ws://")?;
    let connected = tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(host.to_owned()),
    )
    .await;
    matches!(connected, Ok(Ok(_))).then_some(url)
}
