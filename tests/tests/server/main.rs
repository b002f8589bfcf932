//! The server end to end: its own corners at small scale (connections, play, resume), its metrics
//! endpoint, and the real `noughts-server` binary under faults, restarts and TLS flags.

mod account_abuse;
mod account_quotas;
mod account_rules;
mod accounts;
mod admin_socket;
mod agreements;
mod alerts;
mod arena;
mod arena_joined;
mod backup;
mod bots;
mod claims;
mod connection;
mod cut_off;
mod faults;
mod fine_print;
mod health;
mod league;
mod league_bots;
mod logs;
mod metrics;
mod moderation;
mod operator_refusals;
mod play;
mod proxy;
mod proxy_socket;
mod refused_hello;
mod restart;
mod resume;
mod seeks;
mod seq_after_kill;
mod sessions;
mod tls_files;
mod upgrade;
mod written_answers;
