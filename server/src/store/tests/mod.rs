//! The store's tests: the suite every store must pass, run in memory, on SQLite and on
//! PostgreSQL (a server of the tests' own, from the test kit's `kit/src/postgres.rs`),
//! and what only one of them does (SQLite's file, PostgreSQL's connection).

// The test kit's PostgreSQL server, shared with `noughts-tests`.
use noughts_kit::postgres as postgres_server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::backend::Backend;
use super::memory::Memory;
use super::postgres::Postgres;
use super::records::Startup;
use super::sqlite::Sqlite;
use super::{Store, StoreConfig, StoreError};

/// The test functions named, each run in memory, on SQLite and on PostgreSQL (where it is
/// installed; it always is under CI): `<name>::memory`, `<name>::sqlite` and `<name>::postgres`.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn memory() {
                super::$test($crate::store::tests::Fresh::memory()).await;
            }

            #[tokio::test]
            async fn sqlite() {
                super::$test($crate::store::tests::Fresh::sqlite()).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(db) = $crate::store::tests::Fresh::postgres(stringify!($test)) {
                    super::$test(db).await;
                }
            }
        }
    )*};
}

/// [`on_both`] for tests that drive a [`Backend`] directly, off any runtime (PostgreSQL's
/// blocking client runs one of its own).
macro_rules! on_both_blocking {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn memory() {
                super::$test($crate::store::tests::Fresh::memory());
            }

            #[test]
            fn sqlite() {
                super::$test($crate::store::tests::Fresh::sqlite());
            }

            #[test]
            fn postgres() {
                if let Some(db) = $crate::store::tests::Fresh::postgres(stringify!($test)) {
                    super::$test(db);
                }
            }
        }
    )*};
}

mod accounts;
mod arenas;
mod bots;
mod durability;
mod ended;
mod league;
mod league_table;
mod moderation;
mod postgres;
mod sqlite;
mod suite;

/// The records of a memory store between two stores that open them: empty while one has them.
type Shelf = Arc<Mutex<Option<Box<dyn Backend>>>>;

/// An empty database of the test's own, kept until dropped so that it can be opened again.
pub(super) struct Fresh {
    pub(super) config: StoreConfig,
    /// The SQLite file's directory.
    _dir: Option<tempfile::TempDir>,
    /// A memory store's records, kept as a file keeps a database, so that a test can stop the
    /// store and start it again on what it left.
    shelf: Option<Shelf>,
}

impl Fresh {
    pub(super) fn memory() -> Fresh {
        Fresh {
            config: StoreConfig::Memory,
            _dir: None,
            shelf: Some(Arc::new(Mutex::new(Some(Box::new(Memory::new(
                usize::MAX,
            )))))),
        }
    }

    pub(super) fn sqlite() -> Fresh {
        let dir = tempfile::tempdir().unwrap();
        Fresh {
            config: StoreConfig::File(dir.path().join("noughts.db")),
            _dir: Some(dir),
            shelf: None,
        }
    }

    /// The database `config` names, which the test made and keeps itself.
    pub(super) fn existing(config: StoreConfig) -> Fresh {
        Fresh {
            config,
            _dir: None,
            shelf: None,
        }
    }

    /// A new database on the tests' PostgreSQL server; `None` where there is none (said loudly).
    pub(super) fn postgres(name: &str) -> Option<Fresh> {
        let server = postgres_server::Postgres::shared()?;
        Some(Fresh {
            config: StoreConfig::Postgres(server.database(name)),
            _dir: None,
            shelf: None,
        })
    }

    /// Opens the store, once a store that had it open has let go (a SQLite file serves one
    /// store at a time; the thread of a dropped store ends on its own).
    pub(super) async fn open(&self) -> (Store, Startup) {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let opened = match &self.shelf {
                    Some(shelf) => {
                        let to = Arc::clone(shelf);
                        let put = move |db| *to.lock().unwrap() = Some(db);
                        let taken = shelf.lock().unwrap().take();
                        taken
                            .ok_or(StoreError::InUse)
                            .and_then(|db| Store::inline(db, put))
                    }
                    None => Store::open(&self.config).await,
                };
                match opened {
                    Err(StoreError::InUse) => {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    other => return other.unwrap(),
                }
            }
        })
        .await
        .expect("the earlier store lets go of the database")
    }

    /// The database itself, as the store thread drives it.
    pub(super) fn backend(&self) -> Box<dyn Backend> {
        match &self.config {
            StoreConfig::Memory => Box::new(Memory::new(usize::MAX)),
            StoreConfig::Postgres(url) => Box::new(Postgres::connect(url).unwrap()),
            StoreConfig::File(path) => Box::new(Sqlite::open(path).unwrap()),
        }
    }
}
