//! The sending half of a connection: frames serialised once, written straight to a plain
//! connection's socket when nothing is ahead of them (see `wire`) and otherwise queued in a bounded
//! queue, and a way to drop a connection that does not keep up.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use noughts_protocol::{ErrorCode, RequestId, ServerFrame, ServerMessage, close};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::protocol::frame::Frame as WsFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};

use crate::metrics::Metrics;
use crate::net::shared_socket::{Sent, Wire};

/// One connection's number, unique for the life of the server; tells a stale connection of a
/// session from the current one. The numbers start at a random point (below 2^53, which any
/// JSON reader holds exactly), so that a node restarted under the same name does not give its
/// new connections the numbers that the other nodes' stand-ins still serve for its old ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ConnId(pub u64);

impl ConnId {
    pub(crate) fn next() -> ConnId {
        static NEXT: LazyLock<AtomicU64> = LazyLock::new(|| {
            // Without the system's random source the numbers start low, as they once all did.
            let mut bytes = [0u8; 4];
            let _ = getrandom::fill(&mut bytes);
            AtomicU64::new(u64::from(u32::from_le_bytes(bytes) >> 1).max(1) << 21)
        });
        ConnId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Why the server closes a connection, sent in the close frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Close {
    /// The WebSocket close code (see `noughts_protocol::close`).
    pub code: u16,
    /// A few words for the close frame.
    pub reason: &'static str,
}

impl Close {
    /// The connection's queue filled up: it reads too slowly.
    pub(crate) const TOO_SLOW: Close = Close {
        code: close::POLICY_VIOLATION,
        reason: "too slow to read updates",
    };
    /// The server's operator banned the player.
    pub(crate) const BANNED: Close = Close {
        code: close::POLICY_VIOLATION,
        reason: "banned",
    };
    /// The player logged out: every connection of the session closes.
    pub(crate) const LOGGED_OUT: Close = Close {
        code: close::LOGGED_OUT,
        reason: "logged out",
    };
}

/// A server frame serialised once, as JSON text and as the WebSocket frame that carries it; cheap
/// to clone for every recipient (one reference count), and one word in each connection's queue,
/// whose slots every connection holds for its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame(Arc<Serialised>);

#[derive(Debug, PartialEq, Eq)]
struct Serialised {
    text: Utf8Bytes,
    encoded: Bytes,
}

impl Frame {
    /// A text frame.
    pub(crate) fn new(json: String) -> Frame {
        let text = Utf8Bytes::from(json);
        let mut encoded = Vec::with_capacity(text.len() + 10);
        WsFrame::message(text.clone(), OpCode::Data(Data::Text), true)
            .format(&mut encoded)
            .expect("writing to a Vec cannot fail");
        Frame(Arc::new(Serialised {
            text,
            encoded: encoded.into(),
        }))
    }

    /// The frame as it goes on the wire.
    fn encoded(&self) -> &[u8] {
        &self.0.encoded
    }

    /// The JSON text.
    pub(crate) fn as_str(&self) -> &str {
        self.0.text.as_str()
    }

    /// The message for tungstenite to write.
    pub(crate) fn message(&self) -> Message {
        Message::Text(self.0.text.clone())
    }
}

/// Serialises a server frame once.
pub(crate) fn frame(id: Option<RequestId>, message: ServerMessage) -> Frame {
    Frame::new(ServerFrame::reply(id, message).to_json())
}

/// The same frame as the reply to the request with `id`: the message is serialised once for
/// everyone, and the requester's copy only gains the `"id"` member in front.
pub(crate) fn with_id(shared: &Frame, id: Option<&RequestId>) -> Frame {
    let Some(id) = id else {
        return shared.clone();
    };
    let id = serde_json::to_string(id).expect("request ids always serialise");
    let body = shared.as_str();
    debug_assert!(body.starts_with('{') && body.len() > 2);
    Frame::new(format!("{{\"id\":{id},{}", &body[1..]))
}

/// The same frame with more members at its end: `members` is JSON text that starts with a comma
/// (`,"me":{…}`), spliced in before the closing brace. A message whose body is the same for many
/// recipients but for a member or two of each one's own is serialised once, and each copy only
/// gains its own members.
pub(crate) fn with_members(shared: &Frame, members: &str) -> Frame {
    if members.is_empty() {
        return shared.clone();
    }
    let body = shared.as_str();
    debug_assert!(body.ends_with('}') && members.starts_with(','));
    let mut json = String::with_capacity(body.len() + members.len());
    json.push_str(&body[..body.len() - 1]);
    json.push_str(members);
    json.push('}');
    Frame::new(json)
}

/// Serialises an error reply.
pub(crate) fn error_frame(
    id: Option<RequestId>,
    code: ErrorCode,
    message: impl Into<String>,
) -> Frame {
    frame(
        id,
        ServerMessage::Error {
            code,
            message: message.into(),
        },
    )
}

/// What the connection task writes, in order.
#[derive(Debug)]
pub(crate) enum Queued {
    /// A frame.
    Frame(Frame),
    /// The rest of a frame written directly is waiting in the wire: flush it.
    Flush,
    /// Nothing to write: whoever reads the queue learns that everything before it was taken
    /// (a stand-in for another node's connection tells that node so).
    Mark(u64),
}

impl Queued {
    /// The message for tungstenite to write, if any.
    pub(crate) fn into_message(self) -> Option<Message> {
        match self {
            Queued::Frame(frame) => Some(frame.message()),
            Queued::Flush | Queued::Mark(_) => None,
        }
    }
}

/// Where to send frames for one connection. Cloned into games, the lobby and the session.
#[derive(Debug, Clone)]
pub(crate) struct Outbound {
    /// Which connection this is, so that a stale handle can be told from the current one.
    pub conn: ConnId,
    /// A plain connection's socket, to write to directly; weak, so that the socket closes when
    /// the connection ends however long others keep this handle.
    wire: Option<Weak<Wire>>,
    /// The connection's bounded queue; never awaited by anyone but the connection itself.
    tx: mpsc::Sender<Queued>,
    /// Set to close the connection from outside: when its queue is full, or its session moved.
    kick: Arc<watch::Sender<Option<Close>>>,
    /// The server's metrics: frames dropped and errors sent.
    metrics: Arc<Metrics>,
    /// The connection of another node of a cluster this stands in for (its frames are mailed
    /// there); `None` for one of this node's.
    stand_in: Option<Arc<Remote>>,
}

/// The connection's side of an [`Outbound`].
#[derive(Debug)]
pub(crate) struct Inbox {
    /// Frames to write to the socket, in order.
    pub frames: mpsc::Receiver<Queued>,
    /// A plain connection's socket, told when queued frames are written.
    pub wire: Option<Arc<Wire>>,
    /// Becomes `Some` when the connection must close.
    pub kick: watch::Receiver<Option<Close>>,
}

/// A new queue for a connection, and a way to write to its socket directly if it is plain.
pub(crate) fn channel(
    capacity: usize,
    metrics: Arc<Metrics>,
    wire: Option<Arc<Wire>>,
) -> (Outbound, Inbox) {
    let (tx, frames) = mpsc::channel(capacity.max(1));
    let (kick, kick_rx) = watch::channel(None);
    (
        Outbound {
            conn: ConnId::next(),
            wire: wire.as_ref().map(Arc::downgrade),
            tx,
            kick: Arc::new(kick),
            metrics,
            stand_in: None,
        },
        Inbox {
            frames,
            wire,
            kick: kick_rx,
        },
    )
}

/// A connection of another node of a cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Remote {
    /// The node's name.
    pub node: String,
    /// The connection's number on that node.
    pub conn: u64,
}

/// A queue for a stand-in: frames for `remote`, a connection of another node, which are mailed
/// there.
pub(crate) fn stand_in_channel(
    capacity: usize,
    metrics: Arc<Metrics>,
    remote: Remote,
) -> (Outbound, Inbox) {
    let (mut out, inbox) = channel(capacity, metrics, None);
    out.stand_in = Some(Arc::new(remote));
    (out, inbox)
}

impl Inbox {
    /// Takes what is queued without waiting, up to `limit` items.
    pub(crate) fn take(&mut self, into: &mut Vec<Queued>, limit: usize) {
        while into.len() < limit {
            match self.frames.try_recv() {
                Ok(queued) => into.push(queued),
                Err(_) => break,
            }
        }
    }

    /// The connection task wrote and flushed `n` items: frames sent after them may go directly.
    pub(crate) fn written(&self, n: usize) {
        if let Some(wire) = &self.wire {
            wire.written(n);
        }
    }
}

impl Outbound {
    /// Queues a frame without waiting. False when the connection is gone or was too slow (it is
    /// then being closed); the caller should forget this recipient.
    pub(crate) fn send(&self, frame: Frame) -> bool {
        match self.offer(frame.encoded(), 1) {
            Some(Sent::Written) => true,
            Some(Sent::Closed) => false,
            Some(Sent::Kept) => self.queue(Queued::Flush),
            Some(Sent::Queue) | None => self.queue(Queued::Frame(frame)),
        }
    }

    /// Sends frames in order as [`Outbound::send`] sends one; written to the socket directly,
    /// they go in one write (one system call, one TCP segment) rather than one each.
    pub(crate) fn send_many(&self, frames: Vec<Frame>) -> bool {
        if frames.len() < 2 {
            return frames.into_iter().all(|frame| self.send(frame));
        }
        let mut bytes = Vec::with_capacity(frames.iter().map(|f| f.encoded().len()).sum());
        for frame in &frames {
            bytes.extend_from_slice(frame.encoded());
        }
        match self.offer(&bytes, frames.len()) {
            Some(Sent::Written) => true,
            Some(Sent::Closed) => false,
            Some(Sent::Kept) => self.queue(Queued::Flush),
            Some(Sent::Queue) | None => frames
                .into_iter()
                .all(|frame| self.queue(Queued::Frame(frame))),
        }
    }

    /// Offers `count` encoded frames, back to back in `bytes`, to a plain connection's socket;
    /// `None` for a connection without one (its frames always queue).
    fn offer(&self, bytes: &[u8], count: usize) -> Option<Sent> {
        let wire = self.wire.as_ref()?;
        Some(
            wire.upgrade()
                .map_or(Sent::Closed, |wire| wire.send_frames(bytes, count)),
        )
    }

    /// Puts an item in the connection's queue; false (and the connection closing, if the queue is
    /// full) when it cannot.
    fn queue(&self, queued: Queued) -> bool {
        match self.tx.try_send(queued) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                if self.close(Close::TOO_SLOW) {
                    self.metrics.queue_drops.inc();
                }
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Queues `mark` behind every frame queued so far; false when the connection is gone.
    pub(crate) fn mark(&self, mark: u64) -> bool {
        self.tx.try_send(Queued::Mark(mark)).is_ok()
    }

    /// Serialises and queues one message.
    pub(crate) fn reply(&self, id: Option<RequestId>, message: ServerMessage) -> bool {
        self.send(frame(id, message))
    }

    /// Queues an error reply.
    pub(crate) fn error(&self, id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) {
        self.metrics.error(code);
        self.send(error_frame(id, code, message));
    }

    /// Whether this stands in for another node's connection.
    pub(crate) fn is_stand_in(&self) -> bool {
        self.stand_in.is_some()
    }

    /// The connection of another node this stands in for, if it does.
    pub(crate) fn remote(&self) -> Option<&Remote> {
        self.stand_in.as_deref()
    }

    /// Whether the connection is closing or gone: nothing sent to it will be read.
    pub(crate) fn is_closed(&self) -> bool {
        self.kick.borrow().is_some() || self.tx.is_closed()
    }

    /// Asks the connection to close; true unless it was already closing.
    pub(crate) fn close(&self, why: Close) -> bool {
        self.kick.send_if_modified(|current| {
            if current.is_none() {
                *current = Some(why);
                true
            } else {
                false
            }
        })
    }
}

/// Sends one frame to many recipients and returns the keys of those it could not reach (their
/// connections are closing). Every [`FAN_OUT_SLICE`] sends it gives its thread back to the
/// runtime, which looks for I/O before it comes back, so an update for thousands of watchers,
/// some 6 µs a socket, does not hold up the connections and games sharing its worker for tens of
/// milliseconds.
pub(crate) async fn fan_out<'a, K: 'a>(
    recipients: impl IntoIterator<Item = (K, &'a Outbound)>,
    frame: &Frame,
) -> Vec<K> {
    let mut unreached = Vec::new();
    for (sent, (key, out)) in recipients.into_iter().enumerate() {
        if !out.send(frame.clone()) {
            unreached.push(key);
        }
        if sent % FAN_OUT_SLICE == FAN_OUT_SLICE - 1 {
            tokio::task::yield_now().await;
        }
    }
    unreached
}

/// Sends a fan-out makes between two yields: some 0.2 ms of sending. Yielding only when the
/// task's cooperative budget ran out (128 sends) left the paced games beside a 5,000-watcher
/// fan-out with a p99 of 6.6 to 7.0 ms from send to the kernel's receipt; yielding every 32 sends
/// brought it to 4.4 to 4.7 ms (BENCHMARKS.md).
pub(crate) const FAN_OUT_SLICE: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_requesters_copy_is_the_shared_frame_with_its_id() {
        let message = ServerMessage::Watchers {
            game: noughts_protocol::GameId(3),
            seq: 9,
            count: 2,
        };
        let shared = frame(None, message.clone());
        assert_eq!(with_id(&shared, None), shared);
        for id in [RequestId::Number(7), RequestId::Text("a\"b".into())] {
            let own = with_id(&shared, Some(&id));
            let parsed: ServerFrame = serde_json::from_str(own.as_str()).unwrap();
            assert_eq!(parsed, ServerFrame::reply(Some(id), message.clone()));
        }
    }

    #[test]
    fn a_copy_with_its_own_members_reads_as_the_whole_message() {
        let message = |count| ServerMessage::Watchers {
            game: noughts_protocol::GameId(3),
            seq: 9,
            count,
        };
        let whole: ServerFrame = serde_json::from_str(frame(None, message(2)).as_str()).unwrap();
        // The same message without a member, which the copy then gains.
        let json = frame(None, message(2)).as_str().replace(",\"count\":2", "");
        let shared = Frame::new(json);
        assert_eq!(with_members(&shared, ""), shared);
        let own = with_members(&shared, ",\"count\":2");
        assert_eq!(
            serde_json::from_str::<ServerFrame>(own.as_str()).unwrap(),
            whole
        );
    }

    #[test]
    fn a_full_queue_closes_the_slow_connection() {
        let metrics = Arc::new(Metrics::default());
        let (out, mut inbox) = channel(2, metrics.clone(), None);
        let pong = || frame(None, ServerMessage::Pong);
        assert!(out.send(pong()));
        assert!(out.send(pong()));
        assert_eq!(*inbox.kick.borrow(), None);
        assert!(!out.send(pong()), "the third frame does not fit");
        assert_eq!(*inbox.kick.borrow_and_update(), Some(Close::TOO_SLOW));
        assert!(!out.send(pong()), "nor does the fourth");
        assert_eq!(metrics.queue_drops.get(), 1, "one connection dropped once");
        // The first reason to close stands.
        out.close(Close::LOGGED_OUT);
        assert!(!inbox.kick.has_changed().unwrap());
        let Ok(Queued::Frame(first)) = inbox.frames.try_recv() else {
            panic!("the first frame is queued");
        };
        assert_eq!(first.as_str(), r#"{"type":"pong"}"#);
    }

    #[test]
    fn a_long_fan_out_lets_other_tasks_run_and_reaches_everyone() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let metrics = Arc::new(Metrics::default());
            let (outs, mut inboxes): (Vec<_>, Vec<_>) =
                (0..1000).map(|_| channel(1, metrics.clone(), None)).unzip();
            let pong = frame(None, ServerMessage::Pong);
            // One reader too slow: its queue is already full.
            assert!(outs[7].send(pong.clone()));
            // On this one thread, the other task runs only if the fan-out gives the thread back.
            let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = ran.clone();
            tokio::spawn(async move { flag.store(true, Ordering::Relaxed) });
            let unreached = fan_out(outs.iter().enumerate(), &pong).await;
            assert!(ran.load(Ordering::Relaxed), "the fan-out never yielded");
            assert_eq!(unreached, vec![7], "only the full queue is unreached");
            for (n, inbox) in inboxes.iter_mut().enumerate() {
                let Ok(Queued::Frame(got)) = inbox.frames.try_recv() else {
                    panic!("recipient {n} got nothing");
                };
                assert_eq!(got, pong);
            }
        });
    }
}
