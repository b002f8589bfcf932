//! Seeks you can see: a waiting quick-match seek is listed in the lobby with its terms, any other
//! player may accept it, and it leaves the listing however it ends.

use noughts_protocol::{ClientMessage, ClockSpec, ErrorCode, Seek, SeekId, ServerMessage, Variant};

use noughts_tests::{Client, TestServer, test_config};

const BLITZ: ClockSpec = ClockSpec {
    initial_ms: 180_000,
    increment_ms: 2_000,
};

async fn seek(client: &mut Client, id: u64, clock: Option<ClockSpec>) -> SeekId {
    let reply = client
        .request(
            id,
            ClientMessage::Seek(Seek {
                variant: Variant::Four,
                clock,
                rated: false,
                bots: false,
            }),
        )
        .await;
    match reply {
        ServerMessage::Seeking { seek, .. } => seek,
        other => panic!("expected seeking, got {other:?}"),
    }
}

#[tokio::test]
async fn seeks_that_do_not_meet_are_listed_and_one_is_accepted_on_its_terms() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let mut watcher = Client::join(&url, "carol").await;
    let mut lobby = watcher.follow_lobby(1).await;
    assert!(lobby.seeks.is_empty());
    let mut ada = Client::join(&url, "ada").await;
    let mut bob = Client::join(&url, "bob").await;
    let ada_seek = seek(&mut ada, 2, Some(BLITZ)).await;
    let bob_seek = seek(&mut bob, 3, None).await;
    // Different clocks: neither meets the other, and the lobby shows both with their terms.
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.len() == 2)
        .await;
    assert_eq!(lobby.seeks_total, 2);
    for (expected, name, clock) in [(ada_seek, "ada", Some(BLITZ)), (bob_seek, "bob", None)] {
        let seek = &lobby.seeks[&expected];
        assert_eq!(
            (
                seek.seek,
                seek.name.as_str(),
                seek.variant,
                seek.clock,
                seek.rating
            ),
            (expected, name, Variant::Four, clock, 1500)
        );
    }
    // A late subscriber gets them in the snapshot, oldest first.
    let mut late = Client::join(&url, "dave").await;
    let ServerMessage::Lobby { seeks, .. } = late.request(4, ClientMessage::SubscribeLobby).await
    else {
        panic!("a lobby snapshot")
    };
    let ids: Vec<SeekId> = seeks.iter().map(|s| s.seek).collect();
    assert_eq!(ids, [ada_seek, bob_seek]);
    // Nobody takes their own seek; bob takes ada's and plays on her clock.
    ada.expect_error(
        5,
        ClientMessage::AcceptSeek { seek: ada_seek },
        ErrorCode::OwnSeek,
    )
    .await;
    let reply = bob
        .request(6, ClientMessage::AcceptSeek { seek: ada_seek })
        .await;
    let ServerMessage::GameState(state) = reply else {
        panic!("the game as the reply, got {reply:?}")
    };
    assert_eq!((state.variant, state.clock), (Variant::Four, Some(BLITZ)));
    let ada_state = ada.game_state().await;
    assert_eq!(ada_state.game, state.game);
    // Both seeks are over: ada's was taken, bob's own withdrawn as he has a game now.
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.is_empty())
        .await;
    assert_eq!(lobby.seeks_total, 0);
    late.expect_error(
        7,
        ClientMessage::AcceptSeek { seek: ada_seek },
        ErrorCode::NoSuchSeek,
    )
    .await;
    bob.expect_error(8, ClientMessage::CancelSeek, ErrorCode::NotSeeking)
        .await;
}

#[tokio::test]
async fn a_seek_leaves_the_lobby_when_withdrawn_or_when_its_seeker_goes() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let mut watcher = Client::join(&url, "carol").await;
    let mut lobby = watcher.follow_lobby(1).await;
    let mut ada = Client::join(&url, "ada").await;
    let first = seek(&mut ada, 2, None).await;
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.contains_key(&first))
        .await;
    assert_eq!(
        ada.request(3, ClientMessage::CancelSeek).await,
        ServerMessage::Ok
    );
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.is_empty())
        .await;
    let second = seek(&mut ada, 4, None).await;
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.contains_key(&second))
        .await;
    drop(ada);
    watcher
        .lobby_until(&mut lobby, |view| view.seeks.is_empty())
        .await;
    let ServerMessage::Lobby { seeks, .. } =
        watcher.request(5, ClientMessage::SubscribeLobby).await
    else {
        panic!("a lobby snapshot")
    };
    assert!(seeks.is_empty(), "{seeks:?}");
}

#[tokio::test]
async fn seeks_of_the_same_speed_meet_on_the_waiting_seeks_clock() {
    let server = TestServer::start(test_config()).await;
    let url = server.url();
    let mut ada = Client::join(&url, "ada").await;
    let mut bob = Client::join(&url, "bob").await;
    seek(&mut ada, 1, Some(BLITZ)).await;
    let five_nothing = ClockSpec {
        initial_ms: 300_000,
        increment_ms: 0,
    };
    // 3+2 and 5+0 are both blitz: bob's seek meets ada's at once, on her clock.
    seek(&mut bob, 2, Some(five_nothing)).await;
    let (a, b) = (ada.game_state().await, bob.game_state().await);
    assert_eq!(a.game, b.game);
    assert_eq!(a.clock, Some(BLITZ));
}
