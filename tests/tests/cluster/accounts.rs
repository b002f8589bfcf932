//! Accounts across two nodes on one Redis and one PostgreSQL: a username taken on one node is
//! taken on the other in any case, the account signs in on either node as the same player, its
//! sessions are one list wherever they were opened, and a guest on one node cannot take an
//! account's rated seek or room on the other.

use noughts_protocol::{ClientMessage, CreateRoom, ErrorCode, Seek, ServerMessage, Variant};
use noughts_server::{Config, StoreConfig};
use noughts_tests::accounts::{make_account, register, registered, sign_in};
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, test_config};

const PASSWORD: &str = "tangerine umbrella 42";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_username_is_unique_across_nodes_and_signs_in_on_either() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let store = StoreConfig::Postgres(postgres.database("accounts"));
    let nodes = super::nodes(&redis, 2, || Config {
        store: store.clone(),
        ..test_config()
    })
    .await;
    let (one, two) = (nodes[0].url(), nodes[1].url());

    let mut ada = Client::join(&one, "ada").await;
    registered(&mut ada, "Ada", PASSWORD).await;
    let mut other = Client::join(&two, "other").await;
    match register(&mut other, 1, "aDA", PASSWORD).await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::UsernameTaken),
        answer => panic!("expected username_taken, got {answer:?}"),
    }

    let mut laptop = sign_in(&two, "ada", PASSWORD, ada.player).await;
    match laptop.request(2, ClientMessage::Sessions).await {
        ServerMessage::SessionList { sessions } => {
            assert_eq!(sessions.len(), 2, "{sessions:?}");
            assert_eq!(sessions.iter().filter(|s| s.current).count(), 1);
        }
        answer => panic!("expected the session list, got {answer:?}"),
    }
}

/// Asks with `message` until the answer is not `not_yet` (another node learns of a seek a moment
/// after it is made), and returns it.
async fn once_known(
    client: &mut Client,
    message: ClientMessage,
    not_yet: ErrorCode,
) -> ServerMessage {
    let deadline = tokio::time::Instant::now() + noughts_tests::WAIT;
    for id in 10.. {
        match client.request(id, message.clone()).await {
            ServerMessage::Error { code, .. } if code == not_yet => {
                assert!(tokio::time::Instant::now() < deadline, "never known");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            answer => return answer,
        }
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_on_another_node_cannot_take_an_accounts_rated_seek_or_room() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let store = StoreConfig::Postgres(postgres.database("rated_across"));
    let nodes = super::nodes(&redis, 2, || Config {
        store: store.clone(),
        ..test_config()
    })
    .await;
    let (one, two) = (nodes[0].url(), nodes[1].url());
    let mut ada = Client::join(&one, "ada").await;
    make_account(&mut ada).await;
    let rated_room = ClientMessage::CreateRoom(CreateRoom {
        variant: Variant::Classic,
        clock: None,
        private: true,
        rated: true,
    });
    let ServerMessage::RoomCreated { code, .. } = ada.request(1, rated_room).await else {
        panic!("ada's room");
    };
    let rated_seek = ClientMessage::Seek(Seek {
        variant: Variant::Classic,
        clock: None,
        rated: true,
        bots: false,
    });
    let ServerMessage::Seeking { seek, .. } = ada.request(2, rated_seek).await else {
        panic!("ada's seek");
    };

    // A guest on the other node is refused both; they wait on for an account.
    let mut guest = Client::join(&two, "guest").await;
    let join = ClientMessage::JoinRoom { code };
    guest
        .expect_error(3, join.clone(), ErrorCode::NotAnAccount)
        .await;
    let accept = ClientMessage::AcceptSeek { seek };
    let answer = once_known(&mut guest, accept.clone(), ErrorCode::NoSuchSeek).await;
    assert!(
        matches!(
            answer,
            ServerMessage::Error {
                code: ErrorCode::NotAnAccount,
                ..
            }
        ),
        "{answer:?}"
    );
    let mut bob = Client::join(&two, "bob").await;
    make_account(&mut bob).await;
    let ServerMessage::GameState(state) = bob.request(4, accept).await else {
        panic!("bob takes ada's seek");
    };
    assert!(state.rated);
    let ServerMessage::GameState(state) = bob.request(5, join).await else {
        panic!("bob joins ada's room");
    };
    assert!(state.rated);
}
