//! A directory of a test's own under the system's temporary directory, removed when dropped.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::{env, fs, process};

/// A directory of the test's own under the system's temporary directory, removed when dropped:
/// where a test keeps its database.
#[derive(Debug)]
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = env::temp_dir().join(format!("noughts-{name}-{}-{n}", process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch { dir }
    }

    /// The database file's path.
    pub fn db(&self) -> PathBuf {
        self.dir.join("noughts.db")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
