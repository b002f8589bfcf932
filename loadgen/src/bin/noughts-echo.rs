//! `noughts-echo`: the WebSocket echo baseline. Binds, prints its address, echoes every text
//! message until killed.

use clap::Parser;
use tokio::net::TcpListener;

/// A minimal WebSocket echo server with the noughts server's socket settings, to measure the
/// server against the limit of its own stack.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7879")]
    listen: std::net::SocketAddr,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let listener = TcpListener::bind(args.listen).await?;
    println!("noughts-echo listening on ws://{}", listener.local_addr()?);
    noughts_loadgen::echo::serve(listener).await;
    Ok(())
}
