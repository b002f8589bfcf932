//! TLS to PostgreSQL, as the URL's `sslmode` and `sslrootcert` ask (libpq's names), through
//! rustls: the URL the postgres crate is given, and the connector it is given with it.

use std::sync::Arc;

use rustls::RootCertStore;
use rustls::crypto::ring;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Why TLS to PostgreSQL could not be set up (never shows the URL's password: it holds none of
/// it).
#[derive(Debug, thiserror::Error)]
pub(super) enum TlsSetupError {
    #[error("sslrootcert {path}: {why}")]
    RootCert { path: String, why: String },
    #[error("no trusted certificate authority: the system has none, and no sslrootcert is given")]
    NoRoots,
    #[error("TLS: {0}")]
    Rustls(#[from] rustls::Error),
}

/// `url` as the postgres crate reads it, and the TLS to connect with: `None` connects in plain
/// TCP (`sslmode` `disable`, `allow`, `prefer` or none), as before. `sslmode=require`,
/// `verify-ca` and `verify-full` all connect over TLS (TLS 1.2 or 1.3) and check the server's
/// certificate chain and its name, as libpq's `verify-full` does: against the authorities in
/// `sslrootcert` (a PEM file), or else the system's. rustls checks no less, so `require` is as
/// strict as `verify-full` here.
pub(super) fn tls_of(url: &str) -> Result<(String, Option<MakeRustlsConnect>), TlsSetupError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_owned(), None));
    };
    let mut kept = Vec::new();
    let (mut tls, mut root_cert) = (false, None);
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (key, value) {
            ("sslmode", "require" | "verify-ca" | "verify-full") => tls = true,
            ("sslmode", "allow") => {}
            ("sslrootcert", path) => root_cert = Some(percent_decoded(path)),
            _ => kept.push(pair),
        }
    }
    if tls {
        kept.push("sslmode=require");
    }
    let url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    if !tls {
        return Ok((url, None));
    }
    let roots = match root_cert {
        Some(path) => roots_in(&path)?,
        None => system_roots()?,
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok((url, Some(MakeRustlsConnect::new(config))))
}

/// The certificates in the PEM file at `path`, as the authorities to trust.
fn roots_in(path: &str) -> Result<RootCertStore, TlsSetupError> {
    let refused = |why: String| TlsSetupError::RootCert {
        path: path.to_owned(),
        why,
    };
    let pem = std::fs::read(path).map_err(|err| refused(err.to_string()))?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|err| refused(err.to_string()))?;
        roots.add(cert).map_err(|err| refused(err.to_string()))?;
    }
    if roots.is_empty() {
        return Err(refused("it holds no certificate".to_owned()));
    }
    Ok(roots)
}

/// The system's trusted authorities (`SSL_CERT_FILE` and `SSL_CERT_DIR` are honoured).
fn system_roots() -> Result<RootCertStore, TlsSetupError> {
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    if roots.is_empty() {
        return Err(TlsSetupError::NoRoots);
    }
    Ok(roots)
}

/// `text` with its `%XX` escapes decoded (a path in a URL's query may hold them).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_modes_that_ask_for_tls_get_it_and_the_url_keeps_the_rest() {
        let plain = "postgres://noughts:pw@db/noughts";
        for url in [
            plain.to_owned(),
            format!("{plain}?sslmode=disable"),
            format!("{plain}?sslmode=prefer&connect_timeout=3"),
            format!("{plain}?sslmode=allow"),
        ] {
            let (read, tls) = tls_of(&url).unwrap();
            assert!(tls.is_none(), "{url}");
            assert!(!read.contains("allow"), "{read}");
        }
        let cert = rcgen::generate_simple_self_signed(vec!["db".to_owned()]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("a ca.pem");
        std::fs::write(&ca, cert.cert.pem()).unwrap();
        let ca_in_url = ca.display().to_string().replace(' ', "%20");
        for mode in ["require", "verify-ca", "verify-full"] {
            let url = format!("{plain}?application_name=n&sslmode={mode}&sslrootcert={ca_in_url}");
            let (read, tls) = tls_of(&url).unwrap();
            assert!(tls.is_some(), "{url}");
            assert_eq!(read, format!("{plain}?application_name=n&sslmode=require"));
            read.parse::<postgres::Config>().unwrap();
        }
        let missing = format!("{plain}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem");
        let err = tls_of(&missing).err().unwrap().to_string();
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let url = format!("{plain}?sslmode=require&sslrootcert={}", empty.display());
        assert!(tls_of(&url).is_err());
    }
}
