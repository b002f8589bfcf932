//! A whole short arena on a real server, on a SQLite file and on PostgreSQL: eight accounts join
//! before it starts; the first round is all quick draws (one move each, then a draw agreed:
//! nothing scored); from then on the weaker of each pair (by a fixed order) resigns at once, so
//! the strongest wins in a row and goes on fire; one player withdraws for a while and comes back
//! with their score. Every player keeps their own log of results and works out the points by the
//! rules on their own; the server's final standings must agree, nobody meets the same opponent
//! twice in a row, and the podium ends up on the winners' profiles. Then an arena outlives its
//! server's restart with the games it counted.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use noughts_protocol::{
    ArenaId, ArenaLine, ArenaStatus, ArenaView, ClientFrame, ClientMessage, ClockSpec, CreateArena,
    ErrorCode, GameId, ListArenas, Mark, OfferKind, PlayerId, RequestId, ServerMessage, Variant,
};
use noughts_tests::accounts::make_account;
use noughts_tests::on_both_stores;
use noughts_tests::stores::Db;
use noughts_tests::{Client, TestServer, send_frame};

on_both_stores!(a_whole_short_arena, an_arena_outlives_a_restart);

const PLAYERS: usize = 8;
/// The player who withdraws after two games and comes back.
const LEAVER: usize = 5;
const LENGTH_SECS: u32 = 12;

/// How one finished game went for one player.
#[derive(Debug, Clone)]
struct Played {
    game: GameId,
    opponent: PlayerId,
    won: Option<bool>,
    moves: u32,
}

/// The points of a player's games by the arena's rules, worked out here: 2 a win, 1 a draw, 0 a
/// loss, doubled after two wins in a row; a draw of fewer than 8 moves scores nothing.
fn points(games: &[Played]) -> (u32, u32) {
    let (mut score, mut streak, mut doubled) = (0, 0, 0);
    for game in games {
        let fire = if streak >= 2 { 2 } else { 1 };
        match game.won {
            Some(true) => {
                score += 2 * fire;
                doubled += u32::from(fire == 2);
                streak += 1;
            }
            Some(false) => streak = 0,
            None => {
                score += if game.moves < 8 { 0 } else { fire };
                streak = 0;
            }
        }
    }
    (score, doubled)
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

async fn a_whole_short_arena(db: Db) {
    let Some(own) = db.fresh("a_whole_short_arena") else {
        return;
    };
    let config = noughts_server::Config {
        arena_min_secs: 1,
        ..own.config()
    };
    let server = TestServer::start(config).await;
    let url = server.url();
    let mut guest = Client::join(&url, "guest").await;
    let mut lobby = guest.follow_lobby(100).await;
    assert!(lobby.arenas.is_empty());
    let mut clients = Vec::new();
    for i in 0..PLAYERS {
        let mut client = Client::join(&url, &format!("arena{i}")).await;
        make_account(&mut client).await;
        clients.push(client);
    }
    let order: HashMap<PlayerId, usize> = clients
        .iter()
        .enumerate()
        .map(|(i, c)| (c.player, i))
        .collect();
    let request = CreateArena {
        name: Some("Test arena".to_owned()),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: Some(now_ms() + 2_500),
        length_secs: LENGTH_SECS,
        private: false,
        bots_only: false,
    };
    let guest_create = ClientMessage::CreateArena(request.clone());
    guest
        .expect_error(1, guest_create, ErrorCode::NotAnAccount)
        .await;
    let too_long = ClientMessage::CreateArena(CreateArena {
        length_secs: 10 * 86_400,
        ..request.clone()
    });
    clients[0]
        .expect_error(2, too_long, ErrorCode::BadArena)
        .await;
    let arena = match clients[0]
        .request(3, ClientMessage::CreateArena(request.clone()))
        .await
    {
        ServerMessage::ArenaCreated { info, code: None } => {
            assert_eq!(info.status, ArenaStatus::Upcoming);
            info.arena
        }
        other => panic!("expected arena_created, got {other:?}"),
    };
    // A private arena: never listed, followed only with its code (typed any way a code is).
    let private = CreateArena {
        private: true,
        start_ms: Some(now_ms() + 600_000),
        ..request.clone()
    };
    let (hidden, code) = match clients[1]
        .request(8, ClientMessage::CreateArena(private))
        .await
    {
        ServerMessage::ArenaCreated {
            info,
            code: Some(code),
        } => (info.arena, code),
        other => panic!("expected a private arena_created, got {other:?}"),
    };
    let follow = |code: Option<String>| ClientMessage::Arena {
        arena: hidden,
        code,
    };
    guest
        .expect_error(9, follow(None), ErrorCode::NoSuchArena)
        .await;
    let typed = code.replace('-', "").to_lowercase();
    match guest.request(10, follow(Some(typed))).await {
        ServerMessage::Arena(view) => assert!(view.info.private && view.me.is_none()),
        other => panic!("expected the arena, got {other:?}"),
    }
    match guest
        .request(4, ClientMessage::ListArenas(ListArenas::default()))
        .await
    {
        ServerMessage::ArenaList { arenas, next: None } => {
            assert_eq!(arenas.iter().map(|a| a.arena).collect::<Vec<_>>(), [arena]);
        }
        other => panic!("expected arena_list, got {other:?}"),
    }
    // The lobby lists it, upcoming, without a frame per game.
    let listed = |v: &noughts_tests::lobby::LobbyView| v.arenas.iter().any(|a| a.arena == arena);
    guest.lobby_until(&mut lobby, listed).await;
    let join = |arena| ClientMessage::JoinArena { arena, code: None };
    guest
        .expect_error(5, join(arena), ErrorCode::NotAnAccount)
        .await;
    guest
        .expect_error(6, join(ArenaId(arena.0 + 100)), ErrorCode::NoSuchArena)
        .await;
    for client in &mut clients {
        match client.request(7, join(arena)).await {
            ServerMessage::Arena(view) => assert!(view.me.is_some()),
            other => panic!("expected the arena, got {other:?}"),
        }
    }
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, client)| tokio::spawn(play(client, i, order.clone(), arena)))
        .collect();
    let mut logs = Vec::new();
    for task in tasks {
        logs.push(task.await.expect("a player's task"));
    }
    check(&logs, &order);
    // The lobby lists it no more.
    guest.lobby_until(&mut lobby, |v| v.arenas.is_empty()).await;
    // Every podium place is on its player's profile.
    let (client, _, last) = &mut logs[0];
    assert_eq!(last.podium.len(), 3);
    for (place, line) in last.podium.iter().enumerate() {
        let asked = ClientMessage::Profile {
            player: Some(line.player),
            username: None,
        };
        match client.request(900 + place as u64, asked).await {
            ServerMessage::Profile(profile) => {
                let on = profile.podiums.iter().find(|p| p.arena == arena);
                let on = on.expect("the podium on the profile");
                assert_eq!((on.place, on.score), (place as u32 + 1, line.score));
            }
            other => panic!("expected a profile, got {other:?}"),
        }
    }
}

/// The server's final standings agree with every player's own log.
fn check(logs: &[(Client, Vec<Played>, ArenaView)], order: &HashMap<PlayerId, usize>) {
    let last = &logs[0].2;
    assert_eq!(last.info.status, ArenaStatus::Finished);
    let lines: &Vec<ArenaLine> = &last.top;
    assert_eq!(lines.len(), PLAYERS);
    let mut counted = 0;
    for (client, games, _) in logs {
        let i = order[&client.player];
        let line = lines.iter().find(|l| l.player == client.player).unwrap();
        let (score, doubled) = points(games);
        assert_eq!(
            (line.score, line.games),
            (score, games.len() as u32),
            "player {i}: {games:?}"
        );
        let wins = games.iter().filter(|g| g.won == Some(true)).count();
        assert_eq!(line.wins as usize, wins);
        let first = &games[0];
        assert!(
            first.won.is_none() && first.moves == 2,
            "player {i}'s first game was a quick draw: {first:?}"
        );
        for pair in games.windows(2) {
            assert!(
                pair[0].game < pair[1].game,
                "player {i}: one game at a time"
            );
            assert_ne!(
                pair[0].opponent, pair[1].opponent,
                "player {i} met twice in a row"
            );
        }
        if i == 0 {
            assert!(doubled > 0, "the strongest went on fire: {games:?}");
        }
        counted += games.len();
    }
    assert_eq!(counted, 2 * last.totals.games as usize);
    let podium: Vec<PlayerId> = last.podium.iter().map(|l| l.player).collect();
    let leaders: Vec<PlayerId> = lines.iter().take(3).map(|l| l.player).collect();
    assert_eq!(podium, leaders);
    assert!(lines.windows(2).all(|w| w[0].score >= w[1].score));
}

/// Sends `message` with no reply awaited.
async fn send(client: &mut Client, id: u64, message: ClientMessage) {
    let frame = ClientFrame {
        id: Some(RequestId::Number(id)),
        message,
    };
    send_frame(&mut client.socket, &frame).await;
}

/// One player's part: plays every game the arena starts for them, by the rules above, until the
/// arena has finished; returns its log and the final standings (a page of every line).
async fn play(
    mut client: Client,
    me: usize,
    order: HashMap<PlayerId, usize>,
    arena: ArenaId,
) -> (Client, Vec<Played>, ArenaView) {
    let mut log: Vec<Played> = Vec::new();
    // The game being played: its id, my mark, the opponent, whether it is my first, moves seen.
    let mut current: Option<(GameId, Mark, PlayerId, bool, u32)> = None;
    let mut withdrawn: Option<tokio::time::Instant> = None;
    let mut started_while_away = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let finished = loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "player {me}: the arena never ended"
        );
        if let Some(since) = withdrawn
            && since.elapsed() > Duration::from_secs(2)
            && current.is_none()
        {
            let score = points(&log).0;
            withdrawn = None;
            match client
                .request(78, ClientMessage::JoinArena { arena, code: None })
                .await
            {
                ServerMessage::Arena(view) => {
                    let line = view.me.expect("my line");
                    assert_eq!(line.score, score, "a player who comes back keeps the score");
                    assert!(!line.withdrawn);
                }
                other => panic!("expected the arena, got {other:?}"),
            }
            assert!(started_while_away <= 1, "paired while withdrawn");
        }
        let Ok(frame) = tokio::time::timeout(Duration::from_millis(200), client.next()).await
        else {
            continue;
        };
        match frame.message {
            ServerMessage::GameState(state) if state.result.is_none() => {
                let (Some(mark), Some(x), Some(o)) = (state.you, state.x.player, state.o.player)
                else {
                    continue;
                };
                if current.is_some_and(|c| c.0 == state.game) {
                    continue;
                }
                let opponent = if mark == Mark::X { o } else { x };
                let first = log.is_empty();
                current = Some((state.game, mark, opponent, first, 0));
                started_while_away += u32::from(withdrawn.is_some());
                if first && mark == Mark::X {
                    let cell = ClientMessage::Move {
                        game: state.game,
                        cell: 0,
                    };
                    send(&mut client, 10, cell).await;
                } else if !first && me > order[&opponent] {
                    send(&mut client, 11, ClientMessage::Resign { game: state.game }).await;
                }
            }
            ServerMessage::Moved { game, mark, .. } => {
                let Some((id, mine, _, first, moves)) = current.as_mut() else {
                    continue;
                };
                if *id != game {
                    continue;
                }
                *moves += 1;
                if *first && mark == Mark::X && *mine == Mark::O {
                    send(&mut client, 12, ClientMessage::Move { game, cell: 4 }).await;
                } else if *first && mark == Mark::O && *mine == Mark::X {
                    send(&mut client, 13, ClientMessage::OfferDraw { game }).await;
                }
            }
            ServerMessage::Offered {
                game,
                by,
                offer: OfferKind::Draw,
                ..
            } if current.is_some_and(|c| c.0 == game && c.1 != by) => {
                send(&mut client, 14, ClientMessage::OfferDraw { game }).await;
            }
            ServerMessage::GameOver { game, result, .. } => {
                let Some((id, mine, opponent, _, moves)) = current.take_if(|c| c.0 == game) else {
                    continue;
                };
                log.push(Played {
                    game: id,
                    opponent,
                    won: result.winner.map(|w| w == mine),
                    moves,
                });
                if me == LEAVER && log.len() == 2 {
                    match client
                        .request(77, ClientMessage::WithdrawArena { arena })
                        .await
                    {
                        ServerMessage::Ok => {}
                        other => panic!("expected ok, got {other:?}"),
                    }
                    withdrawn = Some(tokio::time::Instant::now());
                }
            }
            ServerMessage::Arena(view) if view.info.status == ArenaStatus::Finished => {
                break *view;
            }
            ServerMessage::Error { code, message } => {
                panic!("player {me}: {code:?} {message} ({:?})", frame.id)
            }
            _ => {}
        }
    };
    let page = ClientMessage::ArenaPage { arena, offset: 0 };
    let lines = match client.request(79, page).await {
        ServerMessage::ArenaPage { lines, .. } => lines,
        other => panic!("expected arena_page, got {other:?}"),
    };
    let view = ArenaView {
        top: lines,
        ..finished
    };
    (client, log, view)
}

/// A server stopped mid-arena and started again on the same database carries the arena on: it is
/// listed, its counted game still counts, and its players are paired again.
async fn an_arena_outlives_a_restart(db: Db) {
    let Some(own) = db.fresh("an_arena_outlives_a_restart") else {
        return;
    };
    let config = || noughts_server::Config {
        arena_min_secs: 1,
        ..own.config()
    };
    let mut server = TestServer::start(config()).await;
    let url = server.url();
    let mut players = Vec::new();
    for name in ["ada", "bob"] {
        let mut client = Client::join(&url, name).await;
        make_account(&mut client).await;
        players.push(client);
    }
    let request = CreateArena {
        name: None,
        variant: Variant::Four,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 1_000,
        },
        start_ms: None,
        length_secs: 120,
        private: false,
        bots_only: false,
    };
    let arena = match players[0]
        .request(1, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    for client in &mut players {
        let joined = client.request(2, ClientMessage::JoinArena { arena, code: None });
        assert!(matches!(joined.await, ServerMessage::Arena(_)));
    }
    let state = players[1].game_state().await;
    players[1]
        .request(3, ClientMessage::Resign { game: state.game })
        .await;
    let counted = |m: &ServerMessage| matches!(m, ServerMessage::Arena(v) if v.totals.games == 1);
    players[0].until(counted).await;
    let tokens: Vec<(String, String)> = players
        .iter()
        .map(|c| (c.name.clone(), c.token.clone()))
        .collect();
    drop(players);
    server.shut_down().await.expect("a clean shutdown");
    let server = TestServer::start(config()).await;
    let url = server.url();
    let mut ada = Client::resume(&url, &tokens[0].0, &tokens[0].1).await;
    let listed = ada
        .request(4, ClientMessage::ListArenas(ListArenas::default()))
        .await;
    let ServerMessage::ArenaList { arenas, .. } = listed else {
        panic!("expected arena_list, got {listed:?}");
    };
    assert_eq!(arenas.iter().map(|a| a.arena).collect::<Vec<_>>(), [arena]);
    let view = match ada
        .request(5, ClientMessage::Arena { arena, code: None })
        .await
    {
        ServerMessage::Arena(view) => view,
        other => panic!("expected the arena, got {other:?}"),
    };
    assert_eq!(view.info.status, ArenaStatus::Running);
    assert_eq!(view.totals.games, 1);
    let scores: Vec<(u32, u32)> = view.top.iter().map(|l| (l.score, l.games)).collect();
    assert_eq!(scores, [(2, 1), (0, 1)], "{:?}", view.top);
    // Ada and Bob just met, so they wait for another opponent; Cy, joining now, is paired.
    let _bob = Client::resume(&url, &tokens[1].0, &tokens[1].1).await;
    let mut cy = Client::join(&url, "cy").await;
    make_account(&mut cy).await;
    let joined = cy.request(6, ClientMessage::JoinArena { arena, code: None });
    assert!(matches!(joined.await, ServerMessage::Arena(_)));
    let again = cy.game_state().await;
    assert!(again.game > state.game && again.rated);
    assert_eq!(again.clock.map(|c| c.increment_ms), Some(1_000));
}

/// A player is never paired with one they block (nor one who blocks them), as quick match
/// refuses them: of three equal players free at the start, the first two by id would meet, but
/// the first blocks the second, so the first meets the third and the second waits.
#[tokio::test]
async fn an_arena_never_pairs_a_player_with_one_they_block() {
    let server = TestServer::start(noughts_server::Config {
        arena_min_secs: 1,
        ..noughts_tests::test_config()
    })
    .await;
    let url = server.url();
    let mut players = Vec::new();
    for name in ["ada", "bob", "cy"] {
        let mut client = Client::join(&url, name).await;
        make_account(&mut client).await;
        players.push(client);
    }
    let bob = players[1].player;
    let block = ClientMessage::Block { player: bob };
    assert_eq!(players[0].request(1, block).await, ServerMessage::Ok);
    let request = CreateArena {
        name: None,
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        },
        start_ms: Some(now_ms() + 1_500),
        length_secs: 60,
        private: false,
        bots_only: false,
    };
    let arena = match players[0]
        .request(2, ClientMessage::CreateArena(request))
        .await
    {
        ServerMessage::ArenaCreated { info, .. } => info.arena,
        other => panic!("expected arena_created, got {other:?}"),
    };
    // All three join before it starts, so they are free together at its first pairing.
    for client in &mut players {
        let joined = client.request(3, ClientMessage::JoinArena { arena, code: None });
        assert!(matches!(joined.await, ServerMessage::Arena(_)));
    }
    let state = players[0].game_state().await;
    let seated = [state.x.player, state.o.player];
    assert!(
        seated.contains(&Some(players[2].player)) && !seated.contains(&Some(bob)),
        "ada meets cy, never bob: {seated:?}"
    );
    // Bob waits: his standings say he is not playing.
    match players[1]
        .request(4, ClientMessage::Arena { arena, code: None })
        .await
    {
        ServerMessage::Arena(view) => assert!(!view.me.expect("bob's line").playing),
        other => panic!("expected the arena, got {other:?}"),
    }
}
