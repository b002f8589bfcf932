//! The commands' way into a running server: its operator's socket, found beside its database
//! (or where `--admin-socket` says), through which `noughts-server admin` runs its commands on
//! the server's store and `noughts-server backup` has it copy its database; and, when no server
//! runs there, the database itself.

use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::time::timeout;

use super::commands::{AdminAction, HEADER, Request, execute};
use crate::net::proxy::MAX_SOCKET_PATH;
use crate::ops::backup::receive_backup;
use crate::store::{Durability, Store, StoreConfig};

/// How long a request through the server may take.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `action` as `operator`: through the running server whose operator's socket is `socket`
/// when one answers there, or else against the database `config` names; returns what to print.
pub async fn run_admin(
    config: &StoreConfig,
    socket: Option<&Path>,
    operator: &str,
    action: AdminAction,
) -> anyhow::Result<String> {
    if let Some(socket) = socket
        && let Some(stream) = reach(socket).await?
    {
        return through_server(stream, operator, action).await;
    }
    if let StoreConfig::Memory = config {
        bail!(
            "a server with --db :memory: keeps its moderation in its own memory: start it with \
             --admin-socket PATH, and give this command the same"
        );
    }
    let opened = Store::open_keeping(config, usize::MAX, Durability::Move).await;
    let (store, _) = opened.with_context(|| match socket {
        Some(socket) => format!(
            "cannot open the database (no server answered on its admin socket {})",
            socket.display()
        ),
        None => "cannot open the database".to_owned(),
    })?;
    execute(&store, operator, action).await
}

/// The way into the running server whose operator's socket is `path`: `None` when no server
/// runs there (no socket, or one that nobody answers on, left by a server that died).
pub(crate) async fn reach(path: &Path) -> anyhow::Result<Option<UnixStream>> {
    let length = path.as_os_str().len();
    if length > MAX_SOCKET_PATH {
        bail!(
            "the admin socket {} is too long a path for a Unix socket ({length} bytes, at most \
             {MAX_SOCKET_PATH}): start the server with a shorter --admin-socket, and give this \
             command the same",
            path.display()
        );
    }
    match UnixStream::connect(path).await {
        Ok(stream) => Ok(Some(stream)),
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::NotFound | ErrorKind::ConnectionRefused
            ) =>
        {
            Ok(None)
        }
        Err(err) if err.kind() == ErrorKind::PermissionDenied => Err(err).with_context(|| {
            format!(
                "cannot reach the server's admin socket {}: it is for the server's own user \
                 and root",
                path.display()
            )
        }),
        Err(err) => Err(err)
            .with_context(|| format!("cannot reach the server's admin socket {}", path.display())),
    }
}

/// `noughts-server backup`: has the server whose operator's socket is `socket` copy its
/// database, and writes the copy to `to` (refused if `to` exists, unless `overwrite`); its size
/// in bytes.
pub async fn fetch_backup(socket: &Path, to: &Path, overwrite: bool) -> anyhow::Result<u64> {
    let Some(stream) = reach(socket).await? else {
        bail!(
            "no server answers on {}: a backup is made by the server that runs on the \
             database (with none running, copy the file itself)",
            socket.display()
        );
    };
    receive_backup(stream, to, overwrite).await
}

/// Runs `action` on the server at the other end of `stream` (its operator's socket); returns
/// what it printed.
async fn through_server(
    mut stream: UnixStream,
    operator: &str,
    action: AdminAction,
) -> anyhow::Result<String> {
    let request = serde_json::to_string(&Request {
        operator: operator.to_owned(),
        action,
    })?;
    let exchange = async {
        let head = format!(
            "POST /admin HTTP/1.1\r\nHost: localhost\r\n{HEADER}: {request}\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await?;
        anyhow::Ok(answer)
    };
    let answer = timeout(ADMIN_TIMEOUT, exchange)
        .await
        .context("the server took too long to answer")??;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.split_whitespace().nth(1).unwrap_or_default();
    if status != "200" {
        bail!("the server refused ({status}): {}", body.trim());
    }
    Ok(body.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_socket_or_a_dead_one_is_no_server_and_a_long_path_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.admin");
        assert!(reach(&missing).await.unwrap().is_none());
        let dead = dir.path().join("dead.admin");
        drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
        assert!(reach(&dead).await.unwrap().is_none());
        let long = dir.path().join("n".repeat(MAX_SOCKET_PATH));
        let err = reach(&long).await.unwrap_err();
        assert!(format!("{err:#}").contains("too long"), "{err:#}");
    }
}
