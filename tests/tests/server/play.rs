//! Playing: quick match, rooms and codes, watching and chat, AI rematches, per-player limits.

use std::time::Duration;

use noughts_protocol::{Mark, ServerMessage};
use noughts_server::Config;
use serde_json::json;

use noughts_tests::TestServer;
use noughts_tests::raw::*;

#[tokio::test]
async fn quick_match_to_a_win() {
    let server = TestServer::start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url()).await;
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
async fn watchers_chat_cleanly_and_cannot_move() {
    let server = TestServer::start(quiet()).await;
    let (mut x, mut o, game) = matched(&server.url()).await;
    let (mut eve, _) = hello(&server.url(), "eve").await;
    send(&mut eve, json!({"type": "watch", "id": 1, "game": game.0})).await;
    let ServerMessage::GameState(state) = next(&mut eve).await else {
        panic!()
    };
    assert_eq!((state.watchers, state.you), (1, None));
    for ws in [&mut x, &mut o, &mut eve] {
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
    assert!(
        value["player"].is_u64(),
        "a chat line names its speaker: {value}"
    );
    assert_eq!(
        value,
        json!({"type": "chat", "id": 3, "game": game.0, "seq": 2, "from": "eve", "player": value["player"], "text": "hi there", "guest": true})
    );
    // The spectators' chat stays with the watchers; the players' chat reaches everyone.
    send(
        &mut x,
        json!({"type": "chat", "id": 4, "game": game.0, "text": "good luck"}),
    )
    .await;
    for ws in [&mut x, &mut o, &mut eve] {
        let ServerMessage::Chat { line, seq, .. } = next(ws).await else {
            panic!("the players' line, and not the spectator's before it")
        };
        assert_eq!(
            (line.text.as_str(), line.mark, seq),
            ("good luck", Some(Mark::X), 3)
        );
    }
    // Snapshots likewise: a player's leaves the spectators' chat out, a watcher's has both.
    for (ws, lines) in [(&mut x, 1), (&mut eve, 2)] {
        send(ws, json!({"type": "watch", "id": 5, "game": game.0})).await;
        let ServerMessage::GameState(state) = next(ws).await else {
            panic!()
        };
        assert_eq!(state.chat.len(), lines, "{:?}", state.chat);
    }
    send(
        &mut o,
        json!({"type": "chat", "game": game.0, "text": "   "}),
    )
    .await;
    let (value, _) = recv(&mut o).await.unwrap();
    assert_eq!(value["code"], "bad_chat");
}

#[tokio::test]
async fn invite_codes_read_aloud_join_the_room() {
    let server = TestServer::start(quiet()).await;
    let (mut host, _) = hello(&server.url(), "host").await;
    send(
        &mut host,
        json!({"type": "create_room", "id": 1, "variant": "cube", "private": false}),
    )
    .await;
    let ServerMessage::RoomCreated { code, .. } = next(&mut host).await else {
        panic!()
    };
    assert_eq!(code.len(), 12);
    let (mut lurker, _) = hello(&server.url(), "lurker").await;
    send(&mut lurker, json!({"type": "subscribe_lobby"})).await;
    let ServerMessage::Lobby { rooms, .. } = next(&mut lurker).await else {
        panic!()
    };
    assert_eq!(rooms.len(), 1);
    let (mut guest, _) = hello(&server.url(), "guest").await;
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
    // The lobby drops the room and, within its second, shows the game.
    let (mut room_gone, mut game_shown) = (false, false);
    while !(room_gone && game_shown) {
        if let ServerMessage::LobbyUpdate(update) = next(&mut lurker).await {
            room_gone |= update.rooms_removed == [code.clone()];
            game_shown |= update.games.iter().any(|game| game.game == state.game);
        }
    }
}

#[tokio::test]
async fn one_player_cannot_fill_the_server() {
    let server = TestServer::start(Config {
        war_move_delay: Duration::from_secs(3600),
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url(), "greedy").await;
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

#[tokio::test]
async fn finished_games_do_not_count_against_the_game_cap() {
    let server = TestServer::start(Config {
        max_games: 1,
        ..quiet()
    })
    .await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    for round in 0..3 {
        send(&mut ws, json!({"type": "play_ai", "id": round, "variant": "classic", "level": "easy", "side": "x"})).await;
        let ServerMessage::GameState(state) = next(&mut ws).await else {
            panic!("round {round}")
        };
        if round == 0 {
            let (mut other, _) = hello(&server.url(), "bob").await;
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
async fn the_ai_accepts_a_rematch_at_once_with_sides_swapped() {
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
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
    let server = TestServer::start(quiet()).await;
    let (mut ws, _) = hello(&server.url(), "ada").await;
    send(
        &mut ws,
        json!({"type": "create_room", "id": 1, "variant": "classic", "private": false}),
    )
    .await;
    let ServerMessage::RoomCreated { code, .. } = next(&mut ws).await else {
        panic!()
    };
    let (mut other, _) = hello(&server.url(), "bob").await;
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
