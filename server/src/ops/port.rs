//! The metrics port: a small HTTP responder that serves the node's metrics at `/metrics` on the
//! address given to [`crate::run_with_metrics`], with the health endpoints beside it. It answers
//! only requests addressed to it by its own address (`Host`), so that a page a browser loaded
//! from elsewhere cannot read it by DNS rebinding, and every answer carries the headers the main
//! port's do. Backups and the operator's commands are not served here, but on the operator's
//! socket (`crate::ops::operator`), where the caller is known.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, timeout};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn};

use crate::metrics::Metrics;
use crate::net::http::{self, Answer};
use crate::ops::health::Health;

/// How long one scrape may take, from accept to the last byte.
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head read; a scraper's is a few hundred bytes.
const MAX_HEAD: usize = 8 * 1024;
/// The exposition format `encode` writes.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// What a scrape reads: the metrics, and the count of live games, which the registry keeps; and
/// the node's health, served here too.
pub(crate) struct Source {
    pub metrics: Arc<Metrics>,
    pub live_games: Box<dyn Fn() -> usize + Send + Sync>,
    pub health: Arc<Health>,
}

/// Serves the metrics over HTTP on `listener` until `stop` is cancelled; each scrape is a task of
/// `tasks`, so shutdown waits for it.
pub(crate) async fn serve(
    source: Source,
    listener: TcpListener,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, "serving metrics");
    }
    let source = Arc::new(source);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let source = source.clone();
                    tasks.spawn(async move {
                        if timeout(SCRAPE_TIMEOUT, scrape(&source, stream)).await.is_err() {
                            debug!("a metrics request timed out");
                        }
                    });
                }
                Err(err) => {
                    warn!(cause = %err, "metrics accept failed");
                    sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Answers one HTTP request, then closes.
async fn scrape(source: &Source, mut stream: TcpStream) {
    let Some(head) = read_head(&mut stream).await else {
        return;
    };
    let listener = stream.local_addr().ok();
    let response = match listener {
        Some(listener) if names_listener(host_of(&head), listener) => answer(source, &head).await,
        _ => {
            let body = match listener {
                Some(at) => format!("this is the metrics port at {at}: ask for http://{at}/\n"),
                None => "this is a metrics port: address it by its IP and port\n".to_owned(),
            };
            http::response(Answer::text("421 Misdirected Request", &body))
        }
    };
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
}

/// Reads a request head (or what fits in [`MAX_HEAD`]); `None` if the client went away first.
pub(crate) async fn read_head<S: AsyncRead + Unpin>(stream: &mut S) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > MAX_HEAD {
            break;
        }
    }
    Some(head)
}

/// The answer to a request addressed to this port: health, the metrics, or an error.
async fn answer(source: &Source, head: &[u8]) -> Vec<u8> {
    let (method, path) = method_and_path(head);
    let head_only = method == Some(b"HEAD");
    let health = match (method, path) {
        (Some(b"GET" | b"HEAD"), Some(path)) => match std::str::from_utf8(path) {
            Ok(path) => source.health.answer(path).await,
            Err(_) => None,
        },
        _ => None,
    };
    match health {
        Some(health) => http::response(
            Answer::text(health.status, &health.body)
                .header("Cache-Control: no-store\r\n")
                .head_only(head_only),
        ),
        None => respond(head, || source.metrics.encode((source.live_games)())),
    }
}

/// A request head's method and path (without the query).
pub(crate) fn method_and_path(head: &[u8]) -> (Option<&[u8]>, Option<&[u8]>) {
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let mut words = line.split(|&b| b == b' ');
    let (method, target) = (words.next(), words.next());
    let path = target.map(|t| t.split(|&b| b == b'?').next().unwrap_or_default());
    (method, path)
}

/// The value of a request head's `Host` header; empty when it has none.
fn host_of(head: &[u8]) -> &str {
    let head = std::str::from_utf8(head).unwrap_or_default();
    head.split("\r\n")
        .skip(1)
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("host")
                .then_some(value.trim())
        })
        .unwrap_or_default()
}

/// Whether `host` (a `Host` header) names the listener at `at` itself: its IP address and port,
/// or `localhost` and the port when it is a loopback address; without the port only when it is
/// 80. A page that a browser loaded from another name (DNS rebinding points a name of the
/// attacker's at this address) sends that name, and is refused.
fn names_listener(host: &str, at: SocketAddr) -> bool {
    let host = host.to_ascii_lowercase();
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((name, "")) => (name, None),
            Some((name, port)) => match port.strip_prefix(':') {
                Some(port) => (name, Some(port)),
                None => return false,
            },
            None => return false,
        },
        None => match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host.as_str(), None),
        },
    };
    let port_ok = match port {
        Some(port) => {
            port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u16>() == Ok(at.port())
        }
        None => at.port() == 80,
    };
    let ip = at.ip().to_canonical();
    let name_ok = match name.parse::<IpAddr>() {
        Ok(named) => named.to_canonical() == ip && !(host.starts_with('[') ^ named.is_ipv6()),
        Err(_) => name == "localhost" && ip.is_loopback(),
    };
    port_ok && name_ok
}

/// The whole HTTP response to a request head: the metrics for `GET /metrics`, an error otherwise.
fn respond(head: &[u8], metrics: impl FnOnce() -> String) -> Vec<u8> {
    let (method, path) = method_and_path(head);
    let (status, content_type, body) = match (method, path) {
        (Some(b"GET"), Some(b"/metrics")) => ("200 OK", CONTENT_TYPE, metrics()),
        (_, Some(b"/backup" | b"/admin")) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "backups and admin commands are not served on the metrics port: the server takes \
             them on its admin socket, beside its database (noughts-server backup, \
             noughts-server admin)\n"
                .to_owned(),
        ),
        (Some(b"GET"), _) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "metrics are at /metrics\n".to_owned(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "only GET is served\n".to_owned(),
        ),
    };
    let allow = if status.starts_with("405") {
        "Allow: GET\r\n"
    } else {
        ""
    };
    http::response(Answer {
        content_type,
        ..Answer::text(status, &body).header(allow)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_get_metrics_gets_the_metrics() {
        let ok = respond(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", || {
            "m 1\n".into()
        });
        let ok = String::from_utf8(ok).unwrap();
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("Content-Length: 4\r\n"), "{ok}");
        assert!(ok.ends_with("\r\n\r\nm 1\n"), "{ok}");
        let missing = respond(b"GET / HTTP/1.1\r\n\r\n", || unreachable!());
        assert!(missing.starts_with(b"HTTP/1.1 404 "));
        let post = respond(b"POST /metrics HTTP/1.1\r\n\r\n", || unreachable!());
        assert!(post.starts_with(b"HTTP/1.1 405 "));
        let junk = respond(b"\x00\x01", || unreachable!());
        assert!(junk.starts_with(b"HTTP/1.1 405 "));
    }

    #[test]
    fn backups_and_admin_commands_are_not_served_here_and_every_answer_has_the_headers() {
        for head in [
            &b"GET /backup HTTP/1.1\r\n\r\n"[..],
            b"POST /admin HTTP/1.1\r\n\r\n",
            b"GET /metrics HTTP/1.1\r\n\r\n",
            b"GET /nothing HTTP/1.1\r\n\r\n",
            b"PUT /metrics HTTP/1.1\r\n\r\n",
        ] {
            let answer = String::from_utf8(respond(head, String::new)).unwrap();
            if head.starts_with(b"GET /backup") || head.starts_with(b"POST /admin") {
                assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
                assert!(answer.contains("admin socket"), "{answer}");
            }
            for header in [
                "Content-Security-Policy: default-src 'none'",
                "X-Content-Type-Options: nosniff\r\n",
                "Referrer-Policy: no-referrer\r\n",
                "X-Frame-Options: DENY\r\n",
            ] {
                assert!(answer.contains(header), "no {header} in {answer}");
            }
        }
    }

    #[test]
    fn only_the_listener_s_own_address_is_a_host() {
        let v4: SocketAddr = "127.0.0.1:9100".parse().unwrap();
        let v6: SocketAddr = "[::1]:9100".parse().unwrap();
        let web: SocketAddr = "10.0.0.5:80".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:9100".parse().unwrap();
        for (host, at) in [
            ("127.0.0.1:9100", v4),
            ("localhost:9100", v4),
            ("LocalHost:9100", v4),
            ("[::1]:9100", v6),
            ("localhost:9100", v6),
            ("10.0.0.5", web),
            ("10.0.0.5:80", web),
            ("127.0.0.1:9100", mapped),
        ] {
            assert!(names_listener(host, at), "{host} for {at}");
        }
        for (host, at) in [
            ("", v4),
            ("127.0.0.1", v4),
            ("127.0.0.1:9101", v4),
            ("127.0.0.2:9100", v4),
            ("localhost", v4),
            ("rebound.example:9100", v4),
            ("localhost.:9100", v4),
            ("127.0.0.1:+9100", v4),
            ("127.0.0.1:9100:9100", v4),
            ("[127.0.0.1]:9100", v4),
            ("[::1]9100", v6),
            ("localhost", web),
            ("evil.example", web),
        ] {
            assert!(!names_listener(host, at), "{host} for {at}");
        }
        let head = b"GET /metrics HTTP/1.1\r\nhost:  127.0.0.1:9100 \r\nX: y\r\n\r\n";
        assert_eq!(host_of(head), "127.0.0.1:9100");
        assert_eq!(host_of(b"GET /metrics HTTP/1.0\r\n\r\n"), "");
    }
}
