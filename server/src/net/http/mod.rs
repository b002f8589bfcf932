//! The web client, served on the same listener and port as the WebSocket: a plain `GET` that is
//! not an upgrade asks for one of a handful of files, all compiled into the binary (nothing to
//! deploy, nothing fetched from another host). Each answer carries its content type, an `ETag`
//! (so browsers revalidate with `If-None-Match` and get `304`), `Cache-Control: no-cache`, and
//! headers that keep the page to itself: a content security policy allowing scripts, styles and
//! connections from this origin only, `nosniff`, no referrer, no framing. Every answer on the
//! main port is built by [`response`], so those headers go on every one of them: the pages, a
//! `404`, the health endpoints', and the upgrade's refusals (`400`, `403`, `405`, `426`, …).

mod assets;

use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::time::timeout;

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

/// Answers a page request on `stream` and closes it: with `health` when the request was for a
/// health endpoint (its status and body, from `crate::ops::health`), else with the page asked for.
pub(crate) async fn serve<S: AsyncWrite + Unpin>(
    stream: &mut S,
    request: &PageRequest,
    health: Option<(&'static str, String)>,
) {
    let answer = match health {
        Some((status, body)) => response(
            Answer::text(status, &body)
                .header("Cache-Control: no-store\r\n")
                .host(&request.host)
                .head_only(request.head_only),
        ),
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
        return response(
            Answer::text("404 Not Found", "no such page\n")
                .host(&request.host)
                .head_only(request.head_only),
        );
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
    let headers = format!("ETag: {etag}\r\nCache-Control: no-cache\r\n");
    response(Answer {
        status,
        content_type: asset.content_type,
        headers: &headers,
        body,
        host: &request.host,
        head_only: request.head_only,
    })
}

/// One HTTP answer on the main port, before [`response`] writes it out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answer<'a> {
    /// The status line's code and words, as `404 Not Found`.
    pub status: &'a str,
    pub content_type: &'a str,
    /// Header lines of this answer's own (each ending in CRLF), such as `Allow` or `ETag`.
    pub headers: &'a str,
    pub body: &'a [u8],
    /// The request's `Host`, for the policy's WebSocket origin; empty when unknown.
    pub host: &'a str,
    /// A `HEAD`: the head without the body.
    pub head_only: bool,
}

impl<'a> Answer<'a> {
    /// A plain-text answer.
    pub(crate) fn text(status: &'a str, body: &'a str) -> Answer<'a> {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            headers: "",
            body: body.as_bytes(),
            host: "",
            head_only: false,
        }
    }

    /// With these header lines of its own.
    pub(crate) fn header(self, headers: &'a str) -> Answer<'a> {
        Answer { headers, ..self }
    }

    /// To a request addressed to `host`.
    pub(crate) fn host(self, host: &'a str) -> Answer<'a> {
        Answer { host, ..self }
    }

    /// Without its body, for `HEAD`.
    pub(crate) fn head_only(self, head_only: bool) -> Answer<'a> {
        Answer { head_only, ..self }
    }
}

/// The bytes of `answer`: its status, type, length and own headers, the headers that keep a page
/// to itself (which every answer carries, errors included), and `Connection: close`.
pub(crate) fn response(answer: Answer<'_>) -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}Connection: close\r\n\r\n",
        answer.status,
        answer.content_type,
        answer.body.len(),
        answer.headers,
        policy_headers(answer.host),
    )
    .into_bytes();
    if !answer.head_only {
        bytes.extend_from_slice(answer.body);
    }
    bytes
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
    fn every_answer_carries_the_policy_headers() {
        for path in ["/", "/app.js", "/nothing"] {
            let answer = ask(path, None);
            for header in [
                "Content-Security-Policy: default-src 'none';",
                "X-Content-Type-Options: nosniff\r\n",
                "Referrer-Policy: no-referrer\r\n",
                "X-Frame-Options: DENY\r\n",
            ] {
                assert!(answer.contains(header), "{path}: {answer}");
            }
        }
        let error = String::from_utf8(response(Answer::text("400 Bad Request", "no\n"))).unwrap();
        assert!(error.contains("frame-ancestors 'none'"), "{error}");
        assert!(
            error.contains("connect-src 'self';"),
            "no host, no socket origin: {error}"
        );
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
