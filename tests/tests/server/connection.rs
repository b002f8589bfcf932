//! Connections: bad frames, limits, refusal when full, shutdown.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{ErrorCode, ServerMessage};
use noughts_server::Config;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use noughts_tests::raw::*;
use noughts_tests::{Socket, TestServer, WAIT, connect};

#[tokio::test]
async fn bad_input_gets_documented_errors() {
    let server = TestServer::start(quiet()).await;
    let mut ws = connect(&server.url()).await;
    send(&mut ws, json!({"type": "ping", "id": "p"})).await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(
        value,
        json!({"type": "error", "id": "p", "code": "hello_first", "message": value["message"]})
    );
    send(
        &mut ws,
        json!({"type": "hello", "id": 1, "protocol": 99, "name": "ada"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "unsupported_version");
    send(
        &mut ws,
        json!({"type": "hello", "id": 2, "protocol": 2, "name": "a\u{1b}[31m"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "bad_name");
    send(
        &mut ws,
        json!({"type": "hello", "id": 3, "protocol": 2, "name": "ada", "token": "00"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "unknown_token");
    send(
        &mut ws,
        json!({"type": "hello", "id": 4, "protocol": 2, "name": "ada"}),
    )
    .await;
    assert!(matches!(next(&mut ws).await, ServerMessage::Welcome { .. }));
    ws.send(Message::text("{nope")).await.unwrap();
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "bad_json");
    send(&mut ws, json!({"type": "fly", "id": 5})).await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(
        (value["code"].as_str(), value["id"].as_u64()),
        (Some("unknown_type"), Some(5))
    );
    send(
        &mut ws,
        json!({"type": "move", "id": 6, "game": 999, "cell": 0}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "no_such_game");
    send(&mut ws, json!({"type": "seek", "id": 7, "variant": "classic", "clock": {"initial_ms": 0, "increment_ms": 0}})).await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "bad_clock");
    send(
        &mut ws,
        json!({"type": "join_room", "id": 8, "code": "AAAA-BBBB-CC"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "no_such_room");
    send(&mut ws, json!({"type": "ping", "id": 9})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap().0,
        json!({"type": "pong", "id": 9})
    );
    ws.send(Message::text("x".repeat(5000))).await.unwrap();
    assert_eq!(recv(&mut ws).await.unwrap_err(), Some(1009));
    let _ = ErrorCode::Internal;
}

#[tokio::test]
async fn binary_frames_close_with_1003() {
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    ws.send(Message::binary(vec![1, 2, 3])).await.unwrap();
    assert_eq!(recv(&mut ws).await.unwrap_err(), Some(1003));
}

#[tokio::test]
async fn shutdown_tells_clients_and_returns() {
    let mut server = TestServer::start(quiet()).await;
    let (mut a, _) = hello(&server.url(), "ada").await;
    server.request_shutdown();
    assert!(matches!(next(&mut a).await, ServerMessage::Shutdown { .. }));
    assert_eq!(recv(&mut a).await.unwrap_err(), Some(1001));
    server.shut_down().await.unwrap();
}

#[tokio::test]
async fn pings_keep_a_reading_client_and_the_silent_one_is_closed() {
    let config = Config {
        ping_interval: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(500),
        ..quiet()
    };
    let server = TestServer::start(config).await;
    let (mut reader, _) = hello(&server.url(), "ada").await;
    let (mut silent, _) = hello(&server.url(), "bob").await;
    // The reader's socket answers every ping (tungstenite pongs as it reads); it sends nothing
    // else for three idle timeouts and stays.
    let mut pings = 0;
    let quiet_until = tokio::time::Instant::now() + Duration::from_millis(1500);
    while let Ok(frame) = tokio::time::timeout_at(quiet_until, reader.next()).await {
        match frame {
            Some(Ok(Message::Ping(_))) => pings += 1,
            other => panic!("the reading client got {other:?}"),
        }
    }
    assert!(pings >= 2, "{pings} pings");
    send(&mut reader, json!({"type": "subscribe_lobby", "id": 1})).await;
    let (value, _) = recv(&mut reader).await.unwrap();
    assert_eq!(value["id"], 1);
    // The silent one read nothing, so answered no ping: closed as idle, with 1008. Reading now,
    // its socket answers the queued pings first; once the server has hung up, those pongs can
    // reset the connection before the close frame is read, so a reset also counts as closed.
    let closed = recv(&mut silent).await.map(|(value, _)| value);
    assert!(
        matches!(closed, Err(Some(1008) | None)),
        "the silent client got {closed:?}"
    );
}

/// The times at which `ws` received pings over `span`, answering them as it reads.
async fn ping_times(ws: &mut Socket, span: Duration) -> Vec<tokio::time::Instant> {
    let until = tokio::time::Instant::now() + span;
    let mut times = Vec::new();
    while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(until, ws.next()).await {
        if matches!(frame, Message::Ping(_)) {
            times.push(tokio::time::Instant::now());
        }
    }
    times
}

#[tokio::test]
async fn a_player_in_a_game_is_pinged_every_interval_and_one_in_the_lobby_every_other() {
    let server = TestServer::start(Config {
        ping_interval: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(1000),
        ..quiet()
    })
    .await;
    let (mut lobby, _) = hello(&server.url(), "ada").await;
    send(&mut lobby, json!({"type": "subscribe_lobby", "id": 1})).await;
    let (mut player, _) = hello(&server.url(), "bob").await;
    send(
        &mut player,
        json!({"type": "play_ai", "id": 1, "variant": "classic", "level": "easy", "side": "x"}),
    )
    .await;
    let span = Duration::from_secs(2);
    let (in_lobby, seated) =
        tokio::join!(ping_times(&mut lobby, span), ping_times(&mut player, span));
    let gaps = in_lobby.windows(2).map(|pair| pair[1] - pair[0]);
    assert!(
        gaps.clone().all(|gap| gap >= Duration::from_millis(150)),
        "the lobby's pings came {:?} apart",
        gaps.collect::<Vec<_>>()
    );
    assert!(
        seated.len() >= in_lobby.len() + 3,
        "{} pings to the player, {} to the lobby",
        seated.len(),
        in_lobby.len()
    );
    // Pinged half as often, the follower is still well within the idle timeout.
    send(&mut lobby, json!({"type": "ping", "id": 2})).await;
    loop {
        if matches!(next(&mut lobby).await, ServerMessage::Pong) {
            break;
        }
    }
}

#[tokio::test]
async fn a_connection_in_the_lobby_is_first_pinged_within_the_first_interval() {
    // With a 2 s interval (and so 4 s between the pings of a connection not seated), the first
    // ping is due between 1 and 2 s after opening, on the quarter-second grid.
    let interval = Duration::from_secs(2);
    let server = TestServer::start(Config {
        ping_interval: interval,
        idle_timeout: Duration::from_secs(6),
        ..quiet()
    })
    .await;
    let opened = tokio::time::Instant::now();
    let (mut lobby, _) = hello(&server.url(), "ada").await;
    send(&mut lobby, json!({"type": "subscribe_lobby", "id": 1})).await;
    let pings = ping_times(&mut lobby, interval * 3 / 2).await;
    let first = pings.first().map(|at| *at - opened);
    assert!(
        first.is_some_and(|first| {
            first >= interval / 2 - Duration::from_millis(50)
                && first <= interval + Duration::from_millis(500)
        }),
        "the first ping came {first:?} after opening"
    );
}

#[tokio::test]
async fn a_full_server_refuses_cleanly() {
    let server = TestServer::start(Config {
        max_connections: 1,
        ..quiet()
    })
    .await;
    let (_first, _) = hello(&server.url(), "ada").await;
    let mut second = connect(&server.url()).await;
    let (value, _) = recv(&mut second).await.unwrap();
    assert_eq!(value["code"], "server_full");
    assert_eq!(recv(&mut second).await.unwrap_err(), Some(1013));
}

#[tokio::test]
async fn the_rate_limit_refuses_then_closes_a_flood() {
    let server = TestServer::start(Config {
        messages_per_second: 1,
        message_burst: 3,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    for id in 0..20 {
        send(&mut ws, json!({"type": "ping", "id": id})).await;
    }
    let mut codes = Vec::new();
    let close = loop {
        match recv(&mut ws).await {
            Ok((value, _)) => codes.push(
                value["type"].as_str().unwrap().to_owned()
                    + value["code"].as_str().unwrap_or_default(),
            ),
            Err(code) => break code,
        }
    };
    // hello took one token of the burst of three.
    assert_eq!(codes[..2], ["pong", "pong"]);
    assert!(
        codes[2..].iter().all(|c| c == "errorrate_limited"),
        "{codes:?}"
    );
    assert_eq!(close, Some(1008));
}

#[tokio::test]
async fn hostile_frames_get_errors_and_the_connection_goes_on() {
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "mallory").await;
    let deep = "[".repeat(2000) + &"]".repeat(2000);
    let hostile = [
        "",
        "null",
        "\"hello\"",
        "{}",
        "{\"type\": null}",
        "{\"type\": \"move\", \"game\": 18446744073709551615, \"cell\": 18446744073709551615}",
        "{\"type\": \"move\", \"game\": 1e400, \"cell\": 0}",
        "{\"type\": \"move\", \"game\": 1.5, \"cell\": 0}",
        "{\"type\": \"watch\", \"game\": -1}",
        "{\"type\": \"seek\", \"variant\": \"chess\"}",
        "{\"type\": \"play_ai\", \"variant\": \"classic\", \"level\": \"god\"}",
        "{\"type\": \"play_ai\", \"variant\": \"classic\", \"level\": \"easy\", \"side\": \"z\"}",
        "{\"type\": \"create_room\", \"variant\": \"classic\", \"private\": \"yes\"}",
        "{\"type\": \"join_room\", \"code\": \"\u{0}\u{1b}[2J\"}",
        "{\"type\": \"join_room\", \"code\": \"ÉÉÉÉ-ÉÉÉÉ-ÉÉ\"}",
        "{\"type\": \"close_room\", \"code\": \"\"}",
        "{\"type\": \"chat\", \"game\": 1, \"text\": 5}",
        "{\"type\": \"ping\", \"id\": {\"a\": 1}}",
        "{\"type\": \"ping\", \"id\": -3}",
        "{\"type\": \"hello\", \"protocol\": 2, \"name\": \"again\"}",
        "{\"type\": \"rematch\", \"game\": 0}",
        "{\"type\": \"unwatch\", \"game\": 424242}",
        "{\"type\": \"cancel_seek\"}",
        &deep,
    ];
    for text in hostile {
        ws.send(Message::text(text)).await.unwrap();
        let (value, _) = recv(&mut ws).await.expect("an answer, not a close");
        assert_eq!(value["type"], "error", "{text:?} → {value}");
    }
    send(&mut ws, json!({"type": "ping", "id": "still here"})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap().0,
        json!({"type": "pong", "id": "still here"})
    );
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_closes_with_1007() {
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    let frame = Frame::message(vec![0xff, 0xfe, 0x7b], OpCode::Data(Data::Text), true);
    ws.send(Message::Frame(frame)).await.unwrap();
    assert_eq!(recv(&mut ws).await.unwrap_err(), Some(1007));
}

#[tokio::test]
async fn a_browser_gets_the_web_client_on_the_same_port() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start(quiet()).await;
    let addr = server.addr;
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(WAIT, tcp.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(
        answer.contains("Content-Type: text/html; charset=utf-8"),
        "{answer}"
    );
    assert!(
        answer.contains("<script type=\"module\" src=\"/app.js\">"),
        "{answer}"
    );
    for (path, kind) in [("/app.js", "text/javascript"), ("/style.css", "text/css")] {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.write_all(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut answer = String::new();
        tokio::time::timeout(WAIT, tcp.read_to_string(&mut answer))
            .await
            .unwrap()
            .unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{path}: {answer}");
        assert!(answer.contains(&format!("Content-Type: {kind}")), "{path}");
    }
}

#[tokio::test]
async fn a_connection_that_never_says_hello_is_closed_at_its_deadline() {
    let server = TestServer::start(Config {
        hello_timeout: Duration::from_millis(300),
        ping_interval: Duration::from_millis(100),
        ..quiet()
    })
    .await;
    // It answers every ping (tungstenite does so by itself), but says nothing else.
    let mut silent = connect(&server.url()).await;
    let started = tokio::time::Instant::now();
    assert_eq!(recv(&mut silent).await.unwrap_err(), Some(1008));
    assert!(started.elapsed() >= Duration::from_millis(250));
    // One that said hello stays past the deadline.
    let (mut ws, _) = hello(&server.url(), "ada").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    send(&mut ws, json!({"type": "ping", "id": 2})).await;
    assert!(matches!(next(&mut ws).await, ServerMessage::Pong));
}

#[tokio::test]
async fn a_flood_of_pings_is_metered_and_closed() {
    let server = TestServer::start(Config {
        message_burst: 20,
        messages_per_second: 10,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url(), "pinger").await;
    let mut sent = 0;
    for _ in 0..2_000 {
        if ws.feed(Message::Ping(vec![7u8; 8].into())).await.is_err() {
            break;
        }
        sent += 1;
    }
    let _ = ws.flush().await;
    let mut pongs = 0;
    let code = loop {
        match tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("in time")
        {
            Some(Ok(Message::Pong(_))) => pongs += 1,
            Some(Ok(Message::Close(frame))) => break frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => break None,
        }
    };
    assert_eq!(code, Some(1008), "closed as a flood after {pongs} pongs");
    assert!(pongs < sent, "{pongs} pongs for {sent} pings");
}
