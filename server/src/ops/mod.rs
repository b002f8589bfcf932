//! The operator's side of a node: health for load balancers, Prometheus metrics and the metrics
//! port, backups of a live SQLite database, and the operator's socket with its `admin` commands;
//! the files holding the stores' passwords.

pub(crate) mod backup;
pub(crate) mod health;
pub(crate) mod operator;
pub(crate) mod port;
pub(crate) mod secret_file;
