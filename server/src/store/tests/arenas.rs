//! What every store keeps of an arena: the arena (one per schedule slot), its players' lines
//! written again as they change, each game counted once, and the podium kept for the profiles
//! once the arena is finished; which arenas not finished a player is in.

use noughts_protocol::{ArenaId, ClockSpec, EndReason, GameId, Mark, Variant};

use super::super::arenas::{ArenaGame, ArenaHold, Entrant, Place, StoredArena};
use super::super::backend::profile;
use super::super::{StoreError, TokenHash};
use super::Fresh;
use super::suite::{ADA, BOB, ending, people, start, with_players};

on_both_blocking!(an_arena_counts_each_game_once_and_keeps_its_podium);
on_both!(a_director_whose_arena_was_taken_since_writes_nothing);

fn arena(id: u64, slot: Option<&str>) -> StoredArena {
    StoredArena {
        id: ArenaId(id),
        name: "Hourly classic blitz".to_owned(),
        variant: Variant::Classic,
        clock: ClockSpec {
            initial_ms: 180_000,
            increment_ms: 2_000,
        },
        start_ms: 1_000,
        end_ms: 61_000,
        code: None,
        creator: None,
        slot: slot.map(str::to_owned),
        bots_only: false,
        finished_ms: None,
    }
}

fn line(player: noughts_protocol::PlayerId, joined_ms: u64) -> Entrant {
    Entrant {
        player,
        name: format!("p{}", player.0),
        score: 0,
        streak: 0,
        games: 0,
        wins: 0,
        draws: 0,
        withdrawn: false,
        joined_ms,
        last_opponent: None,
    }
}

fn an_arena_counts_each_game_once_and_keeps_its_podium(db: Fresh) {
    let mut db = db.backend();
    let db = &mut *db;
    db.add_player(ADA, "ada", TokenHash::of("ada"), 1_000)
        .unwrap();
    db.add_player(BOB, "bob", TokenHash::of("bob"), 1_000)
        .unwrap();
    assert!(db.add_arena(&arena(1, Some("hourly-1000"))).unwrap());
    assert!(
        !db.add_arena(&arena(2, Some("hourly-1000"))).unwrap(),
        "one arena a slot"
    );
    let private = StoredArena {
        code: Some("K7QW2M".to_owned()),
        creator: Some((ADA, "ada".to_owned())),
        ..arena(3, None)
    };
    assert!(db.add_arena(&private).unwrap());
    let (a, b) = (line(ADA, 5), line(BOB, 7));
    db.save_entrant(ArenaId(1), &a).unwrap();
    db.save_entrant(ArenaId(1), &b).unwrap();
    db.save_entrant(ArenaId(3), &line(BOB, 8)).unwrap();
    let joined = |db: &mut dyn super::super::backend::Backend, player| {
        let ids = db.arenas_joined(player).unwrap();
        ids.iter().map(|a| a.0).collect::<Vec<_>>()
    };
    assert_eq!(joined(db, ADA), [1]);
    assert_eq!(joined(db, BOB), [1, 3]);
    let game = ArenaGame {
        game: GameId(40),
        x: ADA,
        o: BOB,
        counted: false,
    };
    db.add_arena_game(ArenaId(1), &game).unwrap();
    assert!(db.count_arena_game(GameId(40)).unwrap());
    assert!(!db.count_arena_game(GameId(40)).unwrap(), "counted once");
    assert!(!db.count_arena_game(GameId(41)).unwrap(), "not an arena's");
    let won = Entrant {
        score: 2,
        streak: 1,
        games: 1,
        wins: 1,
        withdrawn: true,
        last_opponent: Some(BOB),
        ..a.clone()
    };
    db.save_entrant(ArenaId(1), &won).unwrap();
    assert_eq!(joined(db, ADA), [0; 0], "withdrawn, so not in it");
    assert_eq!(db.entrants(ArenaId(1)).unwrap(), [won, b]);
    assert_eq!(
        db.arena_games(ArenaId(1)).unwrap(),
        [ArenaGame {
            counted: true,
            ..game
        }]
    );
    let ids = |arenas: Vec<StoredArena>| arenas.iter().map(|a| a.id.0).collect::<Vec<_>>();
    assert_eq!(ids(db.unfinished_arenas().unwrap()), [1, 3]);
    assert_eq!(db.unfinished_arenas().unwrap()[1], private);
    let podium = [
        Place {
            place: 1,
            player: ADA,
            score: 2,
        },
        Place {
            place: 2,
            player: BOB,
            score: 0,
        },
    ];
    assert!(db.finish_arena(ArenaId(1), &podium, 70_000).unwrap());
    assert!(!db.finish_arena(ArenaId(1), &podium, 71_000).unwrap());
    assert_eq!(ids(db.unfinished_arenas().unwrap()), [3]);
    assert_eq!(joined(db, BOB), [3], "a finished arena is nobody's to mark");
    let shown = profile(db, BOB).unwrap().unwrap().podiums;
    assert_eq!(shown.len(), 1);
    assert_eq!(
        (shown[0].arena, shown[0].place, shown[0].ended_ms),
        (ArenaId(1), 2, 70_000)
    );
    assert_eq!(shown[0].name, "Hourly classic blitz");
}

/// A director that lost its arena (paused past its lease while another node took it, with a
/// higher epoch) has every write refused: no player joins or leaves, no game is paired, no
/// podium kept. The games' ends count whoever directs.
async fn a_director_whose_arena_was_taken_since_writes_nothing(db: Fresh) {
    let store = with_players(&db).await;
    let id = store.add_arena(arena(0, None)).await.unwrap().unwrap().id;
    let (epoch, lines, _) = store.take_arena(id).await.unwrap().unwrap();
    assert_eq!((epoch, lines.len()), (1, 0));
    let first = ArenaHold {
        arena: id,
        epoch: Some(1),
    };
    for player in [ADA, BOB] {
        store
            .enter_arena(first, player, format!("p{}", player.0))
            .await
            .unwrap();
    }
    // Another node takes the arena: it reads what the first director wrote.
    let (epoch, lines, _) = store.take_arena(id).await.unwrap().unwrap();
    assert_eq!((epoch, lines.len()), (2, 2));
    let second = ArenaHold {
        arena: id,
        epoch: Some(2),
    };
    let fenced = |result: Result<(), StoreError>| {
        assert!(
            matches!(result, Err(StoreError::FencedArena(a)) if a == id),
            "{result:?}"
        );
    };
    fenced(store.check_arena(first).await);
    let name = "p1".to_owned();
    fenced(store.enter_arena(first, ADA, name).await.map(drop));
    fenced(store.leave_arena(first, BOB).await.map(drop));
    fenced(
        store
            .start_arena_game(start(1, people(), true), first)
            .await,
    );
    fenced(store.void_arena_game(first, GameId(1)).await.map(drop));
    fenced(store.finish_arena(first, Vec::new()).await.map(drop));
    assert!(
        store.record(GameId(1), ADA).await.unwrap().is_none(),
        "never started"
    );
    // The second director pairs them; the game's end counts in the transaction storing it.
    store.check_arena(second).await.unwrap();
    store
        .start_arena_game(start(2, people(), true), second)
        .await
        .unwrap();
    let settled = store
        .end_game(GameId(2), ending(Some(Mark::X), EndReason::Resign))
        .await
        .unwrap();
    let (lines, games) = store.arena_state(id).await.unwrap();
    assert_eq!(
        settled.counted, lines,
        "the end gives back the lines it scored"
    );
    let again = store
        .end_game(GameId(2), ending(Some(Mark::O), EndReason::Resign))
        .await
        .unwrap();
    assert!(again.counted.is_empty(), "an end stored twice counts once");
    let game = ArenaGame {
        game: GameId(2),
        x: ADA,
        o: BOB,
        counted: true,
    };
    assert_eq!(games, [game], "only the second director's game");
    let scores: Vec<_> = lines
        .iter()
        .map(|l| (l.player, l.score, l.withdrawn))
        .collect();
    assert_eq!(scores, [(ADA, 2, false), (BOB, 0, false)]);
    assert_eq!(lines[0].last_opponent, Some(BOB));
    store.finish_arena(second, Vec::new()).await.unwrap();
    assert!(store.take_arena(id).await.unwrap().is_none(), "finished");
}
