//! What reaches Redis without the cluster's secret moves no game: a process that publishes in
//! the nodes' own format (a real message caught on its way between two nodes, then altered)
//! cannot move, chat or resign for a player of a live game across two nodes, nor end their
//! session; a message sealed under another secret, one replayed on its own channel and one
//! copied onto another game's channel are dropped too, and counted. And nodes keep playing
//! across nodes at every step of a change of secret.

use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use noughts_protocol::{ClientFrame, ClientMessage, GameId, Mark, ServerMessage, Variant, Watch};
use noughts_server::{ClusterConfig, ClusterSecret, Config, StoreConfig};
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::TestRedis;
use noughts_tests::{Client, WAIT, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;

/// A node of the cluster, serving its metrics too; it stops when dropped.
struct Node {
    url: String,
    metrics: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Node {
    async fn start(config: Config) -> Node {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let metrics = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/", listener.local_addr().unwrap());
        let metrics_addr = metrics.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(noughts_server::run_with_metrics(
            listener,
            metrics,
            config,
            async move {
                let _ = stopped.await;
            },
        ));
        Node {
            url,
            metrics: metrics_addr,
            _stop: stop,
        }
    }

    /// `noughts_forged_messages_total` as the node's metrics say now.
    async fn forged(&self) -> u64 {
        let mut stream = tokio::net::TcpStream::connect(self.metrics).await.unwrap();
        let request = format!(
            "GET /metrics HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.metrics
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        text.lines()
            .find_map(|line| line.strip_prefix("noughts_forged_messages_total "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no noughts_forged_messages_total in {text}"))
    }
}

/// Node `node` of the cluster on `redis` (with the harness's secret), on the database `db`.
fn node_config(redis: &TestRedis, db: &str, node: &str) -> Config {
    Config {
        store: StoreConfig::Postgres(db.to_owned()),
        cluster: Some(noughts_tests::cluster::config(redis, node, super::LEASE)),
        ..test_config()
    }
}

/// A process that reaches Redis, as an intruder would: it reads a channel and publishes.
struct Intruder {
    redis: redis::aio::MultiplexedConnection,
    heard: Pin<Box<dyn Stream<Item = redis::Msg> + Send>>,
}

impl Intruder {
    async fn listening_to(redis: &TestRedis, channel: &str) -> Intruder {
        let client = redis::Client::open(redis.url.as_str()).unwrap();
        let mut pubsub = client.get_async_pubsub().await.unwrap();
        pubsub.subscribe(channel).await.unwrap();
        Intruder {
            redis: client.get_multiplexed_async_connection().await.unwrap(),
            heard: Box::pin(pubsub.into_on_message()),
        }
    }

    /// The next message heard whose text holds every one of `words`.
    async fn catch(&mut self, words: &[&str]) -> String {
        tokio::time::timeout(WAIT, async {
            loop {
                let message = self.heard.next().await.expect("the subscription stands");
                let text: String = message.get_payload().unwrap();
                if words.iter().all(|word| text.contains(word)) {
                    return text;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no message with {words:?} went by"))
    }

    async fn publish(&mut self, channel: &str, text: &str) {
        redis::cmd("PUBLISH")
            .arg(channel)
            .arg(text)
            .query_async::<u64>(&mut self.redis)
            .await
            .unwrap();
    }
}

/// A message as the nodes write it, without the header a sealed one starts with.
fn body(text: &str) -> &str {
    if text.starts_with('{') {
        text
    } else {
        text.split_once('\n').map_or(text, |(_, body)| body)
    }
}

/// The mailed request `request` (its body) made to carry `message` instead.
fn forge(request: &str, message: ClientMessage) -> String {
    let mut mail: serde_json::Value = serde_json::from_str(body(request)).unwrap();
    mail["text"] = ClientFrame::new(message).to_json().into();
    mail.to_string()
}

/// Hana on `first` and Gus on `second` in a new game that `first` plays, Gus to move: (Hana,
/// Gus, the game).
async fn across(first: &Node, second: &Node) -> (Client, Client, GameId) {
    let mut hana = Client::join(&first.url, "hana").await;
    let code = hana.create_room(1, Variant::Classic, false).await;
    let mut gus = Client::join(&second.url, "gus").await;
    gus.send(ClientMessage::JoinRoom { code }).await;
    let state = hana.game_state().await;
    let game = state.game;
    assert_eq!(gus.game_state().await.game, game);
    if state.you == Some(Mark::X) {
        hana.send(ClientMessage::Move { game, cell: 0 }).await;
        for player in [&mut hana, &mut gus] {
            player
                .saw(|m| matches!(m, ServerMessage::Moved { cell: 0, .. }))
                .await;
        }
    }
    (hana, gus, game)
}

/// What `client` is sent up to the chat line `text`, that line left out.
async fn until_chat(client: &mut Client, text: &str) -> Vec<ServerMessage> {
    let mut seen = Vec::new();
    tokio::time::timeout(WAIT, async {
        loop {
            match client.next().await.message {
                ServerMessage::Chat { line, .. } if line.text == text => return,
                other => seen.push(other),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{text:?} never came; saw {seen:?}"));
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_that_reaches_redis_without_the_secret_cannot_move_chat_resign_or_end_a_session()
{
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("forged_unsealed");
    let first = Node::start(node_config(&redis, &db, "node1")).await;
    let second = Node::start(node_config(&redis, &db, "node2")).await;
    let mut intruder = Intruder::listening_to(&redis, "mail:node1").await;
    let (mut hana, mut gus, game) = across(&first, &second).await;
    // A real request on its way from Gus's node to the game's, caught.
    gus.say(game, "hello").await;
    let request = intruder.catch(&[r#""mail":"request""#, "hello"]).await;
    hana.until(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == "hello"))
        .await;
    let before = first.forged().await;
    // The same request, altered, in the nodes' own format but without the MAC.
    for message in [
        ClientMessage::Chat {
            game,
            text: "forged".into(),
        },
        ClientMessage::Move { game, cell: 4 },
        ClientMessage::Resign { game },
        ClientMessage::Logout,
    ] {
        intruder
            .publish("mail:node1", &forge(&request, message))
            .await;
    }
    // What the intruder published came before this, on the same channel, to the same stand-in.
    gus.send(ClientMessage::Chat {
        game,
        text: "sync".into(),
    })
    .await;
    let seen = until_chat(&mut hana, "sync").await;
    assert!(
        !seen.iter().any(|m| matches!(
            m,
            ServerMessage::Chat { .. }
                | ServerMessage::Moved { .. }
                | ServerMessage::GameOver { .. }
        )),
        "nothing forged reaches the opponent: {seen:?}"
    );
    // The game goes on as it stood: Gus is still to move, and moves.
    gus.send(ClientMessage::Move { game, cell: 8 }).await;
    hana.until(|m| matches!(m, ServerMessage::Moved { cell: 8, .. }))
        .await;
    // Gus's session stands: his token still brings him back.
    let again = Client::resume(&second.url, "gus", &gus.token).await;
    assert_eq!(again.player, gus.player);
    let forged = first.forged().await;
    assert!(forged >= before + 4, "counted: {before} then {forged}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_under_another_secret_replayed_or_copied_to_another_game_is_dropped() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let db = postgres.database("forged_sealed");
    let first = Node::start(node_config(&redis, &db, "node1")).await;
    let second = Node::start(node_config(&redis, &db, "node2")).await;
    let mut intruder = Intruder::listening_to(&redis, "mail:node1").await;
    let (mut hana, mut gus, game) = across(&first, &second).await;
    gus.say(game, "hello").await;
    let request = intruder.catch(&[r#""mail":"request""#, "hello"]).await;
    hana.until(|m| matches!(m, ServerMessage::Chat { line, .. } if line.text == "hello"))
        .await;
    let before = first.forged().await;
    // Sealed as node2 would seal it, but under a secret that is not the cluster's.
    let other =
        ClusterSecret::new(&[b"a secret that is not the cluster's, though long enough"]).unwrap();
    let altered = forge(
        &request,
        ClientMessage::Chat {
            game,
            text: "under another secret".into(),
        },
    );
    let wrongly_sealed = other.seal("mail:node1", "node2", &altered);
    intruder.publish("mail:node1", &wrongly_sealed).await;
    // The real message again, as it was, on its own channel.
    intruder.publish("mail:node1", &request).await;
    gus.send(ClientMessage::Chat {
        game,
        text: "sync".into(),
    })
    .await;
    let seen = until_chat(&mut hana, "sync").await;
    assert!(
        !seen.iter().any(|m| matches!(m, ServerMessage::Chat { .. })),
        "neither the wrongly sealed line nor the replayed one is said: {seen:?}"
    );
    // Another game on the first node, watched from the second.
    let mut pia = Client::join(&first.url, "pia").await;
    let code = pia.create_room(2, Variant::Classic, false).await;
    let mut quin = Client::join(&first.url, "quin").await;
    quin.send(ClientMessage::JoinRoom { code }).await;
    let other_game = pia.game_state().await;
    quin.game_state().await;
    let mut wes = Client::join(&second.url, "wes").await;
    match wes
        .request(
            3,
            ClientMessage::Watch(Watch {
                game: other_game.game,
                code: None,
            }),
        )
        .await
    {
        ServerMessage::GameState(state) => assert_eq!(state.game, other_game.game),
        other => panic!("a snapshot of the other game, got {other:?}"),
    }
    // An update of the first game, for its watchers, copied onto the other game's channel: its
    // `seq` is ahead of the other game's, so only its MAC can keep it out.
    let mut game_spy = Intruder::listening_to(&redis, &format!("{{g{}}}:updates", game.0)).await;
    for line in ["one", "two", "three", "for the watchers"] {
        hana.say(game, line).await;
    }
    let update = game_spy.catch(&["for the watchers"]).await;
    game_spy
        .publish(&format!("{{g{}}}:updates", other_game.game.0), &update)
        .await;
    let (mut x, other) = if other_game.you == Some(Mark::X) {
        (pia, other_game.game)
    } else {
        (quin, other_game.game)
    };
    x.send(ClientMessage::Move {
        game: other,
        cell: 4,
    })
    .await;
    let seen = tokio::time::timeout(WAIT, async {
        let mut seen = Vec::new();
        loop {
            let message = wes.next().await.message;
            if matches!(message, ServerMessage::Moved { game: g, cell: 4, .. } if g == other) {
                return seen;
            }
            seen.push(message);
        }
    })
    .await
    .expect("the other game's move reaches its watcher");
    assert!(
        !seen
            .iter()
            .any(|m| noughts_tests::seq_of(m).is_some_and(|(g, _)| g == game)),
        "nothing of the first game reaches the other's watcher: {seen:?}"
    );
    let forged = first.forged().await;
    assert!(forged >= before + 2, "counted on the first node: {forged}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(second.forged().await >= 1, "counted on the second node");
}

/// The lines of a node's secret file, the signing one first.
type Secrets<'a> = &'a [&'a [u8]];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_play_across_nodes_at_every_step_of_a_change_of_secret() {
    let Some(postgres) = Postgres::shared() else {
        return;
    };
    let old: &[u8] = b"the cluster's old secret, at least 32 bytes long";
    let new: &[u8] = b"the cluster's new secret, at least 32 bytes long too";
    // A rolling restart goes from each step to the next: the new secret added second, then
    // swapped first, then the old one dropped; the two nodes of each pair are a step apart.
    let steps: [(Secrets, Secrets); 3] = [
        (&[old], &[old, new]),
        (&[old, new], &[new, old]),
        (&[new, old], &[new]),
    ];
    for (step, (before, after)) in steps.into_iter().enumerate() {
        // A Redis of the step's own: the nodes of the step before are still stopping.
        let Some(redis) = TestRedis::start().await else {
            return;
        };
        let db = postgres.database(&format!("rotation{step}"));
        let node = |name: String, keys: &[&[u8]]| Config {
            store: StoreConfig::Postgres(db.clone()),
            cluster: Some(ClusterConfig {
                redis: redis.url.clone(),
                node: name,
                lease: super::LEASE,
                secret: Some(ClusterSecret::new(keys).unwrap()),
                insecure_redis: false,
                redis_ca: None,
            }),
            ..test_config()
        };
        let first = Node::start(node(format!("step{step}a"), before)).await;
        let second = Node::start(node(format!("step{step}b"), after)).await;
        let (mut hana, mut gus, game) = across(&first, &second).await;
        gus.say(game, "from the second node").await;
        hana.until(
            |m| matches!(m, ServerMessage::Chat { line, .. } if line.text == "from the second node"),
        )
        .await;
        gus.send(ClientMessage::Move { game, cell: 4 }).await;
        hana.until(|m| matches!(m, ServerMessage::Moved { cell: 4, .. }))
            .await;
        gus.send(ClientMessage::Resign { game }).await;
        hana.until(|m| matches!(m, ServerMessage::GameOver { .. }))
            .await;
        assert_eq!((first.forged().await, second.forged().await), (0, 0));
    }
}
