//! The web client, served on the same listener and port as the WebSocket: a plain `GET` that is
//! not an upgrade asks for one of a handful of files, all compiled into the binary (nothing to
//! deploy, nothing fetched from another host). Each answer carries its content type, an `ETag`
//! (so browsers revalidate with `If-None-Match` and get `304`), `Cache-Control: no-cache`, and
//! headers that keep the page to itself: a content security policy allowing scripts, styles and
//! connections from this origin only, `nosniff`, no referrer, no framing.

mod assets;

use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::time::timeout;

use crate::health::Health;

/// How long writing one answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// A page request, as read from its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageRequest {
    /// The path, without the query.
    pub path: String,
    /// The `Host` it was addressed to, for the policy's WebSocket origin.
    pub host: String,
    /// `If-None-Match`, when the browser has a copy.
    pub if_none_match: Option<String>,
    /// A `HEAD`: the answer's head without its body.
    pub head_only: bool,
}

/// Answers a page request on `stream` (a health endpoint's from `health`) and closes it.
pub(crate) async fn serve<S: AsyncWrite + Unpin>(
    stream: &mut S,
    request: &PageRequest,
    health: &Health,
) {
    let answer = match health.answer(&request.path).await {
        Some(health) => health.response(request.head_only),
        None => answer(request),
    };
    let _ = timeout(WRITE_TIMEOUT, async {
        stream.write_all(&answer).await?;
        stream.shutdown().await
    })
    .await;
}

/// The whole HTTP answer to `request`.
fn answer(request: &PageRequest) -> Vec<u8> {
    let Some(asset) = assets::find(&request.path) else {
        return plain("404 Not Found", "no such page\n");
    };
    let etag = asset.etag();
    let fresh = request
        .if_none_match
        .as_deref()
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == etag));
    let (status, body): (&str, &[u8]) = if fresh {
        ("304 Not Modified", b"")
    } else {
        ("200 OK", asset.body)
    };
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {}\r\nContent-Length: {}\r\nETag: {etag}\r\n\
         Cache-Control: no-cache\r\n{}Connection: close\r\n\r\n",
        asset.content_type,
        body.len(),
        policy_headers(&request.host),
    )
    .into_bytes();
    if !request.head_only {
        head.extend_from_slice(body);
    }
    head
}

/// The headers that keep the page to itself. Scripts and styles come from this origin only (no
/// inline script or style, no `eval`), and connections go to this origin's WebSocket only.
fn policy_headers(host: &str) -> String {
    // The Host header is the browser's own; anything but a plain host[:port] is left out.
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    let sockets = if host_ok {
        format!(" ws://{host} wss://{host}")
    } else {
        String::new()
    };
    format!(
        "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; \
         img-src 'self' data:; manifest-src 'self'; connect-src 'self'{sockets}; base-uri 'none'; \
         form-action 'none'; \
         frame-ancestors 'none'\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
    )
}

/// A short plain-text answer.
fn plain(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(path: &str, if_none_match: Option<&str>) -> String {
        let request = PageRequest {
            path: path.to_owned(),
            host: "127.0.0.1:7878".to_owned(),
            if_none_match: if_none_match.map(str::to_owned),
            head_only: false,
        };
        String::from_utf8_lossy(&answer(&request)).into_owned()
    }

    #[test]
    fn the_page_and_its_files_are_served_with_their_types_and_policy() {
        let page = ask("/", None);
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(page.contains("Content-Type: text/html; charset=utf-8\r\n"));
        assert!(page.contains("script-src 'self';"));
        assert!(!page.contains("unsafe-inline") && !page.contains("unsafe-eval"));
        assert!(page.contains("connect-src 'self' ws://127.0.0.1:7878 wss://127.0.0.1:7878;"));
        assert!(page.contains("X-Content-Type-Options: nosniff\r\n"));
        assert!(page.contains("Referrer-Policy: no-referrer\r\n"));
        let script = ask("/app.js", None);
        assert!(script.contains("Content-Type: text/javascript; charset=utf-8\r\n"));
        let style = ask("/style.css", None);
        assert!(style.contains("Content-Type: text/css; charset=utf-8\r\n"));
        assert!(ask("/nothing", None).starts_with("HTTP/1.1 404 "));
        assert!(ask("/../Cargo.toml", None).starts_with("HTTP/1.1 404 "));
    }

    #[test]
    fn a_fresh_copy_is_revalidated_with_304() {
        let page = ask("/app.js", None);
        let etag = page
            .lines()
            .find_map(|line| line.strip_prefix("ETag: "))
            .unwrap()
            .to_owned();
        let again = ask("/app.js", Some(&etag));
        assert!(again.starts_with("HTTP/1.1 304 "), "{again}");
        assert!(again.contains("Content-Length: 0\r\n"));
        assert!(ask("/app.js", Some("\"other\"")).starts_with("HTTP/1.1 200 "));
    }
}
