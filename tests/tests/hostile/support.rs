//! What the hostile tests share: a server configured as for the internet, a panic counter, the
//! cases (a payload and the answer it must get) and how one is run, and the reference game that
//! goes on beside each test and must finish with every update in order.

use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::SinkExt;
use noughts_engine::{Mark, Variant};
use noughts_protocol::{
    ClientMessage, ErrorCode, GameId, RequestId, ServerFrame, ServerMessage, Watch,
};
use noughts_server::Config;
use noughts_tests::{Client, Socket, TestServer, follow_to_end, moves_of, read_frame, test_config};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;

use noughts_tests::quick_match;

/// Requests a connection may send at once in this suite; the sustained rate is low so that a
/// flood is refused deterministically.
pub const BURST: u32 = 40;

pub fn hostile_config() -> Config {
    Config {
        messages_per_second: 2,
        message_burst: BURST,
        ..test_config()
    }
}

/// Panics on this suite's thread: the test's own runtime runs every server task it starts (on the
/// test's thread, or on `main` when tests run one at a time).
pub static PANICS: AtomicUsize = AtomicUsize::new(0);

pub fn count_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current()
                .name()
                .is_some_and(|name| name.contains("hostile") || name == "main")
            {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            previous(info);
        }));
    });
}

/// What a hostile frame must get.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// An error with this code; the connection stays usable.
    Error(ErrorCode),
    /// An ordinary reply of this `type`: the input is odd but acceptable.
    Reply(&'static str),
    /// The connection closes with this code.
    Close(u16),
}

/// How a hostile input goes over the wire.
#[derive(Debug, Clone)]
pub enum Payload {
    Text(String),
    Frame(Frame),
    /// One message in several frames.
    Frames(Vec<Frame>),
    /// Bytes written straight to the TCP stream after the handshake.
    Raw(Vec<u8>),
}

#[derive(Debug, Clone)]
pub struct Case {
    pub what: String,
    pub payload: Payload,
    pub expect: Expect,
    /// Whether the answer must echo id 7.
    pub echo: bool,
}

pub fn text(what: &str, text: impl Into<String>, expect: Expect, echo: bool) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Text(text.into()),
        expect,
        echo,
    }
}

pub fn frame(what: &str, frame: Frame, expect: Expect) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Frame(frame),
        expect,
        echo: false,
    }
}

pub fn frames(what: &str, frames: Vec<Frame>, expect: Expect, echo: bool) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Frames(frames),
        expect,
        echo,
    }
}

pub fn raw(what: &str, bytes: Vec<u8>, expect: Expect) -> Case {
    Case {
        what: what.to_owned(),
        payload: Payload::Raw(bytes),
        expect,
        echo: false,
    }
}

pub fn wire_type(message: &ServerMessage) -> String {
    let value = serde_json::to_value(ServerFrame::event(message.clone())).expect("serialise");
    value["type"].as_str().unwrap_or_default().to_owned()
}

/// Runs one case on a fresh connection that has said hello.
pub async fn run(server: &TestServer, case: &Case) {
    let mut client = server.join("prober").await;
    match &case.payload {
        Payload::Text(text) => client.send_text(text).await,
        Payload::Frame(frame) => client
            .socket
            .send(Message::Frame(frame.clone()))
            .await
            .expect("send a frame"),
        Payload::Frames(frames) => {
            for frame in frames {
                client
                    .socket
                    .send(Message::Frame(frame.clone()))
                    .await
                    .expect("send a frame");
            }
        }
        Payload::Raw(bytes) => match client.socket.get_mut() {
            MaybeTlsStream::Plain(tcp) => tcp.write_all(bytes).await.expect("write raw bytes"),
            _ => unreachable!("tests use plain TCP"),
        },
    }
    let what = &case.what;
    let got = match case.expect {
        Expect::Close(code) => {
            assert_eq!(client.closed().await, Some(code), "{what}");
            return;
        }
        Expect::Error(code) => {
            let frame = client.next().await;
            match &frame.message {
                ServerMessage::Error { code: got, message } => {
                    assert_eq!(*got, code, "{what}: {message}");
                    assert!(!message.is_empty(), "{what}: an error needs a message");
                }
                other => panic!("{what}: expected error {code:?}, got {other:?}"),
            }
            frame
        }
        Expect::Reply(kind) => {
            let frame = client.next().await;
            assert_eq!(wire_type(&frame.message), kind, "{what}: {frame:?}");
            frame
        }
    };
    let echo = case.echo.then_some(RequestId::Number(7));
    assert_eq!(got.id, echo, "{what}: the id echoed");
    // An error loses nothing: the connection goes on.
    let reply = client.request(1_000_000, ClientMessage::Ping).await;
    assert_eq!(
        reply,
        ServerMessage::Pong,
        "{what}: still answered afterwards"
    );
}

/// Malformed, truncated, mistyped and unknown requests, and numbers of every wrong kind.
pub struct Reference {
    pub x: Client,
    pub o: Client,
    pub watcher: Client,
    pub game: GameId,
    pub played: usize,
}

/// X takes the centre, O a corner, X the opposite corner, O an edge, X forks, O blocks one line,
/// X completes 2-5-8.
pub const REFERENCE_MOVES: [usize; 7] = [4, 0, 8, 1, 2, 6, 5];

impl Reference {
    pub async fn advance(&mut self) {
        let cell = REFERENCE_MOVES[self.played];
        let game = self.game;
        let mover = if self.played.is_multiple_of(2) {
            &mut self.x
        } else {
            &mut self.o
        };
        mover.send(ClientMessage::Move { game, cell }).await;
        mover
            .saw(|m| matches!(m, ServerMessage::Moved { game: g, cell: c, .. } if *g == game && *c == cell))
            .await;
        self.played += 1;
    }
}

/// Sends every frame at once and reads what comes back until the server closes; returns the
/// error codes seen and the close code.
pub async fn flood(
    socket: &mut Socket,
    frames: impl Iterator<Item = String>,
) -> (Vec<ErrorCode>, Option<u16>) {
    for text in frames {
        // The server may close while the flood is still being written.
        if socket.feed(Message::text(text)).await.is_err() {
            break;
        }
    }
    let _ = socket.flush().await;
    let mut errors = Vec::new();
    loop {
        match read_frame(socket).await {
            Ok(ServerFrame {
                message: ServerMessage::Error { code, .. },
                ..
            }) => errors.push(code),
            Ok(_) => {}
            Err(code) => return (errors, code),
        }
    }
}

/// A server for one hostile test, with the reference game started beside it.
pub struct Beside {
    pub server: TestServer,
    pub reference: Reference,
}

impl Beside {
    /// Starts the server and the reference game, and plays its first move.
    pub async fn start() -> Beside {
        count_panics();
        let server = TestServer::start(hostile_config()).await;
        let (x, o, state) = quick_match(&server.url(), Variant::Classic).await;
        let game = state.game;
        let mut watcher = server.join("watcher").await;
        assert!(matches!(
            watcher
                .request(1, ClientMessage::Watch(Watch { game, code: None }))
                .await,
            ServerMessage::GameState(_)
        ));
        let mut reference = Reference {
            x,
            o,
            watcher,
            game,
            played: 0,
        };
        reference.advance().await;
        Beside { server, reference }
    }

    /// Runs every case, each on its own connection.
    pub async fn run_all(&self, cases: &[Case]) {
        for case in cases {
            run(&self.server, case).await;
        }
    }

    /// Plays the reference game to its end and checks that both players and the watcher saw every
    /// move in order, that it is over for everyone, that no task panicked, and that the server
    /// still serves and shuts down cleanly.
    pub async fn finish(self) {
        let Beside {
            mut server,
            mut reference,
        } = self;
        while reference.played < REFERENCE_MOVES.len() {
            reference.advance().await;
        }
        let game = reference.game;
        let Reference {
            mut x,
            mut o,
            mut watcher,
            ..
        } = reference;
        for client in [&mut x, &mut o, &mut watcher] {
            let events = follow_to_end(client, game).await;
            assert_eq!(moves_of(&events), REFERENCE_MOVES, "{}", client.name);
            let Some(ServerMessage::GameOver { result, board, .. }) = events.last() else {
                unreachable!()
            };
            assert_eq!(result.winner, Some(Mark::X));
            assert_eq!(result.cells, vec![2, 5, 8]);
            assert_eq!(board, "OOX.XXO.X");
        }
        x.expect_error(
            90,
            ClientMessage::Move { game, cell: 3 },
            ErrorCode::GameOver,
        )
        .await;
        o.expect_error(91, ClientMessage::Resign { game }, ErrorCode::GameOver)
            .await;
        watcher
            .expect_error(
                92,
                ClientMessage::Move { game, cell: 3 },
                ErrorCode::NotAPlayer,
            )
            .await;
        let mut last = server.join("last").await;
        assert_eq!(
            last.request(1, ClientMessage::Ping).await,
            ServerMessage::Pong
        );
        assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a task panicked");
        server.shut_down().await.expect("a clean shutdown");
    }
}

/// Says hello on a new connection and returns the reply.
pub async fn hello(
    socket: &mut Socket,
    protocol: serde_json::Value,
    name: serde_json::Value,
    token: Option<serde_json::Value>,
) -> ServerFrame {
    let mut hello =
        serde_json::json!({"type": "hello", "id": 7, "protocol": protocol, "name": name});
    if let Some(token) = token {
        hello["token"] = token;
    }
    socket
        .send(Message::text(hello.to_string()))
        .await
        .expect("send hello");
    read_frame(socket).await.expect("a reply to hello")
}

pub fn assert_code(frame: &ServerFrame, code: ErrorCode, what: &str) {
    assert_eq!(frame.id, Some(RequestId::Number(7)), "{what}");
    assert!(
        matches!(&frame.message, ServerMessage::Error { code: got, .. } if *got == code),
        "{what}: expected {code:?}, got {frame:?}"
    );
}
