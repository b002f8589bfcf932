//! The proxy's own door (`--proxy-socket PATH`): a Unix socket beside the node's TCP port that
//! only the node's own user may connect to (mode 0600), or also a group the operator names
//! (mode 0660, that group's), and where every connection must start with a PROXY protocol v2
//! header, whose client address is believed. A proxy on the same machine (HAProxy's
//! `server … unix@PATH send-proxy-v2`) reaches the node here; any other local process, which could
//! reach the TCP port, cannot speak for a client, because the TCP port then believes no header.
//!
//! The socket is made in a private directory (mode 0700) beside `PATH`, given its mode and group
//! there, and only then renamed into place, so that nobody can connect in between. A socket left
//! at `PATH` by a node that died is replaced; one that a running server still answers on is not.
//! The operator's socket (`crate::ops::operator::socket`) is made the same way, by [`Door::bind`].

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

/// Where the proxy reaches the node, and who besides the node's user may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxySocket {
    /// The socket's path.
    pub path: PathBuf,
    /// A group whose members may connect too (the proxy's, when it runs as another user); the
    /// socket is then of that group, mode 0660. `None`: the node's user alone, mode 0600.
    pub group: Option<String>,
}

/// Why the proxy's socket could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum DoorError {
    #[error("cannot make the socket {path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
    #[error("{0} exists and is not a socket; remove it or choose another path")]
    NotASocket(PathBuf),
    #[error("a server already listens on the socket {0}")]
    InUse(PathBuf),
    #[error("there is no group {0:?} for the proxy socket")]
    NoSuchGroup(String),
    #[error(
        "{path} is too long a path for a Unix socket ({length} bytes): at most {most} fit \
         there; choose a shorter one"
    )]
    TooLong {
        path: PathBuf,
        length: usize,
        most: usize,
    },
}

/// The longest path a Unix socket may be bound or reached at: `sun_path` holds 108 bytes on
/// Linux, the terminating NUL included.
pub(crate) const MAX_SOCKET_PATH: usize = 107;

/// The node's end of the proxy's socket: accepts its connections, and removes the socket when
/// dropped (if it is still this one).
#[derive(Debug)]
pub(crate) struct Door {
    listener: UnixListener,
    path: PathBuf,
    /// The socket file's device and inode, to leave alone a socket another node made since.
    file: (u64, u64),
}

impl Door {
    /// Makes the socket `socket` names, private as it says.
    pub(crate) fn open(socket: &ProxySocket) -> Result<Door, DoorError> {
        let group = match &socket.group {
            Some(name) => Some(gid(name)?),
            None => None,
        };
        Door::bind(&socket.path, group)
    }

    /// Makes a socket at `path` that only this process's user may connect to (mode 0600), or
    /// also the members of `group` (mode 0660, that group's).
    pub(crate) fn bind(path: &Path, group: Option<u32>) -> Result<Door, DoorError> {
        let path = &path.to_path_buf();
        let io = |cause| DoorError::Io {
            path: path.clone(),
            cause,
        };
        if let Ok(existing) = std::fs::symlink_metadata(path) {
            if !std::os::unix::fs::FileTypeExt::is_socket(&existing.file_type()) {
                return Err(DoorError::NotASocket(path.clone()));
            }
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                return Err(DoorError::InUse(path.clone()));
            }
        }
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let private = parent.join(format!(".noughts-{}-{:x}", std::process::id(), nonce()));
        // The socket is bound at `private/s` before it is renamed: both paths must fit.
        let bound = private.as_os_str().len() + 2;
        let length = path.as_os_str().len();
        if bound.max(length) > MAX_SOCKET_PATH {
            return Err(DoorError::TooLong {
                path: path.clone(),
                length,
                most: MAX_SOCKET_PATH.saturating_sub(bound.saturating_sub(length)),
            });
        }
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&private)
            .map_err(io)?;
        let made = make(&private.join("s"), path, group);
        let _ = std::fs::remove_dir_all(&private);
        let listener = made.map_err(io)?;
        let meta = std::fs::metadata(path).map_err(io)?;
        Ok(Door {
            listener,
            path: path.clone(),
            file: (meta.dev(), meta.ino()),
        })
    }

    /// The next connection through the socket.
    pub(crate) async fn accept(&self) -> io::Result<UnixStream> {
        self.listener.accept().await.map(|(stream, _)| stream)
    }

    /// Where the socket is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Door {
    fn drop(&mut self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path)
            && (meta.dev(), meta.ino()) == self.file
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Binds a socket at `at` (in a private directory), gives it its mode and group, and renames it
/// to `to`.
fn make(at: &Path, to: &Path, group: Option<u32>) -> io::Result<UnixListener> {
    let listener = UnixListener::bind(at)?;
    let mode = if group.is_some() { 0o660 } else { 0o600 };
    std::fs::set_permissions(at, std::fs::Permissions::from_mode(mode))?;
    if let Some(gid) = group {
        std::os::unix::fs::chown(at, None, Some(gid))?;
    }
    std::fs::rename(at, to)?;
    Ok(listener)
}

/// The id of the group `name` (or a number, taken as an id).
fn gid(name: &str) -> Result<u32, DoorError> {
    if let Ok(id) = name.parse::<u32>() {
        return Ok(id);
    }
    match nix::unistd::Group::from_name(name) {
        Ok(Some(group)) => Ok(group.gid.as_raw()),
        _ => Err(DoorError::NoSuchGroup(name.to_owned())),
    }
}

/// A number for the private directory's name, different for each call.
fn nonce() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        return COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket_in(dir: &tempfile::TempDir) -> ProxySocket {
        ProxySocket {
            path: dir.path().join("node.sock"),
            group: None,
        }
    }

    #[tokio::test]
    async fn the_socket_is_its_owner_s_alone_and_goes_with_the_node() {
        let dir = tempfile::tempdir().unwrap();
        let socket = socket_in(&dir);
        let door = Door::open(&socket).unwrap();
        let meta = std::fs::metadata(&socket.path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        // Nothing is left of the private directory it was made in.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["node.sock"]);
        let client = UnixStream::connect(&socket.path).await.unwrap();
        door.accept().await.unwrap();
        drop(client);
        drop(door);
        assert!(!socket.path.exists());
    }

    #[tokio::test]
    async fn a_group_may_be_let_in() {
        let dir = tempfile::tempdir().unwrap();
        let gid = std::fs::metadata(dir.path()).unwrap().gid();
        let socket = ProxySocket {
            group: Some(gid.to_string()),
            ..socket_in(&dir)
        };
        let _door = Door::open(&socket).unwrap();
        let meta = std::fs::metadata(&socket.path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o660);
        assert_eq!(meta.gid(), gid);
        let unknown = ProxySocket {
            group: Some("no-such-group-here".to_owned()),
            ..socket_in(&dir)
        };
        assert!(matches!(
            Door::open(&unknown),
            Err(DoorError::NoSuchGroup(_))
        ));
    }

    #[tokio::test]
    async fn a_dead_node_s_socket_is_replaced_but_a_live_one_or_a_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let socket = socket_in(&dir);
        let live = Door::open(&socket).unwrap();
        let err = Door::open(&socket).unwrap_err();
        assert!(matches!(err, DoorError::InUse(_)), "{err}");
        drop(live);
        // A node that died leaves its socket behind: nobody answers on it.
        let stale = std::os::unix::net::UnixListener::bind(dir.path().join("other.sock"));
        drop(stale);
        let left = ProxySocket {
            path: dir.path().join("other.sock"),
            group: None,
        };
        assert!(left.path.exists());
        let door = Door::open(&left).unwrap();
        assert_eq!(door.path(), left.path);
        let file = ProxySocket {
            path: dir.path().join("file"),
            group: None,
        };
        std::fs::write(&file.path, "keep me").unwrap();
        assert!(matches!(Door::open(&file), Err(DoorError::NotASocket(_))));
        assert_eq!(std::fs::read_to_string(&file.path).unwrap(), "keep me");
    }

    #[test]
    fn a_path_too_long_for_a_socket_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("n".repeat(MAX_SOCKET_PATH));
        let err = Door::bind(&long, None).unwrap_err();
        assert!(matches!(err, DoorError::TooLong { .. }), "{err}");
        assert!(err.to_string().contains("too long"), "{err}");
        assert!(!long.exists());
    }
}
