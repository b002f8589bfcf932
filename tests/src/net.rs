//! Network faults: a TCP relay that can freeze (a half-open connection: nothing passes, nothing
//! closes), a connection reset without a close frame, and a client whose receive buffer is small
//! so that it falls behind as soon as it stops reading.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::SinkExt;
use noughts_kit::client as kit;
use noughts_protocol::{ClientFrame, ClientMessage, GameId, ServerMessage, Watch};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;

use crate::{Socket, read_frame, send_frame};

/// A TCP relay in front of a server. Until [`Relay::freeze`], it forwards both ways; after, it
/// forwards nothing and closes nothing, as a network that silently lost the route would: no FIN,
/// no RST, the sockets on both ends stay open.
#[derive(Debug)]
pub struct Relay {
    /// Where clients connect instead of the server.
    pub addr: SocketAddr,
    frozen: watch::Sender<bool>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    /// Starts a relay to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (frozen, _) = watch::channel(false);
        let tasks: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (list, freeze) = (tasks.clone(), frozen.clone());
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let freeze = freeze.subscribe();
                let pipe = tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(upstream).await {
                        pipe(client, server, freeze).await;
                    }
                });
                list.lock().expect("relay lock").push(pipe);
            }
        });
        tasks.lock().expect("relay lock").push(accept);
        Relay {
            addr,
            frozen,
            tasks,
        }
    }

    /// The `ws://` URL of the relay.
    pub fn url(&self) -> String {
        format!("ws://{}/", self.addr)
    }

    /// From now on nothing passes either way, and every socket stays open.
    pub fn freeze(&self) {
        self.frozen.send_replace(true);
    }
}

/// Forwards between `a` and `b` until either closes, or until frozen; frozen, it holds both
/// sockets open and silent for as long as the relay lives.
async fn pipe(mut a: TcpStream, mut b: TcpStream, mut frozen: watch::Receiver<bool>) {
    let freeze = async {
        let _ = frozen.wait_for(|f| *f).await;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut a, &mut b) => {}
        () = freeze => std::future::pending::<()>().await,
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for task in self.tasks.lock().expect("relay lock").drain(..) {
            task.abort();
        }
    }
}

/// Ends a connection as a killed process's would: the socket reset at once, without a close
/// frame (and without the FIN of an orderly close).
pub fn reset(socket: Socket) {
    if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
        stream.set_zero_linger().expect("SO_LINGER 0");
    }
    drop(socket);
}

/// Opens a WebSocket to `url` whose socket receives into a buffer of only `bytes`, for a client
/// meant to fall behind when it stops reading.
pub async fn connect_small(url: &str, bytes: u32) -> Socket {
    let (request, stream) = kit::dial(url, Some(bytes)).await.expect("connect");
    kit::handshake(request, MaybeTlsStream::Plain(stream))
        .await
        .expect("handshake")
}

/// A watcher of `game` on a socket with a small receive buffer (see [`connect_small`]): it has
/// said hello and read the game's snapshot.
pub async fn small_watcher(url: &str, game: GameId) -> Socket {
    let mut socket = connect_small(url, 4096).await;
    kit::hello(&mut socket, "stalled", None)
        .await
        .expect("welcome");
    send_frame(
        &mut socket,
        &ClientFrame::new(ClientMessage::Watch(Watch { game, code: None })),
    )
    .await;
    let snapshot = read_frame(&mut socket).await.expect("the snapshot");
    assert!(matches!(snapshot.message, ServerMessage::GameState(_)));
    socket
}

/// Makes a watcher of `game` stop reading: it asks for `snapshots` more snapshots of the game and
/// never reads again. Enough unread snapshots fill the socket buffers between it and the server,
/// so that its replies and the game's next updates pile up in the server's queue for it, and the
/// server must drop it.
pub async fn stall(socket: &mut Socket, game: GameId, snapshots: usize) {
    for _ in 0..snapshots {
        let frame = ClientFrame::new(ClientMessage::Watch(Watch { game, code: None }));
        socket
            .feed(Message::text(frame.to_json()))
            .await
            .expect("queue a request");
    }
    socket.flush().await.expect("send the requests");
}

/// [`small_watcher`], then [`stall`]: a watcher that never reads.
pub async fn stalled_watcher(url: &str, game: GameId, snapshots: usize) -> Socket {
    let mut socket = small_watcher(url, game).await;
    stall(&mut socket, game, snapshots).await;
    socket
}
