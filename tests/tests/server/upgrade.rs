//! The WebSocket upgrade against a real server over raw TCP: a bad upgrade gets the HTTP answer
//! RFC 6455 asks for (`426` with `Sec-WebSocket-Version: 13` for another version, `400` with a
//! reason for a malformed one) instead of a silent close, and each is counted by reason.

use std::net::SocketAddr;

use noughts_tests::{TestServer, WAIT, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A well-formed upgrade's header lines after the request line.
const GOOD: &str = "Host: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
                    Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

/// Sends `request` on a fresh connection and reads the whole answer.
async fn ask(server: &TestServer, request: &str) -> String {
    ask_at(server.addr, request).await
}

/// Sends `request` on a fresh connection to `addr` and reads the whole answer.
async fn ask_at(addr: SocketAddr, request: &str) -> String {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(WAIT, tcp.read_to_end(&mut answer))
        .await
        .expect("the server answered in time")
        .expect("the answer was read");
    String::from_utf8_lossy(&answer).into_owned()
}

/// The request line and `GOOD` with `from` replaced by `to`.
fn upgrade(from: &str, to: &str) -> String {
    format!("GET / HTTP/1.1\r\n{}\r\n", GOOD.replace(from, to))
}

#[tokio::test]
async fn another_websocket_version_gets_426_naming_13() {
    let server = TestServer::start(test_config()).await;
    let answer = ask(&server, &upgrade("Version: 13", "Version: 8")).await;
    assert!(answer.starts_with("HTTP/1.1 426 "), "{answer}");
    assert!(
        answer.contains("\r\nSec-WebSocket-Version: 13\r\n"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_malformed_upgrade_gets_400_with_its_reason() {
    let server = TestServer::start(test_config()).await;
    let cases = [
        (
            upgrade("dGhlIHNhbXBsZSBub25jZQ==", "not-a-key"),
            "Sec-WebSocket-Key",
        ),
        (
            upgrade("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", ""),
            "Sec-WebSocket-Key",
        ),
        (
            upgrade("Connection: Upgrade", "Connection: close"),
            "Connection: Upgrade",
        ),
        (upgrade("Host: localhost\r\n", ""), "Host"),
        (
            "GET / HTTP/1.1\r\nHost localhost\r\n\r\n".to_owned(),
            "malformed",
        ),
    ];
    for (request, reason) in cases {
        let answer = ask(&server, &request).await;
        assert!(answer.starts_with("HTTP/1.1 400 "), "{request:?}: {answer}");
        assert!(answer.contains(reason), "{request:?}: {answer}");
    }
}

#[tokio::test]
async fn a_good_upgrade_still_switches_protocols() {
    let server = TestServer::start(test_config()).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(upgrade("", "").as_bytes()).await.unwrap();
    let mut head = vec![0u8; 512];
    let n = tokio::time::timeout(WAIT, tcp.read(&mut head))
        .await
        .unwrap()
        .unwrap();
    let head = String::from_utf8_lossy(&head[..n]);
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    // RFC 6455 §1.3's worked example of the accept key.
    assert!(
        head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
        "{head}"
    );
}

#[tokio::test]
async fn refused_upgrades_are_counted_by_reason() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let metrics_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics = metrics_listener.local_addr().unwrap();
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(noughts_server::run_with_metrics(
        listener,
        metrics_listener,
        test_config(),
        async move {
            let _ = stopped.await;
        },
    ));
    ask_at(addr, &upgrade("Version: 13", "Version: 8")).await;
    ask_at(addr, &upgrade("Version: 13", "Version: 8")).await;
    ask_at(addr, &upgrade("dGhlIHNhbXBsZSBub25jZQ==", "bad")).await;
    let wanted = [
        "noughts_bad_upgrades_total{reason=\"version\"} 2",
        "noughts_bad_upgrades_total{reason=\"key\"} 1",
    ];
    // A refusal is counted just after its answer is sent: scrape until both counts show.
    tokio::time::timeout(WAIT, async {
        loop {
            let scrape = ask_at(
                metrics,
                &format!("GET /metrics HTTP/1.1\r\nHost: {metrics}\r\nConnection: close\r\n\r\n"),
            )
            .await;
            if wanted.iter().all(|line| scrape.contains(line)) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the refused upgrades were counted by reason");
}

#[tokio::test]
async fn a_page_from_another_origin_is_refused_with_403() {
    let server = TestServer::start(noughts_server::Config {
        allowed_origins: vec!["https://play.example".to_owned()],
        ..test_config()
    })
    .await;
    let with = |origin: &str| {
        format!("GET / HTTP/1.1\r\n{GOOD}Origin: {origin}\r\n\r\n")
            .replace("Host: localhost", &format!("Host: {}", server.addr))
    };
    let answer = ask(&server, &with("http://evil.example")).await;
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    assert!(answer.contains("another origin"), "{answer}");
    for origin in [
        format!("http://{}", server.addr),
        "https://play.example".to_owned(),
    ] {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        tcp.write_all(with(&origin).as_bytes()).await.unwrap();
        let mut answer = [0u8; 12];
        tcp.read_exact(&mut answer).await.unwrap();
        assert_eq!(&answer, b"HTTP/1.1 101", "{origin}");
    }
}

#[tokio::test]
async fn a_head_of_exactly_64_header_lines_is_read_and_65_get_431() {
    let server = TestServer::start(test_config()).await;
    // Host and 63 more lines: 64 in all, answered (with the page); one more is too many.
    let head = |lines: usize| {
        let pads: String = (1..lines).map(|i| format!("X-Pad-{i}: {i}\r\n")).collect();
        format!("GET / HTTP/1.1\r\nHost: localhost\r\n{pads}\r\n")
    };
    let answer = ask(&server, &head(64)).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    let answer = ask(&server, &head(65)).await;
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
}

#[tokio::test]
async fn a_page_not_there_gets_a_plain_404_and_every_page_answer_closes_the_connection() {
    let server = TestServer::start(test_config()).await;
    // `ask` reads to the end: each answer is followed by the server closing the connection.
    let answer = ask(&server, "GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    assert!(
        answer.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"),
        "{answer}"
    );
    assert!(answer.contains("\r\nConnection: close\r\n"), "{answer}");
    let answer = ask(&server, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.contains("\r\nConnection: close\r\n"), "{answer}");
}

/// PROTOCOL.md, whose table of HTTP answers a client author reads.
const PROTOCOL_MD: &str = include_str!("../../../protocol/PROTOCOL.md");

#[tokio::test]
async fn other_methods_get_the_405_protocol_md_gives_and_head_gets_a_head() {
    let row = PROTOCOL_MD
        .lines()
        .find(|line| line.starts_with("| a method other than"))
        .expect("PROTOCOL.md's HTTP table has a row for other methods");
    let allow = row
        .split('`')
        .find(|part| part.starts_with("Allow: "))
        .expect("the row names the Allow header");
    let server = TestServer::start(test_config()).await;
    let upgrade_by_head = format!("HEAD / HTTP/1.1\r\n{GOOD}\r\n");
    for request in [
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n",
        "DELETE /app.js HTTP/1.1\r\nHost: localhost\r\n\r\n",
        upgrade_by_head.as_str(),
    ] {
        let answer = ask(&server, request).await;
        assert!(
            answer.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
            "{request:?}: {answer}"
        );
        assert!(
            answer.contains(&format!("\r\n{allow}\r\n")),
            "{request:?}: PROTOCOL.md says {allow:?}: {answer}"
        );
    }
    // A HEAD gets what a GET would, without the body.
    for (path, status) in [("/", "200 OK"), ("/app.js", "200 OK"), ("/nothing", "404 ")] {
        let get = ask(
            &server,
            &format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        )
        .await;
        let head = ask(
            &server,
            &format!("HEAD {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        )
        .await;
        assert!(
            head.starts_with(&format!("HTTP/1.1 {status}")),
            "{path}: {head}"
        );
        let (get_head, body) = get.split_once("\r\n\r\n").unwrap();
        assert!(!body.is_empty(), "{path}");
        assert_eq!(head, format!("{get_head}\r\n\r\n"), "{path}");
    }
}

/// The headers SECURITY.md promises on every answer of the main port.
const SECURITY_HEADERS: [&str; 4] = [
    "\r\nContent-Security-Policy: default-src 'none';",
    "\r\nX-Content-Type-Options: nosniff\r\n",
    "\r\nReferrer-Policy: no-referrer\r\n",
    "\r\nX-Frame-Options: DENY\r\n",
];

#[tokio::test]
async fn every_answer_errors_included_carries_the_security_headers() {
    let server = TestServer::start(test_config()).await;
    let origin = format!("GET / HTTP/1.1\r\n{GOOD}Origin: http://evil.example\r\n\r\n");
    let cases = [
        (
            "200",
            "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
        ),
        (
            "404",
            "GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
        ),
        (
            "405",
            "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n".to_owned(),
        ),
        ("403", origin),
        ("400", upgrade("dGhlIHNhbXBsZSBub25jZQ==", "not-a-key")),
        ("400", "GET / HTTP/1.1\r\nHost localhost\r\n\r\n".to_owned()),
        ("426", upgrade("Version: 13", "Version: 8")),
        ("426", upgrade("Upgrade: websocket", "Upgrade: h2c")),
        (
            "200",
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
        ),
    ];
    for (status, request) in cases {
        let answer = ask(&server, &request).await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{request:?}: {answer}"
        );
        for header in SECURITY_HEADERS {
            assert!(
                answer.contains(header),
                "{request:?} lacks {header:?}: {answer}"
            );
        }
    }
}
