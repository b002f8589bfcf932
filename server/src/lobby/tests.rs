//! The lobby's gathering, bounds and paging, on a paused clock.

use std::sync::Arc;

use noughts_protocol::{LIST_GAMES_MAX, PlayerId, SeatInfo, ServerFrame, Variant};

use super::*;
use crate::net::outbound::{Inbox, Queued, channel};

fn room(code: &str) -> RoomInfo {
    RoomInfo {
        code: code.to_owned(),
        variant: Variant::Classic,
        clock: None,
        host: "ada".to_owned(),
        player: None,
        rated: false,
        guest: false,
        bot: false,
    }
}

fn seat(name: &str, player: u64, rating: u32) -> SeatInfo {
    SeatInfo {
        name: name.to_owned(),
        player: Some(PlayerId(player)),
        level: None,
        connected: true,
        rating: Some(rating),
        guest: false,
        bot: false,
    }
}

fn game(id: u64, moves: u32, watchers: u32) -> GameInfo {
    GameInfo {
        game: GameId(id),
        variant: Variant::Classic,
        kind: GameKind::Human,
        x: seat("a player with a long name", id * 2, 1500),
        o: seat("another long name here", id * 2 + 1, 1500),
        moves,
        board: String::new(),
        watchers,
        clock: None,
        rated: false,
    }
}

fn war(id: u64, variant: Variant) -> GameInfo {
    GameInfo {
        kind: GameKind::War,
        variant,
        ..game(id, 0, 0)
    }
}

fn next(inbox: &mut Inbox) -> Option<ServerMessage> {
    let Ok(Queued::Frame(frame)) = inbox.frames.try_recv() else {
        return None;
    };
    Some(
        serde_json::from_str::<ServerFrame>(frame.as_str())
            .unwrap()
            .message,
    )
}

fn follower(lobby: &Lobby) -> (Outbound, Inbox) {
    let (out, inbox) = channel(64, Arc::default(), None);
    lobby.subscribe(out.clone(), Some(RequestId::Number(1)));
    (out, inbox)
}

fn update(message: Option<ServerMessage>) -> LobbyUpdate {
    match message {
        Some(ServerMessage::LobbyUpdate(update)) => *update,
        other => panic!("a lobby update, not {other:?}"),
    }
}

/// Runs the sender on the paused clock for `time`, as the server runs it.
async fn run_for(lobby: &Arc<Lobby>, time: Duration) {
    let stop = CancellationToken::new();
    let sender = lobby.clone();
    let stopped = stop.clone();
    let task = tokio::spawn(async move {
        sender
            .keep_sending(
                || Totals {
                    online: 3,
                    games: 2,
                },
                stopped,
            )
            .await;
    });
    tokio::time::sleep(time).await;
    stop.cancel();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_follower_gets_the_snapshot_then_rooms_at_once_and_games_gathered() {
    let lobby = Arc::new(Lobby::default());
    lobby.add_room(room("AAAA-AAAA-AA"));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let (out, mut inbox) = follower(&lobby);
    let Some(ServerMessage::Lobby { rooms, totals, .. }) = next(&mut inbox) else {
        panic!("the snapshot first");
    };
    assert_eq!((rooms.len(), totals.online), (1, 3));

    lobby.add_room(room("BBBB-BBBB-BB"));
    for moves in 0..20 {
        lobby.update_game(game(7, moves, 0));
    }
    run_for(&lobby, Duration::from_millis(10)).await;
    let first = update(next(&mut inbox));
    assert_eq!(first.rooms.len(), 1, "the room went out at once: {first:?}");
    assert!(first.games.is_empty(), "games wait for their second");
    assert!(next(&mut inbox).is_none());

    run_for(&lobby, Duration::from_millis(1500)).await;
    let second = update(next(&mut inbox));
    assert_eq!(second.games.len(), 1, "twenty moves, one entry: {second:?}");
    assert_eq!(second.games[0].moves, 19);
    assert!(next(&mut inbox).is_none(), "nothing more changed");

    lobby.unsubscribe(out.conn);
    lobby.add_room(room("CCCC-CCCC-CC"));
    run_for(&lobby, Duration::from_millis(1500)).await;
    assert!(next(&mut inbox).is_none(), "nothing after unsubscribing");
}

/// Gathers the frames `inbox` receives while a room opens every 50 ms for three seconds (with a
/// seek that comes and goes at once at 1.55 s) and for four seconds after.
async fn frames_under_churn(lobby: &Arc<Lobby>, inbox: &mut Inbox) -> Vec<(Instant, LobbyUpdate)> {
    let sender = lobby.clone();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let task = tokio::spawn(async move {
        sender.keep_sending(Totals::default, stopped).await;
    });
    let mut frames = Vec::new();
    for step in 0..140u64 {
        if step < 60 {
            lobby.add_room(room(&format!("ROOM-{step:04}-AA")));
        }
        if step == 31 {
            lobby.add_seek(seek(5));
            lobby.remove_seek(SeekId(5));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        while let Some(message) = next(inbox) {
            frames.push((Instant::now(), update(Some(message))));
        }
    }
    stop.cancel();
    task.await.unwrap();
    let rooms: usize = frames.iter().map(|(_, update)| update.rooms.len()).sum();
    assert_eq!(rooms, 60, "every room told once");
    frames
}

#[tokio::test(start_paused = true)]
async fn frames_keep_their_spacing_and_a_seek_come_and_gone_is_never_told() {
    let lobby = Arc::new(Lobby::default());
    let (_out, mut inbox) = follower(&lobby);
    assert!(matches!(
        next(&mut inbox),
        Some(ServerMessage::Lobby { .. })
    ));
    let frames = frames_under_churn(&lobby, &mut inbox).await;
    assert!(
        frames.len() <= 61,
        "{} frames in three seconds",
        frames.len()
    );
    for pair in frames.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= URGENT_SPACING, "frames too close");
    }
    assert!(
        frames
            .iter()
            .all(|(_, update)| update.seeks.is_empty() && update.seeks_removed.is_empty()),
        "a seek gone before the next frame is never told"
    );
}

#[tokio::test(start_paused = true)]
async fn with_more_followers_than_the_budget_allows_frames_come_further_apart() {
    // 100 sends a second among 200 followers: a frame every two seconds at most.
    let lobby = Arc::new(Lobby::new(100));
    let mut followers: Vec<(Outbound, Inbox)> = (0..200).map(|_| follower(&lobby)).collect();
    for (_, inbox) in &mut followers {
        assert!(matches!(next(inbox), Some(ServerMessage::Lobby { .. })));
    }
    let (_, watched) = followers.last_mut().unwrap();
    let frames = frames_under_churn(&lobby, watched).await;
    assert!(
        frames.len() <= 3,
        "{} frames in seven seconds",
        frames.len()
    );
    for pair in frames.windows(2) {
        assert!(
            pair[1].0 - pair[0].0 >= Duration::from_secs(2),
            "frames too close for the budget"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_frame_to_many_is_spread_over_a_quarter_of_the_budget() {
    // 100 sends a second: 200 followers, two seconds of the budget, get one frame over half a
    // second, 32 at a time (the next frame waits out the rest).
    let lobby = Arc::new(Lobby::new(100));
    let mut followers: Vec<(Outbound, Inbox)> = (0..200).map(|_| follower(&lobby)).collect();
    for (_, inbox) in &mut followers {
        assert!(matches!(next(inbox), Some(ServerMessage::Lobby { .. })));
    }
    let sender = lobby.clone();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let task = tokio::spawn(async move {
        sender.keep_sending(Totals::default, stopped).await;
    });
    lobby.add_room(room("AAAA-AAAA-AA"));
    let start = Instant::now();
    let mut arrived = vec![None; followers.len()];
    while arrived.iter().any(Option::is_none) && start.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        for ((_, inbox), at) in followers.iter_mut().zip(&mut arrived) {
            if next(inbox).is_some() {
                *at = Some(start.elapsed());
            }
        }
    }
    stop.cancel();
    task.await.unwrap();
    let arrived: Vec<Duration> = arrived.into_iter().map(Option::unwrap).collect();
    let at_once = arrived.iter().filter(|at| **at < Duration::from_millis(50));
    assert_eq!(at_once.count(), PACED_SLICE, "one slice at once");
    let last = arrived.iter().max().unwrap();
    assert!(
        *last >= Duration::from_millis(450) && *last < Duration::from_millis(700),
        "the last after {last:?}"
    );
}

fn seek(id: u64) -> SeekInfo {
    SeekInfo {
        seek: SeekId(id),
        player: PlayerId(id),
        name: "eve".to_owned(),
        rating: 1500,
        variant: Variant::Classic,
        clock: None,
        rated: false,
        guest: false,
        bot: false,
        bots: false,
    }
}

#[tokio::test(start_paused = true)]
async fn war_games_players_start_are_featured_at_most_beside_one_war_game_per_variant() {
    let lobby = Arc::new(Lobby::default());
    // The server's own classic war game, then two hundred players started, one watched.
    lobby.update_game(war(1, Variant::Classic));
    for id in 2..202 {
        lobby.update_game(GameInfo {
            watchers: u32::from(id == 150),
            ..war(id, Variant::Classic)
        });
    }
    lobby.update_game(war(300, Variant::Cube));
    lobby.update_game(game(400, 1, 0));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let (_out, mut inbox) = follower(&lobby);
    let Some(ServerMessage::Lobby { games, .. }) = next(&mut inbox) else {
        panic!("the snapshot");
    };
    let ids: Vec<u64> = games.iter().map(|game| game.game.0).collect();
    // The oldest war game of each variant, by variant; then the featured by rank: the watched
    // war game first, then the newest.
    assert_eq!(ids[..3], [1, 300, 150]);
    assert_eq!(ids[3], 400);
    assert_eq!(games.len(), 2 + LOBBY_FEATURED);
}

#[tokio::test(start_paused = true)]
async fn ten_thousand_games_make_a_small_snapshot_and_a_move_in_one_not_shown_tells_nobody() {
    let lobby = Arc::new(Lobby::default());
    for variant in Variant::ALL {
        lobby.update_game(war(u64::from(variant as u8) + 1, variant));
    }
    for id in 100..10_100 {
        lobby.update_game(game(id, 1, u32::from(id % 97 == 0)));
    }
    for id in 0..200 {
        lobby.add_seek(seek(id));
        lobby.add_room(room(&format!("ROOM-{id:04}-AA")));
    }
    run_for(&lobby, Duration::from_millis(1100)).await;
    let (_out, mut inbox) = follower(&lobby);
    let snapshot = next(&mut inbox).expect("the snapshot");
    let bytes = serde_json::to_string(&snapshot).unwrap().len();
    assert!(bytes <= 32 * 1024, "the snapshot is {bytes} bytes");
    let ServerMessage::Lobby {
        games,
        seeks,
        seeks_total,
        rooms_total,
        ..
    } = snapshot
    else {
        panic!("the snapshot");
    };
    assert_eq!(games.len(), Variant::ALL.len() + LOBBY_FEATURED);
    assert!(
        games[Variant::ALL.len()..]
            .iter()
            .all(|game| game.watchers == 1)
    );
    assert_eq!(
        (seeks.len(), seeks_total, rooms_total),
        (LOBBY_SEEKS, 200, 200)
    );
    assert_eq!(
        seeks.last().map(|seek| seek.seek),
        Some(SeekId(199)),
        "the newest"
    );

    // A move in a game that is not featured: no frame at all, second after second.
    lobby.update_game(game(101, 2, 0));
    run_for(&lobby, Duration::from_secs(3)).await;
    assert!(next(&mut inbox).is_none(), "a move nobody is shown told");
    // One that is featured: in the next second's frame.
    lobby.update_game(game(10_088, 2, 1));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let told = update(next(&mut inbox));
    assert_eq!(
        told.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [GameId(10_088)]
    );

    // Paging returns every listed game exactly once.
    let mut seen = BTreeSet::new();
    let mut after = None;
    loop {
        let (page, next_page) = lobby.page(None, after, LIST_GAMES_MAX as usize);
        assert!(page.len() <= LIST_GAMES_MAX as usize);
        for game in page {
            assert!(seen.insert(game.game), "{:?} twice", game.game);
        }
        match next_page {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
    }
    assert_eq!(seen.len(), 10_000 + Variant::ALL.len());
    let (qubic, _) = lobby.page(Some(Variant::Qubic), None, 10);
    assert_eq!(qubic.len(), 1, "the filter keeps one variant");
}

#[tokio::test(start_paused = true)]
async fn a_game_that_stops_being_featured_is_removed_and_its_replacement_added() {
    let lobby = Arc::new(Lobby::default());
    for id in 1..=u64::try_from(LOBBY_FEATURED).unwrap() + 1 {
        lobby.update_game(game(id, 0, 1));
    }
    lobby.update_game(game(1, 0, 0));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let (_out, mut inbox) = follower(&lobby);
    let Some(ServerMessage::Lobby { games, .. }) = next(&mut inbox) else {
        panic!("the snapshot");
    };
    assert!(!games.iter().any(|game| game.game == GameId(1)));
    lobby.update_game(game(1, 0, 5));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let told = update(next(&mut inbox));
    assert_eq!(
        told.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [GameId(1)]
    );
    assert_eq!(
        told.games_removed,
        [GameId(2)],
        "the lowest ranked makes way"
    );
    lobby.remove_game(GameId(1));
    run_for(&lobby, Duration::from_millis(1100)).await;
    let told = update(next(&mut inbox));
    assert_eq!(told.games_removed, [GameId(1)]);
    assert_eq!(
        told.games.iter().map(|g| g.game).collect::<Vec<_>>(),
        [GameId(2)]
    );
}

#[tokio::test(start_paused = true)]
async fn a_newcomer_is_not_offered_a_featured_game_that_ended_since_the_last_frame() {
    let lobby = Arc::new(Lobby::default());
    for id in 1..=3 {
        lobby.update_game(game(id, 0, 1));
    }
    let (_first, mut first_inbox) = follower(&lobby);
    run_for(&lobby, Duration::from_millis(1100)).await;
    lobby.remove_game(GameId(2));
    lobby.update_game(game(3, 4, 1));
    let (_out, mut inbox) = follower(&lobby);
    let Some(ServerMessage::Lobby { games, .. }) = next(&mut inbox) else {
        panic!("the snapshot");
    };
    let shown: Vec<(GameId, u32)> = games.iter().map(|g| (g.game, g.moves)).collect();
    assert_eq!(shown, [(GameId(3), 4), (GameId(1), 0)], "as they stand");
    while next(&mut first_inbox).is_some() {}
    run_for(&lobby, Duration::from_millis(1100)).await;
    let told = update(next(&mut inbox));
    assert_eq!(told.games_removed, [GameId(2)], "harmless to the newcomer");
    assert_eq!(update(next(&mut first_inbox)), told, "one frame for all");
}

#[test]
fn a_remote_removal_of_a_game_played_here_leaves_its_listing_and_its_end_goes_out() {
    let lobby = Lobby::default();
    let (relay, mut relayed) = mpsc::unbounded_channel();
    lobby.relay_to(relay);
    let listed = |lobby: &Lobby| {
        let (games, _) = lobby.page(None, None, 10);
        games.iter().map(|g| g.game).collect::<Vec<_>>()
    };
    // Another node's game: its changes are applied.
    lobby.apply_remote(&Change::Game {
        game: war(7, Variant::Four),
    });
    assert_eq!(listed(&lobby), [GameId(7)]);
    lobby.apply_remote(&Change::GameRemoved { game: GameId(7) });
    assert!(listed(&lobby).is_empty());
    // A war game this node carries on, whose dead holder's listing is swept meanwhile.
    lobby.update_game(war(16_002, Variant::Cube));
    assert!(matches!(relayed.try_recv(), Ok(Change::Game { .. })));
    lobby.apply_remote(&Change::GameRemoved {
        game: GameId(16_002),
    });
    assert_eq!(listed(&lobby), [GameId(16_002)], "still played here");
    lobby.remove_game(GameId(16_002));
    assert!(listed(&lobby).is_empty());
    assert!(
        matches!(
            relayed.try_recv(),
            Ok(Change::GameRemoved { game }) if game == GameId(16_002)
        ),
        "its end reaches the cluster"
    );
    // Once it ended here, another node's listing of it is applied again.
    lobby.apply_remote(&Change::Game {
        game: war(16_002, Variant::Cube),
    });
    assert_eq!(listed(&lobby), [GameId(16_002)]);
}
