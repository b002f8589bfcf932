//! A server inside the client process, on a free loopback port, for when no `--server` is given:
//! one command then gives a playable lobby with the AI and war games.

use std::time::Duration;

use anyhow::Context as _;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running in-process server.
#[derive(Debug)]
pub struct Embedded {
    /// Where to connect: `ws://127.0.0.1:PORT` (`wss://` if the config has TLS).
    pub url: String,
    /// Completing this stops the server.
    shutdown: Option<oneshot::Sender<()>>,
    /// The server task.
    task: JoinHandle<Result<(), String>>,
}

impl Embedded {
    /// Starts a server with `config` on `127.0.0.1:0`.
    pub async fn start(config: noughts_server::Config) -> anyhow::Result<Embedded> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .context("cannot open a loopback port for the built-in server")?;
        let port = listener.local_addr()?.port();
        let scheme = if config.tls.is_some() { "wss" } else { "ws" };
        let (shutdown, stop) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            noughts_server::run(listener, config, async move {
                let _ = stop.await;
            })
            .await
            .map_err(|err| err.to_string())
        });
        Ok(Embedded {
            url: format!("{scheme}://127.0.0.1:{port}"),
            shutdown: Some(shutdown),
            task,
        })
    }

    /// Waits until the server answers a WebSocket handshake; an error if it stopped first (its
    /// database is held by another server, say), with the reason it gave.
    pub async fn ready(&mut self) -> anyhow::Result<()> {
        for _ in 0..100 {
            if self.task.is_finished() {
                return match (&mut self.task).await {
                    Ok(Err(why)) => Err(anyhow::anyhow!(why)),
                    _ => Err(anyhow::anyhow!("the server stopped at once")),
                };
            }
            let attempt = tokio::time::timeout(
                Duration::from_millis(500),
                tokio_tungstenite::connect_async(self.url.as_str()),
            )
            .await;
            if let Ok(Ok((mut ws, _))) = attempt {
                let _ = ws.close(None).await;
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        anyhow::bail!("the server did not answer")
    }

    /// Stops the server and waits (briefly) for it to finish.
    pub async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.task).await;
    }
}
