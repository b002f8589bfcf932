//! Accounts across two nodes on one Redis and one PostgreSQL: a username taken on one node is
//! taken on the other in any case, the account signs in on either node as the same player, and
//! its sessions are one list wherever they were opened.

use noughts_protocol::{ClientMessage, ErrorCode, ServerMessage};
use noughts_server::{Config, StoreConfig};
use noughts_tests::accounts::{register, registered, sign_in};
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
