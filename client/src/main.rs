//! `noughts`: the terminal client.

use clap::Parser;
use noughts_client::cli::Cli;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match noughts_client::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("noughts: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
