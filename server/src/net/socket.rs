//! An accepted socket: a TCP connection to the node's port, or a connection through the Unix
//! socket only the proxy may use (`--proxy-socket`). An enum rather than a trait object, so every
//! read and write is a direct call; the rest of a connection's path reads and writes it alike.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use nix::sys::socket::MsgFlags;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::{TcpStream, UnixStream};

/// An accepted connection's socket.
#[derive(Debug)]
pub(crate) enum Socket {
    /// From the node's TCP port: its peer is who it is (or a proxy the operator trusts).
    Tcp(TcpStream),
    /// From the proxy's Unix socket: every connection starts with a PROXY protocol header.
    Unix(UnixStream),
}

impl Socket {
    /// Turns Nagle's algorithm off on a TCP socket (a Unix socket has none).
    pub(crate) fn set_nodelay(&self) {
        if let Socket::Tcp(tcp) = self {
            let _ = tcp.set_nodelay(true);
        }
    }

    /// Whether the connection came through the proxy's Unix socket.
    pub(crate) fn is_proxied(&self) -> bool {
        matches!(self, Socket::Unix(_))
    }

    /// Writes what the socket takes now, without waiting.
    pub(crate) fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Socket::Tcp(tcp) => tcp.try_write(bytes),
            Socket::Unix(unix) => unix.try_write(bytes),
        }
    }

    /// Waits until the socket may take more bytes.
    pub(crate) fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Socket::Tcp(tcp) => tcp.poll_write_ready(cx),
            Socket::Unix(unix) => unix.poll_write_ready(cx),
        }
    }

    /// Waits until the socket has bytes to read.
    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Socket::Tcp(tcp) => tcp.poll_read_ready(cx),
            Socket::Unix(unix) => unix.poll_read_ready(cx),
        }
    }

    /// Runs `io` on the socket, clearing its readiness for `interest` if `io` would block.
    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        io: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        match self {
            Socket::Tcp(tcp) => tcp.try_io(interest, io),
            Socket::Unix(unix) => unix.try_io(interest, io),
        }
    }

    /// The next byte the client sends, left unread; `Ok(0)` if it closed first.
    pub(crate) async fn peek_byte(&self, byte: &mut [u8; 1]) -> io::Result<usize> {
        let unix = match self {
            Socket::Tcp(tcp) => return tcp.peek(byte).await,
            Socket::Unix(unix) => unix,
        };
        loop {
            unix.readable().await?;
            let peeked = unix.try_io(Interest::READABLE, || {
                let fd = unix.as_fd().as_raw_fd();
                nix::sys::socket::recv(fd, byte, MsgFlags::MSG_PEEK).map_err(io::Error::from)
            });
            match peeked {
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                other => return other,
            }
        }
    }
}

impl AsFd for Socket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Socket::Tcp(tcp) => tcp.as_fd(),
            Socket::Unix(unix) => unix.as_fd(),
        }
    }
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(tcp) => Pin::new(tcp).poll_read(cx, buf),
            Socket::Unix(unix) => Pin::new(unix).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Socket::Tcp(tcp) => Pin::new(tcp).poll_write(cx, buf),
            Socket::Unix(unix) => Pin::new(unix).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Socket::Tcp(tcp) => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Socket::Unix(unix) => Pin::new(unix).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Socket::Tcp(tcp) => tcp.is_write_vectored(),
            Socket::Unix(unix) => unix.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(tcp) => Pin::new(tcp).poll_flush(cx),
            Socket::Unix(unix) => Pin::new(unix).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Socket::Tcp(tcp) => Pin::new(tcp).poll_shutdown(cx),
            Socket::Unix(unix) => Pin::new(unix).poll_shutdown(cx),
        }
    }
}
