//! The relay baseline: what a move costs a server with no game in it. Connections come in pairs;
//! each frame one of them sends is relayed to the other and acknowledged to the sender, one frame
//! in and two out, as a move is (the mover's reply and the opponent's update). The frames are the
//! sizes of a classic move and its `moved` update. The server is built on the same crates with the
//! same socket settings as the noughts server, and, like it, gives each connection one task that
//! owns its socket and `select!`s over it and a bounded queue of frames from its partner.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{ClientFrame, ClientMessage, GameId, Mark, ServerFrame, ServerMessage};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::client::{self, Read, Socket};
use crate::report::{Errors, Recorder, Report};
use crate::target::{Probe, Run};

/// The path a relay client connects to on the echo server; any other path echoes.
pub const PATH: &str = "/relay";

/// Frames queued for one connection before its partner's relays are dropped (as the server's
/// outbound queues hold 256).
const QUEUE: usize = 256;

/// A classic move as a client sends it: the relay's frame in.
pub fn move_frame() -> String {
    ClientFrame::new(ClientMessage::Move {
        game: GameId(100_000),
        cell: 4,
    })
    .to_json()
}

/// A classic move's `moved` update as the server sends it to both players: the size of the
/// relay's two frames out.
pub fn update_frame() -> String {
    ServerFrame {
        id: None,
        message: ServerMessage::Moved {
            game: GameId(100_000),
            seq: 5,
            mark: Mark::X,
            cell: 4,
            board: "XO..X..O.".to_owned(),
            to_move: Some(Mark::O),
            clocks: None,
        },
    }
    .to_json()
}

/// Connections waiting for their partner, by pair name.
#[derive(Debug, Default)]
pub struct Pairs {
    waiting: Mutex<HashMap<String, Waiting>>,
}

/// The first of a pair to arrive: its queue, and where to hand it its partner's.
#[derive(Debug)]
struct Waiting {
    queue: mpsc::Sender<Utf8Bytes>,
    partner: oneshot::Sender<mpsc::Sender<Utf8Bytes>>,
}

impl Pairs {
    /// Meets the partner named `pair`: the partner's queue, once both have arrived.
    async fn meet(
        &self,
        pair: String,
        queue: mpsc::Sender<Utf8Bytes>,
    ) -> Option<mpsc::Sender<Utf8Bytes>> {
        let wait = {
            let mut waiting = self.waiting.lock().expect("pairs lock");
            match waiting.remove(&pair) {
                Some(first) => {
                    let _ = first.partner.send(queue);
                    return Some(first.queue);
                }
                None => {
                    let (partner, wait) = oneshot::channel();
                    waiting.insert(pair, Waiting { queue, partner });
                    wait
                }
            }
        };
        wait.await.ok()
    }
}

/// One relay connection, its handshake done: the first frame names its pair; once the partner
/// is there it says `paired`, and from then on relays.
pub async fn serve_connection(mut ws: WebSocketStream<TcpStream>, pairs: Arc<Pairs>) {
    let pair = match ws.next().await {
        Some(Ok(Message::Text(text))) => text.to_string(),
        _ => return,
    };
    let (queue, mut inbox) = mpsc::channel::<Utf8Bytes>(QUEUE);
    let Some(partner) = pairs.meet(pair, queue).await else {
        return;
    };
    if ws.send(Message::text("paired")).await.is_err() {
        return;
    }
    let size = update_frame().len();
    loop {
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Text(text))) => {
                    // One frame made, shared by both recipients.
                    let update = Utf8Bytes::from(padded(&text, size));
                    let _ = partner.try_send(update.clone());
                    if ws.send(Message::Text(update)).await.is_err() {
                        return;
                    }
                }
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            Some(frame) = inbox.recv() => {
                if ws.send(Message::Text(frame)).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// `text` followed by spaces up to `size` bytes.
fn padded(text: &str, size: usize) -> String {
    let mut frame = String::with_capacity(size.max(text.len()));
    frame.push_str(text);
    while frame.len() < size {
        frame.push(' ');
    }
    frame
}

/// How a `relay` run is shaped.
#[derive(Debug, Clone)]
pub struct RelayOptions {
    /// Pairs of connections, each with one relay in flight.
    pub pairs: usize,
    /// The measured window.
    pub secs: f64,
}

/// What the pairs of a run share.
#[derive(Debug, Default)]
struct Tally {
    /// Send → the partner reads the relayed frame.
    latency: Recorder,
    errors: Errors,
    relays: AtomicU64,
}

/// Runs the relay load against the echo server at `url` (its [`PATH`] is added): every pair takes
/// turns as a game does, the next frame going out from the side that has just received one.
pub async fn run(url: &str, server: Probe, options: &RelayOptions) -> anyhow::Result<Report> {
    let url = format!("{}{}", url.trim_end_matches('/'), PATH);
    let tally = Arc::new(Tally::default());
    let mut pairs = Vec::new();
    for i in 0..options.pairs {
        match pair(&url, i).await {
            Ok(pair) => pairs.push(pair),
            Err(err) => tally.errors.add_err(&err),
        }
    }
    let connections = pairs.len() * 2;
    let Run { end, measured, .. } = Run::starting(server, options.secs).await;
    let mut set = JoinSet::new();
    for (a, b) in pairs {
        set.spawn(play(a, b, end, tally.clone()));
    }
    while set.join_next().await.is_some() {}
    let (elapsed, server, generator) = measured.await?;
    let secs = options.secs.min(elapsed.as_secs_f64());
    let count = tally.relays.load(Ordering::Relaxed);
    Ok(Report {
        scenario: format!(
            "relay: {} pairs × {}-byte frames in, {}-byte frames to both, one in flight each",
            options.pairs,
            move_frame().len(),
            update_frame().len()
        ),
        connections,
        secs,
        unit: "relays".to_owned(),
        ops: count,
        ops_per_sec: count as f64 / secs,
        latency: tally.latency.latency(),
        errors: tally.errors.snapshot(),
        server,
        generator,
        ..Report::default()
    })
}

/// Connects both sides of pair `i` and waits until the server has paired them.
async fn pair(url: &str, i: usize) -> anyhow::Result<(Socket, Socket)> {
    let mut a = client::connect(url, None).await?;
    let mut b = client::connect(url, None).await?;
    // Unique to this process: two runs against one relay must not meet each other's sockets.
    let name = format!("pair-{}-{i}", std::process::id());
    a.send(Message::text(name.as_str())).await?;
    b.send(Message::text(name.as_str())).await?;
    for ws in [&mut a, &mut b] {
        match tokio::time::timeout(client::STEP, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) if text.as_str() == "paired" => {}
            _ => anyhow::bail!("not paired"),
        }
    }
    Ok((a, b))
}

/// One pair's loop: a frame from one side, then from the other once it has the first, while
/// the sender's acknowledgements are read as they come. On each socket the acknowledgement of a
/// frame comes before the partner's next frame (the server writes it before it can have relayed
/// the answer), so a frame that arrives while its side awaits an acknowledgement is that.
async fn play(mut a: Socket, mut b: Socket, end: Instant, tally: Arc<Tally>) {
    let frame = Utf8Bytes::from(move_frame());
    // Whether A sends next, and when the frame in flight went out.
    let mut a_sends = true;
    let mut in_flight: Option<Instant> = None;
    // Acknowledgements each side still awaits: A's, then B's.
    let mut acks_due = [0_u32; 2];
    let deadline = end + Duration::from_secs(5);
    loop {
        if in_flight.is_none() {
            if Instant::now() >= end {
                break;
            }
            let ws = if a_sends { &mut a } else { &mut b };
            if ws.send(Message::Text(frame.clone())).await.is_err() {
                tally.errors.add("send");
                break;
            }
            in_flight = Some(Instant::now());
            acks_due[usize::from(!a_sends)] += 1;
        }
        let (side, message) = tokio::select! {
            () = tokio::time::sleep_until(deadline) => {
                tally.errors.add("timeout");
                break;
            }
            message = a.next() => (0, message),
            message = b.next() => (1, message),
        };
        match Read::of(message, &tally.errors) {
            Read::Text(_) => {}
            Read::Skip => continue,
            Read::End => break,
        }
        if acks_due[side] > 0 {
            acks_due[side] -= 1;
            continue;
        }
        // The partner's copy completes the relay.
        if let Some(sent) = in_flight.take() {
            tally.latency.record(sent.elapsed());
            tally.relays.fetch_add(1, Ordering::Relaxed);
            a_sends = !a_sends;
        }
    }
    tokio::join!(client::close(a), client::close(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_the_sizes_of_a_move_and_its_update() {
        assert!((30..50).contains(&move_frame().len()), "{}", move_frame());
        assert!(
            (80..110).contains(&update_frame().len()),
            "{}",
            update_frame()
        );
        assert_eq!(padded("abc", 6), "abc   ");
        assert_eq!(padded("abcdef", 3), "abcdef");
    }
}
