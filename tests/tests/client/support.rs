//! What the client's end-to-end tests share: a server configuration, private config
//! directories, and running the real `noughts` binary to completion.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use noughts_engine::Variant;

/// The `noughts` binary, built for this test run.
pub fn bin() -> PathBuf {
    noughts_tests::binary::path("noughts")
}

/// A server for tests: the AI answers at once, classic war games move quickly.
pub fn config() -> noughts_server::Config {
    noughts_server::Config {
        ai_think_delay: Duration::ZERO,
        war_games: true,
        war_variants: vec![Variant::Classic],
        war_move_delay: Duration::from_millis(20),
        war_restart_delay: Duration::from_millis(200),
        arena_schedule: false,
        ..noughts_server::Config::default()
    }
}

/// A fresh, empty config directory, so tests never touch the real home.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("noughts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary to completion (off the async threads), with a private config directory.
pub async fn run_bin(args: Vec<String>, config_dir: PathBuf) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(bin())
            .args(&args)
            .env("NOUGHTS_DATA_DIR", config_dir.join("data"))
            .env("NOUGHTS_CONFIG_DIR", config_dir)
            .env_remove("NOUGHTS_SERVER")
            .output()
            .expect("the noughts binary runs")
    })
    .await
    .unwrap()
}
