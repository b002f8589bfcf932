//! Where the client keeps its identity tokens: one per server, in the user's config directory
//! (XDG on Linux via `directories`), or in `$NOUGHTS_CONFIG_DIR` when set (tests use that).

use std::path::PathBuf;

/// The environment variable that overrides the config directory.
pub const CONFIG_DIR_ENV: &str = "NOUGHTS_CONFIG_DIR";

/// The file, inside the config directory, that maps servers to tokens.
const TOKENS_FILE: &str = "tokens";
/// The file, beside it, that keeps each account's device cookie, by server and username.
const DEVICE_COOKIES_FILE: &str = "device-cookies";

/// The config directory, if one can be found.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "noughts").map(|dirs| dirs.config_dir().to_path_buf())
}

/// The token kept for one server: read at start, written when the server issues a new one.
#[derive(Debug, Clone)]
pub struct TokenStore {
    /// The tokens file; `None` keeps the token in memory only (an embedded server forgets its
    /// sessions when the process ends, so there is nothing worth saving).
    path: Option<PathBuf>,
    /// The server the token belongs to.
    server: String,
    /// The token as last read or written.
    token: Option<String>,
}

impl TokenStore {
    /// The store for `server`, kept in `dir` (read now).
    pub fn open(dir: Option<PathBuf>, server: &str) -> TokenStore {
        let mut store = TokenStore {
            path: dir.map(|d| d.join(TOKENS_FILE)),
            server: server.to_owned(),
            token: None,
        };
        store.reload();
        store
    }

    /// Reads the token again: the server trades a token for a new one each time it is used, so
    /// another `noughts` sharing the file may have stored a newer one since. Keeps the token held
    /// if the file has none.
    pub fn reload(&mut self) {
        let stored = self
            .path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| {
                text.lines().find_map(|line| {
                    let (url, token) = line.split_once(' ')?;
                    (url == self.server).then(|| token.trim().to_owned())
                })
            })
            .filter(|t| !t.is_empty());
        if stored.is_some() {
            self.token = stored;
        }
    }

    /// A store that never touches the disk.
    pub fn in_memory(server: &str) -> TokenStore {
        TokenStore {
            path: None,
            server: server.to_owned(),
            token: None,
        }
    }

    /// The device cookies file, beside the tokens file.
    fn cookies_path(&self) -> Option<PathBuf> {
        Some(self.path.as_ref()?.with_file_name(DEVICE_COOKIES_FILE))
    }

    /// The device cookie the account `username` of this server gave this client, if kept: a
    /// sign-in that presents it is not made to wait by strangers' wrong passwords.
    pub fn device_cookie(&self, username: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.cookies_path()?).ok()?;
        let username = username.to_ascii_lowercase();
        text.lines().find_map(|line| {
            let mut fields = line.split(' ');
            let (server, name, cookie) = (fields.next()?, fields.next()?, fields.next()?);
            (server == self.server && name == username).then(|| cookie.trim().to_owned())
        })
    }

    /// Keeps the device cookie the account `username` of this server gave this client, in a
    /// file as private as the tokens'. A failure to write is not fatal.
    pub fn set_device_cookie(&self, username: &str, cookie: &str) {
        let Some(path) = self.cookies_path() else {
            return;
        };
        let username = username.to_ascii_lowercase();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines: Vec<String> = text
            .lines()
            .filter(|line| {
                let mut fields = line.split(' ');
                (fields.next(), fields.next()) != (Some(self.server.as_str()), Some(&username))
            })
            .map(str::to_owned)
            .collect();
        lines.push(format!("{} {username} {cookie}", self.server));
        let _ = write_private(&path, &(lines.join("\n") + "\n"));
    }

    /// The token for this server, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Keeps `token` for this server (or forgets it with `None`). A failure to write is not fatal:
    /// the session still works, it just will not be resumed after a restart.
    pub fn set(&mut self, token: Option<&str>) {
        if self.token.as_deref() == token {
            return;
        }
        self.token = token.map(str::to_owned);
        let Some(path) = &self.path else { return };
        let old = std::fs::read_to_string(path).unwrap_or_default();
        let mut lines: Vec<String> = old
            .lines()
            .filter(|line| {
                line.split_once(' ')
                    .is_some_and(|(url, _)| url != self.server)
            })
            .map(str::to_owned)
            .collect();
        if let Some(token) = token {
            lines.push(format!("{} {}", self.server, token));
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = write_private(path, &(lines.join("\n") + "\n"));
    }
}

/// Writes `text` to `path` readable by the user alone (0600 on Unix), through a temporary file
/// renamed over it, so that another process reading the file never sees half of it.
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_device_cookie_per_server_and_username() {
        let dir = std::env::temp_dir().join(format!("noughts-cookies-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = TokenStore::open(Some(dir.clone()), "ws://a");
        let b = TokenStore::open(Some(dir.clone()), "ws://b");
        assert_eq!(a.device_cookie("ada"), None);
        a.set_device_cookie("Ada", "c1");
        b.set_device_cookie("ada", "c2");
        a.set_device_cookie("bo", "c3");
        assert_eq!(a.device_cookie("ADA").as_deref(), Some("c1"));
        assert_eq!(b.device_cookie("ada").as_deref(), Some("c2"));
        a.set_device_cookie("ada", "c4");
        assert_eq!(a.device_cookie("ada").as_deref(), Some("c4"));
        assert_eq!(a.device_cookie("bo").as_deref(), Some("c3"));
        assert_eq!(TokenStore::in_memory("ws://a").device_cookie("ada"), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(DEVICE_COOKIES_FILE))
                .unwrap()
                .permissions();
            assert_eq!(mode.mode() & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keeps_one_token_per_server() {
        let dir = std::env::temp_dir().join(format!("noughts-config-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut a = TokenStore::open(Some(dir.clone()), "ws://a");
        assert_eq!(a.token(), None);
        a.set(Some("t1"));
        let mut b = TokenStore::open(Some(dir.clone()), "ws://b");
        b.set(Some("t2"));
        assert_eq!(
            TokenStore::open(Some(dir.clone()), "ws://a").token(),
            Some("t1")
        );
        a.set(None);
        assert_eq!(TokenStore::open(Some(dir.clone()), "ws://a").token(), None);
        assert_eq!(
            TokenStore::open(Some(dir.clone()), "ws://b").token(),
            Some("t2")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_token_another_process_stored_is_read_again_and_the_file_is_private() {
        let dir = std::env::temp_dir().join(format!("noughts-reload-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut playing = TokenStore::open(Some(dir.clone()), "ws://a");
        playing.set(Some("t1"));
        TokenStore::open(Some(dir.clone()), "ws://a").set(Some("t2"));
        assert_eq!(playing.token(), Some("t1"));
        playing.reload();
        assert_eq!(playing.token(), Some("t2"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(TOKENS_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
