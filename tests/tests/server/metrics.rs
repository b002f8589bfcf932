//! The metrics endpoint: a real server with its metrics on a loopback port, real WebSocket clients
//! playing and watching (and one watcher too slow to keep up), and scrapes over plain HTTP.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{
    ClientFrame, ClientMessage, GameId, Level, PROTOCOL_VERSION, PlayAi, RequestId, ServerFrame,
    ServerMessage, SideChoice, Variant, Watch,
};
use noughts_server::Config;
use noughts_tests::{net, quick_match};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long the test waits for any one thing.
const WAIT: Duration = Duration::from_secs(20);

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Sends `message` with `id`, then reads until the reply to it, which it returns.
async fn request(socket: &mut Socket, id: u64, message: ClientMessage) -> ServerMessage {
    let frame = ClientFrame {
        id: Some(RequestId::Number(id)),
        message,
    };
    socket.send(Message::text(frame.to_json())).await.unwrap();
    until(socket, |frame| frame.id == Some(RequestId::Number(id))).await
}

/// Reads frames until one matches, and returns its message.
async fn until(socket: &mut Socket, what: impl Fn(&ServerFrame) -> bool) -> ServerMessage {
    timeout(WAIT, async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    let frame: ServerFrame = serde_json::from_str(text.as_str()).unwrap();
                    if what(&frame) {
                        return frame.message;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("the connection ended: {other:?}"),
            }
        }
    })
    .await
    .expect("the awaited frame came in time")
}

/// Connects and says hello.
async fn join(addr: SocketAddr, name: &str) -> Socket {
    let url = format!("ws://{addr}/");
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: name.to_owned(),
        token: None,
        credentials: None,
    };
    let reply = request(&mut socket, 0, hello).await;
    assert!(matches!(reply, ServerMessage::Welcome { .. }), "{reply:?}");
    socket
}

/// One HTTP GET over a plain TcpStream; the status line and the body.
async fn get(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    timeout(WAIT, stream.read_to_string(&mut response))
        .await
        .expect("the metrics came in time")
        .unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.lines().next().unwrap_or_default().to_owned();
    (status, body.to_owned())
}

/// The value of the sample `name` (labels included, as written) in a scrape.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

/// Scrapes until every `(sample, value)` holds; panics with the last scrape if they never do.
async fn scrape_until(addr: SocketAddr, expected: &[(&str, f64)]) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let (status, text) = get(addr, "/metrics").await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        if expected
            .iter()
            .all(|&(name, value)| sample(&text, name) == Some(value))
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "expected {expected:?} in the scrape:\n{text}"
        );
        sleep(Duration::from_millis(20)).await;
    }
}

/// Serves `config` until the test ends: the WebSocket URL and the metrics port.
async fn serve(config: Config) -> (String, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let metrics_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics = metrics_listener.local_addr().unwrap();
    tokio::spawn(noughts_server::run_with_metrics(
        listener,
        metrics_listener,
        config,
        std::future::pending(),
    ));
    (url, metrics)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_follow_play() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let metrics_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics = metrics_listener.local_addr().unwrap();
    let config = Config {
        war_games: false,
        arena_schedule: false,
        ai_think_delay: Duration::ZERO,
        ..Config::default()
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(noughts_server::run_with_metrics(
        listener,
        metrics_listener,
        config,
        async move {
            let _ = stopped.await;
        },
    ));

    scrape_until(
        metrics,
        &[
            ("noughts_connections", 0.0),
            ("noughts_live_games", 0.0),
            ("noughts_moves_total", 0.0),
        ],
    )
    .await;

    // A game against the AI: one move each, then a move on a taken cell.
    let mut ada = join(addr, "ada").await;
    let reply = request(
        &mut ada,
        1,
        ClientMessage::PlayAi(PlayAi {
            variant: Variant::Classic,
            level: Level::Perfect,
            side: SideChoice::X,
            clock: None,
        }),
    )
    .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("play_ai answers with the game: {reply:?}");
    };
    let game: GameId = state.game;
    ada.send(Message::text(
        ClientFrame::new(ClientMessage::Move { game, cell: 4 }).to_json(),
    ))
    .await
    .unwrap();
    until(
        &mut ada,
        |frame| matches!(frame.message, ServerMessage::Moved { cell, .. } if cell != 4),
    )
    .await;
    let refused = request(&mut ada, 2, ClientMessage::Move { game, cell: 4 }).await;
    assert!(
        matches!(refused, ServerMessage::Error { .. }),
        "{refused:?}"
    );

    // Someone watches.
    let mut bob = join(addr, "bob").await;
    let snapshot = request(
        &mut bob,
        1,
        ClientMessage::Watch(Watch { game, code: None }),
    )
    .await;
    assert!(
        matches!(snapshot, ServerMessage::GameState(_)),
        "{snapshot:?}"
    );

    let text = scrape_until(
        metrics,
        &[
            ("noughts_connections", 2.0),
            ("noughts_live_games", 1.0),
            ("noughts_watchers", 1.0),
            ("noughts_moves_total", 2.0),
            ("noughts_ai_think_seconds_count", 1.0),
            ("noughts_errors_total{code=\"illegal_move\"}", 1.0),
            ("noughts_outbound_drops_total", 0.0),
        ],
    )
    .await;
    assert!(
        text.contains("# TYPE noughts_ai_think_seconds histogram"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("# EOF"), "{text}");

    // The watcher leaves; the player resigns.
    bob.close(None).await.unwrap();
    let over = request(&mut ada, 3, ClientMessage::Resign { game }).await;
    assert!(matches!(over, ServerMessage::GameOver { .. }), "{over:?}");
    scrape_until(
        metrics,
        &[
            ("noughts_connections", 1.0),
            ("noughts_live_games", 0.0),
            ("noughts_watchers", 0.0),
        ],
    )
    .await;

    // Anything but GET /metrics is turned away.
    let (status, _) = get(metrics, "/").await;
    assert_eq!(status, "HTTP/1.1 404 Not Found");

    let _ = stop.send(());
    timeout(WAIT, server)
        .await
        .expect("the server stops in time")
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_too_slow_is_dropped_and_counted() {
    let (url, metrics) = serve(Config {
        war_games: false,
        arena_schedule: false,
        outbound_queue: 8,
        messages_per_second: 1_000_000,
        message_burst: 1_000_000,
        chat_per_minute: 1_000_000,
        chat_burst: 1_000_000,
        ..Config::default()
    })
    .await;
    let (mut x, mut o, state) = quick_match(&url, Variant::Classic).await;
    let game = state.game;
    let mut watcher = net::small_watcher(&url, game).await;
    scrape_until(
        metrics,
        &[
            ("noughts_connections", 3.0),
            ("noughts_watchers", 1.0),
            ("noughts_outbound_drops_total", 0.0),
        ],
    )
    .await;

    // The watcher stops reading (its socket stays open), and the players talk on: it falls
    // behind until its queue is full.
    net::stall(&mut watcher, game, 1500).await;
    let long = "x".repeat(270);
    for i in 0.. {
        let text = format!("{i}{long}");
        let line = ClientMessage::Chat {
            game,
            text: text.clone(),
        };
        let reply = x.request(i, line).await;
        assert!(matches!(reply, ServerMessage::Chat { .. }), "{reply:?}");
        o.until(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == text))
            .await;
        if i % 10 == 9 {
            let (_, text) = get(metrics, "/metrics").await;
            if sample(&text, "noughts_outbound_drops_total") == Some(1.0) {
                break;
            }
            assert!(i < 2000, "the watcher was never dropped:\n{text}");
        }
    }
    scrape_until(
        metrics,
        &[
            ("noughts_connections", 2.0),
            ("noughts_watchers", 0.0),
            ("noughts_outbound_drops_total", 1.0),
        ],
    )
    .await;
    // The server closed it: it reads what was sent before, then the end.
    while noughts_tests::read_frame(&mut watcher).await.is_ok() {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_answered_once_written_reach_the_disk_within_the_flush_interval() {
    let dir = noughts_tests::Scratch::new("metrics-flush");
    let (url, metrics) = serve(Config {
        war_games: false,
        arena_schedule: false,
        store: noughts_server::StoreConfig::File(dir.dir.join("noughts.db")),
        durability: noughts_server::Durability::Interval(Duration::from_millis(50)),
        messages_per_second: 1_000_000,
        message_burst: 1_000_000,
        ..Config::default()
    })
    .await;
    scrape_until(metrics, &[("noughts_store_flush_interval_seconds", 0.05)]).await;

    // Eight games at once, each playing a drawn line as fast as its moves come back.
    let mut pairs = Vec::new();
    for _ in 0..8 {
        pairs.push(quick_match(&url, Variant::Classic).await);
    }
    let games = pairs.into_iter().map(|(mut x, mut o, state)| {
        tokio::spawn(async move {
            let line = [0, 4, 8, 1, 7, 6, 2, 5, 3];
            noughts_tests::alternate(&mut x, &mut o, state.game, &line).await;
        })
    });
    for game in games.collect::<Vec<_>>() {
        game.await.unwrap();
    }

    // Every write was flushed (none waits now), each within the interval and a sync's time.
    let deadline = Instant::now() + WAIT;
    let text = loop {
        let (_, text) = get(metrics, "/metrics").await;
        let flushes = sample(&text, "noughts_store_flushes_total").unwrap_or(0.0);
        let flushed = sample(&text, "noughts_store_flush_lag_seconds_count").unwrap_or(0.0);
        if flushes > 0.0 && flushed == flushes {
            break text;
        }
        assert!(Instant::now() < deadline, "no flush was made:\n{text}");
        sleep(Duration::from_millis(20)).await;
    };
    let count = sample(&text, "noughts_store_flush_lag_seconds_count").unwrap();
    // The buckets double from 0.5 ms: 0.256 s is the first at five intervals or more, room for
    // a sync on a busy disk; none may wait past 4 s.
    let within = sample(
        &text,
        "noughts_store_flush_lag_seconds_bucket{le=\"0.256\"}",
    )
    .unwrap();
    let bounded = sample(
        &text,
        "noughts_store_flush_lag_seconds_bucket{le=\"4.096\"}",
    )
    .unwrap();
    assert!(
        within * 2.0 >= count,
        "most flushes within the bound:\n{text}"
    );
    assert_eq!(bounded, count, "no flush waits for seconds:\n{text}");
}
