//! How a test makes a node of a cluster on a [`TestRedis`]: with the cluster's secret that the
//! harness's Redis keeps beside it, so that the tests go through the nodes' signed messages.

use std::time::Duration;

use noughts_server::{ClusterConfig, ClusterSecret};

use crate::redis::TestRedis;

/// The cluster's secret of `redis`.
pub fn secret(redis: &TestRedis) -> ClusterSecret {
    ClusterSecret::from_file(&redis.secret_file).expect("the harness's cluster secret")
}

/// How node `node` joins the cluster on `redis`, holding its games by a lease of `lease`.
pub fn config(redis: &TestRedis, node: &str, lease: Duration) -> ClusterConfig {
    ClusterConfig {
        redis: redis.url.clone(),
        node: node.to_owned(),
        lease,
        secret: Some(secret(redis)),
    }
}

/// The `noughts-server` flags that make it node `node` of the cluster on `redis`.
pub fn args(redis: &TestRedis, node: &str) -> Vec<String> {
    [
        "--redis",
        &redis.url,
        "--node-id",
        node,
        "--cluster-secret-file",
        redis
            .secret_file
            .to_str()
            .expect("a UTF-8 temporary directory"),
    ]
    .map(str::to_owned)
    .to_vec()
}
