//! The store's tests: the suite every database must pass, run on SQLite and on PostgreSQL (a
//! server of the tests' own, from the end-to-end harness's `tests/src/postgres.rs`), and what
//! only one of them does (SQLite's file, PostgreSQL's connection).

// The harness's PostgreSQL server, shared with `noughts-tests`; not all of it is used here.
#[allow(dead_code)]
#[path = "../../../../tests/src/postgres.rs"]
mod postgres_server;

use std::time::Duration;

use super::backend::Backend;
use super::postgres::Postgres;
use super::records::Startup;
use super::sqlite::Sqlite;
use super::{Store, StoreConfig, StoreError};

/// The test functions named, each run on SQLite and on PostgreSQL (where it is installed; it
/// always is under CI): `<name>::sqlite` and `<name>::postgres`.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
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

mod postgres;
mod sqlite;
mod suite;

/// An empty database of the test's own, kept until dropped so that it can be opened again.
#[derive(Debug)]
pub(super) struct Fresh {
    pub(super) config: StoreConfig,
    /// The SQLite file's directory.
    _dir: Option<tempfile::TempDir>,
}

impl Fresh {
    pub(super) fn sqlite() -> Fresh {
        let dir = tempfile::tempdir().unwrap();
        Fresh {
            config: StoreConfig::File(dir.path().join("noughts.db")),
            _dir: Some(dir),
        }
    }

    /// A new database on the tests' PostgreSQL server; `None` where there is none (said loudly).
    pub(super) fn postgres(name: &str) -> Option<Fresh> {
        let server = postgres_server::Postgres::shared()?;
        Some(Fresh {
            config: StoreConfig::Postgres(server.database(name)),
            _dir: None,
        })
    }

    /// Opens the store, once a store that had it open has let go (a SQLite file serves one
    /// store at a time; the thread of a dropped store ends on its own).
    pub(super) async fn open(&self) -> (Store, Startup) {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match Store::open(&self.config).await {
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
            StoreConfig::Postgres(url) => Box::new(Postgres::connect(url).unwrap()),
            config => Box::new(Sqlite::open(config).unwrap()),
        }
    }
}
