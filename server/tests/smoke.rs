//! The server end to end at small scale: a real listener on port 0 and real WebSocket clients.
//! The full scenarios live in the workspace's `tests/` crate; these check the server's own corners.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use noughts_protocol::{ErrorCode, GameId, Mark, ServerFrame, ServerMessage};
use noughts_server::Config;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const WAIT: Duration = Duration::from_secs(20);

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

struct Server {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

async fn start(config: Config) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/ws", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(noughts_server::run(listener, config, async move {
        let _ = stopped.await;
    }));
    Server {
        url,
        stop: Some(stop),
        task,
    }
}

fn quiet() -> Config {
    Config {
        war_games: false,
        ai_think_delay: Duration::ZERO,
        grace: Duration::from_millis(300),
        ..Config::default()
    }
}

async fn connect(url: &str) -> Socket {
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

async fn send(ws: &mut Socket, value: Value) {
    ws.send(Message::text(value.to_string())).await.unwrap();
}

/// The next text frame, parsed both as JSON and as the protocol type.
async fn recv(ws: &mut Socket) -> Result<(Value, ServerFrame), Option<u16>> {
    loop {
        match tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("in time")
        {
            Some(Ok(Message::Text(text))) => {
                let value: Value = serde_json::from_str(&text).unwrap();
                let frame: ServerFrame = serde_json::from_str(&text).unwrap();
                return Ok((value, frame));
            }
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| u16::from(f.code))),
            Some(Ok(_)) => {}
            _ => return Err(None),
        }
    }
}

async fn next(ws: &mut Socket) -> ServerMessage {
    recv(ws).await.expect("a frame, not a close").1.message
}

async fn hello(url: &str, name: &str) -> (Socket, String) {
    let mut ws = connect(url).await;
    send(
        &mut ws,
        json!({"type": "hello", "id": 1, "protocol": 1, "name": name}),
    )
    .await;
    let (value, frame) = recv(&mut ws).await.unwrap();
    assert_eq!(value["id"], 1);
    let ServerMessage::Welcome { token, resumed, .. } = frame.message else {
        panic!("expected welcome, got {value}");
    };
    assert!(!resumed);
    assert_eq!(token.len(), 32);
    (ws, token)
}

/// Two players quick-matched on classic: (x socket, o socket, game).
async fn matched(url: &str) -> (Socket, Socket, GameId) {
    let (mut a, _) = hello(url, "ada").await;
    let (mut b, _) = hello(url, "bob").await;
    send(
        &mut a,
        json!({"type": "seek", "id": 2, "variant": "classic"}),
    )
    .await;
    assert!(matches!(next(&mut a).await, ServerMessage::Seeking { .. }));
    send(
        &mut b,
        json!({"type": "seek", "id": 2, "variant": "classic"}),
    )
    .await;
    assert!(matches!(next(&mut b).await, ServerMessage::Seeking { .. }));
    let ServerMessage::GameState(sa) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(sb) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(sa.game, sb.game);
    assert_ne!(sa.you, sb.you);
    if sa.you == Some(Mark::X) {
        (a, b, sa.game)
    } else {
        (b, a, sa.game)
    }
}

#[tokio::test]
async fn quick_match_to_a_win() {
    let server = start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url).await;
    let g = game.0;
    let mut seq = 0;
    for (i, cell) in [0, 3, 1, 4, 2].into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut x } else { &mut o };
        send(
            mover,
            json!({"type": "move", "id": 10 + i, "game": g, "cell": cell}),
        )
        .await;
        let (value, _) = recv(mover).await.unwrap();
        assert_eq!(value["id"], 10 + i, "the mover's copy answers its request");
        let other = if i % 2 == 0 { &mut o } else { &mut x };
        let ServerMessage::Moved {
            seq: s, cell: c, ..
        } = next(other).await
        else {
            panic!()
        };
        assert!(s > seq);
        assert_eq!(c, cell);
        seq = s;
    }
    for ws in [&mut x, &mut o] {
        let ServerMessage::GameOver {
            seq: s,
            result,
            board,
            ..
        } = next(ws).await
        else {
            panic!("expected game over");
        };
        assert!(s > seq);
        assert_eq!(result.winner, Some(Mark::X));
        assert_eq!(result.cells, vec![0, 1, 2]);
        assert_eq!(board, "XXXOO....");
    }
}

#[tokio::test]
async fn bad_input_gets_documented_errors() {
    let server = start(quiet()).await;
    let mut ws = connect(&server.url).await;
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
        json!({"type": "hello", "id": 2, "protocol": 1, "name": "a\u{1b}[31m"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "bad_name");
    send(
        &mut ws,
        json!({"type": "hello", "id": 3, "protocol": 1, "name": "ada", "token": "00"}),
    )
    .await;
    let (value, _) = recv(&mut ws).await.unwrap();
    assert_eq!(value["code"], "unknown_token");
    send(
        &mut ws,
        json!({"type": "hello", "id": 4, "protocol": 1, "name": "ada"}),
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
    let server = start(quiet()).await;
    let (mut ws, _) = hello(&server.url, "ada").await;
    ws.send(Message::binary(vec![1, 2, 3])).await.unwrap();
    assert_eq!(recv(&mut ws).await.unwrap_err(), Some(1003));
}

#[tokio::test]
async fn resume_and_abandon() {
    let server = start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url).await;
    let g = game.0;
    send(&mut x, json!({"type": "move", "game": g, "cell": 4})).await;
    assert!(matches!(next(&mut x).await, ServerMessage::Moved { .. }));
    assert!(matches!(next(&mut o).await, ServerMessage::Moved { .. }));
    // O drops; X hears it with the grace period.
    send(
        &mut o,
        json!({"type": "hello", "protocol": 1, "name": "again"}),
    )
    .await;
    let ServerMessage::Error {
        code: ErrorCode::AlreadyWelcomed,
        ..
    } = next(&mut o).await
    else {
        panic!()
    };
    drop(o);
    let ServerMessage::Presence {
        connected: false,
        grace_ms: Some(300),
        mark: Mark::O,
        ..
    } = next(&mut x).await
    else {
        panic!()
    };
    // After the grace, X wins by abandon.
    let ServerMessage::GameOver { result, .. } = next(&mut x).await else {
        panic!()
    };
    assert_eq!(result.winner, Some(Mark::X));
    assert_eq!(result.reason, noughts_protocol::EndReason::Abandon);
}

#[tokio::test]
async fn resume_within_grace_gets_the_game_back() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = start(config).await;
    let (mut a, token) = hello(&server.url, "ada").await;
    send(
        &mut a,
        json!({"type": "play_ai", "id": 2, "variant": "classic", "level": "perfect", "side": "x"}),
    )
    .await;
    let (value, frame) = recv(&mut a).await.unwrap();
    assert_eq!(value["id"], 2);
    let ServerMessage::GameState(state) = frame.message else {
        panic!("{value}")
    };
    assert_eq!(state.you, Some(Mark::X));
    send(
        &mut a,
        json!({"type": "move", "game": state.game.0, "cell": 0}),
    )
    .await;
    assert!(matches!(
        next(&mut a).await,
        ServerMessage::Moved { mark: Mark::X, .. }
    ));
    assert!(matches!(
        next(&mut a).await,
        ServerMessage::Moved { mark: Mark::O, .. }
    ));
    drop(a);
    let mut b = connect(&server.url).await;
    send(
        &mut b,
        json!({"type": "hello", "protocol": 1, "name": "ada", "token": token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(again) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(again.game, state.game);
    assert_eq!(again.moves.len(), 2);
    assert_eq!(again.you, Some(Mark::X));
    assert_eq!(again.to_move, Some(Mark::X));
}

#[tokio::test]
async fn shutdown_tells_clients_and_returns() {
    let mut server = start(quiet()).await;
    let (mut a, _) = hello(&server.url, "ada").await;
    server.stop.take().unwrap().send(()).unwrap();
    assert!(matches!(next(&mut a).await, ServerMessage::Shutdown { .. }));
    assert_eq!(recv(&mut a).await.unwrap_err(), Some(1001));
    tokio::time::timeout(WAIT, &mut server.task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_full_server_refuses_cleanly() {
    let server = start(Config {
        max_connections: 1,
        ..quiet()
    })
    .await;
    let (_first, _) = hello(&server.url, "ada").await;
    let mut second = connect(&server.url).await;
    let (value, _) = recv(&mut second).await.unwrap();
    assert_eq!(value["code"], "server_full");
    assert_eq!(recv(&mut second).await.unwrap_err(), Some(1013));
}

#[tokio::test]
async fn the_rate_limit_refuses_then_closes_a_flood() {
    let server = start(Config {
        messages_per_second: 1,
        message_burst: 3,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url, "ada").await;
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
async fn watchers_chat_cleanly_and_cannot_move() {
    let server = start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url).await;
    let (mut eve, _) = hello(&server.url, "eve").await;
    send(&mut eve, json!({"type": "watch", "id": 1, "game": game.0})).await;
    let ServerMessage::GameState(state) = next(&mut eve).await else {
        panic!()
    };
    assert_eq!((state.watchers, state.you), (1, None));
    for ws in [&mut x, &mut o] {
        let ServerMessage::Watchers { count: 1, .. } = next(ws).await else {
            panic!()
        };
    }
    send(
        &mut eve,
        json!({"type": "move", "id": 2, "game": game.0, "cell": 0}),
    )
    .await;
    let (value, _) = recv(&mut eve).await.unwrap();
    assert_eq!(
        (value["id"].as_u64(), value["code"].as_str()),
        (Some(2), Some("not_a_player"))
    );
    send(
        &mut eve,
        json!({"type": "chat", "id": 3, "game": game.0, "text": "hi\u{1b}[2J\nthere"}),
    )
    .await;
    let (value, _) = recv(&mut eve).await.unwrap();
    assert_eq!(
        value,
        json!({"type": "chat", "id": 3, "game": game.0, "seq": 2, "from": "eve", "text": "hi[2J there"})
    );
    let ServerMessage::Chat { line, .. } = next(&mut x).await else {
        panic!()
    };
    assert_eq!((line.from.as_str(), line.mark), ("eve", None));
    send(
        &mut o,
        json!({"type": "chat", "game": game.0, "text": "   "}),
    )
    .await;
    let ServerMessage::Chat { .. } = next(&mut o).await else {
        panic!()
    };
    let (value, _) = recv(&mut o).await.unwrap();
    assert_eq!(value["code"], "bad_chat");
}

#[tokio::test]
async fn invite_codes_read_aloud_join_the_room() {
    let server = start(quiet()).await;
    let (mut host, _) = hello(&server.url, "host").await;
    send(
        &mut host,
        json!({"type": "create_room", "id": 1, "variant": "cube", "private": false}),
    )
    .await;
    let ServerMessage::RoomCreated { code, .. } = next(&mut host).await else {
        panic!()
    };
    assert_eq!(code.len(), 12);
    let (mut lurker, _) = hello(&server.url, "lurker").await;
    send(&mut lurker, json!({"type": "subscribe_lobby"})).await;
    let ServerMessage::Lobby { rooms, .. } = next(&mut lurker).await else {
        panic!()
    };
    assert_eq!(rooms.len(), 1);
    let (mut guest, _) = hello(&server.url, "guest").await;
    let spoken = code.replace('-', " ").to_lowercase();
    send(
        &mut guest,
        json!({"type": "join_room", "id": 5, "code": spoken}),
    )
    .await;
    let (value, frame) = recv(&mut guest).await.unwrap();
    assert_eq!(value["id"], 5);
    let ServerMessage::GameState(state) = frame.message else {
        panic!()
    };
    assert_eq!(state.variant, noughts_protocol::Variant::Cube);
    let ServerMessage::GameState(other) = next(&mut host).await else {
        panic!()
    };
    assert_eq!(other.game, state.game);
    assert!(matches!(
        next(&mut lurker).await,
        ServerMessage::LobbyRoomRemoved { .. }
    ));
    assert!(matches!(
        next(&mut lurker).await,
        ServerMessage::LobbyGame { .. }
    ));
}

#[tokio::test]
async fn a_clock_does_not_run_while_its_player_is_away() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = start(config).await;
    let (mut a, token_a) = hello(&server.url, "ada").await;
    let (mut b, token_b) = hello(&server.url, "bob").await;
    let clock = json!({"initial_ms": 60000, "increment_ms": 0});
    send(
        &mut a,
        json!({"type": "seek", "variant": "classic", "clock": clock}),
    )
    .await;
    let ServerMessage::Seeking { .. } = next(&mut a).await else {
        panic!()
    };
    send(
        &mut b,
        json!({"type": "seek", "variant": "classic", "clock": clock}),
    )
    .await;
    let ServerMessage::Seeking { .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(_) = next(&mut b).await else {
        panic!()
    };
    let game = state.game.0;
    let (mut x, o, o_token) = if state.you == Some(Mark::X) {
        (a, b, token_b)
    } else {
        (b, a, token_a)
    };
    let mut o = o;
    send(&mut x, json!({"type": "move", "game": game, "cell": 4})).await;
    let ServerMessage::Moved { .. } = next(&mut x).await else {
        panic!()
    };
    let ServerMessage::Moved { clocks, .. } = next(&mut o).await else {
        panic!()
    };
    let before = clocks.unwrap();
    assert_eq!(before.running, Some(Mark::O));
    // O drops on its move and stays away for a while.
    drop(o);
    let ServerMessage::Presence {
        connected: false, ..
    } = next(&mut x).await
    else {
        panic!()
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;
    o = connect(&server.url).await;
    send(
        &mut o,
        json!({"type": "hello", "protocol": 1, "name": "o", "token": o_token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut o).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut o).await else {
        panic!()
    };
    let after = state.clocks.unwrap();
    // The time away was not charged: only the moment before the drop was noticed.
    assert!(
        before.o_ms - after.o_ms < 1_000,
        "{before:?} then {after:?}"
    );
    assert_eq!(
        after.running,
        Some(Mark::O),
        "the clock runs again once O is told"
    );
    assert_eq!(after.x_ms, before.x_ms);
}

#[tokio::test]
async fn hostile_frames_get_errors_and_the_connection_goes_on() {
    let server = start(quiet()).await;
    let (mut ws, _) = hello(&server.url, "mallory").await;
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
        "{\"type\": \"hello\", \"protocol\": 1, \"name\": \"again\"}",
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
async fn one_player_cannot_fill_the_server() {
    let server = start(Config {
        war_move_delay: Duration::from_secs(3600),
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url, "greedy").await;
    for id in 0..4 {
        send(
            &mut ws,
            json!({"type": "create_room", "id": id, "variant": "four", "private": true}),
        )
        .await;
        let (value, _) = recv(&mut ws).await.unwrap();
        let expected = if id < 3 { "room_created" } else { "error" };
        assert_eq!(value["type"], expected, "{value}");
    }
    let (value, _) = recv_error_after(
        &mut ws,
        json!({"type": "create_room", "id": 9, "variant": "four"}),
    )
    .await;
    assert_eq!(value["code"], "limit_reached");
    for id in 10..16 {
        send(&mut ws, json!({"type": "start_war", "id": id, "variant": "classic", "x_level": "easy", "o_level": "easy"})).await;
        let (value, _) = recv(&mut ws).await.unwrap();
        if id < 15 {
            assert_eq!(value["type"], "game_state", "{value}");
        } else {
            assert_eq!(value["code"], "limit_reached", "{value}");
        }
    }
}

async fn recv_error_after(ws: &mut Socket, request: Value) -> (Value, ServerFrame) {
    send(ws, request).await;
    loop {
        let (value, frame) = recv(ws).await.unwrap();
        if value["type"] == "error" {
            return (value, frame);
        }
    }
}

#[tokio::test]
async fn a_game_that_ended_while_away_is_shown_on_return() {
    let mut config = quiet();
    config.grace = Duration::from_secs(30);
    let server = start(config).await;
    let (mut a, token_a) = hello(&server.url, "ada").await;
    let (mut b, token_b) = hello(&server.url, "bob").await;
    send(&mut a, json!({"type": "seek", "variant": "classic"})).await;
    let ServerMessage::Seeking { .. } = next(&mut a).await else {
        panic!()
    };
    send(&mut b, json!({"type": "seek", "variant": "classic"})).await;
    let ServerMessage::Seeking { .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(state) = next(&mut a).await else {
        panic!()
    };
    let ServerMessage::GameState(_) = next(&mut b).await else {
        panic!()
    };
    let game = state.game;
    // Bob drops; Ada resigns meanwhile; Bob comes back to the final position.
    let (_ada, bob_token) = (token_a, token_b);
    drop(b);
    let ServerMessage::Presence {
        connected: false, ..
    } = next(&mut a).await
    else {
        panic!()
    };
    send(&mut a, json!({"type": "resign", "id": 1, "game": game.0})).await;
    let ServerMessage::GameOver { .. } = next(&mut a).await else {
        panic!()
    };
    let mut b = connect(&server.url).await;
    send(
        &mut b,
        json!({"type": "hello", "protocol": 1, "name": "bob", "token": bob_token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut b).await else {
        panic!()
    };
    let ServerMessage::GameState(last) = next(&mut b).await else {
        panic!()
    };
    assert_eq!(last.game, game);
    let result = last.result.expect("the final snapshot has the result");
    assert_eq!(result.reason, noughts_protocol::EndReason::Resign);
    assert_eq!(last.to_move, None);
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_closes_with_1007() {
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let server = start(quiet()).await;
    let (mut ws, _) = hello(&server.url, "ada").await;
    let frame = Frame::message(vec![0xff, 0xfe, 0x7b], OpCode::Data(Data::Text), true);
    ws.send(Message::Frame(frame)).await.unwrap();
    assert_eq!(recv(&mut ws).await.unwrap_err(), Some(1007));
}

#[tokio::test]
async fn finished_games_do_not_count_against_the_game_cap() {
    let server = start(Config {
        max_games: 1,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url, "ada").await;
    for round in 0..3 {
        send(&mut ws, json!({"type": "play_ai", "id": round, "variant": "classic", "level": "easy", "side": "x"})).await;
        let ServerMessage::GameState(state) = next(&mut ws).await else {
            panic!("round {round}")
        };
        if round == 0 {
            let (mut other, _) = hello(&server.url, "bob").await;
            send(
                &mut other,
                json!({"type": "play_ai", "id": 1, "variant": "classic", "level": "easy"}),
            )
            .await;
            let (value, _) = recv(&mut other).await.unwrap();
            assert_eq!(value["code"], "server_full");
        }
        send(&mut ws, json!({"type": "resign", "game": state.game.0})).await;
        let ServerMessage::GameOver { .. } = next(&mut ws).await else {
            panic!()
        };
    }
}

#[tokio::test]
async fn resuming_on_a_second_connection_retires_the_first() {
    let server = start(quiet()).await;
    let (mut first, token) = hello(&server.url, "ada").await;
    let mut second = connect(&server.url).await;
    send(
        &mut second,
        json!({"type": "hello", "id": 1, "protocol": 1, "name": "ada", "token": token}),
    )
    .await;
    let ServerMessage::Welcome { resumed: true, .. } = next(&mut second).await else {
        panic!()
    };
    assert_eq!(recv(&mut first).await.unwrap_err(), Some(1000));
    send(&mut second, json!({"type": "ping", "id": 2})).await;
    assert!(matches!(next(&mut second).await, ServerMessage::Pong));
}

#[tokio::test]
async fn the_ai_accepts_a_rematch_at_once_with_sides_swapped() {
    let server = start(quiet()).await;
    let (mut ws, _) = hello(&server.url, "ada").await;
    send(
        &mut ws,
        json!({"type": "play_ai", "id": 1, "variant": "four", "level": "medium", "side": "o"}),
    )
    .await;
    let ServerMessage::GameState(state) = next(&mut ws).await else {
        panic!()
    };
    assert_eq!(state.you, Some(Mark::O));
    send(
        &mut ws,
        json!({"type": "rematch", "id": 2, "game": state.game.0}),
    )
    .await;
    let (value, _) = recv_error_after(&mut ws, json!({"type": "ping"})).await;
    assert_eq!(
        (value["id"].as_u64(), value["code"].as_str()),
        (Some(2), Some("game_not_over"))
    );
    send(
        &mut ws,
        json!({"type": "resign", "id": 3, "game": state.game.0}),
    )
    .await;
    loop {
        let (value, _) = recv(&mut ws).await.unwrap();
        if value["type"] == "game_over" {
            assert_eq!(value["id"], 3);
            break;
        }
    }
    send(
        &mut ws,
        json!({"type": "rematch", "id": 4, "game": state.game.0}),
    )
    .await;
    let (value, frame) = recv(&mut ws).await.unwrap();
    assert_eq!(value["id"], 4);
    let ServerMessage::GameState(again) = frame.message else {
        panic!("{value}")
    };
    assert_eq!(again.you, Some(Mark::X));
    assert_eq!(again.rematch_of, Some(state.game));
    assert_eq!(again.o.level, Some(noughts_protocol::Level::Medium));
}

#[tokio::test]
async fn rooms_close_and_seeks_cancel_only_once() {
    let server = start(quiet()).await;
    let (mut ws, _) = hello(&server.url, "ada").await;
    send(
        &mut ws,
        json!({"type": "create_room", "id": 1, "variant": "classic", "private": false}),
    )
    .await;
    let ServerMessage::RoomCreated { code, .. } = next(&mut ws).await else {
        panic!()
    };
    let (mut other, _) = hello(&server.url, "bob").await;
    send(
        &mut other,
        json!({"type": "close_room", "id": 1, "code": code}),
    )
    .await;
    let (value, _) = recv(&mut other).await.unwrap();
    assert_eq!(value["code"], "no_such_room", "only the host closes a room");
    send(
        &mut ws,
        json!({"type": "close_room", "id": 2, "code": code}),
    )
    .await;
    assert_eq!(
        recv(&mut ws).await.unwrap().0,
        json!({"type": "ok", "id": 2})
    );
    send(
        &mut other,
        json!({"type": "join_room", "id": 2, "code": code}),
    )
    .await;
    let (value, _) = recv(&mut other).await.unwrap();
    assert_eq!(value["code"], "no_such_room");
    send(&mut ws, json!({"type": "subscribe_lobby", "id": 3})).await;
    let ServerMessage::Lobby { rooms, .. } = next(&mut ws).await else {
        panic!()
    };
    assert!(rooms.is_empty());
    send(&mut ws, json!({"type": "unsubscribe_lobby", "id": 4})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap().0,
        json!({"type": "ok", "id": 4})
    );
    send(&mut ws, json!({"type": "seek", "id": 5, "variant": "cube"})).await;
    assert!(matches!(next(&mut ws).await, ServerMessage::Seeking { .. }));
    send(&mut ws, json!({"type": "cancel_seek", "id": 6})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap().0,
        json!({"type": "ok", "id": 6})
    );
    send(&mut ws, json!({"type": "cancel_seek", "id": 7})).await;
    assert_eq!(recv(&mut ws).await.unwrap().0["code"], "not_seeking");
}
