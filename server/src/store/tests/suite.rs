//! What every database behind the store must do: ratings, queries, failed writes, tokens, and the
//! live games read back at start.

use noughts_protocol::{EndReason, GameId, GameKind, Level, Mark, PlayerId, Variant};

use super::super::accounts::NewAccount;
use super::super::{
    Ending, GameStart, SEQ_RESERVE, Store, StoreError, StoredMove, TokenHash, TokenRules,
};
use super::Fresh;
use crate::rules::sitter::Sitter;

on_both!(
    a_rated_game_moves_both_ratings_the_right_way,
    unrated_ai_and_aborted_games_leave_ratings_alone,
    a_failed_write_is_reported_and_the_rest_of_the_batch_commits,
    a_job_that_panics_does_not_end_the_store,
    a_write_that_fails_halfway_leaves_nothing_of_itself,
    an_unreadable_live_game_is_left_out_rather_than_stop_the_server,
    live_games_come_back_with_their_moves_seq_and_clock,
    history_pages_and_private_games,
    tokens_are_kept_as_hashes_that_never_show,
    a_write_under_an_older_lease_is_refused,
    a_claim_raises_the_epoch_and_shuts_out_the_last_holder,
    ids_come_in_blocks_that_never_repeat,
);
on_both_blocking!(
    a_token_is_traded_for_a_new_one_works_a_little_longer_and_expires_unused_or_revoked
);

const RULES: TokenRules = TokenRules {
    idle_ms: 10_000,
    overlap_ms: 100,
};

pub(super) fn start(game: u64, seats: [Sitter; 2], rated: bool) -> GameStart {
    let human = seats.iter().all(|seat| seat.human().is_some());
    GameStart {
        game: GameId(game),
        variant: Variant::Classic,
        kind: if human { GameKind::Human } else { GameKind::Ai },
        seats,
        clock: None,
        rated,
        listed: true,
        rematch_of: None,
        owner: None,
        started_ms: 1_000,
    }
}

pub(super) fn ending(winner: Option<Mark>, reason: EndReason) -> Ending {
    Ending {
        seq: 10,
        winner,
        reason,
        cells: Vec::new(),
        ended_ms: 2_000,
    }
}

pub(super) const ADA: PlayerId = PlayerId(1);
pub(super) const BOB: PlayerId = PlayerId(2);

pub(super) fn people() -> [Sitter; 2] {
    [Sitter::Human(ADA), Sitter::Human(BOB)]
}

/// The store on `db`, with Ada (1) and Bob (2) in it.
pub(super) async fn with_players(db: &Fresh) -> Store {
    let (store, startup) = db.open().await;
    assert_eq!((startup.last_player, startup.last_game), (0, 0));
    for (id, name) in [(ADA, "ada"), (BOB, "bob")] {
        store
            .add_player(id, name, TokenHash::of(name))
            .await
            .unwrap();
    }
    store
}

/// Makes Ada and Bob accounts, their usernames their names.
pub(super) async fn make_accounts(store: &Store) {
    for (player, name) in [(ADA, "ada"), (BOB, "bob")] {
        let account = NewAccount {
            player,
            username: name.to_owned(),
            key: name.to_owned(),
            skeleton: noughts_protocol::username_skeleton(name),
            phc: format!("$argon2id$v=19$m=19456,t=2,p=1$salt{}$hash", player.0),
        };
        assert!(store.create_account(account, 0).await.unwrap(), "{name}");
    }
}

async fn classic_rating(store: &Store, player: PlayerId) -> (u32, u32) {
    let profile = store.profile(player).await.unwrap().unwrap();
    // Variants in Variant::ALL's order: classic first.
    assert_eq!(Variant::ALL[0], Variant::Classic);
    let (classic, rated_games) = profile.ratings[0];
    (crate::rules::rating::points(classic.rating), rated_games)
}

fn at(cell: usize, at_ms: u64) -> StoredMove {
    StoredMove {
        cell,
        at_ms,
        clock_ms: None,
    }
}

async fn a_rated_game_moves_both_ratings_the_right_way(db: Fresh) {
    let store = with_players(&db).await;
    store.start_game(start(1, people(), true)).await.unwrap();
    let rerated = store
        .end_game(GameId(1), ending(Some(Mark::X), EndReason::Resign))
        .await
        .unwrap()
        .rerated
        .expect("a rated game between two people is rated");
    assert!(rerated.x.rating > 1500.0 && rerated.o.rating < 1500.0);
    let (ada, ada_games) = classic_rating(&store, ADA).await;
    let (bob, _) = classic_rating(&store, BOB).await;
    assert!(ada > 1500 && bob < 1500 && ada_games == 1);
    // The leaderboard lists accounts only.
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    assert!(board.is_empty(), "guests are left out: {board:?}");
    make_accounts(&store).await;
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    let ranks: Vec<_> = board
        .iter()
        .enumerate()
        .map(|(place, e)| (place + 1, e.player.0, e.results.wins, e.name.as_str()))
        .collect();
    assert_eq!(ranks, [(1, 1, 1, "ada"), (2, 2, 0, "bob")]);
    let second = store.leaderboard(Variant::Classic, 1, 10).await.unwrap();
    assert_eq!(second.len(), 1);
    assert!(
        store
            .leaderboard(Variant::Four, 0, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let (record, _) = store.record(GameId(1), BOB).await.unwrap().unwrap();
    assert_eq!(record.seats[0].rating, Some(1500.0));
    assert!(record.seats[0].change.is_some_and(|change| change > 0.0));

    // Ending twice changes nothing.
    let again = store
        .end_game(GameId(1), ending(Some(Mark::O), EndReason::Timeout))
        .await
        .unwrap();
    assert!(again.rerated.is_none());
    assert_eq!(classic_rating(&store, ADA).await, (ada, 1));

    // A second rated game updates the same rows.
    store.start_game(start(2, people(), true)).await.unwrap();
    store
        .end_game(GameId(2), ending(None, EndReason::Draw))
        .await
        .unwrap()
        .rerated
        .expect("rated");
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    let ada = &board.iter().find(|e| e.player == ADA).unwrap().results;
    assert_eq!((ada.games, ada.wins, ada.draws, ada.losses), (2, 1, 1, 0));
}

async fn unrated_ai_and_aborted_games_leave_ratings_alone(db: Fresh) {
    let store = with_players(&db).await;
    let games = [
        start(1, people(), false),
        // Even marked rated, a game against the AI is not.
        start(2, [Sitter::Human(ADA), Sitter::Ai(Level::Easy)], true),
        start(3, [Sitter::Human(BOB), Sitter::Human(ADA)], true),
    ];
    for game in games {
        store.start_game(game).await.unwrap();
    }
    for (game, reason) in [
        (1, EndReason::Line),
        (2, EndReason::Line),
        (3, EndReason::Aborted),
    ] {
        let winner = (reason != EndReason::Aborted).then_some(Mark::X);
        let rerated = store
            .end_game(GameId(game), ending(winner, reason))
            .await
            .unwrap();
        assert!(rerated.rerated.is_none(), "game {game} is not rated");
    }
    assert_eq!(classic_rating(&store, ADA).await, (1500, 0));
    assert_eq!(classic_rating(&store, BOB).await, (1500, 0));
    let profile = store.profile(ADA).await.unwrap().unwrap();
    let classic = &profile.results[0];
    // Games 1 and 2 count (an aborted game does not); Ada was X in both and X won.
    assert_eq!((classic.games, classic.wins, classic.losses), (2, 2, 0));
    let bob = store.profile(BOB).await.unwrap().unwrap();
    assert_eq!((bob.results[0].games, bob.results[0].losses), (1, 1));
}

async fn a_failed_write_is_reported_and_the_rest_of_the_batch_commits(db: Fresh) {
    let store = with_players(&db).await;
    store.start_game(start(1, people(), false)).await.unwrap();
    let played = at(4, 10);
    store
        .record_move(GameId(1), 0, Some(1 + SEQ_RESERVE), played, None)
        .await
        .unwrap();
    // The same move at the same ply again is taken as stored: an earlier try committed although
    // its answer was lost (the database stopped as it committed), and the player tries again.
    store
        .record_move(GameId(1), 0, Some(2 + SEQ_RESERVE), played, None)
        .await
        .unwrap();
    // Another move at a ply already played is refused, naming the one stored; a move in a game
    // that does not exist too.
    let other = store
        .record_move(GameId(1), 0, Some(2 + SEQ_RESERVE), at(5, 10), None)
        .await;
    assert!(
        matches!(
            other,
            Err(StoreError::Diverged {
                ply: 0,
                stored: 4,
                tried: 5,
                ..
            })
        ),
        "{other:?}"
    );
    let nowhere = store
        .record_move(GameId(9), 0, Some(1 + SEQ_RESERVE), played, None)
        .await;
    assert!(nowhere.is_err());
    // Queued together, a failing write and a good one: the good one commits.
    let (bad, good) = tokio::join!(
        store.record_move(GameId(1), 0, Some(3 + SEQ_RESERVE), at(5, 10), None),
        store.record_move(GameId(1), 1, Some(3 + SEQ_RESERVE), at(0, 20), None),
    );
    assert!(bad.is_err());
    good.unwrap();
    let (game, moves) = store.record(GameId(1), ADA).await.unwrap().unwrap();
    assert_eq!(moves.iter().map(|m| m.cell).collect::<Vec<_>>(), [4, 0]);
    assert_eq!(game.moves, 2);
    assert!(store.record(GameId(9), ADA).await.unwrap().is_none());
    assert!(store.profile(PlayerId(9)).await.unwrap().is_none());
    assert!(
        store
            .history(PlayerId(9), None, 5, PlayerId(9))
            .await
            .unwrap()
            .is_none()
    );
}

async fn a_job_that_panics_does_not_end_the_store(db: Fresh) {
    let store = with_players(&db).await;
    let read = store
        .read(|_| -> Result<(), StoreError> { panic!("a broken query") })
        .await;
    assert!(read.is_err());
    let write = store
        .write("broken", |_| -> Result<(), StoreError> {
            panic!("a broken write")
        })
        .await;
    assert!(write.is_err());
    assert_eq!(classic_rating(&store, ADA).await, (1500, 0));
}

async fn a_write_that_fails_halfway_leaves_nothing_of_itself(db: Fresh) {
    let store = with_players(&db).await;
    store.start_game(start(1, people(), false)).await.unwrap();
    let game = GameId(1);
    // A move, a token revoked, then a key given twice: all of it undone, as is all of a write
    // that panics; the good write queued beside them stands.
    let (failed, panicked, good) = tokio::join!(
        store.write("fails", move |db| {
            super::super::backend::record_move(db, game, 0, Some(1 + SEQ_RESERVE), &at(4, 10))?;
            db.revoke_tokens(ADA)?;
            db.start_game(&start(1, people(), false))
        }),
        store.write("panics", |db| -> Result<(), StoreError> {
            db.revoke_tokens(ADA)?;
            panic!("a broken write")
        }),
        store.record_move(game, 0, Some(2 + SEQ_RESERVE), at(0, 20), None),
    );
    assert!(
        failed.is_err() && panicked.is_err(),
        "{failed:?} {panicked:?}"
    );
    good.unwrap();
    let live = store.live_game(game).await.unwrap();
    assert_eq!((live.moves, live.seq), (vec![at(0, 20)], 2 + SEQ_RESERVE));
    let ada = store
        .rotate_token(TokenHash::of("ada"), TokenHash::of("ada 2"), RULES)
        .await
        .unwrap();
    assert_eq!(ada.map(|p| p.player), Some(ADA), "ada's token still works");
}

async fn an_unreadable_live_game_is_left_out_rather_than_stop_the_server(db: Fresh) {
    let store = with_players(&db).await;
    for game in [1, 2] {
        store
            .start_game(start(
                game,
                [Sitter::Human(ADA), Sitter::Ai(Level::Easy)],
                false,
            ))
            .await
            .unwrap();
    }
    store
        .write("spoil", |db| db.spoil(GameId(1)))
        .await
        .unwrap();
    drop(store);
    let (_, startup) = db.open().await;
    let live: Vec<GameId> = startup.live.iter().map(|g| g.start.game).collect();
    assert_eq!(live, [GameId(2)]);
    assert_eq!(startup.last_game, 2);
}

async fn live_games_come_back_with_their_moves_seq_and_clock(db: Fresh) {
    let store = with_players(&db).await;
    let clock = noughts_protocol::ClockSpec {
        initial_ms: 60_000,
        increment_ms: 2_000,
    };
    let timed = GameStart {
        clock: Some(clock),
        rated: true,
        listed: false,
        rematch_of: Some(GameId(1)),
        owner: Some(BOB),
        ..start(3, people(), true)
    };
    store.start_game(start(1, people(), false)).await.unwrap();
    store.start_game(timed).await.unwrap();
    let timed_move = |cell, at_ms, left| StoredMove {
        clock_ms: Some(left),
        ..at(cell, at_ms)
    };
    for (ply, played) in [
        timed_move(4, 100, 59_000),
        timed_move(0, 300, 58_000),
        timed_move(8, 500, 59_500),
    ]
    .into_iter()
    .enumerate()
    {
        let ply = u32::try_from(ply).unwrap();
        let seq = u64::from(ply) + 1;
        store
            .record_move(GameId(3), ply, Some(seq + SEQ_RESERVE), played, None)
            .await
            .unwrap();
    }
    // The last move taken back, then a mark raised without a move.
    store.take_back(GameId(3), 2, 5).await.unwrap();
    store.reserve_seq(GameId(3), 100).await.unwrap();
    store.reserve_seq(GameId(3), 50).await.unwrap();
    store
        .end_game(GameId(1), ending(None, EndReason::Draw))
        .await
        .unwrap();
    drop(store);

    let (store, startup) = db.open().await;
    assert_eq!((startup.last_player, startup.last_game), (2, 3));
    let [live] = startup.live.as_slice() else {
        panic!("one live game: {:?}", startup.live)
    };
    assert_eq!(live.start.game, GameId(3));
    assert_eq!(live.start.clock, Some(clock));
    assert!(live.start.rated && !live.start.listed);
    assert_eq!(
        (live.start.rematch_of, live.start.owner),
        (Some(GameId(1)), Some(BOB))
    );
    assert_eq!(live.seq, 100, "the highest mark, never lowered");
    assert!(live.seq >= 5 + SEQ_RESERVE);
    assert_eq!(
        live.moves,
        [timed_move(4, 100, 59_000), timed_move(0, 300, 58_000)]
    );
    let names: Vec<_> = live
        .seats
        .iter()
        .map(|seat| seat.human().map(|p| p.name.clone()))
        .collect();
    assert_eq!(names, [Some("ada".to_owned()), Some("bob".to_owned())]);
    // Ids go on, and so does play.
    store.start_game(start(4, people(), false)).await.unwrap();
    store
        .record_move(
            GameId(3),
            2,
            Some(101 + SEQ_RESERVE),
            timed_move(1, 900, 57_000),
            None,
        )
        .await
        .unwrap();
}

async fn history_pages_and_private_games(db: Fresh) {
    let store = with_players(&db).await;
    let (eve, _) = (PlayerId(3), ());
    store
        .add_player(eve, "eve", TokenHash::of("eve"))
        .await
        .unwrap();
    for game in 1..=5 {
        let private = game == 4;
        store
            .start_game(GameStart {
                listed: !private,
                ..start(game, people(), false)
            })
            .await
            .unwrap();
        store
            .record_move(GameId(game), 0, Some(1 + SEQ_RESERVE), at(4, 10), None)
            .await
            .unwrap();
        if game != 5 {
            let ended = Ending {
                cells: vec![0, 4, 8],
                ..ending(Some(Mark::X), EndReason::Line)
            };
            store.end_game(GameId(game), ended).await.unwrap();
        }
    }
    let ids = |games: &[super::super::StoredGame]| -> Vec<u64> {
        games.iter().map(|g| g.start.game.0).collect()
    };
    // Ada sees her private game; the live game 5 is not history.
    let (page, more) = store.history(ADA, None, 3, ADA).await.unwrap().unwrap();
    assert_eq!((ids(&page), more), (vec![4, 3, 2], true));
    let (page, more) = store
        .history(ADA, Some(GameId(2)), 3, ADA)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((ids(&page), more), (vec![1], false));
    assert_eq!(page[0].moves, 1);
    assert_eq!(page[0].seats[1].name.as_deref(), Some("bob"));
    let result = page[0].result.as_ref().unwrap();
    assert_eq!(
        (result.winner, result.cells.clone()),
        (Some(Mark::X), vec![0, 4, 8])
    );
    // Eve does not see it, nor its record.
    let (page, more) = store.history(ADA, None, 10, eve).await.unwrap().unwrap();
    assert_eq!((ids(&page), more), (vec![3, 2, 1], false));
    assert!(store.record(GameId(4), eve).await.unwrap().is_none());
    assert!(store.record(GameId(4), BOB).await.unwrap().is_some());
    let (page, _) = store.history(eve, None, 10, eve).await.unwrap().unwrap();
    assert!(page.is_empty());
}

fn a_token_is_traded_for_a_new_one_works_a_little_longer_and_expires_unused_or_revoked(db: Fresh) {
    let mut db = db.backend();
    let ada = PlayerId(1);
    let t = |n: u32| TokenHash::of(&format!("token {n}"));
    db.add_player(ada, "ada", t(0), 1_000).unwrap();
    let mut rotate =
        |old: u32, new: u32, now: u64| db.rotate_token(t(old), t(new), RULES, now).unwrap();
    assert_eq!(rotate(9, 10, 1_000), None, "a token never issued");
    assert_eq!(rotate(0, 1, 2_000), Some(ada));
    // The replaced token works for the overlap (another client sharing it), and no longer.
    assert_eq!(rotate(0, 2, 2_099), Some(ada));
    assert_eq!(rotate(0, 3, 2_100), None);
    assert_eq!(rotate(3, 4, 2_100), None, "a refused trade issues nothing");
    // Each new token works, and is replaced in turn.
    assert_eq!(rotate(1, 5, 3_000), Some(ada));
    assert_eq!(rotate(2, 6, 3_000), Some(ada));
    // A token left unused for the idle time has expired.
    assert_eq!(rotate(5, 7, 3_000 + 9_999), Some(ada));
    assert_eq!(rotate(6, 8, 3_000 + 10_000), None);
    // The tokens that no longer work are deleted; the one left is revoked.
    assert_eq!(db.prune_tokens(RULES, 13_100).unwrap(), 2);
    assert_eq!(db.revoke_tokens(ada).unwrap(), 1);
    assert_eq!(
        db.rotate_token(t(7), t(11), RULES, 13_000).unwrap(),
        None,
        "logged out"
    );
}

async fn tokens_are_kept_as_hashes_that_never_show(db: Fresh) {
    let (store, _) = db.open().await;
    let token = "5f1c0e8a4b7d2e9f3a6c1b8d0e4f7a2c";
    let key = TokenHash::of(token);
    store.add_player(PlayerId(1), "ada", key).await.unwrap();
    let fresh = TokenHash::of("fresh");
    let found = store
        .rotate_token(key, fresh, RULES)
        .await
        .unwrap()
        .expect("found by its hash");
    assert_eq!(found.player, PlayerId(1));
    assert!(
        store
            .rotate_token(
                TokenHash::of("5f1c0e8a4b7d2e9f3a6c1b8d0e4f7a2d"),
                fresh,
                RULES
            )
            .await
            .unwrap()
            .is_none()
    );
    let shown = format!("{found:?} {key:?}");
    let hex: String = key.0.iter().map(|b| format!("{b:02x}")).collect();
    assert!(!shown.contains(token) && !shown.contains(&hex), "{shown}");
    assert!(!shown.contains(&format!("{:?}", key.0)), "{shown}");
    assert!(shown.contains("ada"), "{shown}");
}

/// A node that lost a game's lease (another took it, with a higher epoch) can no longer write it.
async fn a_write_under_an_older_lease_is_refused(db: Fresh) {
    let store = with_players(&db).await;
    let game = GameId(1);
    store.start_game(start(1, people(), false)).await.unwrap();
    // The node that took the game over writes under epoch 2.
    store.fence(game, Some(2));
    store
        .record_move(game, 0, Some(2 + SEQ_RESERVE), at(4, 10), None)
        .await
        .unwrap();
    // The node that held it before (epoch 1) is refused: moves, the end, the seq.
    store.fence(game, None);
    store.fence(game, Some(1));
    let refused = |result: Result<(), StoreError>| {
        assert!(
            matches!(result, Err(StoreError::Fenced(g)) if g == game),
            "{result:?}"
        );
    };
    refused(
        store
            .record_move(game, 1, Some(3 + SEQ_RESERVE), at(0, 20), None)
            .await
            .map(drop),
    );
    refused(store.reserve_seq(game, 50).await);
    refused(
        store
            .end_game(game, ending(None, EndReason::Resign))
            .await
            .map(drop),
    );
    // A lease is never lowered by taking it again: 1 after 2 stays 2.
    store.fence(game, Some(2));
    store.fence(game, Some(1));
    store
        .record_move(game, 1, Some(3 + SEQ_RESERVE), at(0, 20), None)
        .await
        .unwrap();
    let record = store.record(game, ADA).await.unwrap().unwrap();
    assert_eq!(record.1.len(), 2, "only the rightful node's moves are kept");
}

/// Taking a game raises its epoch in the store: the last holder's writes are refused from then
/// on; a holder whose lease Redis forgot confirms its own epoch without raising it; an ended game
/// is nobody's to take.
async fn a_claim_raises_the_epoch_and_shuts_out_the_last_holder(db: Fresh) {
    let store = with_players(&db).await;
    let game = GameId(1);
    assert_eq!(store.claim(game, None).await.unwrap(), None, "not stored");
    store.start_game(start(1, people(), false)).await.unwrap();
    // The node that started it writes under the epoch it is stored with.
    store.fence(game, Some(0));
    store
        .record_move(game, 0, Some(2 + SEQ_RESERVE), at(4, 10), None)
        .await
        .unwrap();
    assert_eq!(store.claim(game, Some(0)).await.unwrap(), Some(0));
    // Another node takes it over: epoch 1. The first node's next move is refused.
    assert_eq!(store.claim(game, None).await.unwrap(), Some(1));
    assert!(matches!(
        store
            .record_move(game, 1, Some(3 + SEQ_RESERVE), at(0, 20), None)
            .await,
        Err(StoreError::Fenced(g)) if g == game
    ));
    // Confirming its old epoch fails: it is another's now.
    assert_eq!(store.claim(game, Some(0)).await.unwrap(), None);
    store.fence(game, Some(1));
    store
        .record_move(game, 1, Some(3 + SEQ_RESERVE), at(0, 20), None)
        .await
        .unwrap();
    assert_eq!(store.claim(game, Some(1)).await.unwrap(), Some(1));
    store
        .end_game(game, ending(None, EndReason::Resign))
        .await
        .unwrap();
    assert_eq!(store.claim(game, None).await.unwrap(), None, "ended");
    let record = store.record(game, ADA).await.unwrap().unwrap();
    assert_eq!(record.1.len(), 2, "one move from each holder in turn");
}

/// Blocks of ids follow each other whatever floor is asked, and never go below it.
async fn ids_come_in_blocks_that_never_repeat(db: Fresh) {
    let (store, _) = db.open().await;
    assert_eq!(store.reserve_ids("game", 10, 0).await.unwrap(), 1..11);
    assert_eq!(store.reserve_ids("game", 10, 5).await.unwrap(), 11..21);
    assert_eq!(store.reserve_ids("game", 10, 100).await.unwrap(), 101..111);
    assert_eq!(store.reserve_ids("player", 3, 0).await.unwrap(), 1..4);
    assert_eq!(store.reserve_ids("game", 1, 0).await.unwrap(), 111..112);
}
