//! One protocol client, for the tests and the load generator alike: a WebSocket with the server's
//! write buffer, `hello` answered by `welcome`, requests sent as [`ClientFrame`]s, [`ServerFrame`]s
//! read within a deadline, and [`Peek`], a cheap look at the few fields a hot path needs, for a
//! loop that must not build every message it reads.

use std::io;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, MAX_MESSAGE_BYTES, Mark, PROTOCOL_VERSION, PlayerId,
    SOCKET_READ_BUFFER, SOCKET_WRITE_BUFFER, ServerFrame, ServerMessage,
};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// How long any one step may take: the connect, the handshake, a frame awaited.
pub const STEP: Duration = Duration::from_secs(20);

/// The most a client queues unsent before a send fails: a client that cannot send is stuck.
const MAX_UNSENT: usize = 512 * 1024;

/// A client's read buffer, in bytes: larger than the server's ([`SOCKET_READ_BUFFER`], sized for
/// clients' small requests), since a client reads the server's bursts of updates; the load
/// generator's cost per frame was measured with it.
const CLIENT_READ_BUFFER: usize = 4096;

/// A client's WebSocket settings: a read buffer of its own ([`CLIENT_READ_BUFFER`]) and the
/// server's write buffer ([`SOCKET_WRITE_BUFFER`]); what it reads is not limited to
/// [`MAX_MESSAGE_BYTES`], which bounds only what the server reads (a page of games is longer).
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(CLIENT_READ_BUFFER)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
        .max_write_buffer_size(MAX_UNSENT)
}

/// The settings of a server's connection (with the default `--max-message-bytes`), for a server
/// that stands in for it, as the load generator's echo baseline does.
pub fn server_ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(SOCKET_READ_BUFFER)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES))
}

/// Opens a TCP connection to `url`'s host, with TCP_NODELAY as the server sets it, within
/// [`STEP`]; `recv_buffer` shrinks the socket's receive buffer, for a client that is meant to
/// fall behind. The request to hand [`handshake`] with the stream.
pub async fn dial(url: &str, recv_buffer: Option<u32>) -> Result<(Request, TcpStream), WsError> {
    let request = url.into_client_request()?;
    let host = request
        .uri()
        .host()
        .ok_or(WsError::Url(
            tokio_tungstenite::tungstenite::error::UrlError::NoHostName,
        ))?
        .to_owned();
    let port = request.uri().port_u16().unwrap_or(80);
    let addr = tokio::net::lookup_host((host.as_str(), port))
        .await?
        .next()
        .ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, format!("{host} does not resolve"))
        })?;
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(size) = recv_buffer {
        socket.set_recv_buffer_size(size)?;
    }
    let stream = timeout(STEP, socket.connect(addr))
        .await
        .map_err(|_| timed_out("connect"))??;
    stream.set_nodelay(true)?;
    Ok((request, stream))
}

/// The WebSocket handshake over `stream` with [`ws_config`], within [`STEP`].
pub async fn handshake<S>(request: Request, stream: S) -> Result<WebSocketStream<S>, WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let shaking = tokio_tungstenite::client_async_with_config(request, stream, Some(ws_config()));
    let (ws, _) = timeout(STEP, shaking)
        .await
        .map_err(|_| timed_out("handshake"))??;
    Ok(ws)
}

/// [`dial`] and [`handshake`]: a WebSocket to `url` that has not said hello.
pub async fn connect(url: &str) -> Result<WebSocketStream<TcpStream>, WsError> {
    let (request, stream) = dial(url, None).await?;
    handshake(request, stream).await
}

fn timed_out(step: &str) -> WsError {
    WsError::Io(io::Error::new(
        io::ErrorKind::TimedOut,
        format!("{step} timed out"),
    ))
}

/// Sends one frame.
pub async fn send_frame<S>(ws: &mut WebSocketStream<S>, frame: &ClientFrame) -> Result<(), WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    ws.send(Message::text(frame.to_json())).await
}

/// Sends one request without an id.
pub async fn send<S>(ws: &mut WebSocketStream<S>, message: ClientMessage) -> Result<(), WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    send_frame(ws, &ClientFrame::new(message)).await
}

/// Queues one request without an id, unflushed: the next send or flush writes it.
pub async fn feed<S>(ws: &mut WebSocketStream<S>, message: ClientMessage) -> Result<(), WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    ws.feed(Message::text(ClientFrame::new(message).to_json()))
        .await
}

/// Why no frame was read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The server closed the connection, with this close code if it gave one.
    #[error("closed ({0:?})")]
    Closed(Option<u16>),
    /// The connection failed.
    #[error(transparent)]
    Failed(#[from] WsError),
    /// Nothing came within [`STEP`].
    #[error("no frame in time")]
    TimedOut,
    /// A text frame that is no server frame.
    #[error("unparsable frame ({error}): {text}")]
    Unparsable {
        text: String,
        error: serde_json::Error,
    },
    /// A binary frame, which the server never sends.
    #[error("a binary frame")]
    Binary,
}

/// Reads the next server frame within [`STEP`], skipping pings and pongs (which do not extend
/// the wait: they must not keep a silent server looking alive).
pub async fn read_frame<S>(ws: &mut WebSocketStream<S>) -> Result<ServerFrame, ReadError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let message = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| ReadError::TimedOut)?;
        match message {
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str(text.as_str()).map_err(|error| {
                    ReadError::Unparsable {
                        text: text.as_str().to_owned(),
                        error,
                    }
                });
            }
            Some(Ok(Message::Close(frame))) => {
                return Err(ReadError::Closed(frame.map(|f| u16::from(f.code))));
            }
            Some(Ok(Message::Binary(_))) => return Err(ReadError::Binary),
            Some(Ok(_)) => {}
            Some(Err(err)) => return Err(ReadError::Failed(err)),
            None => return Err(ReadError::Closed(None)),
        }
    }
}

/// What `welcome` told a client.
#[derive(Debug, Clone)]
pub struct Welcome {
    pub player: PlayerId,
    /// The session's token, to resume with.
    pub token: String,
    /// Whether the token given resumed an earlier session.
    pub resumed: bool,
}

/// Why `hello` was not welcomed.
#[derive(Debug, thiserror::Error)]
pub enum HelloError {
    /// The server answered with this message (an error) instead.
    #[error("turned away: {0:?}")]
    Refused(ServerMessage),
    /// No answer came.
    #[error("no welcome: {0}")]
    Read(#[from] ReadError),
}

/// Says `hello` as `name` (with an earlier session's `token`, to resume it) and reads the answer,
/// which must be `welcome`.
pub async fn hello<S>(
    ws: &mut WebSocketStream<S>,
    name: &str,
    token: Option<String>,
) -> Result<Welcome, HelloError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: name.to_owned(),
        token,
        credentials: None,
    };
    // A connection being turned away may already be closing: its answer is read below.
    let _ = send(ws, hello).await;
    match read_frame(ws).await?.message {
        ServerMessage::Welcome {
            player,
            token,
            resumed,
            ..
        } => Ok(Welcome {
            player,
            token,
            resumed,
        }),
        other => Err(HelloError::Refused(other)),
    }
}

/// Sends a close frame and waits briefly for the answer; errors do not matter here.
pub async fn close<S>(mut ws: WebSocketStream<S>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let _ = timeout(Duration::from_secs(1), ws.close(None)).await;
}

/// The fields of a server frame the hot paths look at, read without building the whole message.
#[derive(Debug, Deserialize)]
pub struct Peek<'a> {
    /// The message's `type`.
    #[serde(rename = "type", borrow)]
    pub kind: &'a str,
    #[serde(default)]
    pub game: Option<u64>,
    #[serde(default)]
    pub seq: Option<u64>,
    #[serde(default)]
    pub mark: Option<Mark>,
    #[serde(default)]
    pub cell: Option<usize>,
    #[serde(default, borrow)]
    pub board: Option<&'a str>,
    #[serde(default)]
    pub to_move: Option<Mark>,
    /// An error's code.
    #[serde(default, borrow)]
    pub code: Option<&'a str>,
}

impl<'a> Peek<'a> {
    /// Looks at a text frame; frames of the lobby (whose `game` is an object) are not peeked.
    pub fn of(text: &'a str) -> Result<Peek<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }
}
