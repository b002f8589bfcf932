//! The operator's socket: a Unix socket beside the server's SQLite file (`FILE.admin`, or
//! `--admin-socket PATH`), where `noughts-server backup` has the running server copy its database
//! (`GET /backup`) and `noughts-server admin` runs its commands on the store the server holds
//! (`POST /admin`). The socket is the server's user's alone (mode 0600, made as the proxy's door
//! is, by [`Door::bind`]), and each connection's caller, as the kernel names it (`SO_PEERCRED`),
//! must be that user or root, or is answered `403`. The audit keeps that caller beside the name
//! the operator gave, so that no caller can make it name somebody else.
//! This is the server's end; the commands' is `client`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::time::{sleep, timeout};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn};

use super::remote::{self, Caller};
use crate::net::http::{self, Answer};
use crate::net::proxy::Door;
use crate::ops::backup::{BACKUP_TIMEOUT, Backups};
use crate::ops::port::{method_and_path, read_head};
use crate::store::StoreConfig;

/// How long a caller has to send its request.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an admin command may take on the server.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a server's operator's socket is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminSocket {
    /// The socket's path.
    pub path: PathBuf,
    /// The operator named it (`--admin-socket`): a server that cannot make it does not start.
    /// Otherwise it is the place beside the database, and a server that cannot make it there
    /// (a path too long for a socket, say) logs why and serves without it.
    pub chosen: bool,
}

impl AdminSocket {
    /// The operator's socket of a server on `store`: `chosen` if given, else beside a SQLite file
    /// (`FILE.admin`); none for another store unless chosen.
    pub fn of(store: &StoreConfig, chosen: Option<PathBuf>) -> Option<AdminSocket> {
        match (chosen, store) {
            (Some(path), _) => Some(AdminSocket { path, chosen: true }),
            (None, StoreConfig::File(db)) => {
                let mut path = db.clone().into_os_string();
                path.push(".admin");
                Some(AdminSocket {
                    path: path.into(),
                    chosen: false,
                })
            }
            (None, _) => None,
        }
    }
}

/// Makes the server's socket; `None` (logged) when the place beside the database will not do.
pub(crate) fn open(socket: &AdminSocket) -> anyhow::Result<Option<Door>> {
    match Door::bind(&socket.path, None) {
        Ok(door) => Ok(Some(door)),
        Err(err) if !socket.chosen => {
            warn!(
                cause = %err,
                "no admin socket: backups and admin commands cannot reach this server; give it \
                 --admin-socket PATH"
            );
            Ok(None)
        }
        Err(err) => Err(err).context("the admin socket (--admin-socket)"),
    }
}

/// Serves the operator's socket `door` until `stop` is cancelled, each caller on a task of
/// `tasks`; the socket file goes with it.
pub(crate) async fn serve(
    door: Door,
    backups: Backups,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    info!(path = %door.path().display(), "admin socket");
    let backups = Arc::new(backups);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = door.accept() => match accepted {
                Ok(stream) => {
                    let backups = backups.clone();
                    tasks.spawn(async move { answer(&backups, stream).await });
                }
                Err(err) => {
                    warn!(cause = %err, "admin socket accept failed");
                    sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Answers one caller's request, then closes.
async fn answer(backups: &Backups, mut stream: UnixStream) {
    let uid = stream.peer_cred().ok().map(|cred| cred.uid());
    let Ok(Some(head)) = timeout(HEAD_TIMEOUT, read_head(&mut stream)).await else {
        debug!("an admin socket request timed out");
        return;
    };
    let own = nix::unistd::geteuid().as_raw();
    let caller = match uid {
        Some(uid) if uid == own || uid == 0 => Caller::of(uid).await,
        _ => {
            let shown = uid.map_or_else(|| "unknown".to_owned(), |uid| uid.to_string());
            warn!(uid = %shown, "admin socket: a caller who is neither this server's user nor root refused");
            let body = format!(
                "this socket takes this server's own user (uid {own}) and root only, not uid \
                 {shown}\n"
            );
            return refuse(&mut stream, "403 Forbidden", &body).await;
        }
    };
    match method_and_path(&head) {
        (Some(b"GET"), Some(b"/backup")) => {
            info!(%caller, "a backup asked for");
            if timeout(BACKUP_TIMEOUT, backups.answer(&mut stream))
                .await
                .is_err()
            {
                warn!("a backup took too long");
            }
        }
        (Some(b"POST"), Some(b"/admin")) => {
            let command = remote::answer(&backups.store, &caller, &head, &mut stream);
            if timeout(ADMIN_TIMEOUT, command).await.is_err() {
                warn!("an admin command took too long");
            }
        }
        _ => {
            let body = "this socket serves GET /backup and POST /admin\n";
            return refuse(&mut stream, "404 Not Found", body).await;
        }
    }
    let _ = stream.shutdown().await;
}

/// Answers `status` with `body`, and closes.
async fn refuse(stream: &mut UnixStream, status: &str, body: &str) {
    let _ = stream
        .write_all(&http::response(Answer::text(status, body)))
        .await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_socket_sits_beside_a_sqlite_file_unless_chosen() {
        let file = StoreConfig::File(PathBuf::from("/var/lib/noughts/noughts.db"));
        let beside = AdminSocket::of(&file, None).unwrap();
        assert_eq!(beside.path, Path::new("/var/lib/noughts/noughts.db.admin"));
        assert!(!beside.chosen);
        let chosen = AdminSocket::of(&file, Some("/run/n.sock".into())).unwrap();
        assert_eq!(chosen.path, Path::new("/run/n.sock"));
        assert!(chosen.chosen);
        assert_eq!(AdminSocket::of(&StoreConfig::Memory, None), None);
        let memory = AdminSocket::of(&StoreConfig::Memory, Some("m.sock".into()));
        assert!(memory.is_some_and(|socket| socket.chosen));
    }
}
