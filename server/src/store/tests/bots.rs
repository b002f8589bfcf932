//! What every database must do with bot accounts: an account becomes one for good, only
//! before it has played (or while it plays) a rated game, and is marked as one wherever the records name it.

use noughts_protocol::{EndReason, GameId, Mark, PlayerId, Variant};

use super::super::accounts::BecameBot;
use super::super::{TokenHash, TokenRules};
use super::Fresh;
use super::suite::{ADA, BOB, ending, make_accounts, people, start, with_players};

on_both!(a_bot_is_made_before_any_rated_game_for_good_and_marked_in_the_records);

async fn a_bot_is_made_before_any_rated_game_for_good_and_marked_in_the_records(db: Fresh) {
    let store = with_players(&db).await;
    let guest = store.become_bot(ADA).await.unwrap();
    assert_eq!(guest, BecameBot::NoAccount, "a guest cannot become a bot");
    let nobody = store.become_bot(PlayerId(99)).await.unwrap();
    assert_eq!(nobody, BecameBot::NoAccount);
    make_accounts(&store).await;
    assert_eq!(store.become_bot(BOB).await.unwrap(), BecameBot::Made);
    assert_eq!(store.become_bot(BOB).await.unwrap(), BecameBot::AlreadyBot);

    store.start_game(start(1, people(), true)).await.unwrap();
    let playing = store.become_bot(ADA).await.unwrap();
    assert_eq!(
        playing,
        BecameBot::HasRatedGames,
        "a rated game still being played counts"
    );
    let ended = store.end_game(GameId(1), ending(Some(Mark::O), EndReason::Resign));
    ended
        .await
        .unwrap()
        .rerated
        .expect("a bot's games are rated as anyone's");
    let refused = store.become_bot(ADA).await.unwrap();
    assert_eq!(
        refused,
        BecameBot::HasRatedGames,
        "ada has played a rated game"
    );

    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    let marks: Vec<(String, bool)> = board.into_iter().map(|s| (s.name, s.bot)).collect();
    assert_eq!(marks, [("bob".to_owned(), true), ("ada".to_owned(), false)]);
    let (record, _) = store.record(GameId(1), ADA).await.unwrap().unwrap();
    assert_eq!(record.seats.map(|seat| seat.bot), [false, true]);
    let (games, _) = store.history(BOB, None, 10, ADA).await.unwrap().unwrap();
    assert_eq!(games[0].seats.clone().map(|seat| seat.bot), [false, true]);
    assert!(store.profile(BOB).await.unwrap().unwrap().bot);
    assert!(!store.profile(ADA).await.unwrap().unwrap().bot);
    let rules = TokenRules {
        idle_ms: 1_000_000,
        overlap_ms: 100,
    };
    let bob = store.token_player(TokenHash::of("bob"), rules).await;
    assert!(
        bob.unwrap().expect("bob's token works").bot,
        "signed in as a bot"
    );
    let ada = store.token_player(TokenHash::of("ada"), rules).await;
    assert!(!ada.unwrap().expect("ada's token works").bot);
}
