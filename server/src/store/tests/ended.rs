//! What every store answers a player coming back with a token: its games that ended since the
//! token was last in use, within a window, the latest few, the earliest ended first.

use noughts_protocol::{EndReason, GameId, Level, Mark};

use super::super::backend::{Backend, ended_while_away};
use super::super::{Ending, StoredMove, TokenHash};
use super::Fresh;
use super::suite::{ADA, BOB, people, start};
use crate::rules::sitter::Sitter;

on_both_blocking!(the_games_that_ended_since_a_token_was_last_in_use);

/// Ends `game` at `ended_ms`, X winning by resignation.
fn end(db: &mut dyn Backend, game: u64, ended_ms: u64) {
    let ending = Ending {
        seq: 40 + game,
        winner: Some(Mark::X),
        reason: EndReason::Resign,
        cells: Vec::new(),
        ended_ms,
    };
    db.close_game(GameId(game), &ending).unwrap().unwrap();
}

fn ids(ended: &[super::super::EndedGame]) -> Vec<u64> {
    ended.iter().map(|game| game.game.start.game.0).collect()
}

fn the_games_that_ended_since_a_token_was_last_in_use(db: Fresh) {
    let mut db = db.backend();
    let db = &mut *db;
    let (ada, bob) = (TokenHash::of("ada"), TokenHash::of("bob"));
    db.add_player(ADA, "ada", ada, 1_000).unwrap();
    db.add_player(BOB, "bob", bob, 1_000).unwrap();
    // Ada's connection closed at 2,000: game 1 ended before, game 2 after with its moves, game 3
    // is live, and game 4 (Bob against the AI) is not hers.
    for game in 1..=3 {
        db.start_game(&start(game, people(), false)).unwrap();
    }
    let bob_alone = [Sitter::Human(BOB), Sitter::Ai(Level::Easy)];
    db.start_game(&start(4, bob_alone, false)).unwrap();
    for (ply, cell) in [4, 0].into_iter().enumerate() {
        let played = StoredMove {
            cell,
            at_ms: 100,
            clock_ms: None,
        };
        db.add_move(GameId(2), u32::try_from(ply).unwrap(), &played)
            .unwrap();
    }
    end(db, 1, 1_500);
    db.touch_token(ada, 2_000).unwrap();
    end(db, 2, 3_000);
    end(db, 4, 3_000);
    let hour = 3_600_000;
    let found = ended_while_away(db, ADA, ada, 10_000, hour, 8).unwrap();
    assert_eq!(ids(&found), vec![2]);
    let [game] = &found[..] else { unreachable!() };
    assert_eq!(
        game.moves.iter().map(|m| m.cell).collect::<Vec<_>>(),
        [4, 0]
    );
    assert_eq!(game.seq, 42);
    let result = game.game.result.as_ref().unwrap();
    assert_eq!(
        (result.winner, result.reason),
        (Some(Mark::X), EndReason::Resign)
    );
    assert_eq!(game.game.seats[1].name.as_deref(), Some("bob"));
    assert!(game.ratings.iter().all(|r| r.is_some_and(|r| r > 1_000.0)));
    // Nothing ended within the window, and nothing for a token never stored.
    assert!(
        ended_while_away(db, ADA, ada, 3_000 + hour + 1, hour, 8)
            .unwrap()
            .is_empty()
    );
    let unknown = TokenHash::of("unknown");
    assert!(
        ended_while_away(db, ADA, unknown, 10_000, hour, 8)
            .unwrap()
            .is_empty()
    );
    // Of many, the latest few, the earliest ended first.
    for game in 5..=16 {
        db.start_game(&start(game, people(), false)).unwrap();
        end(db, game, 4_000 + (20 - game) * 10);
    }
    let found = ended_while_away(db, ADA, ada, 10_000, hour, 3).unwrap();
    assert_eq!(ids(&found), vec![7, 6, 5]);
    // Bob's token was issued at 1,000 and never touched: every game of his that ended since.
    let found = ended_while_away(db, BOB, bob, 10_000, hour, 64).unwrap();
    assert_eq!(found.len(), 15);
}
