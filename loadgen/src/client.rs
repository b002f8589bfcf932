//! The generator's side of a connection, on the kit's protocol client: connect over a stream that
//! stamps what it reads, say `hello`, wait for a reply, and sort what a play loop reads.

use anyhow::{Context, bail};
use noughts_kit::client::{self as kit, HelloError};
use noughts_protocol::{ClientMessage, GameState, ServerFrame, ServerMessage, Variant};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use crate::stamp::Stamped;

pub use noughts_kit::client::{Peek, STEP, close, feed, send, server_ws_config};

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

/// Opens a WebSocket to `url` with the kit's settings (TCP_NODELAY, a client's buffers), over a
/// stream that stamps what it reads. `recv_buffer` shrinks the socket's receive buffer, for a
/// client that is meant to fall behind.
pub async fn connect(url: &str, recv_buffer: Option<u32>) -> anyhow::Result<Socket> {
    let (request, stream) = kit::dial(url, recv_buffer).await?;
    Ok(kit::handshake(request, Stamped::new(stream)).await?)
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
    Ok(kit::read_frame(ws).await?)
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
    hello(&mut ws, name, None).await?;
    Ok(ws)
}

/// Says hello as `name` (with `token`, to come back) on `ws`: the `welcome`; an error frame
/// instead fails it as `error CODE: MESSAGE`.
pub async fn hello(
    ws: &mut Socket,
    name: &str,
    token: Option<String>,
) -> anyhow::Result<kit::Welcome> {
    match kit::hello(ws, name, token).await {
        Ok(welcome) => Ok(welcome),
        Err(HelloError::Refused(ServerMessage::Error { code, message })) => {
            bail!("error {code}: {message}")
        }
        Err(err) => Err(err.into()),
    }
}

/// Waits for a `game_state` snapshot.
pub async fn game_state(ws: &mut Socket) -> anyhow::Result<GameState> {
    until(ws, |m| match m {
        ServerMessage::GameState(state) => Some(*state),
        _ => None,
    })
    .await
}
