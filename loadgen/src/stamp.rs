//! A TCP stream that can tell when the kernel received what it last read.
//!
//! With thousands of sockets read by one generator core, a frame can wait in the socket while the
//! generator reads the others: the time of the read then measures the generator as much as the
//! server. The kernel's receive timestamp (`SO_TIMESTAMPNS`, taken as the bytes arrive, before any
//! process reads them) measures the server's delivery alone. The kernel turns stamping on for the
//! whole system a moment after the first socket asks; what arrives before then has no stamp.

use std::io::{self, IoSliceMut};
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, SystemTime};

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg, setsockopt, sockopt};
use nix::sys::time::TimeSpec;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

/// A TCP stream that, once [`Stamped::stamp`] is called, keeps the kernel's receive time of the
/// last bytes it read.
#[derive(Debug)]
pub struct Stamped {
    inner: TcpStream,
    stamping: bool,
    received: Option<SystemTime>,
}

impl Stamped {
    /// Wraps a stream; it reads as a plain one until [`Stamped::stamp`].
    pub fn new(inner: TcpStream) -> Stamped {
        Stamped {
            inner,
            stamping: false,
            received: None,
        }
    }

    /// The stream itself.
    pub fn tcp(&self) -> &TcpStream {
        &self.inner
    }

    /// Asks the kernel to stamp what this socket receives from now on.
    pub fn stamp(&mut self) -> io::Result<()> {
        setsockopt(&self.inner, sockopt::ReceiveTimestampns, &true)?;
        self.stamping = true;
        Ok(())
    }

    /// When the kernel received the last bytes read, if they were stamped.
    pub fn received(&self) -> Option<SystemTime> {
        self.received
    }

    fn read_stamped(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let fd = self.inner.as_raw_fd();
        let mut space = nix::cmsg_space!(TimeSpec);
        let mut iov = [IoSliceMut::new(buf)];
        let (bytes, stamp) = self.inner.try_io(Interest::READABLE, || {
            let message = recvmsg::<()>(fd, &mut iov, Some(&mut space), MsgFlags::empty())?;
            let stamp = message.cmsgs()?.find_map(|cmsg| match cmsg {
                ControlMessageOwned::ScmTimestampns(at) => Some(at),
                _ => None,
            });
            Ok((message.bytes, stamp))
        })?;
        if let Some(at) = stamp {
            let since_epoch = Duration::new(
                u64::try_from(at.tv_sec()).unwrap_or(0),
                u32::try_from(at.tv_nsec()).unwrap_or(0),
            );
            self.received = Some(SystemTime::UNIX_EPOCH + since_epoch);
        }
        Ok(bytes)
    }
}

impl AsyncRead for Stamped {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.stamping {
            return Pin::new(&mut this.inner).poll_read(cx, buf);
        }
        loop {
            ready!(this.inner.poll_read_ready(cx))?;
            match this.read_stamped(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }
    }
}

impl AsyncWrite for Stamped {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    #[tokio::test]
    async fn what_is_read_carries_the_time_it_arrived() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let connect = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(connect, listener.accept());
        let (mut server, mut client) = (accepted.unwrap().0, Stamped::new(client.unwrap()));
        let mut buf = [0u8; 16];

        server.write_all(b"plain").await.unwrap();
        assert_eq!(client.read(&mut buf).await.unwrap(), 5);
        assert_eq!(client.received(), None, "not stamped until asked");

        client.stamp().unwrap();
        // The kernel turns receive timestamps on for the whole system a moment after the first
        // socket asks for them; what arrives before that is not stamped.
        for _ in 0..100 {
            let before = SystemTime::now();
            server.write_all(b"stamped").await.unwrap();
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert_eq!(client.read(&mut buf).await.unwrap(), 7);
            let after = SystemTime::now();
            let Some(received) = client.received() else {
                continue;
            };
            // Arrived on writing, not on reading 50 ms later (a generous bound either way).
            assert!(
                received >= before - Duration::from_millis(5),
                "{received:?}"
            );
            assert!(received + Duration::from_millis(25) < after, "{received:?}");
            assert_eq!(&buf[..7], b"stamped");
            return;
        }
        panic!("nothing read was ever stamped");
    }
}
