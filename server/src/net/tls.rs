//! TLS in front of the WebSocket: the server's certificate and key, the handshake with its time
//! limit, and [`Stream`], what a connection reads and writes whether it is encrypted or not.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::ServerConfig;
use rustls::crypto::ring;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::time::timeout;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tracing::debug;

use crate::net::shared_socket::Tap;
use crate::net::socket::Socket;

/// The first byte of every TLS connection: a handshake record.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// The answer to a plain HTTP request (`ws://`, `http://`) on a TLS port.
pub(crate) fn tls_required() -> Vec<u8> {
    crate::net::http::response(crate::net::http::Answer::text(
        "400 Bad Request",
        "This noughts server speaks TLS only: connect with a wss:// URL.\n",
    ))
}

/// A certificate chain and its private key, ready to serve TLS with (ring as the crypto provider,
/// TLS 1.2 and 1.3).
#[derive(Clone)]
pub struct Tls {
    /// Shared by every handshake.
    config: Arc<ServerConfig>,
}

/// Why a certificate or key could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file is not well-formed PEM.
    #[error("{} is not valid PEM", path.display())]
    Pem {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: pem::Error,
    },
    /// The certificate file holds no `CERTIFICATE` section.
    #[error("{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// The key file holds no private key section.
    #[error("{} holds no PEM private key (PKCS#8, PKCS#1 or SEC1)", path.display())]
    NoKey {
        /// The file.
        path: PathBuf,
    },
    /// rustls would not serve with this certificate and key.
    #[error("the certificate and key cannot be served")]
    Rejected(#[from] rustls::Error),
}

impl Tls {
    /// Loads a PEM certificate chain (the server's certificate first) and a PEM private key.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|source| TlsError::Read {
                path: path.to_owned(),
                source,
            })
        };
        let pem_error = |path: &Path| {
            let path = path.to_owned();
            move |source| TlsError::Pem { path, source }
        };
        let chain = CertificateDer::pem_slice_iter(&read(cert)?)
            .collect::<Result<Vec<_>, _>>()
            .map_err(pem_error(cert))?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate {
                path: cert.to_owned(),
            });
        }
        let key = match PrivateKeyDer::from_pem_slice(&read(key)?) {
            Ok(found) => found,
            Err(pem::Error::NoItemsFound) => {
                return Err(TlsError::NoKey {
                    path: key.to_owned(),
                });
            }
            Err(err) => return Err(pem_error(key)(err)),
        };
        let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
        Ok(Tls {
            config: Arc::new(config),
        })
    }
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

impl PartialEq for Tls {
    /// The same loaded configuration (certificates are not compared).
    fn eq(&self, other: &Tls) -> bool {
        Arc::ptr_eq(&self.config, &other.config)
    }
}

/// An accepted connection, plain or after its TLS handshake. An enum rather than a trait object,
/// so every read and write is a direct call.
#[derive(Debug)]
pub(crate) enum Stream {
    /// `ws://`: the socket is shared with direct senders (see `wire`).
    Plain(Tap),
    /// `wss://`; boxed, as rustls's state is large and plain connections should not pay for it.
    Tls(Box<TlsStream<Socket>>),
}

/// Runs the TLS handshake on an accepted connection, all of it within `limit`. A client that
/// speaks plain HTTP (a `ws://` URL) is told to use `wss://`. `None` if the handshake failed or
/// took too long; the reason is logged.
pub(crate) async fn accept(tls: &Tls, mut stream: Socket, limit: Duration) -> Option<Stream> {
    let handshake = async {
        let mut first = [0u8; 1];
        if stream.peek_byte(&mut first).await? == 1 && first[0] != TLS_HANDSHAKE_RECORD {
            if first[0].is_ascii_alphabetic() {
                stream.write_all(&tls_required()).await?;
                stream.shutdown().await?;
            }
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a TLS client",
            ));
        }
        TlsAcceptor::from(tls.config.clone()).accept(stream).await
    };
    match timeout(limit, handshake).await {
        Ok(Ok(stream)) => Some(Stream::Tls(Box::new(stream))),
        Ok(Err(err)) => {
            debug!(cause = %err, "TLS handshake failed");
            None
        }
        Err(_) => {
            debug!("TLS handshake timed out");
            None
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(tap) => Pin::new(tap).poll_read(cx, buf),
            Stream::Tls(tls) => Pin::new(tls.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(tap) => Pin::new(tap).poll_write(cx, buf),
            Stream::Tls(tls) => Pin::new(tls.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(tap) => Pin::new(tap).poll_write_vectored(cx, bufs),
            Stream::Tls(tls) => Pin::new(tls.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(tap) => tap.is_write_vectored(),
            Stream::Tls(tls) => tls.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(tap) => Pin::new(tap).poll_flush(cx),
            Stream::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(tap) => Pin::new(tap).poll_shutdown(cx),
            Stream::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A certificate and key for localhost written into `dir`, and their paths.
    fn write_pair(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let cert = dir.join(format!("{name}.crt"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        (cert, key)
    }

    #[test]
    fn loads_a_certificate_and_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = write_pair(dir.path(), "server");
        let tls = Tls::from_pem_files(&cert, &key).unwrap();
        assert_eq!(tls, tls.clone());
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = write_pair(dir.path(), "server");
        let (_, other_key) = write_pair(dir.path(), "other");
        let missing = dir.path().join("missing.pem");
        let broken = dir.path().join("broken.pem");
        std::fs::write(&broken, "-----BEGIN CERTIFICATE-----\nAAAA\n").unwrap();
        let error = |cert: &Path, key: &Path| Tls::from_pem_files(cert, key).unwrap_err();

        let err = error(&missing, &key);
        assert!(matches!(err, TlsError::Read { .. }), "{err}");
        assert!(err.to_string().contains("missing.pem"), "{err}");
        let err = error(&key, &key);
        assert!(matches!(err, TlsError::NoCertificate { .. }), "{err}");
        let err = error(&cert, &cert);
        assert!(matches!(err, TlsError::NoKey { .. }), "{err}");
        let err = error(&broken, &key);
        assert!(matches!(err, TlsError::Pem { .. }), "{err}");
        let err = error(&cert, &other_key);
        assert!(matches!(err, TlsError::Rejected(_)), "{err}");
    }
}
