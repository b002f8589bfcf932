//! The two databases a server keeps its records in, for a test that runs one scenario on both:
//! a SQLite file of its own, or a database of its own on the tests' PostgreSQL server.

use noughts_server::{Config, StoreConfig};

use crate::postgres::Postgres;
use crate::{Scratch, test_config};

/// Which database a test's server keeps its records in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// A database of a test's own: what names it, and the SQLite file's directory (removed when
/// dropped).
#[derive(Debug)]
pub struct OwnDb {
    pub store: StoreConfig,
    pub scratch: Option<Scratch>,
}

impl Db {
    /// A new database of this kind, named after `name`; `None` for PostgreSQL where it is not
    /// installed (said loudly; under CI that fails instead).
    pub fn fresh(self, name: &str) -> Option<OwnDb> {
        match self {
            Db::Sqlite => {
                let scratch = Scratch::new(name);
                Some(OwnDb {
                    store: StoreConfig::File(scratch.db()),
                    scratch: Some(scratch),
                })
            }
            Db::Postgres => Some(OwnDb {
                store: StoreConfig::Postgres(Postgres::shared()?.database(name)),
                scratch: None,
            }),
        }
    }
}

impl OwnDb {
    /// [`test_config`] keeping its records in this database.
    pub fn config(&self) -> Config {
        Config {
            store: self.store.clone(),
            ..test_config()
        }
    }
}

/// Runs each async scenario named (a function taking a [`Db`]) on both databases, as the tests
/// `<name>::sqlite` and `<name>::postgres`.
#[macro_export]
macro_rules! on_both_stores {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn sqlite() {
                super::$test($crate::stores::Db::Sqlite).await;
            }

            #[tokio::test]
            async fn postgres() {
                super::$test($crate::stores::Db::Postgres).await;
            }
        }
    )*};
}
