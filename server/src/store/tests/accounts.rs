//! What every database must do with accounts: usernames unique ignoring case (a closed
//! account's held until freed), passwords replaced, devices that follow their tokens and take
//! them along when they go, a closed account marked in the records and off the leaderboard,
//! usernames that look alike taken as one, and the newest device cookies kept.

use noughts_protocol::{EndReason, GameId, Mark, PlayerId, Variant};

use super::super::accounts::{NewAccount, StoredDevice};
use super::super::{TokenHash, TokenRules};
use super::Fresh;
use super::suite::{ADA, BOB, ending, make_accounts, people, start, with_players};

on_both_blocking!(accounts_are_unique_ignoring_case_and_devices_take_their_tokens_along);
on_both_blocking!(look_alike_usernames_are_one_name_and_device_cookies_are_kept);
on_both!(a_closed_account_is_marked_in_the_records_and_leaves_the_leaderboard);
on_both!(an_account_is_named_by_its_username_and_a_guest_is_marked);

const RULES: TokenRules = TokenRules {
    idle_ms: 1_000_000,
    overlap_ms: 100,
};

fn account(player: u64, username: &str) -> NewAccount {
    NewAccount {
        player: PlayerId(player),
        username: username.to_owned(),
        key: username.to_ascii_lowercase(),
        skeleton: noughts_protocol::username_skeleton(username),
        phc: format!("$argon2id$v=19$m=19456,t=2,p=1$salt{player}$hash"),
    }
}

fn device(id: u64, token: TokenHash, now: u64) -> StoredDevice {
    StoredDevice {
        id,
        label: Some(format!("device {id}")),
        created_ms: now,
        last_seen_ms: now,
        token,
        previous: None,
        network: Some("192.0.2.0/24".into()),
    }
}

fn accounts_are_unique_ignoring_case_and_devices_take_their_tokens_along(db: Fresh) {
    let mut db = db.backend();
    let (ada, bo) = (PlayerId(1), PlayerId(2));
    let t = |n: u32| TokenHash::of(&format!("token {n}"));
    db.add_player(ada, "ada", t(0), 1_000).unwrap();
    db.add_player(bo, "bo", t(1), 1_000).unwrap();

    assert!(db.create_account(&account(1, "Ada"), 1_000, 0).unwrap());
    assert!(
        !db.create_account(&account(2, "ADA"), 1_000, 0).unwrap(),
        "taken in any case"
    );
    assert!(
        !db.create_account(&account(1, "ada2"), 1_000, 0).unwrap(),
        "one per player"
    );
    let found = db.account_by_key("ada").unwrap().expect("found by key");
    assert_eq!((found.player, found.username.as_str()), (ada, "Ada"));
    assert!(db.account_by_key("bo").unwrap().is_none());
    db.set_password(ada, "$argon2id$new").unwrap();
    assert_eq!(db.account_of(ada).unwrap().unwrap().phc, "$argon2id$new");

    // The guest's token becomes a device; a sign-in adds another with a token of its own.
    db.add_device(ada, &device(10, t(0), 1_000)).unwrap();
    db.issue_token(ada, t(2), 2_000).unwrap();
    db.add_device(ada, &device(20, t(2), 2_000)).unwrap();
    assert_eq!(
        db.rotate_token(t(2), t(3), RULES, 3_000).unwrap(),
        Some(ada)
    );
    db.device_rotated(t(2), t(3), 3_000, "198.51.100.0/24")
        .unwrap();
    let devices = db.devices(ada).unwrap();
    assert_eq!(
        devices.iter().map(|d| d.id).collect::<Vec<_>>(),
        [20, 10],
        "newest first"
    );
    assert!(devices[0].token == t(3) && devices[0].previous == Some(t(2)));
    assert_eq!(devices[0].last_seen_ms, 3_000);
    // Where each was last used from: where it signed in, then where it was used since.
    assert_eq!(devices[0].network.as_deref(), Some("198.51.100.0/24"));
    assert_eq!(devices[1].network.as_deref(), Some("192.0.2.0/24"));

    // Revoking a device revokes its tokens, the one before included.
    assert!(db.drop_device(ada, 20).unwrap());
    assert!(!db.drop_device(ada, 20).unwrap());
    assert!(!db.drop_device(bo, 10).unwrap(), "not another player's");
    for gone in [2, 3] {
        assert_eq!(db.token_owner(t(gone), RULES, 3_000).unwrap(), None);
    }
    assert_eq!(db.token_owner(t(0), RULES, 3_000).unwrap(), Some(ada));

    // Keeping one device revokes every other token of the player.
    db.issue_token(ada, t(4), 4_000).unwrap();
    db.drop_devices_except(ada, Some(10)).unwrap();
    assert_eq!(db.token_owner(t(4), RULES, 4_000).unwrap(), None);
    assert_eq!(db.token_owner(t(0), RULES, 4_000).unwrap(), Some(ada));

    // A closed account keeps its name until it is freed.
    db.close_account(ada, 5_000).unwrap();
    assert!(db.account_of(ada).unwrap().unwrap().closed_ms == Some(5_000));
    assert!(
        !db.create_account(&account(2, "ada"), 6_000, 4_999).unwrap(),
        "held"
    );
    assert!(
        db.create_account(&account(2, "ada"), 6_000, 5_000).unwrap(),
        "freed"
    );
    assert_eq!(db.account_by_key("ada").unwrap().unwrap().player, bo);
    assert_eq!(
        db.account_of(ada).unwrap().unwrap().username,
        "Ada",
        "still shown"
    );
}

async fn a_closed_account_is_marked_in_the_records_and_leaves_the_leaderboard(db: Fresh) {
    let store = with_players(&db).await;
    make_accounts(&store).await;
    store.start_game(start(1, people(), true)).await.unwrap();
    let ended = store.end_game(GameId(1), ending(Some(Mark::X), EndReason::Resign));
    ended.await.unwrap().rerated.expect("rated");
    let listed = |board: Vec<crate::store::StoredStanding>| {
        board
            .into_iter()
            .map(|standing| standing.name)
            .collect::<Vec<_>>()
    };
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    assert_eq!(listed(board), ["ada", "bob"]);

    store.close_account(BOB).await.unwrap();
    let board = store.leaderboard(Variant::Classic, 0, 10).await.unwrap();
    assert_eq!(listed(board), ["ada"], "a closed account is not listed");
    let (record, _) = store.record(GameId(1), ADA).await.unwrap().unwrap();
    let names = record.seats.map(|seat| seat.name.unwrap_or_default());
    assert_eq!(names, ["ada", "bob (closed)"]);
    let (games, _) = store.history(BOB, None, 10, ADA).await.unwrap().unwrap();
    assert_eq!(games[0].seats[1].name.as_deref(), Some("bob (closed)"));
    let profile = store.profile(BOB).await.unwrap().unwrap();
    assert_eq!(profile.name, "bob (closed)");
    assert_eq!(store.profile(ADA).await.unwrap().unwrap().name, "ada");
}

async fn an_account_is_named_by_its_username_and_a_guest_is_marked(db: Fresh) {
    let store = with_players(&db).await;
    store.start_game(start(1, people(), false)).await.unwrap();
    let ended = store.end_game(GameId(1), ending(Some(Mark::X), EndReason::Resign));
    ended.await.unwrap();
    let seats = |record: crate::store::StoredGame| {
        record
            .seats
            .map(|seat| (seat.name.unwrap_or_default(), seat.guest))
    };
    let (record, _) = store.record(GameId(1), ADA).await.unwrap().unwrap();
    let guests = [("ada".to_owned(), true), ("bob".to_owned(), true)];
    assert_eq!(seats(record), guests);

    // Ada registers as ada_walk: her name is the username from then on, for the game she
    // played as a guest too; Bob is still a guest.
    let created = store.create_account(account(ADA.0, "ada_walk"), 0).await;
    assert!(created.unwrap());
    let (record, _) = store.record(GameId(1), BOB).await.unwrap().unwrap();
    let named = [("ada_walk".to_owned(), false), ("bob".to_owned(), true)];
    assert_eq!(seats(record), named);
    let (games, _) = store.history(ADA, None, 10, BOB).await.unwrap().unwrap();
    assert_eq!(games[0].seats[0].name.as_deref(), Some("ada_walk"));
    let profile = store.profile(ADA).await.unwrap().unwrap();
    assert_eq!((profile.name.as_str(), profile.guest), ("ada_walk", false));
    let profile = store.profile(BOB).await.unwrap().unwrap();
    assert_eq!((profile.name.as_str(), profile.guest), ("bob", true));
    let back = store.token_player(TokenHash::of("ada"), RULES).await;
    let back = back.unwrap().expect("her token still works");
    assert_eq!((back.name.as_str(), back.account), ("ada_walk", true));
    let bob = store.token_player(TokenHash::of("bob"), RULES).await;
    assert!(!bob.unwrap().unwrap().account);
}

fn look_alike_usernames_are_one_name_and_device_cookies_are_kept(db: Fresh) {
    let mut db = db.backend();
    let t = |n: u32| TokenHash::of(&format!("token {n}"));
    for (player, name) in [(1, "one"), (2, "two"), (3, "three")] {
        db.add_player(PlayerId(player), name, t(player as u32), 1_000)
            .unwrap();
    }
    assert!(db.create_account(&account(1, "reuse_x"), 1_000, 0).unwrap());
    for look_alike in ["reuse-x", "Reuse-X", "REUSE_X"] {
        let skeleton = noughts_protocol::username_skeleton(look_alike);
        let key = look_alike.to_ascii_lowercase();
        assert!(db.name_taken(&key, &skeleton, 0).unwrap(), "{look_alike}");
        assert!(
            !db.create_account(&account(2, look_alike), 1_000, 0)
                .unwrap(),
            "{look_alike}"
        );
    }
    assert!(!db.name_taken("reuse_y", "reuse_y", 0).unwrap());

    // A closed account holds its skeleton too, until it is freed.
    db.close_account(PlayerId(1), 5_000).unwrap();
    assert!(db.name_taken("reuse-x", "reuse_x", 4_999).unwrap());
    assert!(!db.name_taken("reuse-x", "reuse_x", 5_000).unwrap());
    assert!(
        !db.create_account(&account(2, "reuse-x"), 6_000, 4_999)
            .unwrap()
    );
    assert!(
        db.create_account(&account(2, "reuse-x"), 6_000, 5_000)
            .unwrap()
    );
    assert!(db.name_taken("reuse_x", "reuse_x", 5_000).unwrap());
    assert_eq!(
        db.account_by_key("reuse-x").unwrap().unwrap().player,
        PlayerId(2)
    );

    // The newest cookies of each account are kept.
    let ada = PlayerId(2);
    let cookie = |n: u32| TokenHash::of(&format!("cookie {n}"));
    for n in 1..=3 {
        db.add_device_cookie(ada, cookie(n), 1_000 * u64::from(n), 2)
            .unwrap();
    }
    db.add_device_cookie(PlayerId(3), cookie(9), 9_000, 2)
        .unwrap();
    assert_eq!(
        db.device_cookie_player(cookie(1)).unwrap(),
        None,
        "the oldest goes"
    );
    for n in [2, 3] {
        assert_eq!(db.device_cookie_player(cookie(n)).unwrap(), Some(ada));
    }
    assert_eq!(
        db.device_cookie_player(cookie(9)).unwrap(),
        Some(PlayerId(3))
    );
    assert_eq!(db.device_cookie_player(cookie(4)).unwrap(), None);
}
