//! The operator's commands of `noughts-server` as its command line reads them, `backup` and
//! `admin`, each run against the server on a database: through that server's operator's socket
//! when it runs, or (the admin commands) on the database itself.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::client::{fetch_backup, run_admin};
use super::commands::AdminAction;
use crate::store::StoreConfig;

/// Commands for the operator of a server, run on the machine it runs on.
#[derive(Debug, clap::Subcommand)]
pub enum OperatorCommand {
    /// Copy the running server's SQLite database to a file, safely while it serves: the server
    /// makes the copy (SQLite's VACUUM INTO) and sends it through its admin socket beside the
    /// database of --db (or --admin-socket), to its own user and root only. Restore by stopping
    /// the server and putting the copy in the database's place.
    Backup {
        /// Where to write the copy (written whole, or not at all); an existing file is
        /// refused unless --force.
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
        /// Overwrite --to if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Moderate: list reports and the audit, mute a player's chat, ban a player or an address
    /// range, end a game, reserve names. Runs through the server on the SQLite file of --db
    /// (its admin socket, as its own user or root) when it runs, and otherwise on the database
    /// itself (PostgreSQL, or a SQLite file no server holds); every running node applies it
    /// within a second or so.
    Admin {
        /// The operator's name, kept in the audit beside the user the command runs as (default:
        /// $USER); needed only by the commands that change something, not by reports and audit.
        #[arg(long, env = "NOUGHTS_OPERATOR", global = true)]
        operator: Option<String>,
        #[command(subcommand)]
        action: AdminAction,
    },
}

impl OperatorCommand {
    /// Runs the command on the server whose database is `store` and whose operator's socket is
    /// `socket` (if it has one), and prints what it says.
    pub async fn run(&self, store: &StoreConfig, socket: Option<&Path>) -> anyhow::Result<()> {
        match self {
            OperatorCommand::Backup { to, force } => {
                let Some(socket) = socket else {
                    match store {
                        StoreConfig::Postgres(_) => bail!(
                            "back up PostgreSQL with its own tools: pg_dump -Fc -d DATABASE -f FILE"
                        ),
                        _ => bail!(
                            "a server with --db :memory: keeps nothing to back up (or give the \
                             --admin-socket it was started with)"
                        ),
                    }
                };
                let bytes = fetch_backup(socket, to, *force).await?;
                println!("backed up {bytes} bytes to {}", to.display());
            }
            OperatorCommand::Admin { operator, action } => {
                let operator = operator
                    .clone()
                    .or_else(|| std::env::var("USER").ok())
                    .filter(|name| !name.trim().is_empty());
                // Reading the reports or the audit changes nothing, and keeps no name.
                let reads = matches!(
                    action,
                    AdminAction::Reports { .. } | AdminAction::Audit { .. }
                );
                let operator = match operator {
                    Some(operator) => operator,
                    None if reads => String::new(),
                    None => bail!("say who you are with --operator (or $USER)"),
                };
                let said = run_admin(store, socket, &operator, action.clone()).await?;
                print!("{said}");
            }
        }
        Ok(())
    }
}
