//! The echo baseline: a WebSocket server that sends every text message straight back, built on the
//! same crates with the same socket settings as the noughts server, and the load that measures
//! it: a number of connections, each with one message in flight. The same server relays between
//! pairs of connections on [`relay::PATH`] (see `relay`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

use crate::client;
use crate::relay::{self, Pairs};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Run};

/// Serves echo, and the relay on [`relay::PATH`], on `listener` until the process ends.
pub async fn serve(listener: TcpListener) {
    let pairs = Arc::new(Pairs::default());
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(connection(stream, pairs.clone()));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// One connection: like the server's, TCP_NODELAY and the same WebSocket buffers; the path of
/// its upgrade request says whether it echoes or relays.
async fn connection(stream: TcpStream, pairs: Arc<Pairs>) {
    let _ = stream.set_nodelay(true);
    let mut relays = false;
    // The error type is tungstenite's, fixed by its `Callback` trait.
    #[allow(clippy::result_large_err)]
    let callback = |request: &Request, response: Response| {
        relays = request.uri().path() == relay::PATH;
        Ok(response)
    };
    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async_with_config(
        stream,
        callback,
        Some(client::server_ws_config()),
    )
    .await
    else {
        return;
    };
    if relays {
        return relay::serve_connection(ws, pairs).await;
    }
    while let Some(Ok(message)) = ws.next().await {
        if message.is_close() {
            return;
        }
        if (message.is_text() || message.is_binary()) && ws.send(message).await.is_err() {
            return;
        }
    }
}

/// How an `echo` run is shaped.
#[derive(Debug, Clone)]
pub struct EchoOptions {
    /// Connections, each with one message in flight.
    pub connections: usize,
    /// Bytes per message.
    pub size: usize,
    /// The measured window.
    pub secs: f64,
}

/// Runs the echo load against an echo server at `url`.
pub async fn run(url: &str, server: Probe, options: &EchoOptions) -> anyhow::Result<Report> {
    let errors = Arc::new(Errors::default());
    let latency = Arc::new(Recorder::default());
    let messages = Arc::new(AtomicU64::new(0));
    let mut sockets = Vec::new();
    for _ in 0..options.connections {
        match client::connect(url, None).await {
            Ok(ws) => sockets.push(ws),
            Err(err) => errors.add_err(&err),
        }
    }
    let connections = sockets.len();
    let payload: String = "x".repeat(options.size);
    let Run { end, measured, .. } = Run::starting(server, options.secs).await;
    let mut set = JoinSet::new();
    for mut ws in sockets {
        let (errors, latency, messages, payload) = (
            errors.clone(),
            latency.clone(),
            messages.clone(),
            payload.clone(),
        );
        set.spawn(async move {
            while Instant::now() < end {
                let sent = Instant::now();
                if ws.send(Message::text(payload.as_str())).await.is_err() {
                    errors.add("send");
                    return;
                }
                loop {
                    match tokio::time::timeout_at(end + Duration::from_secs(5), ws.next()).await {
                        Ok(Some(Ok(Message::Text(_)))) => break,
                        Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => {
                            errors.add("closed");
                            return;
                        }
                        Ok(Some(Ok(_))) => {}
                        Err(_) => {
                            errors.add("timeout");
                            return;
                        }
                    }
                }
                latency.record(sent.elapsed());
                messages.fetch_add(1, Ordering::Relaxed);
            }
            client::close(ws).await;
        });
    }
    while set.join_next().await.is_some() {}
    let (elapsed, server, generator) = measured.await?;
    let secs = options.secs.min(elapsed.as_secs_f64());
    let count = messages.load(Ordering::Relaxed);
    Ok(Report {
        scenario: format!(
            "echo: {} connections × {}-byte messages, one in flight each",
            options.connections, options.size
        ),
        connections,
        secs,
        unit: "messages".to_owned(),
        ops: count,
        ops_per_sec: count as f64 / secs,
        latency: latency.latency(),
        errors: errors.snapshot(),
        server,
        generator,
        ..Report::default()
    })
}
