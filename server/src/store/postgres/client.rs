//! One connection to PostgreSQL as the store thread holds it: connecting (over TLS when the URL
//! asks, see `tls.rs`; with a clear error when the server cannot be reached), the schema's
//! migrations, statements prepared once, and a new connection when the old one was lost between
//! transactions.

use std::collections::HashMap;
use std::time::Duration;

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::super::records::{StoreError, without_password};

/// The schema, one migration per version: version N is the first N scripts. A database records
/// the versions it has in `schema_version`; connecting applies the scripts it lacks, in order.
pub(super) const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_initial.sql"),
    include_str!("migrations/002_fencing.sql"),
    include_str!("migrations/003_moderation.sql"),
    include_str!("migrations/004_accounts.sql"),
    include_str!("migrations/005_id_blocks.sql"),
    include_str!("migrations/006_account_guards.sql"),
    include_str!("migrations/007_device_network.sql"),
    include_str!("migrations/008_store_flushes.sql"),
    include_str!("migrations/010_league.sql"),
    include_str!("migrations/011_bots.sql"),
    include_str!("migrations/012_arenas.sql"),
    include_str!("migrations/013_league_bots.sql"),
    include_str!("migrations/014_league_table.sql"),
    include_str!("migrations/015_arena_fencing.sql"),
];

/// Any number that nodes agree on: the advisory lock held while one of them migrates.
const MIGRATION_LOCK: i64 = 0x006e_6f75_6768_7473;

/// How long connecting may take before the server is called unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A parameter of a statement.
pub(super) type Param<'a> = &'a (dyn ToSql + Sync);

/// A connection and what it keeps.
pub(super) struct Conn {
    client: Client,
    /// How to connect again.
    config: Config,
    /// Over TLS, when the URL asks for it.
    tls: Option<MakeRustlsConnect>,
    /// Where, without the password, for messages.
    url: String,
    /// Every statement run so far, prepared once per connection.
    statements: HashMap<String, Statement>,
    /// Whether a transaction is open: a connection lost inside one is an error, not a reconnect.
    in_transaction: bool,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").field("url", &self.url).finish()
    }
}

impl Conn {
    /// Connects to `url` and brings the schema up to date.
    pub(super) fn connect(url: &str) -> Result<Conn, StoreError> {
        let shown = without_password(url);
        let (url, tls) = super::tls::tls_of(url).map_err(|why| StoreError::Tls {
            url: shown.clone(),
            why: why.to_string(),
        })?;
        let mut config: Config = url.parse().map_err(|cause| StoreError::Unreachable {
            url: shown.clone(),
            cause,
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        let client = open(&config, tls.as_ref()).map_err(|cause| StoreError::Unreachable {
            url: shown.clone(),
            cause,
        })?;
        let mut conn = Conn {
            client,
            config,
            tls,
            url: shown,
            statements: HashMap::new(),
            in_transaction: false,
        };
        conn.migrate()?;
        Ok(conn)
    }

    /// Applies the migrations the database lacks, under a lock so that nodes starting together
    /// migrate once.
    fn migrate(&mut self) -> Result<(), StoreError> {
        let known = u32::try_from(MIGRATIONS.len()).unwrap_or(u32::MAX);
        let mut tx = self.client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, \
             applied_ms BIGINT NOT NULL)",
        )?;
        let found: i32 = tx
            .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])?
            .try_get(0)?;
        let found = u32::try_from(found).unwrap_or_default();
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        for (version, script) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.batch_execute(script)?;
            let version = i32::try_from(version + 1).unwrap_or(i32::MAX);
            let now = i64::try_from(super::super::records::now_ms()).unwrap_or(i64::MAX);
            tx.execute(
                "INSERT INTO schema_version (version, applied_ms) VALUES ($1, $2)",
                &[&version, &now],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A new connection if the old one was lost (PostgreSQL restarted, the network failed), so
    /// that the store goes on once the database is back.
    fn revive(&mut self) -> Result<(), StoreError> {
        if self.in_transaction || !self.client.is_closed() {
            return Ok(());
        }
        self.statements.clear();
        self.client =
            open(&self.config, self.tls.as_ref()).map_err(|cause| StoreError::Unreachable {
                url: self.url.clone(),
                cause,
            })?;
        tracing::info!(db = %self.url, "connected to PostgreSQL again");
        Ok(())
    }

    /// Runs statements without parameters or results (transaction control).
    pub(super) fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.revive()?;
        Ok(self.client.batch_execute(sql)?)
    }

    pub(super) fn begin(&mut self) -> Result<(), StoreError> {
        if let Err(err) = self.batch("BEGIN") {
            // A connection lost since the last batch shows only when it is used: one more try,
            // on a new connection, as nothing has been done in the transaction yet.
            if !self.client.is_closed() {
                return Err(err);
            }
            self.batch("BEGIN")?;
        }
        self.in_transaction = true;
        Ok(())
    }

    /// Commits on the connection that began the transaction, never on a new one: a COMMIT sent
    /// on a fresh connection would succeed with nothing to commit.
    pub(super) fn commit(&mut self) -> Result<(), StoreError> {
        let committed = self.client.batch_execute("COMMIT");
        self.in_transaction = false;
        Ok(committed?)
    }

    /// From now on, commits on this connection (and on any it is replaced by) are answered
    /// once written (`synchronous_commit=off`) or once on disk.
    pub(super) fn answer_when_written(&mut self, written: bool) -> Result<(), StoreError> {
        let setting = if written { "off" } else { "on" };
        self.config
            .options(&format!("-c synchronous_commit={setting}"));
        self.batch(&format!("SET synchronous_commit = {setting}"))
    }

    /// Waits until every commit so far is on disk: a commit with `synchronous_commit` on waits
    /// for the log to be flushed up to it, and so past every commit before it. It must write,
    /// or it would have nothing to wait for.
    pub(super) fn flush(&mut self) -> Result<(), StoreError> {
        let flushed = self.batch(
            "BEGIN; SET LOCAL synchronous_commit = on; \
             INSERT INTO store_flushes (pid, flushed_at) VALUES (pg_backend_pid(), now()) \
             ON CONFLICT (pid) DO UPDATE SET flushed_at = EXCLUDED.flushed_at; COMMIT",
        );
        if flushed.is_err() && !self.client.is_closed() {
            // A statement that failed leaves the transaction open, and refusing all others.
            let _ = self.client.batch_execute("ROLLBACK");
        }
        flushed
    }

    pub(super) fn rollback(&mut self) {
        self.in_transaction = false;
        if !self.client.is_closed() {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        self.revive()?;
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// Runs a statement; returns how many rows it changed.
    pub(super) fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        Ok(self.client.execute(&statement, params)?)
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        Ok(self.client.query(&statement, params)?)
    }

    pub(super) fn query_opt(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Option<Row>, StoreError> {
        let statement = self.statement(sql)?;
        Ok(self.client.query_opt(&statement, params)?)
    }

    pub(super) fn query_one(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Row, StoreError> {
        let statement = self.statement(sql)?;
        Ok(self.client.query_one(&statement, params)?)
    }
}

/// A connection by `config`, over `tls` if given.
fn open(config: &Config, tls: Option<&MakeRustlsConnect>) -> Result<Client, postgres::Error> {
    match tls {
        Some(tls) => config.connect(tls.clone()),
        None => config.connect(NoTls),
    }
}
