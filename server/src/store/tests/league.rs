//! What every store keeps of the engines' league: a finished war game of the server's own
//! counts once in its variant's table (a bot's seat named by its player id); other games,
//! aborted games and a second end do not; the table comes back after a reopening, and the war
//! game being played with it. Bots enter, leave and come back, keeping their first place.

use noughts_protocol::{EndReason, GameId, GameKind, Level, Mark, PlayerId, Variant};

use super::super::GameStart;
use super::Fresh;
use super::suite::{ending, start, with_players};
use crate::rules::sitter::Sitter;

on_both!(
    a_league_game_counts_once_in_order_and_survives_a_reopening,
    bots_enter_and_leave_the_league
);

/// A war game of the server's own between `x` and `o` on cube.
fn war(game: u64, x: Level, o: Level) -> GameStart {
    GameStart {
        kind: GameKind::War,
        variant: Variant::Cube,
        ..start(game, [Sitter::Ai(x), Sitter::Ai(o)], false)
    }
}

async fn a_league_game_counts_once_in_order_and_survives_a_reopening(db: Fresh) {
    let store = with_players(&db).await;
    // As the league does before its first game: the table is kept with its round.
    store.settle_league(Variant::Cube, 20).await.unwrap();
    let started_by_ada = GameStart {
        owner: Some(PlayerId(1)),
        ..war(4, Level::Hard, Level::Easy)
    };
    let games = [
        war(7, Level::Perfect, Level::Random),
        war(3, Level::Easy, Level::Medium),
        war(9, Level::Hard, Level::Hard),
        started_by_ada,
        start(
            5,
            [Sitter::Human(PlayerId(1)), Sitter::Ai(Level::Easy)],
            false,
        ),
        war(11, Level::Medium, Level::Easy),
    ];
    for game in games {
        store.start_game(game).await.unwrap();
    }
    // Ended out of id order; game 9 is aborted, games 4 and 5 are not the league's, game 7 ends
    // twice.
    let ends = [
        (7, Some(Mark::X), EndReason::Line),
        (3, None, EndReason::Draw),
        (9, None, EndReason::Aborted),
        (4, Some(Mark::X), EndReason::Line),
        (5, Some(Mark::O), EndReason::Line),
        (7, Some(Mark::O), EndReason::Line),
    ];
    for (game, winner, reason) in ends {
        store
            .end_game(GameId(game), ending(winner, reason))
            .await
            .unwrap();
    }
    let news = store.league_news(Variant::Cube, 0).await.unwrap();
    let table = news.table.expect("cube's table");
    let lines: Vec<_> = table
        .lines
        .iter()
        .map(|line| {
            let row = &line.row;
            (
                line.entrant.as_str(),
                row.played,
                row.wins,
                row.draws,
                row.losses,
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("easy", 1, 0, 1, 0),
            ("medium", 1, 0, 1, 0),
            ("perfect", 1, 1, 0, 0),
            ("random", 1, 0, 0, 1)
        ]
    );
    assert_eq!(table.state.counted, 2);
    assert_eq!(
        table.state.last_pair,
        Some(("easy".to_owned(), "medium".to_owned()))
    );
    assert_eq!(
        news.playing,
        Some((
            GameId(11),
            [Sitter::Ai(Level::Medium), Sitter::Ai(Level::Easy)]
        ))
    );
    assert!(
        store
            .league_news(Variant::Classic, 0)
            .await
            .unwrap()
            .table
            .is_none()
    );
    // A reader that has the table is not sent it again.
    let after = store
        .league_news(Variant::Cube, table.state.last_n)
        .await
        .unwrap();
    assert!(after.table.is_none());
    drop(store);
    let (store, _) = db.open().await;
    let again = store.league_news(Variant::Cube, 0).await.unwrap();
    assert_eq!(again.table, Some(table));
}

async fn bots_enter_and_leave_the_league(db: Fresh) {
    let store = with_players(&db).await;
    let (ada, bob) = (PlayerId(1), PlayerId(2));
    assert!(
        store
            .enter_league(Variant::Cube, bob, "bob".into())
            .await
            .unwrap()
    );
    assert!(
        !store
            .enter_league(Variant::Cube, bob, "bob".into())
            .await
            .unwrap()
    );
    // Entered a few milliseconds later: after bob.
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert!(
        store
            .enter_league(Variant::Cube, ada, "ada".into())
            .await
            .unwrap()
    );
    assert!(store.leave_league(Variant::Cube, bob).await.unwrap());
    assert!(!store.leave_league(Variant::Cube, bob).await.unwrap());
    assert!(!store.leave_league(Variant::Four, ada).await.unwrap());
    // A bot's league game: its seat is named by its player id.
    store
        .start_game(war_with(12, [Sitter::Human(ada), Sitter::Ai(Level::Easy)]))
        .await
        .unwrap();
    store
        .end_game(GameId(12), ending(Some(Mark::X), EndReason::Line))
        .await
        .unwrap();
    drop(store);
    let (store, _) = db.open().await;
    // Bob back in, under a new name: still first, as he first entered first.
    assert!(
        store
            .enter_league(Variant::Cube, bob, "bobby".into())
            .await
            .unwrap()
    );
    let news = store.league_news(Variant::Cube, 0).await.unwrap();
    let bots: Vec<_> = news
        .bots
        .iter()
        .map(|b| (b.player, b.name.as_str(), b.entered))
        .collect();
    assert_eq!(bots, [(bob, "bobby", true), (ada, "ada", true)]);
    let lines = news.table.expect("cube's table").lines;
    assert_eq!(
        lines.iter().map(|l| l.entrant.as_str()).collect::<Vec<_>>(),
        ["bot:1", "easy"]
    );
    assert!(
        store
            .league_news(Variant::Four, 0)
            .await
            .unwrap()
            .bots
            .is_empty()
    );
}

/// A war game of the server's own on cube between `seats`.
fn war_with(game: u64, seats: [Sitter; 2]) -> GameStart {
    GameStart {
        kind: GameKind::War,
        variant: Variant::Cube,
        ..start(game, seats, false)
    }
}
