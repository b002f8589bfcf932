//! The server's side of the admin commands run through it, for a SQLite file that server holds (SQLite is
//! opened with an exclusive lock, so no other process can write it meanwhile): `POST /admin` on
//! the server's metrics port, from a loopback address only, carries the operator and the action
//! as JSON in an `X-Noughts-Admin` header; the server runs it on its own store and answers with
//! what the command prints.

use std::net::SocketAddr;

use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::commands::{HEADER, Request, execute};
use crate::store::Store;

/// Answers `POST /admin` from `peer`, whose request head is `head`, on `stream`.
pub(crate) async fn answer<S: AsyncWrite + Unpin>(
    store: &Store,
    peer: SocketAddr,
    head: &[u8],
    stream: &mut S,
) {
    let (status, body) = if peer.ip().is_loopback() {
        match request_of(head) {
            Some(request) => match execute(store, &request.operator, request.action).await {
                Ok(said) => ("200 OK", said),
                Err(err) => ("400 Bad Request", format!("{err:#}\n")),
            },
            None => (
                "400 Bad Request",
                "no admin request in the header\n".to_owned(),
            ),
        }
    } else {
        (
            "403 Forbidden",
            "admin requests are taken from this machine's own addresses only\n".to_owned(),
        )
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
}

/// The request in `head`'s admin header, if it holds one that reads.
fn request_of(head: &[u8]) -> Option<Request> {
    let head = std::str::from_utf8(head).ok()?;
    head.split("\r\n").find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case(HEADER)
            .then(|| serde_json::from_str(value.trim()).ok())?
    })
}
