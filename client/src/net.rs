//! The connection to the server: one task that connects, says hello with the saved token (or,
//! signing in, with a username and password), passes every server message on as a [`NetEvent`],
//! sends what the app asks, and reconnects with backoff when the connection drops (the server then
//! resumes the session and its games).

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, Credentials, ErrorCode, PROTOCOL_VERSION, RequestId, ServerFrame,
    ServerMessage, sanitize,
};
use tokio::sync::mpsc;
use tokio_tungstenite::Connector;
use tokio_tungstenite::tungstenite::Message;

use crate::clean::clean;
use crate::config::TokenStore;

/// What the connection task reports.
#[derive(Debug, Clone)]
pub enum NetEvent {
    /// A connection attempt started.
    Connecting,
    /// A message arrived from the server.
    Frame(ServerFrame),
    /// The connection dropped; the next attempt is `retry_in` away.
    Lost { reason: String, retry_in: Duration },
    /// The server refused us for good (or went away); no more attempts.
    Closed(String),
}

/// WebSocket close codes the client acts on.
mod close {
    /// The session was resumed on another connection (the protocol's "replaced").
    pub const NORMAL: u16 = 1000;
}

/// How to connect.
#[derive(Debug, Clone)]
pub struct Options {
    /// `ws://host:port` or `wss://host:port` of the server.
    pub url: String,
    /// Whom to trust for `wss://` ([`crate::tls::client_config`]); `None` for `ws://`.
    pub tls: Option<Arc<rustls::ClientConfig>>,
    /// The display name to say hello with.
    pub name: String,
    /// Where the identity token is kept.
    pub tokens: TokenStore,
    /// Whether to reconnect after a drop (once the first connection has succeeded).
    pub reconnect: bool,
    /// A username and password to sign in with instead of the saved token (`noughts login`):
    /// the first hello only; the token it brings is saved as any other.
    pub credentials: Option<Credentials>,
}

/// Why the connection ended when the server closed it because the player logged out.
pub const LOGGED_OUT: &str = "logged out";

/// The app's end of the connection task.
#[derive(Debug)]
pub struct Link {
    /// Requests for the server.
    outbound: mpsc::UnboundedSender<ClientFrame>,
    /// What the task reports.
    events: mpsc::UnboundedReceiver<NetEvent>,
}

impl Link {
    /// Queues a request. Requests made while disconnected are dropped (the app's state is
    /// rebuilt from the server's snapshots on reconnect).
    pub fn send(&self, message: ClientMessage) {
        self.send_frame(ClientFrame::new(message));
    }

    /// Queues a request with the id `id`, for a request whose success is answered only when
    /// it carries one (`ok`).
    pub fn request(&self, id: u64, message: ClientMessage) {
        self.send_frame(ClientFrame {
            id: Some(RequestId::Number(id)),
            message,
        });
    }

    /// Queues a request with its id, for a reply that must be told apart from others.
    pub fn send_frame(&self, frame: ClientFrame) {
        let _ = self.outbound.send(frame);
    }

    /// The next event; `None` once the task has ended.
    pub async fn next(&mut self) -> Option<NetEvent> {
        self.events.recv().await
    }

    /// The next message from the server, for the modes that do not outlive their connection: an
    /// error once it is closed, lost or ended.
    pub async fn next_message(&mut self) -> anyhow::Result<ServerMessage> {
        loop {
            match self.next().await {
                None => anyhow::bail!("the connection ended"),
                Some(NetEvent::Closed(reason) | NetEvent::Lost { reason, .. }) => {
                    anyhow::bail!("{reason}")
                }
                Some(NetEvent::Connecting) => continue,
                Some(NetEvent::Frame(frame)) => return Ok(frame.message),
            }
        }
    }
}

/// Starts the connection task. The first event is `Connecting`; then a `welcome` frame, or
/// `Closed` if the server cannot be reached or refuses us.
pub fn connect(options: Options) -> Link {
    let (outbound, outbound_rx) = mpsc::unbounded_channel();
    let (events_tx, events) = mpsc::unbounded_channel();
    tokio::spawn(run(options, events_tx, outbound_rx));
    Link { outbound, events }
}

/// Why a session ended.
enum End {
    /// The app went away.
    Quit,
    /// Worth trying again.
    Lost(String),
    /// The server refused us; trying again would not help.
    Refused(String),
}

async fn run(
    mut options: Options,
    events: mpsc::UnboundedSender<NetEvent>,
    mut outbound: mpsc::UnboundedReceiver<ClientFrame>,
) {
    let mut attempt: u32 = 0;
    let mut ever_welcomed = false;
    loop {
        if events.send(NetEvent::Connecting).is_err() {
            return;
        }
        let mut welcomed = false;
        let end = session(&mut options, &events, &mut outbound, &mut welcomed).await;
        ever_welcomed |= welcomed;
        attempt = if welcomed { 1 } else { attempt + 1 };
        let reason = match end {
            End::Quit => return,
            // What the server said in words was cleaned as it arrived; the rest is ours.
            End::Refused(reason) => {
                let _ = events.send(NetEvent::Closed(reason));
                return;
            }
            End::Lost(reason) if !options.reconnect || !ever_welcomed => {
                let _ = events.send(NetEvent::Closed(reason));
                return;
            }
            End::Lost(reason) => reason,
        };
        let retry_in = backoff(attempt);
        if events
            .send(NetEvent::Lost {
                reason: reason.clone(),
                retry_in,
            })
            .is_err()
        {
            return;
        }
        // Wait, dropping requests made while offline; stop if the app goes away.
        let sleep = tokio::time::sleep(retry_in);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => break,
                message = outbound.recv() => if message.is_none() { return },
            }
        }
    }
}

/// The delay before attempt `attempt` (1, 2, …): 0.5 s doubling up to 8 s, with some jitter so
/// that many clients do not come back at the same instant.
pub fn backoff(attempt: u32) -> Duration {
    let base = 500u64 << attempt.saturating_sub(1).min(4);
    Duration::from_millis(base + fastrand_jitter(base / 4))
}

fn fastrand_jitter(max: u64) -> u64 {
    noughts_engine::Rng::new().u64(0..=max)
}

async fn session(
    options: &mut Options,
    events: &mpsc::UnboundedSender<NetEvent>,
    outbound: &mut mpsc::UnboundedReceiver<ClientFrame>,
    welcomed: &mut bool,
) -> End {
    let connector = options.tls.clone().map(Connector::Rustls);
    let connecting = tokio_tungstenite::connect_async_tls_with_config(
        options.url.as_str(),
        None,
        true,
        connector,
    );
    let (mut ws, _) = match connecting.await {
        Ok(connected) => connected,
        Err(err) => {
            let why = crate::tls::explain(&err);
            return End::Lost(format!("cannot reach {}: {why}", options.url));
        }
    };
    let name = options.name.clone();
    let hello = move |token: Option<&str>, credentials: Option<Credentials>| {
        let frame = ClientFrame::new(ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.clone(),
            token: token.map(str::to_owned),
            credentials,
        });
        Message::text(frame.to_json())
    };
    options.tokens.reload();
    // Signing in: the credentials go once, in place of the token.
    let first = match options.credentials.take() {
        Some(credentials) => hello(None, Some(credentials)),
        None => hello(options.tokens.token(), None),
    };
    if let Err(err) = ws.send(first).await {
        return End::Lost(format!("connection failed: {err}"));
    }
    loop {
        tokio::select! {
            incoming = ws.next() => {
                let text = match incoming {
                    None => return End::Lost("the server closed the connection".into()),
                    Some(Err(err)) => return End::Lost(format!("connection lost: {err}")),
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(frame))) => {
                        let code = frame.as_ref().map(|f| u16::from(f.code));
                        if code == Some(close::NORMAL) && *welcomed {
                            // The player logged out (here or from another client): its token
                            // no longer works, so there is nothing to come back to.
                            options.tokens.set(None);
                            return End::Refused(LOGGED_OUT.to_owned());
                        }
                        let reason = frame.map_or_else(
                            || "the server closed the connection".to_owned(),
                            |f| format!("the server closed the connection ({}: {})", u16::from(f.code), sanitize(&f.reason)),
                        );
                        return End::Lost(reason);
                    }
                    Some(Ok(_)) => continue,
                };
                // Messages this client does not know (a newer server) are skipped.
                let Ok(mut frame) = serde_json::from_str::<ServerFrame>(text.as_str()) else {
                    continue;
                };
                // The one place text from the server is cleaned (see `clean`).
                clean(&mut frame.message);
                if !*welcomed {
                    match &frame.message {
                        ServerMessage::Welcome { token, .. } => {
                            options.tokens.set(Some(token));
                            *welcomed = true;
                        }
                        ServerMessage::Error { code: ErrorCode::UnknownToken, .. } => {
                            // The server forgot us (a restart): start a new identity.
                            options.tokens.set(None);
                            if let Err(err) = ws.send(hello(None, None)).await {
                                return End::Lost(format!("connection failed: {err}"));
                            }
                            continue;
                        }
                        ServerMessage::Error {
                            code: ErrorCode::ServerFull | ErrorCode::RateLimited,
                            message,
                        } => return End::Lost(format!("the server is busy: {message}")),
                        ServerMessage::Error { code, message } => {
                            return End::Refused(format!("the server refused us: {message} ({code})"));
                        }
                        _ => {}
                    }
                }
                if events.send(NetEvent::Frame(frame)).is_err() {
                    let _ = ws.close(None).await;
                    return End::Quit;
                }
            }
            request = outbound.recv(), if *welcomed => {
                let Some(request) = request else {
                    let _ = ws.close(None).await;
                    return End::Quit;
                };
                if let Err(err) = ws.send(Message::text(request.to_json())).await {
                    return End::Lost(format!("connection lost: {err}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        assert!(backoff(1) >= Duration::from_millis(500));
        assert!(backoff(1) <= Duration::from_millis(625));
        assert!(backoff(3) >= Duration::from_millis(2000));
        assert!(backoff(50) <= Duration::from_millis(10_000));
    }
}
