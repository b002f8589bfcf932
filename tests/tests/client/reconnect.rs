//! The app and the connection task together against a real server, without a terminal: a dropped
//! connection is noticed, retried with backoff, and the session resumes with its game.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use noughts_client::app::{App, Connection, Effect, Event};
use noughts_client::config::TokenStore;
use noughts_client::embedded::Embedded;
use noughts_client::net::{self, Link};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A TCP relay between the client and the server whose connections can be cut at will, as a
/// flaky network would.
struct Relay {
    url: String,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: JoinHandle<()>,
}

impl Relay {
    async fn start(upstream: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let connections: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let list = connections.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let relay = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                list.lock().unwrap().push(relay);
            }
        });
        Relay {
            url,
            connections,
            accept,
        }
    }

    /// Cuts every open connection (the listener stays up).
    fn cut(&self) {
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

/// Feeds network events to the app, carrying out its effects, until `done` holds.
async fn pump(app: &mut App, link: &mut Link, what: &str, done: impl Fn(&App) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done(app) {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, link.next())
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}; app: {app:#?}"))
            .expect("the connection task runs");
        for effect in app.update(Event::Net(event)) {
            if let Effect::Send(message) = effect {
                link.send(message);
            }
        }
        app.update(Event::Tick(Instant::now()));
    }
}

fn key(app: &mut App, link: &Link, code: KeyCode) {
    for effect in app.update(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))) {
        if let Effect::Send(message) = effect {
            link.send(message);
        }
    }
}

fn moves(app: &App) -> usize {
    app.game.as_ref().map_or(0, |g| g.state.moves.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_resumes_the_game() {
    let server = Embedded::start(noughts_server::Config {
        ai_think_delay: Duration::ZERO,
        war_games: false,
        arena_schedule: false,
        ..noughts_server::Config::default()
    })
    .await
    .unwrap();
    let relay = Relay::start(server.url.trim_start_matches("ws://").to_owned()).await;
    let dir = std::env::temp_dir().join(format!("noughts-reconnect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut link = net::connect(net::Options {
        url: relay.url.clone(),
        tls: None,
        name: "ada".into(),
        tokens: TokenStore::open(Some(dir.clone()), &relay.url),
        reconnect: true,
        credentials: None,
    });
    let mut app = App::new("ada", Instant::now(), true);
    pump(&mut app, &mut link, "the lobby", |a| a.lobby.loaded).await;
    let player = app.player;

    // Play the AI (the form's defaults: classic, medium, X) and make a move.
    key(&mut app, &link, KeyCode::Char('a'));
    key(&mut app, &link, KeyCode::Enter);
    pump(&mut app, &mut link, "the game", |a| a.game.is_some()).await;
    key(&mut app, &link, KeyCode::Char('5'));
    pump(&mut app, &mut link, "the AI's reply", |a| moves(a) == 2).await;
    let game = app.game.as_ref().unwrap().id();

    relay.cut();
    pump(&mut app, &mut link, "the drop", |a| {
        matches!(a.connection, Connection::Retrying { .. })
    })
    .await;
    pump(&mut app, &mut link, "the reconnection", |a| {
        a.connection == Connection::Online
    })
    .await;
    pump(&mut app, &mut link, "the resumed game", |a| {
        a.game
            .as_ref()
            .is_some_and(|g| g.id() == game && g.my_turn())
    })
    .await;
    assert_eq!(app.player, player, "the same identity");
    assert_eq!(moves(&app), 2, "the game goes on where it was");

    // The game goes on: play into the first empty cell.
    let cell = (0..9)
        .find(|&c| app.game.as_ref().unwrap().board.get(c).is_none())
        .unwrap();
    key(
        &mut app,
        &link,
        KeyCode::Char(char::from_digit(cell as u32 + 1, 10).unwrap()),
    );
    pump(&mut app, &mut link, "the next reply", |a| {
        moves(a) >= 4 || a.game.as_ref().is_some_and(|g| g.is_over())
    })
    .await;

    // The token is kept on disk for the next start.
    assert!(
        TokenStore::open(Some(dir.clone()), &relay.url)
            .token()
            .is_some()
    );
    let _ = std::fs::remove_dir_all(&dir);
    drop(relay);
    server.stop().await;
}
