//! Shared helpers for the end-to-end tests: a real server on `127.0.0.1:0` and real WebSocket
//! clients that speak the protocol (the kit's client, with what a test asserts around it).
//!
//! `net` adds network faults (a relay that freezes, a reset, a client that falls behind),
//! `process` runs the real `noughts-server` binary and `postgres` a PostgreSQL server to keep
//! its records in.
//!
//! Every wait is bounded (see [`WAIT`]) so a broken server fails a test instead of hanging it.

pub mod tls;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::SinkExt;
use noughts_kit::client::{self as kit, HelloError, ReadError};
use noughts_protocol::{
    ClientFrame, ClientMessage, CreateRoom, ErrorCode, GameId, GameRecord, GameState, GameSummary,
    History, Level, Mark, PlayAi, PlayerId, RequestId, Seek, ServerFrame, ServerMessage,
    SideChoice, Variant,
};
use noughts_server::{Config, StoreConfig};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

// Starting Redis, PostgreSQL and HAProxy, and the scratch directory, live in the shared kit.
pub use noughts_kit::{Scratch, haproxy, postgres, redis};

pub mod accounts;
pub mod binary;
pub mod browser;
pub mod cluster;
pub mod hello;
pub mod lobby;
pub mod net;
pub mod process;
pub mod raw;
pub mod stores;
pub mod tmux;

/// How long a test waits for any one thing before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The socket type of a test client.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A configuration for tests: no war games (and quick ones when a test turns them on), no
/// artificial AI delay, short grace, and a rate limit that a test playing many games at machine
/// speed stays under.
pub fn test_config() -> Config {
    Config {
        war_games: false,
        arena_schedule: false,
        ai_think_delay: Duration::ZERO,
        grace: Duration::from_secs(5),
        war_move_delay: Duration::from_millis(5),
        messages_per_second: 500,
        message_burst: 1000,
        // Every test client comes from 127.0.0.1; the per-address caps and quotas have tests of
        // their own.
        max_connections_per_ip: 100_000,
        max_rooms_per_ip: 100_000,
        max_seeks_per_ip: 100_000,
        accounts: noughts_server::AccountConfig {
            registrations_per_hour: 100_000,
            accounts_per_day: 100_000,
            address_reports_per_hour: 100_000,
            ..noughts_server::AccountConfig::default()
        },
        ..Config::default()
    }
}

/// [`test_config`] keeping its players, games and ratings in the SQLite file `db`.
pub fn file_config(db: std::path::PathBuf) -> Config {
    Config {
        store: StoreConfig::File(db),
        ..test_config()
    }
}

/// A real server running in this test's runtime.
#[derive(Debug)]
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Dropping or firing this asks the server to shut down.
    shutdown: Option<oneshot::Sender<()>>,
    /// The server's task, to see that it really finishes.
    task: Option<JoinHandle<anyhow::Result<()>>>,
    /// For a server with TLS ([`TestServer::start_tls`]): what its clients trust.
    client_tls: Option<Arc<rustls::ClientConfig>>,
}

impl TestServer {
    /// Starts a server with `config` on a free loopback port.
    pub async fn start(config: Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(noughts_server::run(listener, config, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            shutdown: Some(tx),
            task: Some(task),
            client_tls: None,
        }
    }

    /// The URL clients connect to: `ws://`, or `wss://localhost` for a server with TLS.
    pub fn url(&self) -> String {
        match self.client_tls {
            Some(_) => format!("wss://localhost:{}/", self.addr.port()),
            None => format!("ws://{}/", self.addr),
        }
    }

    /// Connects (trusting the server's certificate, if it has one) and says hello as `name`.
    pub async fn join(&self, name: &str) -> Client {
        Client::hello(&self.url(), self.client_tls.clone(), name, None).await
    }

    /// Pairs two fresh players (over TLS if the server has it) by quick match: (X, O) and the
    /// game snapshot.
    pub async fn quick_match(&self, variant: Variant) -> (Client, Client, GameState) {
        pair(self.join("ada").await, self.join("bob").await, variant).await
    }

    /// Asks the server to shut down, without waiting for it.
    pub fn request_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Asks the server to shut down and waits (bounded) for `run` to return.
    pub async fn shut_down(&mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let task = self.task.take().expect("server already shut down");
        tokio::time::timeout(WAIT, task)
            .await
            .expect("the server finishes shutting down in time")
            .expect("the server task did not panic")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// A test client: one WebSocket connection that has said hello.
#[derive(Debug)]
pub struct Client {
    pub socket: Socket,
    /// The name it said hello with.
    pub name: String,
    /// Its player id from `welcome`.
    pub player: PlayerId,
    /// Its session token from `welcome`, to resume with.
    pub token: String,
    /// Frames read while looking for something else, handed out first by [`Client::next`].
    backlog: VecDeque<ServerFrame>,
}

/// Opens a WebSocket to `url` without saying hello.
pub async fn connect(url: &str) -> Socket {
    connect_with(url, None).await.expect("connect")
}

/// Opens a WebSocket to `url` (`wss://` trusting what `tls` trusts) with the kit's client
/// settings, without saying hello; the error if the server cannot be reached or the handshake
/// fails.
pub async fn connect_with(
    url: &str,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    let connector = tls.map(Connector::Rustls);
    let config = Some(kit::ws_config());
    let connecting = tokio_tungstenite::connect_async_tls_with_config(url, config, true, connector);
    let (socket, _) = tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connect in time")?;
    Ok(socket)
}

/// Sends a request frame on a raw socket.
pub async fn send_frame(socket: &mut Socket, frame: &ClientFrame) {
    kit::send_frame(socket, frame).await.expect("send a frame");
}

/// Reads the next server frame from a raw socket, or `Err(close code)` when it closes.
pub async fn read_frame(socket: &mut Socket) -> Result<ServerFrame, Option<u16>> {
    match kit::read_frame(socket).await {
        Ok(frame) => Ok(frame),
        Err(ReadError::Closed(code)) => Err(code),
        Err(ReadError::Failed(_)) => Err(None),
        Err(ReadError::TimedOut) => panic!("the server sent no frame in time"),
        Err(err) => panic!("the server sent {err}"),
    }
}

impl Client {
    /// A client welcomed on `socket` as `player` with `token`.
    pub fn welcomed(socket: Socket, name: &str, player: PlayerId, token: String) -> Client {
        Client {
            socket,
            name: name.to_owned(),
            player,
            token,
            backlog: VecDeque::new(),
        }
    }

    /// Connects to `url` and says hello as `name`.
    pub async fn join(url: &str, name: &str) -> Client {
        Client::hello(url, None, name, None).await
    }

    /// Connects to `url` and says hello with an earlier session's token.
    pub async fn resume(url: &str, name: &str, token: &str) -> Client {
        Client::hello(url, None, name, Some(token.to_owned())).await
    }

    async fn hello(
        url: &str,
        tls: Option<Arc<rustls::ClientConfig>>,
        name: &str,
        token: Option<String>,
    ) -> Client {
        match Client::try_hello(url, tls, name, token).await {
            Ok(client) => client,
            Err((message, _)) => panic!("expected welcome, got {message:?}"),
        }
    }

    /// Connects to `url` and says hello as `name`; if turned away, the first message instead of
    /// `welcome` (an error) and the close code that followed it.
    pub async fn try_join(url: &str, name: &str) -> Result<Client, (ServerMessage, Option<u16>)> {
        Client::try_hello(url, None, name, None).await
    }

    async fn try_hello(
        url: &str,
        tls: Option<Arc<rustls::ClientConfig>>,
        name: &str,
        token: Option<String>,
    ) -> Result<Client, (ServerMessage, Option<u16>)> {
        let mut socket = connect_with(url, tls).await.expect("connect");
        let refused = match kit::hello(&mut socket, name, token).await {
            Ok(welcome) => {
                return Ok(Client::welcomed(
                    socket,
                    name,
                    welcome.player,
                    welcome.token,
                ));
            }
            Err(HelloError::Refused(message)) => message,
            Err(HelloError::Read(err)) => panic!("expected welcome, got {err}"),
        };
        let closed = loop {
            if let Err(code) = read_frame(&mut socket).await {
                break code;
            }
        };
        Err((refused, closed))
    }

    /// Opens a room (unrated, untimed) with request `id`: its invite code.
    pub async fn create_room(&mut self, id: u64, variant: Variant, private: bool) -> String {
        let room = ClientMessage::CreateRoom(CreateRoom {
            variant,
            clock: None,
            private,
            rated: false,
        });
        match self.request(id, room).await {
            ServerMessage::RoomCreated {
                code, private: p, ..
            } if p == private => code,
            reply => panic!(
                "{}: room_created (private: {private}), got {reply:?}",
                self.name
            ),
        }
    }

    /// Sends a request with no id.
    pub async fn send(&mut self, message: ClientMessage) {
        send_frame(&mut self.socket, &ClientFrame::new(message)).await;
    }

    /// Sends a request with a numeric id and returns the reply that echoes it. Frames that
    /// arrive first are kept for [`Client::next`].
    pub async fn request(&mut self, id: u64, message: ClientMessage) -> ServerMessage {
        let frame = ClientFrame {
            id: Some(RequestId::Number(id)),
            message,
        };
        send_frame(&mut self.socket, &frame).await;
        let mut skipped = Vec::new();
        let reply = loop {
            let frame = self.read().await;
            if frame.id == Some(RequestId::Number(id)) {
                break frame.message;
            }
            skipped.push(frame);
        };
        self.backlog.extend(skipped);
        reply
    }

    /// Sends raw text, for malformed input.
    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::text(text))
            .await
            .expect("send text");
    }

    async fn read(&mut self) -> ServerFrame {
        match read_frame(&mut self.socket).await {
            Ok(frame) => frame,
            Err(code) => panic!("{}: connection closed ({code:?})", self.name),
        }
    }

    /// The next frame, backlog first.
    pub async fn next(&mut self) -> ServerFrame {
        match self.backlog.pop_front() {
            Some(frame) => frame,
            None => self.read().await,
        }
    }

    /// Skips frames until one matches, and returns it. Skipped frames are dropped.
    pub async fn until(&mut self, what: impl Fn(&ServerMessage) -> bool) -> ServerMessage {
        let name = self.name.clone();
        tokio::time::timeout(WAIT, async {
            loop {
                let frame = self.next().await;
                if what(&frame.message) {
                    return frame.message;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{name}: the awaited frame did not come in time"))
    }

    /// Waits until a frame matching `what` has arrived, without consuming anything: every frame
    /// read stays queued for [`Client::next`].
    pub async fn saw(&mut self, what: impl Fn(&ServerMessage) -> bool) {
        if self.backlog.iter().any(|f| what(&f.message)) {
            return;
        }
        let name = self.name.clone();
        tokio::time::timeout(WAIT, async {
            loop {
                let frame = self.read().await;
                let found = what(&frame.message);
                self.backlog.push_back(frame);
                if found {
                    return;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{name}: the awaited frame did not come in time"));
    }

    /// Waits for the next `game_state` snapshot.
    pub async fn game_state(&mut self) -> GameState {
        match self
            .until(|m| matches!(m, ServerMessage::GameState(_)))
            .await
        {
            ServerMessage::GameState(state) => *state,
            _ => unreachable!(),
        }
    }

    /// Waits for the next message about `game` that carries a seq (moves, game over, presence…).
    pub async fn game_event(&mut self, game: GameId) -> ServerMessage {
        let message = self
            .until(|m| {
                matches!(m, ServerMessage::Error { .. })
                    || seq_of(m).is_some_and(|(g, _)| g == game)
            })
            .await;
        if let ServerMessage::Error { .. } = message {
            panic!("{}: unexpected {message:?}", self.name);
        }
        message
    }

    /// Sends `message` with `id` and asserts that the reply is an error with `code`.
    pub async fn expect_error(&mut self, id: u64, message: ClientMessage, code: ErrorCode) {
        match self.request(id, message.clone()).await {
            ServerMessage::Error { code: got, .. } if got == code => {}
            other => panic!("{message:?}: expected error {code:?}, got {other:?}"),
        }
    }

    /// Starts an untimed game against the AI (asked with `id`) and returns its first snapshot.
    pub async fn play_ai(
        &mut self,
        id: u64,
        variant: Variant,
        level: Level,
        side: SideChoice,
    ) -> GameState {
        let request = ClientMessage::PlayAi(PlayAi {
            variant,
            level,
            side,
            clock: None,
        });
        match self.request(id, request).await {
            ServerMessage::GameState(state) => *state,
            other => panic!(
                "{}: play_ai answers with the game, not {other:?}",
                self.name
            ),
        }
    }

    /// The stored record of `game` (asked with `id`).
    pub async fn record(&mut self, id: u64, game: GameId) -> GameRecord {
        match self.request(id, ClientMessage::GameRecord { game }).await {
            ServerMessage::GameRecord(record) => *record,
            other => panic!(
                "{}: expected the record of {game:?}, got {other:?}",
                self.name
            ),
        }
    }

    /// The first page of this player's finished games, newest first (asked with `id`).
    pub async fn history(&mut self, id: u64) -> Vec<GameSummary> {
        let request = ClientMessage::History(History {
            player: None,
            before: None,
            limit: None,
        });
        match self.request(id, request).await {
            ServerMessage::History { games, .. } => games,
            other => panic!("{}: expected history, got {other:?}", self.name),
        }
    }

    /// Waits until this player's chat in `game` is refused as muted.
    pub async fn until_chat_muted(&mut self, game: GameId) {
        let deadline = tokio::time::Instant::now() + WAIT;
        let mut id = 100;
        loop {
            id += 1;
            let chat = ClientMessage::Chat {
                game,
                text: "still here?".to_owned(),
            };
            match self.request(id, chat).await {
                ServerMessage::Error {
                    code: ErrorCode::Muted,
                    ..
                } => break,
                // Lines sent before the mute holds count against the chat limit.
                ServerMessage::Chat { .. }
                | ServerMessage::Error {
                    code: ErrorCode::RateLimited,
                    ..
                } => {}
                other => panic!("expected chat or muted, got {other:?}"),
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the chat mute never held"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Says `text` in `game` and waits for the line to come back.
    pub async fn say(&mut self, game: GameId, text: &str) {
        self.send(ClientMessage::Chat {
            game,
            text: text.to_owned(),
        })
        .await;
        let text = text.to_owned();
        self.saw(move |m| matches!(m, ServerMessage::Chat { line, .. } if line.text == text))
            .await;
    }

    /// Reads frames up to the chat line `text`; the chat lines seen on the way.
    pub async fn chat_until(&mut self, text: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            if let ServerMessage::Chat { line, .. } = self.next().await.message {
                if line.text == text {
                    return seen;
                }
                seen.push(line.text);
            }
        }
    }

    /// Waits until the server closes the connection and returns the close code, skipping any
    /// frames before it.
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            if let Err(code) = read_frame(&mut self.socket).await {
                return code;
            }
        }
    }
}

/// Pairs two fresh players by quick match and returns them as (X, O) with the game snapshot.
pub async fn quick_match(url: &str, variant: Variant) -> (Client, Client, GameState) {
    let a = Client::join(url, "ada").await;
    let b = Client::join(url, "bob").await;
    pair(a, b, variant).await
}

/// Pairs two players who have joined by quick match: (X, O) and the game snapshot.
pub async fn pair(mut a: Client, mut b: Client, variant: Variant) -> (Client, Client, GameState) {
    let seek = ClientMessage::Seek(Seek {
        variant,
        clock: None,
        rated: false,
        bots: false,
    });
    assert!(matches!(
        a.request(1, seek.clone()).await,
        ServerMessage::Seeking { .. }
    ));
    b.send(seek).await;
    let state_a = a.game_state().await;
    let state_b = b.game_state().await;
    assert_eq!(state_a.game, state_b.game);
    assert_eq!(state_a.variant, variant);
    assert_eq!(
        state_a.board,
        noughts_engine::Board::new(variant).to_compact()
    );
    assert_eq!(state_a.to_move, Some(Mark::X));
    let (you_a, you_b) = (state_a.you.unwrap(), state_b.you.unwrap());
    assert_ne!(you_a, you_b);
    if you_a == Mark::X {
        (a, b, state_a)
    } else {
        (b, a, state_b)
    }
}

/// Plays `cells` in turn, `first` moving first, each mover waiting until the server has
/// broadcast its move so the other side is on turn when it answers.
pub async fn alternate(first: &mut Client, second: &mut Client, game: GameId, cells: &[usize]) {
    for (i, &cell) in cells.iter().enumerate() {
        let mover = if i % 2 == 0 {
            &mut *first
        } else {
            &mut *second
        };
        mover.send(ClientMessage::Move { game, cell }).await;
        mover
            .saw(|m| matches!(m, ServerMessage::Moved { cell: c, game: g, .. } if *c == cell && *g == game))
            .await;
    }
}

/// The game and seq of a message that belongs to a game's update stream.
pub fn seq_of(message: &ServerMessage) -> Option<(GameId, u64)> {
    match message {
        ServerMessage::Moved { game, seq, .. }
        | ServerMessage::GameOver { game, seq, .. }
        | ServerMessage::Presence { game, seq, .. }
        | ServerMessage::Watchers { game, seq, .. }
        | ServerMessage::Chat { game, seq, .. }
        | ServerMessage::RematchOffered { game, seq, .. } => Some((*game, *seq)),
        ServerMessage::GameState(state) => Some((state.game, state.seq)),
        _ => None,
    }
}

/// Reads frames until `game` ends and returns every message of its update stream, in order.
/// Asserts that seq strictly grows.
pub async fn follow_to_end(client: &mut Client, game: GameId) -> Vec<ServerMessage> {
    let mut events = Vec::new();
    let mut last_seq = 0;
    loop {
        let message = client.game_event(game).await;
        let (_, seq) = seq_of(&message).expect("a game event");
        assert!(
            seq > last_seq || events.is_empty(),
            "{}: seq went from {last_seq} to {seq}",
            client.name
        );
        last_seq = seq;
        let over = matches!(message, ServerMessage::GameOver { .. });
        events.push(message);
        if over {
            return events;
        }
    }
}

/// The cells of the `moved` events, in order.
pub fn moves_of(events: &[ServerMessage]) -> Vec<usize> {
    events
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Moved { cell, .. } => Some(*cell),
            _ => None,
        })
        .collect()
}

/// Every input in a fuzz target's committed corpus (`fuzz/corpus/<target>`), for the tests that
/// replay it on the stable toolchain. Panics if the corpus is missing or empty.
pub fn fuzz_corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a corpus entry").path();
            std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        })
        .collect();
    assert!(!inputs.is_empty(), "{} is empty", dir.display());
    inputs
}
