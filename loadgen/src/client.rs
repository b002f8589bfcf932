//! The generator's side of a connection: connect with the server's socket settings, say `hello`,
//! send requests, and take a cheap look at what comes back.

use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, GameState, Mark, PROTOCOL_VERSION, ServerFrame, ServerMessage,
    Variant,
};
use serde::Deserialize;
use tokio::net::TcpSocket;
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::stamp::Stamped;

/// A generator connection.
pub type Socket = WebSocketStream<Stamped>;

/// What a play loop makes of one read from a socket.
#[derive(Debug)]
pub enum Read {
    /// A text frame to look at.
    Text(tokio_tungstenite::tungstenite::Utf8Bytes),
    /// A ping, a pong or the like: read on.
    Skip,
    /// The connection ended; why is counted in `errors`.
    End,
}

impl Read {
    /// Sorts what `ws.next()` gave, counting a close (`closed`) or a failed read (`read`).
    pub fn of(
        message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        errors: &crate::report::Errors,
    ) -> Read {
        match message {
            Some(Ok(Message::Text(text))) => Read::Text(text),
            Some(Ok(Message::Close(_))) | None => {
                errors.add("closed");
                Read::End
            }
            Some(Ok(_)) => Read::Skip,
            Some(Err(_)) => {
                errors.add("read");
                Read::End
            }
        }
    }
}

/// How long any one step of setting up a client (connect, hello, a reply) may take.
pub const STEP: Duration = Duration::from_secs(20);

/// The WebSocket settings of the server (`server/src/handler/connection.rs`), used by the generator's
/// clients and by the echo server alike: a 4 KiB read buffer, a 16 KiB write buffer, 4096-byte
/// messages.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(16 * 1024)
        .max_write_buffer_size(512 * 1024)
        .max_message_size(Some(noughts_protocol::MAX_MESSAGE_BYTES))
        .max_frame_size(Some(noughts_protocol::MAX_MESSAGE_BYTES))
}

/// Opens a WebSocket to `url` with TCP_NODELAY. `recv_buffer` shrinks the socket's receive
/// buffer, for a client that is meant to fall behind.
pub async fn connect(url: &str, recv_buffer: Option<u32>) -> anyhow::Result<Socket> {
    let request = url.into_client_request().context("bad url")?;
    let host = request.uri().host().context("url without host")?.to_owned();
    let port = request.uri().port_u16().unwrap_or(80);
    let addr = tokio::net::lookup_host((host.as_str(), port))
        .await?
        .next()
        .with_context(|| format!("{host} does not resolve"))?;
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
        .context("connect timed out")??;
    stream.set_nodelay(true)?;
    let (ws, _) = timeout(
        STEP,
        tokio_tungstenite::client_async_with_config(
            request,
            Stamped::new(stream),
            Some(ws_config()),
        ),
    )
    .await
    .context("handshake timed out")??;
    Ok(ws)
}

/// Sends one request.
pub async fn send(ws: &mut Socket, message: ClientMessage) -> anyhow::Result<()> {
    ws.send(Message::text(ClientFrame::new(message).to_json()))
        .await?;
    Ok(())
}

/// Queues one request without flushing it.
pub async fn feed(ws: &mut Socket, message: ClientMessage) -> anyhow::Result<()> {
    ws.feed(Message::text(ClientFrame::new(message).to_json()))
        .await?;
    Ok(())
}

/// A request that starts a game (`create_room`, `play_ai`), built from its JSON so that the
/// optional fields it leaves out take the protocol's defaults.
pub fn request(json: serde_json::Value) -> anyhow::Result<ClientMessage> {
    serde_json::from_value(json).context("not a request")
}

/// Opens a room for `variant` and returns its invite code.
pub async fn create_room(
    ws: &mut Socket,
    variant: Variant,
    private: bool,
) -> anyhow::Result<String> {
    let message = request(serde_json::json!({
        "type": "create_room",
        "variant": variant,
        "private": private,
    }))?;
    send(ws, message).await?;
    until(ws, |m| match m {
        ServerMessage::RoomCreated { code, .. } => Some(code),
        _ => None,
    })
    .await
}

/// Reads the next server frame (skipping pings and pongs), within [`STEP`].
pub async fn read(ws: &mut Socket) -> anyhow::Result<ServerFrame> {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let message = tokio::time::timeout_at(deadline, ws.next())
            .await
            .context("no frame in time")?;
        match message {
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str(text.as_str())
                    .with_context(|| format!("unparsable frame {text}"));
            }
            Some(Ok(Message::Close(frame))) => {
                bail!("closed ({:?})", frame.map(|f| u16::from(f.code)))
            }
            Some(Ok(_)) => {}
            Some(Err(err)) => return Err(err.into()),
            None => bail!("closed"),
        }
    }
}

/// Reads frames until one matches `what`, within [`STEP`]; an `error` frame fails it.
pub async fn until<T>(
    ws: &mut Socket,
    mut what: impl FnMut(ServerMessage) -> Option<T>,
) -> anyhow::Result<T> {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let frame = tokio::time::timeout_at(deadline, read(ws))
            .await
            .context("the awaited frame did not come")??;
        if let ServerMessage::Error { code, message } = &frame.message {
            bail!("error {code}: {message}");
        }
        if let Some(found) = what(frame.message) {
            return Ok(found);
        }
    }
}

/// Connects and says hello as `name`.
pub async fn join(url: &str, name: &str) -> anyhow::Result<Socket> {
    join_with(url, name, None).await
}

/// Connects (with `recv_buffer`, see [`connect`]) and says hello as `name`.
pub async fn join_with(url: &str, name: &str, recv_buffer: Option<u32>) -> anyhow::Result<Socket> {
    let mut ws = connect(url, recv_buffer).await?;
    send(
        &mut ws,
        ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: name.to_owned(),
            token: None,
            credentials: None,
        },
    )
    .await?;
    until(&mut ws, |m| {
        matches!(m, ServerMessage::Welcome { .. }).then_some(())
    })
    .await?;
    Ok(ws)
}

/// Waits for a `game_state` snapshot.
pub async fn game_state(ws: &mut Socket) -> anyhow::Result<GameState> {
    until(ws, |m| match m {
        ServerMessage::GameState(state) => Some(*state),
        _ => None,
    })
    .await
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
    pub fn of(text: &'a str) -> anyhow::Result<Peek<'a>> {
        serde_json::from_str(text).map_err(|err| anyhow!("unparsable frame ({err}): {text}"))
    }
}

/// Sends a close frame and waits briefly for the answer; errors do not matter here.
pub async fn close(mut ws: Socket) {
    let _ = timeout(Duration::from_secs(1), ws.close(None)).await;
}
