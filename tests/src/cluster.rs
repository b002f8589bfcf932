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
        insecure_redis: false,
        redis_ca: None,
    }
}

/// The `noughts-server` flags that make it node `node` of the cluster on `redis`: its URL, with
/// the password, given by file.
pub fn args(redis: &TestRedis, node: &str) -> Vec<String> {
    [
        "--redis-url-file",
        utf8(&redis.url_file),
        "--node-id",
        node,
        "--cluster-secret-file",
        utf8(&redis.secret_file),
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `path` as text: the harness's files live in a temporary directory named in UTF-8.
fn utf8(path: &std::path::Path) -> &str {
    path.to_str().expect("a UTF-8 temporary directory")
}
