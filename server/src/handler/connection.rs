//! One WebSocket connection: a task that owns the socket and `select!`s over what the client sends,
//! what the server queued for it, the ping timer and the shutdown signal.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{ErrorCode, ServerMessage, close};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::{Instant, MissedTickBehavior, interval_at, sleep_until, timeout};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::CapacityError;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tracing::{debug, info};

use crate::handler::Client;
use crate::metrics::GaugeShare;
use crate::net::http;
use crate::net::network::Network;
use crate::net::outbound::{self, Close, Inbox, Queued, error_frame, frame};
use crate::net::proxy;
use crate::net::shared_socket::{Tap, Wire};
use crate::net::socket;
use crate::net::tls::{self, Stream};
use crate::net::upgrade::{self, Accepted, Refusal};
use crate::shared::Shared;

/// How long a client has to complete the WebSocket handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write may take before the client counts as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for the client's close frame after sending ours.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);
/// Queued frames written per flush.
const BATCH: usize = 64;

type Socket = WebSocketStream<Stream>;

/// Whether an accepted connection may be served, under the global cap; the permit is held for its
/// life. The cap of the client's network is checked once its address is known (see [`serve`]).
#[derive(Debug)]
pub(crate) enum Admission {
    /// Under the global cap.
    Welcome(OwnedSemaphorePermit),
    /// Over the global cap: the client gets `server_full` and close 1013.
    Refuse(OwnedSemaphorePermit),
}

/// The permits a connection is admitted with: the global cap's, and those for turning
/// connections away with a word.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    /// Connections held at once ([`crate::config::Config::max_connections`]).
    pub limit: Arc<Semaphore>,
    /// Connections being turned away at once; beyond them, a refused connection is dropped
    /// without a word, so a flood cannot pile up handshakes.
    pub refusals: Arc<Semaphore>,
}

impl Gate {
    /// Admits a connection under the global cap. Over it, a refusal if a permit for one is
    /// left, or else `None`: the connection is dropped without a word.
    pub(crate) fn admit(&self) -> Option<Admission> {
        match self.limit.clone().try_acquire_owned() {
            Ok(permit) => Some(Admission::Welcome(permit)),
            Err(_) => self.refusal().map(Admission::Refuse),
        }
    }

    fn refusal(&self) -> Option<OwnedSemaphorePermit> {
        self.refusals.clone().try_acquire_owned().ok()
    }
}

/// Serves one accepted connection from `peer` to its end. One through the proxy's socket
/// ([`socket::Socket::Unix`], `peer` standing for the proxy on this machine) must start with a PROXY
/// protocol header, whose address is the client's; one on the TCP port does if its peer is a
/// proxy the operator trusts for it.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    mut stream: socket::Socket,
    peer: SocketAddr,
    admission: Admission,
    gate: Gate,
) {
    stream.set_nodelay();
    let config = &shared.config;
    let mut client_ip = peer.ip();
    let proxied = stream.is_proxied();
    if proxied || config.proxies.expects_proxy_header(peer.ip()) {
        match proxy::read_header(&mut stream, HANDSHAKE_TIMEOUT).await {
            Ok(Some(client)) => client_ip = client.ip(),
            Ok(None) => {}
            Err(err) => {
                debug!(cause = %err, "refused a proxy's connection");
                shared
                    .operator
                    .metrics
                    .bad_upgrade(Refusal::ProxyHeader.as_str());
                upgrade::answer_refusal(&mut stream, Refusal::ProxyHeader).await;
                return;
            }
        }
    }
    let (stream, wire) = match &config.tls {
        Some(keys) => match tls::accept(keys, stream, config.tls_handshake_timeout).await {
            Some(stream) => (stream, None),
            None => return,
        },
        None => {
            let wire = Wire::new(stream);
            (Stream::Plain(Tap(wire.clone())), Some(wire))
        }
    };
    // The buffers' sizes are the protocol crate's, so that the load generator's echo baseline
    // holds the same.
    let ws_config = WebSocketConfig::default()
        .read_buffer_size(noughts_protocol::SOCKET_READ_BUFFER)
        .write_buffer_size(noughts_protocol::SOCKET_WRITE_BUFFER)
        .max_message_size(Some(config.max_message_bytes))
        .max_frame_size(Some(config.max_message_bytes));
    let origins = upgrade::Origins {
        secure: config.tls.is_some(),
        allowed: config.allowed_origins.clone(),
    };
    let forwarded = config
        .proxies
        .header_for(peer.ip())
        .filter(|_| !proxied)
        .map(|header| (header, peer.ip()));
    let upgraded = upgrade::accept(stream, ws_config, HANDSHAKE_TIMEOUT, &origins, forwarded);
    let (mut ws, user_agent) = match upgraded.await {
        Ok(Accepted::WebSocket(ws, caller)) => {
            client_ip = caller.forwarded.unwrap_or(client_ip);
            (*ws, caller.user_agent)
        }
        // A page is the whole exchange.
        Ok(Accepted::Page(mut stream, request)) => {
            let health = shared.operator.health.answer(&request.path).await;
            let health = health.map(|answer| (answer.status, answer.body));
            return http::serve(&mut stream, &request, health).await;
        }
        Err(refusal) => {
            debug!(reason = refusal.as_str(), "upgrade refused");
            shared.operator.metrics.bad_upgrade(refusal.as_str());
            return;
        }
    };
    let network = Network::of(client_ip);
    tracing::Span::current().record("client", tracing::field::display(client_ip));
    let (_permit, _slot) = match admission {
        Admission::Welcome(permit) => {
            match shared
                .registry
                .per_network
                .connection(network, config.max_connections_per_ip)
            {
                Some(slot) => (permit, slot),
                None => {
                    drop(permit);
                    let Some(refusing) = gate.refusal() else {
                        return;
                    };
                    let message = format!(
                        "too many connections from your address (at most {}); try again later",
                        config.max_connections_per_ip
                    );
                    let code = ErrorCode::TooManyConnections;
                    let reason = "too many connections";
                    return refuse(&shared, &mut ws, code, message, reason, refusing).await;
                }
            }
        }
        Admission::Refuse(refusing) => {
            let message = "the server is full; try again later".to_owned();
            let code = ErrorCode::ServerFull;
            return refuse(&shared, &mut ws, code, message, "server full", refusing).await;
        }
    };
    let mut counted = GaugeShare::new(&shared.operator.metrics.connections);
    counted.set(1);
    if let Some(wire) = &wire {
        wire.open();
    }
    let (out, inbox) = outbound::channel(
        config.outbound_queue,
        shared.operator.metrics.clone(),
        wire.clone(),
    );
    tracing::Span::current().record("id", out.conn.0);
    debug!("connected");
    let first_ping = on_ping_grid(Instant::now() + ping_phase(out.conn.0, config.ping_interval));
    let mut client = Client::new(shared.clone(), out, network);
    client.set_user_agent(user_agent);
    if config.tls.is_some() || config.accounts.tls_proxy || client_ip.is_loopback() {
        client.allow_credentials();
    }
    let end = pump(&shared, &mut ws, inbox, &mut client, first_ping).await;
    if let Some(wire) = &wire {
        wire.close();
    }
    client.disconnected().await;
    if let Some(why) = end {
        close_with(&mut ws, why).await;
    }
    debug!("disconnected");
}

/// When a connection's first ping is due: somewhere in the second half of the first interval,
/// spread by connection number, so that connections opened together (a crowd joining a game) do
/// not all ping at once ever after.
fn ping_phase(conn: u64, interval: Duration) -> Duration {
    // Multiplying by 2^64 / φ spreads consecutive numbers evenly over the range.
    let spread = conn.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let fraction = (spread >> 11) as f64 / (1u64 << 53) as f64;
    interval.mul_f64(0.5 + fraction / 2.0)
}

/// How far apart the moments are at which pings go out: every ping falls on this grid, so that
/// the pings due in one stretch go out together on one wake-up of the server instead of each
/// waking it alone (a wake-up of an idle runtime costs far more than the ping it sends).
const PING_GRID: Duration = Duration::from_millis(250);

/// A connection whose player sits in no live game (in the lobby, watching, idle) is pinged at
/// every this many ticks of the ping interval rather than at each: nobody waits on it, and with
/// thousands of such connections their pings (each a wake-up of the server for the pong) are
/// most of what they cost. Only where that spacing is at most two thirds of the idle timeout (30
/// of 45 s by default), so that a slow pong still comes in time. A player in a live game keeps
/// every tick, so that one pong lost does not drop it mid-game; a dead connection is found by
/// the idle timeout alone, however often it is pinged.
const UNSEATED_PING_EVERY: u32 = 2;

/// At every how many ticks of its ping interval an unseated connection is pinged.
fn unseated_ping_every(config: &crate::config::Config) -> u32 {
    let spacing = config.ping_interval * UNSEATED_PING_EVERY;
    if spacing * 3 <= config.idle_timeout * 2 {
        UNSEATED_PING_EVERY
    } else {
        1
    }
}

/// The first moment on the [`PING_GRID`] at or after `at`; the grid is the same for every
/// connection, as the ping interval is a whole number of grid steps.
fn on_ping_grid(at: Instant) -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    let steps = at
        .saturating_duration_since(epoch)
        .as_nanos()
        .div_ceil(PING_GRID.as_nanos());
    epoch + PING_GRID * u32::try_from(steps).unwrap_or(u32::MAX)
}

/// Turns a connection away with an error (`code`, `message`) and close 1013 (`reason`), holding
/// its refusal permit meanwhile.
async fn refuse(
    shared: &Shared,
    ws: &mut Socket,
    code: ErrorCode,
    message: String,
    reason: &'static str,
    _refusing: OwnedSemaphorePermit,
) {
    info!(%code, "refused");
    shared.operator.metrics.error(code);
    let refusal = error_frame(None, code, message);
    let _ = timeout(WRITE_TIMEOUT, ws.send(refusal.message())).await;
    let why = Close {
        code: close::TRY_AGAIN_LATER,
        reason,
    };
    close_with(ws, why).await;
}

/// Moves frames both ways until the connection ends; returns the close to send, if any.
///
/// The futures that wait for shutdown and for the idle deadline live across iterations: a frame
/// in or out costs no timer or waiter registration (5,000 watchers woken by one move add up).
async fn pump(
    shared: &Arc<Shared>,
    ws: &mut Socket,
    mut inbox: Inbox,
    client: &mut Client,
    first_ping: Instant,
) -> Option<Close> {
    let config = &shared.config;
    let stop = shared.lifecycle.stop_connections.clone();
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    let mut ping = interval_at(first_ping, config.ping_interval);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let unseated_every = unseated_ping_every(config);
    // Ticks since the last ping, as if one had gone out a tick before the first: the first tick
    // pings every connection, seated or not, so each hears from the server early (PROTOCOL.md
    // promises the first ping within about one interval of opening), and a connection not
    // seated is pinged every other tick from then on.
    let mut unpinged = unseated_every.saturating_sub(1);
    let mut last_heard = Instant::now();
    // Fires at the idle deadline as it stood when it was set; checked against `last_heard` then.
    let idle = sleep_until(last_heard + config.idle_timeout);
    tokio::pin!(idle);
    let hello_by = sleep_until(last_heard + config.hello_timeout);
    tokio::pin!(hello_by);
    loop {
        tokio::select! {
            () = &mut stopped => {
                // Frames queued before the signal (games' last words) go first.
                let mut frames = Vec::new();
                inbox.take(&mut frames, usize::MAX);
                frames.push(Queued::Frame(frame(
                    None,
                    ServerMessage::Shutdown { message: "the server is shutting down".to_owned() },
                )));
                let _ = write_queued(ws, &mut inbox.kick, frames).await;
                return Some(Close { code: close::GOING_AWAY, reason: "server shutting down" });
            }
            changed = inbox.kick.changed() => {
                let why = if changed.is_ok() { *inbox.kick.borrow() } else { None };
                if let Some(why) = why {
                    // A slow reader gets no more frames; anyone else gets what was queued.
                    if why != Close::TOO_SLOW {
                        let mut frames = Vec::new();
                        inbox.take(&mut frames, usize::MAX);
                        let _ = write_queued(ws, &mut inbox.kick, frames).await;
                    }
                    return Some(why);
                }
            }
            Some(first) = inbox.frames.recv() => {
                let mut frames = vec![first];
                inbox.take(&mut frames, BATCH);
                let n = frames.len();
                match write_queued(ws, &mut inbox.kick, frames).await {
                    Wrote::Done => inbox.written(n),
                    wrote => return unfinished(shared, wrote),
                }
            }
            message = ws.next() => {
                last_heard = Instant::now();
                match message {
                    None => return None,
                    Some(Ok(Message::Text(text))) => {
                        // Boxed: a request's handling is a large future, and kept inline it
                        // would make every connection's task that much bigger for its life.
                        if let Some(why) = Box::pin(client.receive(&text)).await {
                            let mut frames = Vec::new();
                            inbox.take(&mut frames, usize::MAX);
                            let _ = write_queued(ws, &mut inbox.kick, frames).await;
                            return Some(why);
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        return Some(Close {
                            code: close::UNSUPPORTED_DATA,
                            reason: "binary frames are not supported; send JSON text",
                        });
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        // Control frames count against the rate like requests; tungstenite
                        // answers a ping by itself.
                        if let Some(why) = client.control_frame() {
                            return Some(why);
                        }
                    }
                    Some(Ok(Message::Close(_))) => {
                        // tungstenite answers the close; flush it and stop.
                        let _ = timeout(CLOSE_TIMEOUT, ws.flush()).await;
                        return None;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(WsError::Capacity(CapacityError::MessageTooLong { .. }))) => {
                        return Some(Close { code: close::MESSAGE_TOO_BIG, reason: "message too big" });
                    }
                    Some(Err(WsError::Utf8(_))) => {
                        return Some(Close { code: close::INVALID_PAYLOAD, reason: "text frames must be UTF-8" });
                    }
                    Some(Err(WsError::Protocol(err))) => {
                        debug!(cause = %err, "WebSocket protocol violation");
                        return Some(Close { code: close::PROTOCOL_ERROR, reason: "WebSocket protocol violation" });
                    }
                    Some(Err(err)) => {
                        debug!(cause = %err, "read failed");
                        return None;
                    }
                }
            }
            _ = ping.tick() => {
                unpinged += 1;
                if unpinged < unseated_every && !client.seated() {
                    continue;
                }
                unpinged = 0;
                let ping = Message::Ping(Default::default());
                match write(ws, &mut inbox.kick, [ping]).await {
                    Wrote::Done | Wrote::Failed => {}
                    wrote => return unfinished(shared, wrote),
                }
            }
            () = &mut hello_by, if !client.welcomed() => {
                return Some(Close { code: close::POLICY_VIOLATION, reason: "no hello in time" });
            }
            () = &mut idle => {
                let deadline = last_heard + config.idle_timeout;
                if deadline <= Instant::now() {
                    return Some(Close { code: close::POLICY_VIOLATION, reason: "no message or pong for too long" });
                }
                idle.as_mut().reset(deadline);
            }
        }
    }
}

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wrote {
    /// All of it is on the socket.
    Done,
    /// The client is gone.
    Failed,
    /// The socket took none of it for [`WRITE_TIMEOUT`]: the client reads too slowly.
    Stalled,
    /// The connection was told to close while the write waited.
    Kicked(Close),
}

/// Writes messages and flushes (also what direct senders left over).
///
/// A write that the socket takes at once (nearly all of them) sets no timer; one that waits
/// gives up after [`WRITE_TIMEOUT`], or as soon as the connection is told to close.
async fn write(
    ws: &mut Socket,
    kick: &mut watch::Receiver<Option<Close>>,
    messages: impl IntoIterator<Item = Message>,
) -> Wrote {
    let send = async {
        for message in messages {
            ws.feed(message).await?;
        }
        ws.flush().await
    };
    tokio::pin!(send);
    let first = std::future::poll_fn(|cx| Poll::Ready(send.as_mut().poll(cx))).await;
    let done = match first {
        Poll::Ready(done) => done,
        Poll::Pending => tokio::select! {
            done = timeout(WRITE_TIMEOUT, send) => match done {
                Ok(done) => done,
                Err(_) => return Wrote::Stalled,
            },
            why = kicked(kick) => return Wrote::Kicked(why),
        },
    };
    if done.is_ok() {
        Wrote::Done
    } else {
        Wrote::Failed
    }
}

/// Writes queued frames; see [`write`].
async fn write_queued(
    ws: &mut Socket,
    kick: &mut watch::Receiver<Option<Close>>,
    queued: Vec<Queued>,
) -> Wrote {
    write(
        ws,
        kick,
        queued.into_iter().filter_map(Queued::into_message),
    )
    .await
}

/// Waits until the connection is told to close, and says why.
async fn kicked(kick: &mut watch::Receiver<Option<Close>>) -> Close {
    if let Ok(why) = kick.wait_for(Option::is_some).await
        && let Some(why) = *why
    {
        return why;
    }
    // Nobody can tell it to close any more.
    std::future::pending().await
}

/// What a write that did not finish means for the connection: the close to send, if any. A stalled
/// write counts as a drop for reading too slowly (unless the connection was already told to close,
/// which counted it).
fn unfinished(shared: &Shared, wrote: Wrote) -> Option<Close> {
    match wrote {
        Wrote::Done | Wrote::Failed => None,
        Wrote::Stalled => {
            shared.operator.metrics.queue_drops.inc();
            None
        }
        Wrote::Kicked(why) => Some(why),
    }
}

/// Sends a close frame and waits a moment for the client's answer.
async fn close_with(ws: &mut Socket, why: Close) {
    let frame = CloseFrame {
        code: why.code.into(),
        reason: why.reason.into(),
    };
    if timeout(CLOSE_TIMEOUT, ws.close(Some(frame))).await.is_err() {
        return;
    }
    let _ = timeout(CLOSE_TIMEOUT, async {
        while let Some(Ok(_)) = ws.next().await {}
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_pings_spread_over_the_second_half_of_the_interval() {
        let interval = Duration::from_secs(16);
        let mut phases: Vec<Duration> = (0..1000).map(|c| ping_phase(c, interval)).collect();
        assert!(phases.iter().all(|p| *p >= interval / 2 && *p <= interval));
        phases.sort();
        // Consecutive connections land evenly: no eighth of the range is left empty or crowded.
        for eighth in 0..8u32 {
            let from = interval / 2 + interval / 16 * eighth;
            let to = from + interval / 16;
            let n = phases.iter().filter(|p| **p >= from && **p < to).count();
            assert!(
                (100..150).contains(&n),
                "{n} first pings in eighth {eighth}"
            );
        }
    }

    #[test]
    fn pings_fall_on_one_grid() {
        let start = on_ping_grid(Instant::now());
        for ms in [0, 1, 249, 250, 251, 7_777, 15_000] {
            let at = start + Duration::from_millis(ms);
            let due = on_ping_grid(at);
            assert!(due >= at && due < at + PING_GRID, "{ms} ms");
            assert_eq!(
                (due - start).as_millis() % PING_GRID.as_millis(),
                0,
                "{ms} ms"
            );
        }
    }

    #[test]
    fn the_tls_required_answer_has_the_right_length() {
        let answer = tls::tls_required();
        let text = std::str::from_utf8(&answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length: "))
            .unwrap();
        assert_eq!(length.parse::<usize>().unwrap(), body.len(), "{text}");
    }
}
