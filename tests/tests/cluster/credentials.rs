//! Every part of a cluster is reached with a credential, kept as secrets are kept: the harness's
//! Redis and PostgreSQL let in no one without their passwords; a node refuses a Redis that asks
//! for none unless told `--insecure-redis`; the URLs with their passwords reach a node by files
//! its user alone may read, never by its command line, and show in none of its output; and
//! Redis and PostgreSQL are reached over TLS, their certificates checked, when the URLs say so.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use noughts_protocol::Variant;
use noughts_tests::postgres::Postgres;
use noughts_tests::redis::{TestRedis, write_private};
use noughts_tests::tls::TestCert;
use noughts_tests::{Client, Scratch, alternate, binary, pair};

/// `noughts-server` on a loopback port with `args` and the environment `env`, war games off, its
/// log in `dir`/`name`.log.
fn node(dir: &Path, name: &str, args: &[&str], env: &[(&str, &Path)]) -> Child {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    Command::new(binary::path("noughts-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--no-war-games",
            "--ai-think-ms",
            "0",
        ])
        .args(args)
        .envs(env.iter().map(|(key, path)| (key, path.as_os_str())))
        .env("RUST_LOG", "debug")
        .env("HOME", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start noughts-server")
}

/// What node `name`, which must refuse to start, said before it exited (its log); a failure if
/// it is still running after 20 s.
fn refused(mut child: Child, dir: &Path, name: &str) -> String {
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the node started, and should have refused to");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let said = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap();
    assert!(!status.success(), "{said}");
    said
}

/// The `ws://` URL a node that started prints.
fn listening(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim()
        .strip_prefix("noughts server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}

/// The password in `url` (`scheme://user:PASSWORD@…`).
fn password(url: &str) -> &str {
    let (_, rest) = url.split_once("://").unwrap();
    let (credentials, _) = rest.rsplit_once('@').unwrap();
    credentials.split_once(':').unwrap().1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_harness_redis_and_postgres_let_in_no_one_without_the_password() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let port = redis.port().to_string();
    let stranger = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port, "PING"])
        .env_remove("REDISCLI_AUTH")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&stranger.stdout);
    assert!(said.starts_with("NOAUTH"), "{said:?}");
    let node = redis.cli().arg("PING").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&node.stdout).trim(), "PONG");
    // PostgreSQL: no password, a wrong one, and the right one.
    let url = postgres.database("credentials");
    let psql = |url: &str| {
        let out = Command::new(postgres.program("psql"))
            .args(["-X", "-w", "-At", "-d", url, "-c", "SELECT 42"])
            .env_remove("PGPASSWORD")
            .env("PGPASSFILE", "/dev/null")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (said, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let secret = password(&url);
    let (without, why) = psql(&url.replace(&format!(":{secret}@"), "@"));
    assert!(without.is_empty() && why.contains("password"), "{why}");
    let (wrong, why) = psql(&url.replace(secret, "guessed"));
    assert!(
        wrong.is_empty() && why.contains("password authentication failed"),
        "{why}"
    );
    assert_eq!(psql(&url).0, "42");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_refuses_a_redis_that_asks_no_password_unless_told_insecure_redis() {
    let (Some(open), Some(postgres)) = (TestRedis::start_open().await, Postgres::shared()) else {
        return;
    };
    let dir = Scratch::new("open-redis");
    let db = postgres.database("open_redis");
    let secret = open.secret_file.to_str().unwrap();
    let args = [
        "--db",
        &db,
        "--redis",
        &open.url,
        "--cluster-secret-file",
        secret,
    ];
    let said = refused(node(&dir.dir, "open", &args, &[]), &dir.dir, "open");
    assert!(
        said.contains("lets in anyone") && said.contains("--insecure-redis"),
        "{said}"
    );
    assert!(!said.contains(password(&db)), "{said}");
    let insecure = [&args[..], &["--insecure-redis"]].concat();
    let mut child = node(&dir.dir, "insecure", &insecure, &[]);
    let url = listening(&mut child);
    Client::join(&url, "ada").await;
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_file_others_may_read_is_refused_and_its_password_never_shown() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let dir = Scratch::new("exposed-url");
    let db = postgres.database("exposed_url");
    let (db_file, redis_file) = (dir.dir.join("db.url"), dir.dir.join("redis.url"));
    write_private(&db_file, &db);
    write_private(&redis_file, &redis.url);
    let secret = redis.secret_file.to_str().unwrap();
    for (exposed, flag, mode) in [
        (&redis_file, "--redis-url-file", 0o644),
        (&db_file, "--db-url-file", 0o640),
    ] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(exposed, std::fs::Permissions::from_mode(mode)).unwrap();
        let args = [
            "--db-url-file",
            db_file.to_str().unwrap(),
            "--redis-url-file",
            redis_file.to_str().unwrap(),
            "--cluster-secret-file",
            secret,
        ];
        let said = refused(node(&dir.dir, flag, &args, &[]), &dir.dir, flag);
        assert!(said.contains(flag) && said.contains("chmod 600"), "{said}");
        for hidden in [password(&db), password(&redis.url)] {
            assert!(!said.contains(hidden), "{said}");
        }
        std::fs::set_permissions(exposed, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_given_their_urls_by_file_play_across_the_cluster_and_show_no_password() {
    let (Some(redis), Some(postgres)) = (TestRedis::start().await, Postgres::shared()) else {
        return;
    };
    let dir = Scratch::new("url-files");
    let db = postgres.database("url_files");
    let db_file = dir.dir.join("db.url");
    write_private(&db_file, &db);
    let secret = redis.secret_file.to_str().unwrap();
    // One node by flags, the other by the environment.
    let by_flags = [
        "--db-url-file",
        db_file.to_str().unwrap(),
        "--redis-url-file",
        redis.url_file.to_str().unwrap(),
        "--cluster-secret-file",
        secret,
        "--node-id",
        "flags",
    ];
    let by_env = ["--cluster-secret-file", secret, "--node-id", "environment"];
    let mut first = node(&dir.dir, "flags", &by_flags, &[]);
    let mut second = node(
        &dir.dir,
        "environment",
        &by_env,
        &[
            ("NOUGHTS_DB_URL_FILE", &db_file),
            ("NOUGHTS_REDIS_URL_FILE", &redis.url_file),
        ],
    );
    let (one, two) = (listening(&mut first), listening(&mut second));
    // A player on each node, matched into one game across the cluster, and its moves.
    let (xavi, olga) = (
        Client::join(&one, "xavi").await,
        Client::join(&two, "olga").await,
    );
    let (mut x, mut o, state) = pair(xavi, olga, Variant::Classic).await;
    alternate(&mut x, &mut o, state.game, &[4, 0, 8]).await;
    let secrets = [password(&db), password(&redis.url)];
    for child in [&first, &second] {
        let command_line = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap();
        let command_line = String::from_utf8_lossy(&command_line);
        for hidden in secrets {
            assert!(!command_line.contains(hidden), "{command_line}");
        }
    }
    for child in [&mut first, &mut second] {
        let _ = child.kill();
        let _ = child.wait();
    }
    for name in ["flags", "environment"] {
        let log = std::fs::read_to_string(dir.dir.join(format!("{name}.log"))).unwrap();
        assert!(log.contains("keeping games"), "{log}");
        for hidden in secrets {
            assert!(!log.contains(hidden), "a password in the log");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_reach_redis_and_postgresql_over_tls_checked_against_a_private_authority() {
    // A throwaway authority: a self-signed certificate for 127.0.0.1, made now.
    let cert = TestCert::localhost();
    let Some(redis) = TestRedis::start_tls(&cert.cert, &cert.key).await else {
        return;
    };
    let Some(postgres) = Postgres::start_tls(&cert.cert, &cert.key) else {
        return;
    };
    let dir = Scratch::new("tls-parts");
    let db = postgres.database("tls");
    let ca = cert.cert.to_str().unwrap();
    let (tls_db, plain_db) = (dir.dir.join("tls.url"), dir.dir.join("plain.url"));
    write_private(
        &tls_db,
        &format!("{db}?sslmode=verify-full&sslrootcert={ca}"),
    );
    write_private(&plain_db, &db);
    let redis_file = redis.url_file.to_str().unwrap();
    let secret = redis.secret_file.to_str().unwrap();
    let node_args = |db: &Path, name: &'static str, trust: bool| {
        let mut args = vec![
            "--db-url-file".to_owned(),
            db.display().to_string(),
            "--redis-url-file".to_owned(),
            redis_file.to_owned(),
            "--cluster-secret-file".to_owned(),
            secret.to_owned(),
            "--node-id".to_owned(),
            name.to_owned(),
        ];
        if trust {
            args.extend(["--redis-ca-file".to_owned(), ca.to_owned()]);
        }
        args
    };
    let start = |args: &[String], name: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        node(&dir.dir, name, &args, &[])
    };
    // PostgreSQL takes no connection without TLS; Redis's certificate is checked.
    let plain = node_args(&plain_db, "plain", true);
    let said = refused(start(&plain, "plain"), &dir.dir, "plain");
    assert!(
        said.contains("cannot connect to PostgreSQL") && said.contains("no encryption"),
        "{said}"
    );
    let untrusting = node_args(&tls_db, "untrusting", false);
    let said = refused(start(&untrusting, "untrusting"), &dir.dir, "untrusting");
    assert!(
        said.contains("cannot reach Redis") && said.contains("UnknownIssuer"),
        "{said}"
    );
    // Over TLS, both checked against the authority, two nodes play a game between them.
    let mut first = start(&node_args(&tls_db, "tls1", true), "tls1");
    let mut second = start(&node_args(&tls_db, "tls2", true), "tls2");
    let (one, two) = (listening(&mut first), listening(&mut second));
    let (xavi, olga) = (
        Client::join(&one, "xavi").await,
        Client::join(&two, "olga").await,
    );
    let (mut x, mut o, state) = pair(xavi, olga, Variant::Classic).await;
    alternate(&mut x, &mut o, state.game, &[4, 0, 8]).await;
    for child in [&mut first, &mut second] {
        let _ = child.kill();
        let _ = child.wait();
    }
}
