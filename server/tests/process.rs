//! The real `noughts-server` binary: it prints where it listens, serves a game, and on SIGTERM tells
//! every client and exits cleanly.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, PROTOCOL_VERSION, ServerFrame, ServerMessage, close,
};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn sigterm_tells_clients_and_the_process_exits() {
    // A private home, so nothing the server keeps lands in the real one.
    let home = std::env::temp_dir().join(format!("noughts-process-test-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_noughts-server"))
        .args(["--listen", "127.0.0.1:0", "--no-war-games"])
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start noughts-server");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("the server prints a line");
    let url = line
        .trim()
        .strip_prefix("noughts server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(url.starts_with("ws://127.0.0.1:"), "{url}");

    let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .expect("connect");
    let hello = ClientFrame::new(ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "last-one-out".into(),
        token: None,
    });
    ws.send(Message::text(hello.to_json())).await.unwrap();

    let deadline = Duration::from_secs(20);
    let mut welcomed = false;
    let mut told = false;
    let mut close_code = None;
    let read = async {
        while let Some(Ok(message)) = ws.next().await {
            match message {
                Message::Text(text) => {
                    let frame: ServerFrame = serde_json::from_str(text.as_str()).unwrap();
                    match frame.message {
                        ServerMessage::Welcome { .. } => {
                            welcomed = true;
                            let status = Command::new("kill")
                                .args(["-TERM", &child.id().to_string()])
                                .status()
                                .expect("run kill");
                            assert!(status.success());
                        }
                        ServerMessage::Shutdown { .. } => told = true,
                        _ => {}
                    }
                }
                Message::Close(frame) => {
                    close_code = frame.map(|f| u16::from(f.code));
                    break;
                }
                _ => {}
            }
        }
    };
    tokio::time::timeout(deadline, read)
        .await
        .expect("the server closes the connection in time");
    assert!(welcomed, "the server said welcome");
    assert!(told, "the client was told about the shutdown");
    assert_eq!(close_code, Some(close::GOING_AWAY));

    // The process exits by itself, successfully.
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < deadline, "the server did not exit");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "exit status {status}");
    let _ = std::fs::remove_dir_all(&home);
}
