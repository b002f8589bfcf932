//! TLS for the tests: a certificate made at test time, a server that serves it, and clients that
//! trust it (or not).

use std::path::PathBuf;
use std::sync::Arc;

use noughts_server::{Config, Tls};
use rustls::crypto::ring;
use rustls::{ClientConfig, RootCertStore};

use crate::{Scratch, TestServer};

/// A self-signed certificate for `localhost` and `127.0.0.1`, made now, with its key, written as
/// PEM files into a scratch directory of its own.
#[derive(Debug)]
pub struct TestCert {
    /// The certificate, PEM.
    pub cert: PathBuf,
    /// Its private key, PEM.
    pub key: PathBuf,
    /// The certificate, DER, for clients to trust.
    der: rustls::pki_types::CertificateDer<'static>,
    /// Holds the files; removed on drop.
    _scratch: Scratch,
}

impl TestCert {
    pub fn localhost() -> TestCert {
        let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
        let made = rcgen::generate_simple_self_signed(names).expect("make a certificate");
        let scratch = Scratch::new("tls");
        let cert = scratch.dir.join("cert.pem");
        let key = scratch.dir.join("key.pem");
        std::fs::write(&cert, made.cert.pem()).expect("write the certificate");
        std::fs::write(&key, made.signing_key.serialize_pem()).expect("write the key");
        TestCert {
            cert,
            key,
            der: made.cert.der().clone(),
            _scratch: scratch,
        }
    }

    /// The server's side, loaded from the PEM files as `noughts-server` loads them.
    pub fn server(&self) -> Tls {
        Tls::from_pem_files(&self.cert, &self.key).expect("load the test certificate")
    }

    /// A client configuration that trusts this certificate and nothing else.
    pub fn trusted(&self) -> Arc<ClientConfig> {
        let mut roots = RootCertStore::empty();
        roots
            .add(self.der.clone())
            .expect("trust the test certificate");
        let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        Arc::new(config)
    }
}

impl TestServer {
    /// Starts a server serving `wss://` with `cert`; [`TestServer::url`] and
    /// [`TestServer::join`] then connect over TLS, trusting it.
    pub async fn start_tls(config: Config, cert: &TestCert) -> TestServer {
        let config = Config {
            tls: Some(cert.server()),
            ..config
        };
        let mut server = TestServer::start(config).await;
        server.client_tls = Some(cert.trusted());
        server
    }
}
