//! Readiness on a paused clock, with dependencies that answer as the test says.

use std::sync::atomic::AtomicU8;

use super::*;
use crate::metrics::DependencyLabel;

/// How a fake dependency answers.
const UP: u8 = 0;
const REFUSING: u8 = 1;
const SILENT: u8 = 2;

/// A dependency named `name` that answers as `state` says at each probe.
fn fake(name: &'static str, state: &Arc<AtomicU8>) -> Dependency {
    let state = state.clone();
    Dependency {
        name,
        ping: Box::new(move || {
            let now = state.load(Ordering::Relaxed);
            Box::pin(async move {
                match now {
                    UP => Ok(()),
                    REFUSING => Err("connection refused".to_owned()),
                    _ => std::future::pending().await,
                }
            })
        }),
    }
}

struct Node {
    health: Health,
    series: HealthSeries,
    store: Arc<AtomicU8>,
    redis: Arc<AtomicU8>,
}

fn node(grace: Duration) -> Node {
    let series = HealthSeries::default();
    let (store, redis) = (Arc::new(AtomicU8::new(UP)), Arc::new(AtomicU8::new(UP)));
    let dependencies = vec![fake("postgres", &store), fake("redis", &redis)];
    Node {
        health: Health::of(dependencies, grace, series.clone()),
        series,
        store,
        redis,
    }
}

impl Node {
    async fn readyz(&self) -> Answer {
        self.health
            .answer("/readyz")
            .await
            .expect("readyz is served")
    }

    /// Whether `dependency` answered its last probe, as its series says.
    fn up(&self, dependency: &'static str) -> i64 {
        self.series
            .up
            .get_or_create(&DependencyLabel { dependency })
            .get()
    }
}

async fn pass(time: Duration) {
    tokio::time::advance(time).await;
}

#[tokio::test(start_paused = true)]
async fn a_blip_shorter_than_the_grace_leaves_the_node_ready_and_says_so() {
    let node = node(Duration::from_secs(15));
    assert_eq!(node.readyz().await.body, "ready\n");
    assert_eq!(node.series.ready.get(), 1);
    assert_eq!(node.up("redis"), 1);

    node.redis.store(REFUSING, Ordering::Relaxed);
    pass(Duration::from_secs(1)).await;
    let answer = node.readyz().await;
    assert_eq!(answer.status, "200 OK");
    assert_eq!(
        answer.body,
        "ready (redis failing for 0.0 s: connection refused)\n"
    );
    assert_eq!(node.up("redis"), 0);
    assert_eq!(node.up("postgres"), 1);
    assert_eq!(node.series.ready.get(), 1);

    pass(Duration::from_millis(14_900)).await;
    let answer = node.readyz().await;
    assert_eq!(answer.status, "200 OK");
    assert_eq!(
        answer.body,
        "ready (redis failing for 14.9 s: connection refused)\n"
    );

    // Back before the grace ran out: nothing happened as far as the balancer knows.
    node.redis.store(UP, Ordering::Relaxed);
    pass(Duration::from_secs(1)).await;
    assert_eq!(node.readyz().await.body, "ready\n");
    assert_eq!(node.up("redis"), 1);
}

#[tokio::test(start_paused = true)]
async fn a_dependency_failing_past_the_grace_makes_the_node_not_ready_until_it_answers() {
    let node = node(Duration::from_secs(15));
    node.readyz().await;
    node.store.store(REFUSING, Ordering::Relaxed);
    pass(Duration::from_secs(1)).await;
    assert_eq!(node.readyz().await.status, "200 OK");
    pass(Duration::from_millis(15_500)).await;
    let answer = node.readyz().await;
    assert_eq!(answer.status, "503 Service Unavailable");
    assert_eq!(
        answer.body,
        "not ready: postgres failing for 15.5 s: connection refused\n"
    );
    assert_eq!(node.series.ready.get(), 0);
    assert_eq!(node.up("postgres"), 0);

    node.store.store(UP, Ordering::Relaxed);
    pass(Duration::from_secs(1)).await;
    assert_eq!(node.readyz().await, Readiness::default_ready().answer());
    assert_eq!(node.series.ready.get(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_grace_counts_an_unbroken_failure_only() {
    let node = node(Duration::from_secs(15));
    for _ in 0..3 {
        node.redis.store(REFUSING, Ordering::Relaxed);
        pass(Duration::from_secs(1)).await;
        node.readyz().await;
        pass(Duration::from_secs(10)).await;
        assert_eq!(node.readyz().await.status, "200 OK");
        node.redis.store(UP, Ordering::Relaxed);
        pass(Duration::from_secs(1)).await;
        assert_eq!(node.readyz().await.body, "ready\n");
    }
}

#[tokio::test(start_paused = true)]
async fn a_dependency_that_does_not_answer_counts_as_failing_from_the_probe_that_waited() {
    let node = node(Duration::from_secs(5));
    node.readyz().await;
    node.redis.store(SILENT, Ordering::Relaxed);
    pass(Duration::from_secs(1)).await;
    // The probe waits out its timeout (the paused clock jumps it).
    let answer = node.readyz().await;
    assert_eq!(
        answer.body,
        "ready (redis failing for 2.0 s: no answer in 2 s)\n"
    );
    pass(Duration::from_secs(4)).await;
    let answer = node.readyz().await;
    assert_eq!(answer.status, "503 Service Unavailable");
    assert!(
        answer
            .body
            .starts_with("not ready: redis failing for 8.0 s"),
        "{}",
        answer.body
    );
}

#[tokio::test(start_paused = true)]
async fn a_draining_node_is_not_ready_at_once() {
    let node = node(Duration::from_secs(15));
    assert_eq!(node.readyz().await.status, "200 OK");
    node.health.drain();
    assert_eq!(node.series.ready.get(), 0);
    let answer = node.readyz().await;
    assert_eq!(answer.status, "503 Service Unavailable");
    assert_eq!(answer.body, "not ready: draining\n");
}

#[tokio::test(start_paused = true)]
async fn the_node_probes_by_itself_and_keeps_the_series_current() {
    let node = Arc::new(node(Duration::from_secs(15)));
    let health = Arc::new(Health::of(
        vec![fake("redis", &node.redis)],
        Duration::from_secs(15),
        node.series.clone(),
    ));
    let stop = CancellationToken::new();
    let probing = tokio::spawn(health.clone().keep_probing(stop.clone()));
    pass(Duration::from_millis(1_500)).await;
    assert_eq!(node.up("redis"), 1);
    node.redis.store(REFUSING, Ordering::Relaxed);
    pass(Duration::from_millis(1_100)).await;
    tokio::task::yield_now().await;
    assert_eq!(node.up("redis"), 0);
    stop.cancel();
    probing.await.unwrap();
}

impl Readiness {
    fn default_ready() -> Readiness {
        Readiness {
            ready: true,
            notes: Vec::new(),
        }
    }
}
