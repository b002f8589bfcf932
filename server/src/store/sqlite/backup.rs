//! A copy of the live database while the server runs: `VACUUM INTO` on the store thread, which
//! holds the file's exclusive lock, between two batches of writes, so the copy is consistent and
//! holds every write committed before it. The copy is a plain SQLite file (no `-wal` beside it),
//! readable by the server's user alone, as the database is.

use std::path::Path;

use super::Sqlite;
use crate::store::records::StoreError;

impl Sqlite {
    /// Writes the whole database into `to`, which must not exist yet.
    pub(super) fn backup(&mut self, to: &Path) -> Result<(), StoreError> {
        create_private(to)
            .map_err(|err| StoreError::Refused(format!("cannot create {}: {err}", to.display())))?;
        let Some(target) = to.to_str() else {
            return Err(StoreError::Refused(format!(
                "the backup's path is not UTF-8: {}",
                to.display()
            )));
        };
        self.db.execute("VACUUM INTO ?1", [target])?;
        Ok(())
    }
}

/// Creates `to`, empty, readable and writable by this user alone; fails if it exists.
#[cfg(unix)]
fn create_private(to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
        .map(drop)
}

#[cfg(not(unix))]
fn create_private(to: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map(drop)
}
