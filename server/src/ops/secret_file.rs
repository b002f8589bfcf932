//! A URL with its password kept in a file its owner alone may read, so that the password is on
//! no command line (`ps` shows those to every user) and in no file others can open.

use std::io::Read;
use std::path::Path;

/// Why a URL's file was refused. Never holds what the file holds.
#[derive(Debug, thiserror::Error)]
pub enum UrlFileError {
    #[error("cannot read {path}: {cause}")]
    Unreadable { path: String, cause: std::io::Error },
    #[error(
        "others may read {path} (mode {mode:03o}): make it readable by its owner alone \
         (chmod 600)"
    )]
    Exposed { path: String, mode: u32 },
    #[error("{path} holds no URL")]
    Empty { path: String },
    #[error("{path} holds more than one line: put the URL alone in it")]
    Lines { path: String },
}

/// The URL in the file at `path`: its one line, without the spaces around it. A file whose
/// mode lets its group or others in (anything but 0600 or stricter) is refused, as is one
/// that holds nothing or several lines.
pub fn read_url_file(path: &Path) -> Result<String, UrlFileError> {
    let shown = || path.display().to_string();
    let unreadable = |cause| UrlFileError::Unreadable {
        path: shown(),
        cause,
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    // The mode of the file opened, not of whatever the path names a moment later.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata().map_err(unreadable)?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(UrlFileError::Exposed {
                path: shown(),
                mode,
            });
        }
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(unreadable)?;
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    match (lines.next(), lines.next()) {
        (None, _) => Err(UrlFileError::Empty { path: shown() }),
        (Some(url), None) => Ok(url.to_owned()),
        (Some(_), Some(_)) => Err(UrlFileError::Lines { path: shown() }),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;

    use super::*;

    fn file(dir: &Path, name: &str, mode: u32, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
        // The process's umask may have taken bits away: set the mode meant.
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .unwrap();
        path
    }

    #[test]
    fn a_private_file_gives_its_one_line_and_any_other_is_refused_without_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let url = "redis://noughts:s3cret@10.0.0.5:6379";
        let private = file(dir.path(), "ok", 0o600, &format!("\n  {url}  \n\n"));
        assert_eq!(read_url_file(&private).unwrap(), url);
        let owner_only = file(dir.path(), "ro", 0o400, url);
        assert_eq!(read_url_file(&owner_only).unwrap(), url);
        for (name, mode) in [("group", 0o640), ("world", 0o604), ("open", 0o666)] {
            let exposed = file(dir.path(), name, mode, url);
            let err = read_url_file(&exposed).unwrap_err();
            let said = err.to_string();
            assert!(matches!(err, UrlFileError::Exposed { .. }), "{said}");
            assert!(
                said.contains("chmod 600") && !said.contains("s3cret"),
                "{said}"
            );
        }
        let empty = file(dir.path(), "empty", 0o600, " \n");
        assert!(matches!(
            read_url_file(&empty),
            Err(UrlFileError::Empty { .. })
        ));
        let two = file(dir.path(), "two", 0o600, &format!("{url}\n{url}\n"));
        let err = read_url_file(&two).unwrap_err();
        assert!(!err.to_string().contains("s3cret"), "{err}");
        assert!(matches!(err, UrlFileError::Lines { .. }));
        let missing = read_url_file(&dir.path().join("missing")).unwrap_err();
        assert!(missing.to_string().contains("missing"), "{missing}");
    }
}
