//! The WebSocket opening handshake (RFC 6455 §4.2): reads the request head (bounded in size and
//! time), parses it with `httparse`, answers a good upgrade with `101` and hands the raw stream
//! to tungstenite, keeping any bytes read past the head. A bad upgrade gets an HTTP answer and a
//! count in the metrics by reason: `426` with `Sec-WebSocket-Version: 13` for another version
//! (§4.4), `400` with the reason for anything else malformed, and a plain `GET` without an
//! upgrade the `426` that says what this server is. Each answer carries the headers every page
//! does (`crate::net::http::response`).

use std::net::IpAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use crate::net::http::{self, Answer, PageRequest};
use crate::net::proxy;

/// The longest request head read; a WebSocket client's is a few hundred bytes.
const MAX_HEAD: usize = 8 * 1024;
/// The most header lines parsed.
const MAX_HEADERS: usize = 64;
/// How long one write of an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an upgrade was refused; the label of `noughts_bad_upgrades_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The client closed or reset the connection before its head was whole.
    Closed,
    /// The head did not come whole within the handshake's time.
    Timeout,
    /// The head was longer than [`MAX_HEAD`] or had too many header lines.
    TooLarge,
    /// Not parseable as an HTTP/1.1 request head.
    Malformed,
    /// A method other than `GET`.
    Method,
    /// A plain HTTP request without `Upgrade: websocket`.
    NotUpgrade,
    /// `Connection` does not name `upgrade`.
    Connection,
    /// `Sec-WebSocket-Version` is not 13.
    Version,
    /// `Sec-WebSocket-Key` is missing or not 16 bytes in base64.
    Key,
    /// No `Host` header.
    Host,
    /// An `Origin` (a browser's page) that is neither this server's own nor allowed: the defence
    /// against cross-site WebSocket hijacking.
    Origin,
    /// A trusted proxy's connection without a valid PROXY protocol v2 header (with
    /// `--client-address proxy-protocol`).
    ProxyHeader,
}

/// Which pages may open a WebSocket here: the server's own origin (the scheme it serves and the
/// `Host` the request names) and those an operator allows. A request without `Origin` comes from
/// a client that is not a browser, and is not a page's to refuse.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origins {
    /// `https` when the server speaks TLS, else `http`.
    pub secure: bool,
    /// Origins allowed besides the server's own, as `scheme://host[:port]`, lowercase.
    pub allowed: Vec<String>,
}

impl Origins {
    fn allows(&self, origin: &str, host: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        let scheme = if self.secure { "https" } else { "http" };
        origin == format!("{scheme}://{}", host.to_ascii_lowercase())
            || self.allowed.contains(&origin)
    }
}

impl Refusal {
    /// The metric label.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Refusal::Closed => "closed",
            Refusal::Timeout => "timeout",
            Refusal::TooLarge => "too_large",
            Refusal::Malformed => "malformed",
            Refusal::Method => "method",
            Refusal::NotUpgrade => "not_upgrade",
            Refusal::Connection => "connection",
            Refusal::Version => "version",
            Refusal::Key => "key",
            Refusal::Host => "host",
            Refusal::Origin => "origin",
            Refusal::ProxyHeader => "proxy_header",
        }
    }

    /// The status line and extra headers of the answer, and its body.
    fn answer(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Refusal::Version => (
                "426 Upgrade Required",
                "Sec-WebSocket-Version: 13\r\nUpgrade: websocket\r\n",
                "unsupported Sec-WebSocket-Version: this server speaks version 13\n",
            ),
            Refusal::NotUpgrade => (
                "426 Upgrade Required",
                "Upgrade: websocket\r\n",
                "This is a noughts game server. Connect with the noughts client or any \
                 WebSocket client (ws://).\n",
            ),
            Refusal::Timeout => (
                "408 Request Timeout",
                "",
                "the request head took too long\n",
            ),
            Refusal::TooLarge => (
                "431 Request Header Fields Too Large",
                "",
                "the request head is too large\n",
            ),
            Refusal::Closed | Refusal::Malformed => {
                ("400 Bad Request", "", "malformed HTTP request\n")
            }
            Refusal::Method => (
                "405 Method Not Allowed",
                "Allow: GET, HEAD\r\n",
                "a WebSocket upgrade is a GET; a page is a GET or a HEAD\n",
            ),
            Refusal::Connection => (
                "400 Bad Request",
                "",
                "a WebSocket upgrade needs Connection: Upgrade\n",
            ),
            Refusal::Key => (
                "400 Bad Request",
                "",
                "missing or invalid Sec-WebSocket-Key (16 bytes in base64)\n",
            ),
            Refusal::Host => ("400 Bad Request", "", "a request needs a Host header\n"),
            Refusal::Origin => (
                "403 Forbidden",
                "",
                "a page from another origin may not open a WebSocket here\n",
            ),
            Refusal::ProxyHeader => (
                "400 Bad Request",
                "",
                "this server expects a PROXY protocol v2 header from its proxy\n",
            ),
        }
    }
}

/// What a request head asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Head {
    /// A good WebSocket upgrade, with its `Sec-WebSocket-Key` and what it says of its client.
    Upgrade(String, Caller),
    /// A page of the web client.
    Page(PageRequest),
}

/// What an upgrade request says of its client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Caller {
    /// The client's address as a trusted proxy forwarded it (`None` when no header is read;
    /// see [`Forwarded`]).
    pub(crate) forwarded: Option<IpAddr>,
    /// The `User-Agent` header as sent (the head's size bounds it), for naming the device of a
    /// session that signs in or registers without naming it.
    pub(crate) user_agent: Option<String>,
}

/// Where the client's address is read from a request: a forwarding header, when the request
/// came from the trusted proxy `peer`.
pub(crate) type Forwarded<'a> = Option<(proxy::Header<'a>, IpAddr)>;

/// What a request that was not refused asks for.
#[derive(Debug)]
pub(crate) enum Accepted<S> {
    /// A WebSocket, answered with `101`, and what its request said of its client.
    WebSocket(Box<WebSocketStream<S>>, Caller),
    /// A page (of the web client, or a health endpoint), for the caller to answer on the stream.
    Page(S, PageRequest),
}

/// Reads the request on `stream`, within `limit`, and answers it: with `101` and the WebSocket
/// (configured by `config`) when it is a good upgrade; with the stream and the request when it
/// asks for a page; or with an HTTP error and the reason.
pub(crate) async fn accept<S>(
    mut stream: S,
    config: WebSocketConfig,
    limit: Duration,
    origins: &Origins,
    forwarded: Forwarded<'_>,
) -> Result<Accepted<S>, Refusal>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (buf, head_len) = match timeout(limit, read_head(&mut stream)).await {
        Ok(Ok(read)) => read,
        Ok(Err(refusal)) => return Err(answer_refusal(&mut stream, refusal).await),
        Err(_) => return Err(answer_refusal(&mut stream, Refusal::Timeout).await),
    };
    let (key, caller) = match check(&buf[..head_len], origins, forwarded) {
        Ok(Head::Upgrade(key, caller)) => (key, caller),
        Ok(Head::Page(request)) => return Ok(Accepted::Page(stream, request)),
        Err(refusal) => return Err(answer_refusal(&mut stream, refusal).await),
    };
    let response = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        derive_accept_key(key.as_bytes())
    );
    let written = timeout(WRITE_TIMEOUT, async {
        stream.write_all(response.as_bytes()).await?;
        stream.flush().await
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        return Err(Refusal::Timeout);
    }
    let rest = buf[head_len..].to_vec();
    let ws = WebSocketStream::from_partially_read(stream, rest, Role::Server, Some(config)).await;
    Ok(Accepted::WebSocket(Box::new(ws), caller))
}

/// Reads until the head's blank line; returns what was read and the head's length.
async fn read_head<S: AsyncRead + Unpin>(stream: &mut S) -> Result<(Vec<u8>, usize), Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).await.map_err(|_| Refusal::Closed)?;
        if n == 0 {
            return Err(Refusal::Closed);
        }
        let searched_from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf[searched_from..]
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
        {
            let head_len = searched_from + at + 4;
            if head_len > MAX_HEAD {
                return Err(Refusal::TooLarge);
            }
            return Ok((buf, head_len));
        }
        if buf.len() > MAX_HEAD {
            return Err(Refusal::TooLarge);
        }
    }
}

/// Checks a whole request head: a WebSocket upgrade (with its `Sec-WebSocket-Key`), or a plain
/// `GET` for a page.
fn check(head: &[u8], origins: &Origins, forwarded: Forwarded<'_>) -> Result<Head, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => return Err(Refusal::TooLarge),
        _ => return Err(Refusal::Malformed),
    }
    if request.version != Some(1) {
        return Err(Refusal::Malformed);
    }
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_owned())
    };
    let names = |value: Option<String>, token: &str| {
        value.is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    let head_only = request.method == Some("HEAD") && header("upgrade").is_none();
    if request.method != Some("GET") && !head_only {
        return Err(Refusal::Method);
    }
    let Some(host) = header("host").filter(|h| !h.is_empty()) else {
        return Err(Refusal::Host);
    };
    if header("upgrade").is_none() {
        let path = request.path.unwrap_or("/");
        return Ok(Head::Page(PageRequest {
            path: path.split(['?', '#']).next().unwrap_or("/").to_owned(),
            host,
            if_none_match: header("if-none-match"),
            head_only,
        }));
    }
    if !names(header("upgrade"), "websocket") {
        return Err(Refusal::NotUpgrade);
    }
    if let Some(origin) = header("origin")
        && !origins.allows(&origin, &host)
    {
        return Err(Refusal::Origin);
    }
    if !names(header("connection"), "upgrade") {
        return Err(Refusal::Connection);
    }
    if header("sec-websocket-version").as_deref() != Some("13") {
        return Err(Refusal::Version);
    }
    let forwarded = forwarded.map(|(forwarding, peer)| {
        let values = request
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(forwarding.name))
            .filter_map(|h| std::str::from_utf8(h.value).ok());
        forwarding.client(values, peer)
    });
    match header("sec-websocket-key") {
        Some(key) if is_key(&key) => Ok(Head::Upgrade(
            key,
            Caller {
                forwarded,
                user_agent: header("user-agent"),
            },
        )),
        _ => Err(Refusal::Key),
    }
}

/// Whether `key` is 16 bytes in base64: 22 characters of the alphabet and `==`.
fn is_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    bytes.len() == 24
        && bytes.ends_with(b"==")
        && bytes[..22]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// Writes the answer to a refused upgrade and closes; returns the refusal.
pub(crate) async fn answer_refusal<S: AsyncWrite + Unpin>(
    stream: &mut S,
    refusal: Refusal,
) -> Refusal {
    if refusal == Refusal::Closed {
        return refusal;
    }
    let (status, headers, body) = refusal.answer();
    // The same headers as every page: a browser may show this answer as a page of the origin.
    let response = http::response(Answer::text(status, body).header(headers));
    let _ = timeout(WRITE_TIMEOUT, async {
        stream.write_all(&response).await?;
        stream.shutdown().await
    })
    .await;
    refusal
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_(head: &[u8]) -> Result<String, Refusal> {
        match check(head, &Origins::default(), None)? {
            Head::Upgrade(key, _) => Ok(key),
            Head::Page(_) => Err(Refusal::NotUpgrade),
        }
    }

    fn head(lines: &str) -> Vec<u8> {
        format!("GET / HTTP/1.1\r\n{lines}\r\n").into_bytes()
    }

    const GOOD: &str = "Host: a\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n\
                        Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

    #[test]
    fn a_good_upgrade_passes_and_each_fault_has_its_reason() {
        assert_eq!(check_(&head(GOOD)).unwrap(), "dGhlIHNhbXBsZSBub25jZQ==");
        let cases = [
            (
                "Sec-WebSocket-Version: 13",
                "Sec-WebSocket-Version: 8",
                Refusal::Version,
            ),
            ("Upgrade: websocket", "Upgrade: h2c", Refusal::NotUpgrade),
            (
                "Connection: keep-alive, Upgrade",
                "Connection: close",
                Refusal::Connection,
            ),
            ("dGhlIHNhbXBsZSBub25jZQ==", "short", Refusal::Key),
            ("Host: a\r\n", "", Refusal::Host),
        ];
        for (from, to, refusal) in cases {
            assert_eq!(check_(&head(&GOOD.replace(from, to))), Err(refusal), "{to}");
        }
        let post = format!("POST / HTTP/1.1\r\n{GOOD}\r\n");
        assert_eq!(check_(post.as_bytes()), Err(Refusal::Method));
        assert_eq!(check_(b"nonsense\r\n\r\n"), Err(Refusal::Malformed));
    }

    #[test]
    fn a_page_may_upgrade_only_from_this_server_s_origin_or_an_allowed_one() {
        let with = |origin: &str| head(&format!("{GOOD}Origin: {origin}\r\n"));
        let plain = Origins::default();
        assert!(
            check(&head(GOOD), &plain, None).is_ok(),
            "no Origin: not a browser"
        );
        assert!(
            check(&with("http://a"), &plain, None).is_ok(),
            "the server's own page"
        );
        assert!(check(&with("HTTP://A/"), &plain, None).is_ok());
        for foreign in [
            "http://evil.example",
            "https://a",
            "http://a:81",
            "null",
            "",
        ] {
            assert_eq!(
                check(&with(foreign), &plain, None),
                Err(Refusal::Origin),
                "{foreign}"
            );
        }
        let secure = Origins {
            secure: true,
            allowed: vec!["https://play.example".to_owned()],
        };
        assert!(check(&with("https://a"), &secure, None).is_ok());
        assert!(check(&with("https://play.example"), &secure, None).is_ok());
        assert_eq!(
            check(&with("http://a"), &secure, None),
            Err(Refusal::Origin)
        );
    }
}
