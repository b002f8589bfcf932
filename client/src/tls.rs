//! Which `wss://` servers the client trusts: those whose certificate chains up to one of the
//! system's root certificates, or to a certificate given with `--ca`.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use rustls::crypto::ring;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use tokio_tungstenite::tungstenite::Error as WsError;

/// The TLS settings for `wss://`: the system's roots, plus the PEM certificates in `ca` (a private
/// CA, or a self-signed server's own certificate).
pub fn client_config(ca: Option<&Path>) -> anyhow::Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore::empty();
    // Unreadable system certificates are skipped; with none at all, only `--ca` is trusted.
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    if let Some(path) = ca {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .with_context(|| format!("cannot read the CA certificate {}", path.display()))?;
        if certs.is_empty() {
            bail!(
                "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                path.display()
            );
        }
        for cert in certs {
            roots
                .add(cert)
                .with_context(|| format!("{} is not a usable certificate", path.display()))?;
        }
    }
    if roots.is_empty() {
        bail!("this system has no root certificates to check the server with: pass --ca FILE");
    }
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Why a connection failed, for people: an untrusted certificate says how to trust it, and an
/// HTTP answer instead of a WebSocket says what the server wrote.
pub fn explain(err: &WsError) -> String {
    match err {
        WsError::Io(io) => match io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
            // webpki's reason, which rustls passes on only as an opaque error.
            Some(tls) if format!("{tls:?}").contains("CaUsedAsEndEntity") => format!(
                "the server's certificate is marked as a CA, so it cannot be the server's own \
                 ({tls}); the server needs a certificate made with CA:FALSE"
            ),
            Some(tls @ rustls::Error::InvalidCertificate(_)) => format!(
                "the server's certificate is not trusted ({tls}); if it is self-signed or from \
                 a private CA, pass that certificate with --ca FILE"
            ),
            Some(tls) => format!("TLS failed: {tls}"),
            None => err.to_string(),
        },
        WsError::Http(response) => {
            let body = response
                .body()
                .as_deref()
                .map(|body| noughts_protocol::sanitize(String::from_utf8_lossy(body).trim()))
                .unwrap_or_default();
            format!("the server answered HTTP {}: {body}", response.status())
        }
        _ => err.to_string(),
    }
}
