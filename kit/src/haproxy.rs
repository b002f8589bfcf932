//! A real `haproxy` of the test's own in front of servers, in `mode http` as a site runs it, on
//! a free loopback port, stopped when dropped: to see what a server makes of a proxy's
//! connections.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::scratch::Scratch;

/// A running `haproxy`.
#[derive(Debug)]
pub struct TestHaproxy {
    child: Child,
    /// Where clients connect.
    pub addr: SocketAddr,
    /// Its configuration file.
    _dir: Scratch,
}

/// How the proxy tells a server who its client is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tell {
    /// A PROXY protocol v2 header on every connection (`send-proxy-v2`).
    ProxyProtocol,
    /// An `X-Forwarded-For` header on every request (`option forwardfor`).
    ForwardedFor,
}

impl TestHaproxy {
    /// Starts one in front of `servers`, telling them the client as `tell` says; or `None`
    /// (said loudly) on a machine without `haproxy`; in CI (`CI` set) a missing one fails.
    pub async fn start(servers: &[SocketAddr], tell: Tell) -> Option<TestHaproxy> {
        let servers: Vec<String> = servers.iter().map(ToString::to_string).collect();
        TestHaproxy::launch(&servers, tell).await
    }

    /// Starts one in front of servers' proxy sockets (`--proxy-socket`), reached as
    /// `unix@PATH` with a PROXY protocol v2 header on every connection.
    pub async fn start_on_sockets(sockets: &[&std::path::Path]) -> Option<TestHaproxy> {
        let servers: Vec<String> = sockets
            .iter()
            .map(|path| format!("unix@{}", path.display()))
            .collect();
        TestHaproxy::launch(&servers, Tell::ProxyProtocol).await
    }

    async fn launch(servers: &[String], tell: Tell) -> Option<TestHaproxy> {
        if Command::new("haproxy").arg("-v").output().is_err() {
            assert!(
                std::env::var_os("CI").is_none(),
                "haproxy cannot run, and CI must run the proxy tests"
            );
            eprintln!("SKIPPED: haproxy cannot run here; .ci/run installs it");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let dir = Scratch::new("haproxy");
        let (option, server_option) = match tell {
            Tell::ProxyProtocol => ("", " send-proxy-v2"),
            Tell::ForwardedFor => ("    option forwardfor\n", ""),
        };
        let servers: String = servers
            .iter()
            .enumerate()
            .map(|(i, server)| format!("    server s{i} {server}{server_option}\n"))
            .collect();
        let config = format!(
            "global\n    maxconn 1000\ndefaults\n    mode http\n    timeout connect 5s\n\
             timeout client 1h\n    timeout server 1h\n    timeout tunnel 1h\n{option}\
             frontend front\n    bind 127.0.0.1:{port}\n    default_backend servers\n\
             backend servers\n    balance roundrobin\n{servers}"
        );
        let file = dir.dir.join("haproxy.cfg");
        std::fs::write(&file, config).expect("write haproxy.cfg");
        let child = Command::new("haproxy")
            .arg("-f")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start haproxy");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let proxy = TestHaproxy {
            child,
            addr,
            _dir: dir,
        };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                return Some(proxy);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("haproxy did not start");
    }
}

impl Drop for TestHaproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
