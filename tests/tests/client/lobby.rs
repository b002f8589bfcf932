//! The lobby at scale under tmux, against a real server: the totals and featured games, the
//! all-games tab paging through more games than a page holds, and the client following the lobby
//! only while it shows it (the frames the server sends it, counted on the way).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use noughts_client::embedded::Embedded;
use noughts_protocol::{ClientMessage, Level, ServerMessage, SideChoice, Variant};
use noughts_tests::Client;
use noughts_tests::tmux::Tmux;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::{bin, config, temp_dir};
use crate::tui::moves_shown;

/// The tmux client against `url`, showing the lobby, with pages of `page` games.
async fn lobby_client(name: &str, url: &str, page: u32) -> Tmux {
    let command = format!(
        "env NOUGHTS_CONFIG_DIR={} {} --server {url} --name {name} --page-size {page}",
        temp_dir(name).display(),
        bin().display(),
    );
    let tmux = Tmux::start(name, 100, 30, &command);
    tmux.wait_for("the lobby", |s| {
        s.contains("Lobby") && s.contains("playing")
    })
    .await;
    tmux
}

/// `count` people each playing the AI (their move first, so the games stay live).
async fn ai_games(url: &str, count: usize) -> Vec<(Client, u64)> {
    let mut players = Vec::new();
    for i in 0..count {
        let mut client = Client::join(url, &format!("p{i}")).await;
        let game = client
            .play_ai(1, Variant::Classic, Level::Easy, SideChoice::X)
            .await;
        players.push((client, game.game.0));
    }
    players
}

/// The game ids on the screen's rows ("#12 …").
fn ids_shown(screen: &str) -> Vec<u64> {
    screen
        .split('#')
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_shows_totals_and_featured_games_and_all_games_page_under_tmux() {
    if !Tmux::available() {
        assert!(std::env::var("CI").is_err(), "tmux is missing under CI");
        println!("skipped: tmux is not installed");
        return;
    }
    // No war games: they end and start again under new ids while the pages are read.
    let quiet = noughts_server::Config {
        war_games: false,
        arena_schedule: false,
        ..config()
    };
    let server = Embedded::start(quiet).await.unwrap();
    let players = ai_games(&server.url, 5).await;
    let ids: Vec<u64> = players.iter().map(|(_, id)| *id).collect();
    let mut players = players;
    let tmux = lobby_client("browse", &server.url, 2).await;
    // A move in each game: the lobby works its shown games out again (a first follower's
    // snapshot may predate the games).
    for (client, game) in &mut players {
        client
            .send(ClientMessage::Move {
                game: noughts_protocol::GameId(*game),
                cell: 4,
            })
            .await;
    }
    // Five players and this client online, five AI games.
    let screen = tmux
        .wait_for("the totals and the featured games", |s| {
            s.contains("6 online, 5 playing") && s.contains("Featured games")
        })
        .await;
    for id in &ids {
        assert!(
            ids_shown(&screen).contains(id),
            "every AI game is featured:\n{screen}"
        );
    }

    // b: every live game, two a page.
    tmux.send("b");
    let mut screen = tmux
        .wait_for("the first page", |s| s.contains("Page 1, more: n"))
        .await;
    let mut seen = Vec::new();
    let mut page = 1;
    loop {
        let shown = ids_shown(&screen);
        assert!(shown.len() <= 2, "two games a page:\n{screen}");
        assert!(
            shown
                .iter()
                .all(|id| seen.last().is_none_or(|last| id > last)),
            "pages follow the game ids:\n{screen}"
        );
        seen.extend(shown);
        if !screen.contains("more: n") {
            break;
        }
        page += 1;
        tmux.send("n");
        let heading = format!("Page {page}");
        screen = tmux
            .wait_for(&heading, |s| {
                s.contains(&heading) && !ids_shown(s).is_empty()
            })
            .await;
    }
    assert!(page >= 3, "five games and more take three pages: {seen:?}");
    for id in &ids {
        assert!(seen.contains(id), "game {id} is on a page: {seen:?}");
    }
    // p back; Enter watches the selected game.
    tmux.send("p");
    let heading = format!("Page {}", page - 1);
    let screen = tmux
        .wait_for("the page before", |s| s.contains(&heading))
        .await;
    let first = ids_shown(&screen)[0];
    tmux.send("Enter");
    tmux.wait_for("the game watched", |s| {
        s.contains(&format!("#{first}")) && !s.contains("Page")
    })
    .await;
    drop(players);
    server.stop().await;
}

/// A relay in front of the server that keeps every byte the server sends, to count the lobby's
/// frames to the client behind it (server frames are not masked).
async fn recording_relay(upstream: SocketAddr) -> (String, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let log: Arc<Mutex<Vec<u8>>> = Arc::default();
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(upstream).await.unwrap();
            let (mut client_read, mut client_write) = client.into_split();
            let (mut server_read, mut server_write) = server.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
            });
            let sink = sink.clone();
            tokio::spawn(async move {
                let mut buf = vec![0; 16 * 1024];
                while let Ok(n @ 1..) = server_read.read(&mut buf).await {
                    sink.lock().unwrap().extend_from_slice(&buf[..n]);
                    if client_write.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    (url, log)
}

/// How many times `what` occurs in the bytes after `from`.
fn count(log: &Mutex<Vec<u8>>, from: usize, what: &str) -> usize {
    let log = log.lock().unwrap();
    let text = String::from_utf8_lossy(&log[from.min(log.len())..]).into_owned();
    text.matches(what).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_does_not_follow_the_lobby_while_it_plays_under_tmux() {
    if !Tmux::available() {
        assert!(std::env::var("CI").is_err(), "tmux is missing under CI");
        println!("skipped: tmux is not installed");
        return;
    }
    let server = Embedded::start(config()).await.unwrap();
    let upstream: SocketAddr = server
        .url
        .trim_start_matches("ws://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let (url, log) = recording_relay(upstream).await;
    let tmux = lobby_client("unfollow", &url, 20).await;
    assert!(count(&log, 0, r#""type":"lobby","#) >= 1, "the lobby came");

    // a, Enter: a game against the AI; the lobby is left.
    tmux.send("a");
    tmux.wait_for("the form", |s| s.contains("Play the AI"))
        .await;
    tmux.send("Enter");
    tmux.wait_for("the game", |s| s.contains("Your move")).await;
    let mark = log.lock().unwrap().len();

    // Someone opens a public room; a follower hears of it.
    let mut follower = Client::join(&server.url, "follower").await;
    follower.send(ClientMessage::SubscribeLobby).await;
    follower
        .until(|m| matches!(m, ServerMessage::Lobby { .. }))
        .await;
    let mut host = Client::join(&server.url, "host").await;
    let code = host.create_room(1, Variant::Four, false).await;
    follower
        .until(|m| matches!(m, ServerMessage::LobbyUpdate(u) if u.rooms.iter().any(|r| r.code == code)))
        .await;
    // A move after that: its answer comes after anything the lobby sent this client then.
    tmux.send("5");
    tmux.wait_for("the AI's answer", |s| {
        s.contains("Your move") && moves_shown(s) >= Some(2)
    })
    .await;
    assert_eq!(
        count(&log, mark, r#""type":"lobby"#),
        0,
        "no lobby frame reaches a client in a game"
    );

    // q: back to the lobby, followed again; the room is there.
    tmux.send("q");
    tmux.wait_for("the room in the lobby", |s| s.contains(&code))
        .await;
    assert_eq!(count(&log, mark, r#""type":"lobby","#), 1, "a new snapshot");
    server.stop().await;
}
