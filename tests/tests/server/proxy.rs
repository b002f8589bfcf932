//! A server behind a real HAProxy: with the proxy trusted, its clients count by their own
//! addresses (given by the PROXY protocol v2, or by `X-Forwarded-For`), and nothing an untrusted
//! peer sends about its address changes anything. Clients come from different loopback addresses
//! (127.0.0.2, 127.0.0.3, ...), which Linux routes to the loopback device.

use std::net::{IpAddr, SocketAddr};

use noughts_protocol::{ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerMessage};
use noughts_server::{ClientAddress, Config, Proxies};
use noughts_tests::haproxy::{Tell, TestHaproxy};
use noughts_tests::{Socket, TestServer, WAIT, read_frame, send_frame, test_config};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpSocket;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// At most two connections from one address.
fn capped(client_address: ClientAddress) -> Config {
    Config {
        max_connections_per_ip: 2,
        proxies: Proxies {
            trusted: vec!["127.0.0.1".parse().unwrap()],
            client_address,
        },
        ..test_config()
    }
}

/// A WebSocket to `to` from the loopback address `from`, with `headers` added to the upgrade.
async fn connect_from(from: &str, to: SocketAddr, headers: &[(&str, &str)]) -> Socket {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    let stream = socket.connect(to).await.expect("connect");
    let mut request = format!("ws://{to}/").into_client_request().unwrap();
    for (name, value) in headers {
        let name: tokio_tungstenite::tungstenite::http::HeaderName = name.parse().unwrap();
        request.headers_mut().append(name, value.parse().unwrap());
    }
    let handshake = tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream));
    let (ws, _) = tokio::time::timeout(WAIT, handshake)
        .await
        .expect("handshake in time")
        .expect("handshake");
    ws
}

/// Says hello on `ws`: `Ok` with the socket when welcomed, else the error code and close code.
async fn hello(mut ws: Socket) -> Result<Socket, (ErrorCode, Option<u16>)> {
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "p".to_owned(),
        token: None,
        credentials: None,
    };
    send_frame(&mut ws, &ClientFrame::new(hello)).await;
    let frame = read_frame(&mut ws).await.expect("an answer to hello");
    match frame.message {
        ServerMessage::Welcome { .. } => Ok(ws),
        ServerMessage::Error { code, .. } => {
            let closed = loop {
                if let Err(code) = read_frame(&mut ws).await {
                    break code;
                }
            };
            Err((code, closed))
        }
        other => panic!("welcome or an error, got {other:?}"),
    }
}

async fn join(
    from: &str,
    to: SocketAddr,
    headers: &[(&str, &str)],
) -> Result<Socket, (ErrorCode, Option<u16>)> {
    hello(connect_from(from, to, headers).await).await
}

const REFUSED: Result<(), (ErrorCode, Option<u16>)> =
    Err((ErrorCode::TooManyConnections, Some(1013)));

fn outcome(
    joined: Result<Socket, (ErrorCode, Option<u16>)>,
    keep: &mut Vec<Socket>,
) -> Result<(), (ErrorCode, Option<u16>)> {
    joined.map(|ws| keep.push(ws))
}

/// Two clients behind the proxy each get the whole per-address cap; a third connection from one
/// of them is over it. Clients that claim another address (a forged `X-Forwarded-For` through the
/// proxy) are still counted by their own.
async fn two_clients_are_two_addresses(tell: Tell, client_address: ClientAddress) {
    let server = TestServer::start(capped(client_address)).await;
    let Some(proxy) = TestHaproxy::start(&[server.addr], tell).await else {
        return;
    };
    let mut open = Vec::new();
    let forged = [
        ("x-forwarded-for", "203.0.113.9"),
        ("forwarded", "for=203.0.113.9"),
    ];
    for from in ["127.0.0.2", "127.0.0.3"] {
        for _ in 0..2 {
            assert_eq!(
                outcome(join(from, proxy.addr, &forged).await, &mut open),
                Ok(()),
                "{from}"
            );
        }
    }
    for from in ["127.0.0.2", "127.0.0.3"] {
        assert_eq!(
            outcome(join(from, proxy.addr, &forged).await, &mut open),
            REFUSED,
            "{from}"
        );
    }
    assert_eq!(
        outcome(join("127.0.0.4", proxy.addr, &[]).await, &mut open),
        Ok(())
    );
}

#[tokio::test]
async fn behind_haproxy_with_the_proxy_protocol_two_clients_are_two_addresses() {
    two_clients_are_two_addresses(Tell::ProxyProtocol, ClientAddress::ProxyProtocol).await;
}

#[tokio::test]
async fn behind_haproxy_with_x_forwarded_for_two_clients_are_two_addresses() {
    two_clients_are_two_addresses(Tell::ForwardedFor, ClientAddress::XForwardedFor).await;
}

#[tokio::test]
async fn an_untrusted_peer_s_forged_headers_change_nothing() {
    let server = TestServer::start(capped(ClientAddress::XForwardedFor)).await;
    let mut open = Vec::new();
    // 127.0.0.5 is no trusted proxy: each connection names another client, all count as one.
    for (i, expected) in [Ok(()), Ok(()), REFUSED].into_iter().enumerate() {
        let claimed = format!("198.51.100.{i}");
        let headers = [
            ("x-forwarded-for", claimed.as_str()),
            ("forwarded", "for=198.51.100.99"),
        ];
        let joined = join("127.0.0.5", server.addr, &headers).await;
        assert_eq!(outcome(joined, &mut open), expected, "connection {i}");
    }
}

#[tokio::test]
async fn an_untrusted_peer_s_proxy_header_is_not_read_as_one() {
    let server = TestServer::start(capped(ClientAddress::ProxyProtocol)).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        outcome(join("127.0.0.6", server.addr, &[]).await, &mut open).unwrap();
    }
    // A PROXY header naming another client, from an untrusted peer: just bytes of a bad request.
    let header = ppp_header("198.51.100.7".parse().unwrap());
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.6:0".parse().unwrap()).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let answer = page_after(stream, &header).await;
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert_eq!(
        outcome(join("127.0.0.6", server.addr, &[]).await, &mut open),
        REFUSED
    );
}

#[tokio::test]
async fn a_trusted_proxy_that_sends_no_proxy_header_is_refused() {
    let server = TestServer::start(capped(ClientAddress::ProxyProtocol)).await;
    let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let answer = page_after(stream, b"").await;
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert!(answer.contains("PROXY protocol"), "{answer}");
}

/// Sends `first`, then a request for the page, on `stream`; the whole answer.
async fn page_after(mut stream: tokio::net::TcpStream, first: &[u8]) -> String {
    stream.write_all(first).await.unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    let read = tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer);
    let _ = tokio::time::timeout(WAIT, read).await.expect("an answer");
    answer
}

/// A PROXY protocol v2 header naming `client`, as a proxy would send it.
fn ppp_header(client: IpAddr) -> Vec<u8> {
    let IpAddr::V4(v4) = client else {
        panic!("IPv4 only")
    };
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.extend_from_slice(&[0x21, 0x11, 0, 12]);
    header.extend_from_slice(&v4.octets());
    header.extend_from_slice(&[127, 0, 0, 1]);
    header.extend_from_slice(&[0x12, 0x67, 0x1e, 0xde]);
    header
}
