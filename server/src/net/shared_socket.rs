//! A plain connection's socket, shared by its connection task and everyone who sends to it, so that
//! a frame can go straight onto the socket from the task that made it.
//!
//! Sending through the connection's queue costs a wake-up of its task per frame: for a move seen by
//! 5,000 watchers, 5,000 task polls on top of 5,000 socket writes. Instead, a sender writes the
//! frame itself when nothing is ahead of it: no frame queued or being written by the connection
//! task, and no bytes of an earlier frame left over. Otherwise the frame queues as before, and the
//! queue stays the one place where a slow reader shows.
//!
//! Frames never interleave: every write, the connection task's (through [`Tap`], which is what
//! tungstenite reads and writes) and the senders', happens under the [`Wire`]'s lock and takes whole
//! frames; what the socket does not take at once is kept, in order, and written before anything
//! else. After a close frame nothing more is written.

use std::io::{self, Cursor};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

use crate::net::socket::Socket;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, OpCode};

/// Bytes kept back before the connection task's writes wait for the socket: a batch of frames.
const LEFTOVER_LIMIT: usize = 64 * 1024;

/// One plain connection's socket and the state of what is written to it.
#[derive(Debug)]
pub(crate) struct Wire {
    socket: Socket,
    lane: Mutex<Lane>,
}

#[derive(Debug, Default)]
struct Lane {
    /// Where the connection stands: handshaking, open to direct writes, or closing.
    state: State,
    /// Frames (and flush requests) in the connection's queue or being written by its task: while
    /// there are any, a new frame queues behind them.
    queued: usize,
    /// Bytes the socket has not taken yet, in order; written before anything else.
    leftover: Vec<u8>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The WebSocket handshake: bytes are HTTP, and only the connection task writes.
    #[default]
    Handshake,
    /// Frames may be written by anyone.
    Open,
    /// A close frame was written, or the connection is ending: no more frames from senders.
    Closed,
}

/// What became of frames offered to [`Wire::send_frames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// All of it is on the socket.
    Written,
    /// Part or none of it is on the socket, the rest is kept; the connection task must be asked
    /// to flush (the caller queues a flush request, already counted as queued).
    Kept,
    /// Something is ahead of it: the caller queues it (already counted as queued).
    Queue,
    /// The connection is closing or gone.
    Closed,
}

impl Wire {
    /// Shares an accepted socket; frames may be written directly once [`Wire::open`] is called.
    pub(crate) fn new(socket: Socket) -> Arc<Wire> {
        Arc::new(Wire {
            socket,
            lane: Mutex::new(Lane::default()),
        })
    }

    fn lane(&self) -> MutexGuard<'_, Lane> {
        // The lock is never held across a panic that could leave the lane half-updated.
        self.lane
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The handshake is done: from now on bytes are frames, and senders may write them.
    pub(crate) fn open(&self) {
        let mut lane = self.lane();
        if lane.state == State::Handshake {
            lane.state = State::Open;
        }
    }

    /// The connection is ending: senders write nothing more.
    pub(crate) fn close(&self) {
        self.lane().state = State::Closed;
    }

    /// Writes `count` encoded frames, back to back in `frames`, in one write if nothing is ahead
    /// of them; [`Sent::Queue`] counts them all as queued.
    pub(crate) fn send_frames(&self, frames: &[u8], count: usize) -> Sent {
        let mut lane = self.lane();
        if lane.state != State::Open {
            return Sent::Closed;
        }
        if lane.queued > 0 || !lane.leftover.is_empty() {
            lane.queued += count;
            return Sent::Queue;
        }
        match self.write_or_keep(&mut lane, frames) {
            Ok(true) => Sent::Written,
            Ok(false) => {
                lane.queued += 1;
                Sent::Kept
            }
            // The connection task will see the error on its next read or write.
            Err(_) => Sent::Closed,
        }
    }

    /// Writes whole frames behind what is left over: onto the socket at once if nothing is, and
    /// keeps what the socket does not take. True if all of it is on the socket.
    fn write_or_keep(&self, lane: &mut Lane, frames: &[u8]) -> io::Result<bool> {
        let mut taken = 0;
        if lane.leftover.is_empty() {
            match self.socket.try_write(frames) {
                Ok(n) => taken = n,
                Err(err) if not_now(&err) => {}
                Err(err) => return Err(err),
            }
        }
        lane.leftover.extend_from_slice(&frames[taken..]);
        Ok(taken == frames.len())
    }

    /// The connection task has written and flushed `n` queued items.
    pub(crate) fn written(&self, n: usize) {
        let mut lane = self.lane();
        lane.queued = lane.queued.saturating_sub(n);
    }

    /// Writes what is left over until none is or the socket is full.
    fn drain(&self, lane: &mut Lane, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !lane.leftover.is_empty() {
            ready!(self.socket.poll_write_ready(cx))?;
            match self.socket.try_write(&lane.leftover) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => {
                    lane.leftover.drain(..n);
                }
                Err(err) if not_now(&err) => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// Whether a failed write or read may be tried again later.
fn not_now(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

/// Whether whole frames written by the server hold a close frame. Anything that does not parse
/// as frames counts as not.
fn holds_close(mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        let mut cursor = Cursor::new(bytes);
        let Ok(Some((header, length))) = FrameHeader::parse(&mut cursor) else {
            return false;
        };
        if header.opcode == OpCode::Control(Control::Close) {
            return true;
        }
        let end = cursor.position().saturating_add(length);
        match usize::try_from(end) {
            Ok(end) if end <= bytes.len() => bytes = &bytes[end..],
            _ => return false,
        }
    }
    false
}

/// The connection task's handle on a [`Wire`]: what tungstenite reads and writes. Its writes take
/// whole buffers (tungstenite hands over whole frames) or none, so frames never split between
/// writers.
#[derive(Debug)]
pub(crate) struct Tap(pub Arc<Wire>);

impl AsyncRead for Tap {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let socket = &self.0.socket;
        loop {
            ready!(socket.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let room = unfilled.len();
            // A read that leaves room in the buffer has emptied the socket: readiness is edge
            // triggered, so it is cleared with that read (as tokio does for the streams it reads
            // itself), and the next read waits for more bytes instead of asking the socket once
            // more only to hear that it is empty: a system call saved on every frame.
            let mut short = None;
            let read = socket.try_io(Interest::READABLE, || {
                let mut reader: &socket2::Socket = &socket2::SockRef::from(socket);
                let n = io::Read::read(&mut reader, unfilled)?;
                if 0 < n && n < room {
                    short = Some(n);
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok(n)
            });
            match (read, short) {
                (_, Some(n)) | (Ok(n), None) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                (Err(err), None) if not_now(&err) => {}
                (Err(err), None) => return Poll::Ready(Err(err)),
            }
        }
    }
}

impl AsyncWrite for Tap {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let wire = &self.0;
        let mut lane = wire.lane();
        if lane.leftover.len() >= LEFTOVER_LIMIT {
            ready!(wire.drain(&mut lane, cx))?;
        }
        if lane.state == State::Open && holds_close(buf) {
            lane.state = State::Closed;
        }
        wire.write_or_keep(&mut lane, buf)?;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let wire = &self.0;
        let mut lane = wire.lane();
        wire.drain(&mut lane, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        // The socket is shared, so it cannot be shut down through `&mut`; the standard library's
        // view of the same descriptor can.
        let socket = socket2::SockRef::from(&self.0.socket);
        Poll::Ready(socket.shutdown(std::net::Shutdown::Write))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::{TcpListener, TcpStream};
    use tokio_tungstenite::tungstenite::protocol::frame::{CloseFrame, Frame};

    fn encode(frame: Frame) -> Vec<u8> {
        let mut bytes = Vec::new();
        frame.format(&mut bytes).unwrap();
        bytes
    }

    fn text(payload: &str) -> Vec<u8> {
        encode(Frame::message(
            payload.to_owned(),
            OpCode::Data(tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Text),
            true,
        ))
    }

    #[test]
    fn a_close_frame_is_found_among_whole_frames() {
        let close = encode(Frame::close(Some(CloseFrame {
            code: 1000.into(),
            reason: "bye".into(),
        })));
        let long = text(&"x".repeat(70_000));
        assert!(!holds_close(&text("{}")));
        assert!(!holds_close(&[text("{}"), long.clone()].concat()));
        assert!(holds_close(&close));
        assert!(holds_close(&[text("{}"), long, close.clone()].concat()));
        assert!(!holds_close(br#"{"type":"pong"}"#), "not frames");
        assert!(!holds_close(&close[..1]), "a cut frame does not parse");
    }

    async fn pair() -> (Arc<Wire>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        (Wire::new(Socket::Tcp(accepted.unwrap().0)), client.unwrap())
    }

    #[tokio::test]
    async fn frames_queue_behind_what_the_socket_did_not_take_and_arrive_whole_in_order() {
        let (wire, mut client) = pair().await;
        let frame = text(&"y".repeat(1000));
        assert_eq!(
            wire.send_frames(&frame, 1),
            Sent::Closed,
            "not before the handshake"
        );
        wire.open();
        // The client does not read: the socket fills, then a frame is kept, then the rest queue.
        let mut outcomes = Vec::new();
        loop {
            let sent = wire.send_frames(&frame, 1);
            outcomes.push(sent);
            if sent == Sent::Queue {
                break;
            }
            assert!(outcomes.len() < 100_000, "the socket never filled");
        }
        let written = outcomes.iter().filter(|s| **s == Sent::Written).count();
        assert_eq!(outcomes[written], Sent::Kept);
        assert_eq!(outcomes.len(), written + 2);
        // The connection task writes the queued frame behind the kept bytes and flushes.
        let mut tap = Tap(wire.clone());
        let reader = tokio::spawn(async move {
            let mut got = vec![0u8; (written + 2) * frame.len()];
            client.read_exact(&mut got).await.unwrap();
            got
        });
        let expected = text(&"y".repeat(1000));
        tokio::io::AsyncWriteExt::write_all(&mut tap, &expected)
            .await
            .unwrap();
        tokio::io::AsyncWriteExt::flush(&mut tap).await.unwrap();
        wire.written(2);
        let got = reader.await.unwrap();
        assert!(got.chunks(expected.len()).all(|chunk| chunk == expected));
        assert_eq!(
            wire.send_frames(&expected, 1),
            Sent::Written,
            "nothing ahead any more"
        );
        wire.close();
        assert_eq!(wire.send_frames(&expected, 1), Sent::Closed);
    }

    #[tokio::test]
    async fn frames_sent_together_go_in_one_write_or_queue_one_by_one() {
        let (wire, mut client) = pair().await;
        wire.open();
        let both = [text(r#"{"a":1}"#), text(r#"{"b":2}"#)].concat();
        assert_eq!(wire.send_frames(&both, 2), Sent::Written);
        let mut got = vec![0u8; both.len()];
        client.read_exact(&mut got).await.unwrap();
        assert_eq!(got, both, "whole and in order");
        // A frame is ahead in the connection's queue: both queue behind it, and both count.
        wire.lane().queued = 1;
        assert_eq!(wire.send_frames(&both, 2), Sent::Queue);
        assert_eq!(wire.lane().queued, 3);
    }

    #[tokio::test]
    async fn a_read_that_empties_the_socket_still_hears_of_bytes_that_come_later() {
        use tokio::io::AsyncWriteExt;
        let (wire, mut client) = pair().await;
        let mut tap = Tap(wire);
        client.write_all(b"ab").await.unwrap();
        let mut buf = [0u8; 64];
        let n = tap.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"ab");
        let reading = tokio::spawn(async move {
            let n = tap.read(&mut buf).await.unwrap();
            buf[..n].to_vec()
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        client.write_all(b"cd").await.unwrap();
        let later = tokio::time::timeout(std::time::Duration::from_secs(10), reading).await;
        assert_eq!(later.expect("the read wakes").unwrap(), b"cd");
    }

    #[tokio::test]
    async fn after_a_close_frame_senders_write_nothing() {
        let (wire, _client) = pair().await;
        wire.open();
        let mut tap = Tap(wire.clone());
        let close = encode(Frame::close(None));
        tokio::io::AsyncWriteExt::write_all(&mut tap, &close)
            .await
            .unwrap();
        assert_eq!(wire.send_frames(&text("{}"), 1), Sent::Closed);
    }
}
