//! The real `noughts-server` binary with `--tls-cert` and `--tls-key`: it serves `wss://` with a
//! certificate made here, and refuses to start on half the flags or an unreadable file.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{ClientFrame, ClientMessage, PROTOCOL_VERSION, ServerFrame, ServerMessage};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_tungstenite::tungstenite::Message;

/// A directory of this test's own, with a self-signed certificate for localhost and its key.
struct Keys {
    dir: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    der: rustls::pki_types::CertificateDer<'static>,
}

impl Keys {
    fn new(name: &str) -> Keys {
        let dir = std::env::temp_dir().join(format!("noughts-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        let der = made.cert.der().clone();
        Keys {
            dir,
            cert,
            key,
            der,
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn server(args: &[&OsStr]) -> Command {
    let mut command = Command::new(noughts_tests::binary::path("noughts-server"));
    command.args([
        "--listen",
        "127.0.0.1:0",
        "--no-war-games",
        "--db",
        ":memory:",
    ]);
    command.args(args);
    command
}

/// Runs the server with flags that must stop it at start; its output.
fn refused(args: &[&OsStr]) -> Output {
    let output = server(args).stdin(Stdio::null()).output().unwrap();
    assert!(!output.status.success());
    output
}

/// Kills the server when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn serves_wss_with_the_given_certificate() {
    let keys = Keys::new("server-tls");
    let flags = [
        "--tls-cert".as_ref(),
        keys.cert.as_os_str(),
        "--tls-key".as_ref(),
        keys.key.as_os_str(),
    ];
    let mut child = Running(
        server(&flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("noughts server listening on wss://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();

    let mut roots = RootCertStore::empty();
    roots.add(keys.der.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let welcome = async {
        let tcp = TcpStream::connect(&addr).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let tls = TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .unwrap();
        let url = format!("wss://localhost:{}/", addr.rsplit(':').next().unwrap());
        let (mut ws, _) = tokio_tungstenite::client_async(url, tls).await.unwrap();
        let hello = ClientFrame::new(ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: "ada".into(),
            token: None,
            credentials: None,
        });
        ws.send(Message::text(hello.to_json())).await.unwrap();
        loop {
            if let Some(Ok(Message::Text(text))) = ws.next().await {
                let frame: ServerFrame = serde_json::from_str(text.as_str()).unwrap();
                return frame.message;
            }
        }
    };
    let message = tokio::time::timeout(Duration::from_secs(20), welcome)
        .await
        .expect("welcome in time");
    assert!(
        matches!(message, ServerMessage::Welcome { .. }),
        "{message:?}"
    );
}

#[test]
fn refuses_half_the_tls_flags_or_a_missing_file() {
    let keys = Keys::new("server-tls-bad");
    let output = refused(&["--tls-cert".as_ref(), keys.cert.as_os_str()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--tls-key"), "{stderr}");

    let missing = keys.dir.join("missing.pem");
    let output = refused(&[
        "--tls-cert".as_ref(),
        missing.as_os_str(),
        "--tls-key".as_ref(),
        keys.key.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot read"), "{stderr}");
    assert!(stderr.contains("missing.pem"), "{stderr}");
}
