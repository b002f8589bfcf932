//! What every store keeps of an arena: the arena (one per schedule slot), its players' lines
//! written again as they change, each game counted once, and the podium kept for the profiles
//! once the arena is finished; which arenas not finished a player is in.

use noughts_protocol::{ArenaId, ClockSpec, GameId, Variant};

use super::super::TokenHash;
use super::super::arenas::{ArenaGame, Entrant, Place, StoredArena};
use super::super::backend::profile;
use super::Fresh;
use super::suite::{ADA, BOB};

on_both_blocking!(an_arena_counts_each_game_once_and_keeps_its_podium);

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
