//! Backups of a live SQLite database, through the operator's socket (`crate::ops::operator`):
//! `GET /backup` there has the running server copy its database (`VACUUM INTO`, on the store
//! thread that holds the file's lock) beside the file and send the copy; [`receive_backup`] (the
//! heart of the `noughts-server backup` command) asks for it and writes it where the operator
//! says, whole or not at all.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::time::timeout;

use crate::store::{Store, StoreConfig};

/// How long a whole backup may take, copy and transfer.
pub(crate) const BACKUP_TIMEOUT: Duration = Duration::from_secs(600);

/// What the operator's socket needs to answer `/backup` (and its commands): the store, and
/// where its file is.
#[derive(Debug, Clone)]
pub(crate) struct Backups {
    pub store: Store,
    /// The SQLite file; `None` when the store is not one.
    pub file: Option<PathBuf>,
}

impl Backups {
    pub(crate) fn new(store: Store, config: &StoreConfig) -> Backups {
        let file = match config {
            StoreConfig::File(path) => Some(path.clone()),
            _ => None,
        };
        Backups { store, file }
    }

    /// Answers `GET /backup` on `stream`: the database as a file, or why not.
    pub(crate) async fn answer<S: AsyncWrite + Unpin>(&self, stream: &mut S) {
        let refuse = |status: &str, body: &str| {
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        };
        let Some(file) = &self.file else {
            let body = "this server keeps no SQLite file; back up PostgreSQL with pg_dump\n";
            let _ = stream
                .write_all(refuse("404 Not Found", body).as_bytes())
                .await;
            return;
        };
        let copy = copy_path(file);
        let made = self.store.backup_into(copy.clone()).await;
        if let Err(err) = made {
            tracing::error!(cause = %err, "a backup failed");
            let _ = std::fs::remove_file(&copy);
            let body = format!("the backup failed: {err}\n");
            let _ = stream
                .write_all(refuse("500 Internal Server Error", &body).as_bytes())
                .await;
            return;
        }
        let sent = send_file(&copy, stream).await;
        let _ = std::fs::remove_file(&copy);
        match sent {
            Ok(bytes) => tracing::info!(bytes, "backup sent"),
            Err(err) => tracing::warn!(cause = %err, "a backup could not be sent"),
        }
    }
}

/// A new file beside the database for a copy: the same directory, so the same filesystem and
/// the same permissions.
fn copy_path(file: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut name = file.file_name().unwrap_or_default().to_owned();
    name.push(format!(".backup-{}-{n}", std::process::id()));
    file.with_file_name(name)
}

/// Sends the file at `path` as a `200` answer; its size. The file is read on the blocking pool,
/// a chunk at a time.
async fn send_file<S: AsyncWrite + Unpin>(path: &Path, stream: &mut S) -> std::io::Result<u64> {
    let length = std::fs::metadata(path)?.len();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.sqlite3\r\nContent-Length: {length}\r\n\
         Connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await?;
    let (chunks, mut read) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(4);
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(err) => return drop(chunks.blocking_send(Err(err))),
        };
        loop {
            let mut chunk = vec![0u8; 64 * 1024];
            match std::io::Read::read(&mut file, &mut chunk) {
                Ok(0) => return,
                Ok(n) => {
                    chunk.truncate(n);
                    if chunks.blocking_send(Ok(chunk)).is_err() {
                        return;
                    }
                }
                Err(err) => return drop(chunks.blocking_send(Err(err))),
            }
        }
    });
    let mut sent = 0u64;
    while let Some(chunk) = read.recv().await {
        let chunk = chunk?;
        stream.write_all(&chunk).await?;
        sent += chunk.len() as u64;
    }
    stream.flush().await?;
    if sent != length {
        return Err(std::io::Error::other("the copy changed while it was sent"));
    }
    Ok(length)
}

/// Asks the server at the other end of `stream` (its operator's socket) for a backup of its
/// database, and writes it to `to` (through a temporary file beside it, put in place when whole,
/// so `to` is never half a copy). An existing `to` is refused, before anything is fetched,
/// unless `overwrite`. Returns the backup's size in bytes.
pub(crate) async fn receive_backup(
    mut stream: UnixStream,
    to: &Path,
    overwrite: bool,
) -> anyhow::Result<u64> {
    if !overwrite && std::fs::symlink_metadata(to).is_ok() {
        bail!(
            "{} exists; give --force to overwrite it, or another file",
            to.display()
        );
    }
    let fetch = async {
        stream
            .write_all(b"GET /backup HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await?;
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).await?;
        let status = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut length = None;
        loop {
            line.clear();
            if reader.read_line(&mut line).await? == 0 {
                bail!("the server closed the connection in the middle of its answer");
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<u64>().ok();
            }
        }
        if status != "200" {
            let mut body = String::new();
            let _ = reader.read_to_string(&mut body).await;
            bail!("the server refused the backup ({status}): {}", body.trim());
        }
        let Some(length) = length else {
            bail!("the server's answer has no length");
        };
        let partial = partial_path(to);
        let written = receive(&mut reader.take(length), &partial, length).await;
        if let Err(err) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(err);
        }
        place(&partial, to, overwrite)?;
        Ok(length)
    };
    timeout(BACKUP_TIMEOUT, fetch)
        .await
        .context("the backup took too long")?
}

/// Puts the whole copy at `partial` in its place `to`: over what is there if `overwrite`, and
/// otherwise only if nothing is there (a file made there meanwhile is left alone).
fn place(partial: &Path, to: &Path, overwrite: bool) -> anyhow::Result<()> {
    let placed = if overwrite {
        std::fs::rename(partial, to)
    } else {
        std::fs::hard_link(partial, to)
    };
    let _ = std::fs::remove_file(partial);
    match placed {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => bail!(
            "{} exists; give --force to overwrite it, or another file",
            to.display()
        ),
        Err(err) => Err(err).with_context(|| format!("cannot write {}", to.display())),
    }
}

/// Writes `length` bytes of `body` to the new file `path` (readable by this user alone), and
/// syncs it.
async fn receive<R: AsyncRead + Unpin>(
    body: &mut R,
    path: &Path,
    length: u64,
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut got = 0u64;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = body.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        file.write_all(&chunk[..n])?;
        got += n as u64;
    }
    if got != length {
        bail!("the backup stopped after {got} of {length} bytes");
    }
    file.sync_all()?;
    Ok(())
}

/// Where a backup is written until it is whole.
fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.file_name().unwrap_or_default().to_owned();
    name.push(".partial");
    to.with_file_name(name)
}
