//! Only the proxy may speak for a client: a server with `--proxy-socket` believes the PROXY
//! protocol header on its private Unix socket alone. Connections there count by the address each
//! header claims (from a real HAProxy, and from a hand-made header); connections to the TCP port
//! that claim another address in a PROXY header are refused, and cannot lift the per-address cap.

use std::net::{IpAddr, Ipv4Addr};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerFrame, ServerMessage,
};
use noughts_server::{Config, ProxySocket};
use noughts_tests::haproxy::TestHaproxy;
use noughts_tests::{Scratch, TestServer, WAIT, test_config};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream, UnixStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// At most `cap` connections from one address, and the proxy's socket at `socket`.
fn behind_its_socket(socket: &Path, cap: usize) -> Config {
    Config {
        max_connections_per_ip: cap,
        proxy_socket: Some(ProxySocket {
            path: socket.to_owned(),
            group: None,
        }),
        ..test_config()
    }
}

/// Waits (bounded) for the server to make its socket.
async fn socket_made(path: &Path) {
    for _ in 0..400 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no socket at {}", path.display());
}

/// A PROXY protocol v2 header naming the IPv4 `client`.
fn proxy_header(client: Ipv4Addr) -> Vec<u8> {
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.extend_from_slice(&[0x21, 0x11, 0, 12]);
    header.extend_from_slice(&client.octets());
    header.extend_from_slice(&[127, 0, 0, 1]);
    header.extend_from_slice(&[0x12, 0x67, 0x1e, 0xde]);
    header
}

/// Opens a WebSocket over `stream` (after `first`, sent raw) and says hello: `Ok` with the
/// socket when welcomed, else the error's code.
async fn join<S>(mut stream: S, first: &[u8]) -> Result<WebSocketStream<S>, ErrorCode>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    stream.write_all(first).await.unwrap();
    let request = "ws://127.0.0.1/".into_client_request().unwrap();
    let (mut ws, _) = tokio::time::timeout(WAIT, tokio_tungstenite::client_async(request, stream))
        .await
        .expect("handshake in time")
        .expect("handshake");
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: "p".to_owned(),
        token: None,
        credentials: None,
    };
    let hello = Message::text(ClientFrame::new(hello).to_json());
    ws.send(hello).await.expect("send hello");
    loop {
        let answer = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("an answer to hello in time");
        let Some(Ok(Message::Text(text))) = answer else {
            continue;
        };
        let frame: ServerFrame = serde_json::from_str(text.as_str()).expect("a server frame");
        return match frame.message {
            ServerMessage::Welcome { .. } => Ok(ws),
            ServerMessage::Error { code, .. } => Err(code),
            other => panic!("welcome or an error, got {other:?}"),
        };
    }
}

/// A connection through the proxy's socket claiming to come from `client`.
async fn through_socket(
    path: &Path,
    client: Ipv4Addr,
) -> Result<WebSocketStream<UnixStream>, ErrorCode> {
    let stream = UnixStream::connect(path)
        .await
        .expect("connect to the socket");
    join(stream, &proxy_header(client)).await
}

/// The whole answer to `first` then a request for the page, on a connection to `to` from
/// 127.0.0.1.
async fn page_after(to: std::net::SocketAddr, first: &[u8]) -> String {
    let mut stream = TcpStream::connect(to).await.unwrap();
    stream.write_all(first).await.unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    let read = stream.read_to_string(&mut answer);
    let _ = tokio::time::timeout(WAIT, read).await.expect("an answer");
    answer
}

/// What `stream` gives until it closes or fails (a reset after the answer is fine).
async fn read_all(stream: &mut (impl AsyncRead + Unpin)) -> String {
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while let Ok(n @ 1..) = stream.read(&mut buf).await {
        answer.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&answer).into_owned()
}

fn socket_path(dir: &Scratch) -> PathBuf {
    dir.dir.join("node.sock")
}

#[tokio::test]
async fn the_socket_is_private_and_each_claimed_address_counts_alone() {
    let dir = Scratch::new("proxy-socket");
    let path = socket_path(&dir);
    let _server = TestServer::start(behind_its_socket(&path, 2)).await;
    socket_made(&path).await;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "only the server's user may connect");
    let (a, b) = (
        Ipv4Addr::new(198, 51, 100, 1),
        Ipv4Addr::new(198, 51, 100, 2),
    );
    let mut open = Vec::new();
    for client in [a, a, b, b] {
        open.push(through_socket(&path, client).await.expect("under the cap"));
    }
    for client in [a, b] {
        assert_eq!(
            through_socket(&path, client).await.err(),
            Some(ErrorCode::TooManyConnections),
            "{client} is over its cap"
        );
    }
    through_socket(&path, Ipv4Addr::new(198, 51, 100, 3))
        .await
        .expect("another address has a cap of its own");
    // Without its header, a connection through the socket is refused.
    let mut bare = UnixStream::connect(&path).await.unwrap();
    bare.write_all(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        .await
        .unwrap();
    let answer = tokio::time::timeout(WAIT, read_all(&mut bare))
        .await
        .expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
}

#[tokio::test]
async fn a_proxy_header_on_the_tcp_port_does_not_lift_the_per_address_cap() {
    let dir = Scratch::new("proxy-socket-tcp");
    let path = socket_path(&dir);
    let cap = 4;
    let server = TestServer::start(behind_its_socket(&path, cap)).await;
    socket_made(&path).await;
    // As in the report: many direct connections, each claiming an address of its own. Each is
    // a malformed request on the TCP port, never a client of its own.
    for i in 0..70u8 {
        let header = proxy_header(Ipv4Addr::new(203, 0, 113, i));
        let answer = page_after(server.addr, &header).await;
        assert!(answer.starts_with("HTTP/1.1 400 "), "{i}: {answer}");
    }
    let mut open = Vec::new();
    for _ in 0..cap {
        let stream = TcpStream::connect(server.addr).await.unwrap();
        open.push(join(stream, b"").await.expect("under the cap"));
    }
    let stream = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(
        join(stream, b"").await.err(),
        Some(ErrorCode::TooManyConnections)
    );
}

/// A WebSocket through `proxy` from the loopback address `from`, said hello.
async fn through_haproxy(
    from: IpAddr,
    proxy: std::net::SocketAddr,
) -> Result<WebSocketStream<TcpStream>, ErrorCode> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    let stream = socket.connect(proxy).await.expect("connect to the proxy");
    join(stream, b"").await
}

#[tokio::test]
async fn haproxy_reaches_the_node_through_its_socket_and_tells_each_client() {
    let dir = Scratch::new("proxy-socket-haproxy");
    let path = socket_path(&dir);
    let _server = TestServer::start(behind_its_socket(&path, 2)).await;
    socket_made(&path).await;
    let Some(proxy) = TestHaproxy::start_on_sockets(&[&path]).await else {
        return;
    };
    let mut open = Vec::new();
    for from in ["127.0.0.2", "127.0.0.3"] {
        let from: IpAddr = from.parse().unwrap();
        for _ in 0..2 {
            open.push(
                through_haproxy(from, proxy.addr)
                    .await
                    .expect("under the cap"),
            );
        }
        assert_eq!(
            through_haproxy(from, proxy.addr).await.err(),
            Some(ErrorCode::TooManyConnections),
            "{from}"
        );
    }
}
