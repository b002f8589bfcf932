//! The server's side of the admin commands run through it (SQLite is opened with an exclusive
//! lock, so no other process can write the file while its server runs): `POST /admin` on the
//! operator's socket carries the operator's name and the action as JSON in an `X-Noughts-Admin`
//! header; the server runs it on its own store, as the caller the kernel named, and answers with
//! what the command prints.

use std::fmt;

use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::commands::{HEADER, Request, execute};
use crate::net::http::{self, Answer};
use crate::store::Store;

/// Answers `POST /admin` from `caller`, whose request head is `head`, on `stream`: the action
/// is kept in the audit as the caller's, with the name it gave.
pub(super) async fn answer<S: AsyncWrite + Unpin>(
    store: &Store,
    caller: &Caller,
    head: &[u8],
    stream: &mut S,
) {
    let (status, body) = match request_of(head) {
        Some(request) => {
            let operator = caller.audit_name(&request.operator);
            tracing::info!(%operator, "an admin command");
            match execute(store, &operator, request.action).await {
                Ok(said) => ("200 OK", said),
                Err(err) => ("400 Bad Request", format!("{err:#}\n")),
            }
        }
        None => (
            "400 Bad Request",
            "no admin request in the header\n".to_owned(),
        ),
    };
    let _ = stream
        .write_all(&http::response(Answer::text(status, &body)))
        .await;
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

/// Who called, as the kernel says: a uid, and its user's name when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    uid: u32,
    user: Option<String>,
}

impl Caller {
    /// The caller of uid `uid`, named from the user database (on the blocking pool: that may
    /// ask a directory service).
    pub(super) async fn of(uid: u32) -> Caller {
        let lookup = move || {
            let user = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid));
            user.ok().flatten().map(|user| user.name)
        };
        let user = tokio::task::spawn_blocking(lookup).await.ok().flatten();
        Caller { uid, user }
    }

    /// The operator as the audit keeps an action: the caller, and the name it gave when that is
    /// another, quoted (`root (uid 0) as "ada"`), so that the given name cannot pass for the
    /// caller.
    pub(crate) fn audit_name(&self, given: &str) -> String {
        let given = given.trim();
        if given.is_empty() || Some(given) == self.user.as_deref() {
            self.to_string()
        } else {
            format!("{self} as {given:?}")
        }
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.user {
            Some(user) => write!(f, "{user} (uid {})", self.uid),
            None => write!(f, "uid {}", self.uid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_names_the_caller_first_and_quotes_a_name_it_gave() {
        let root = Caller {
            uid: 0,
            user: Some("root".to_owned()),
        };
        assert_eq!(root.audit_name(""), "root (uid 0)");
        assert_eq!(root.audit_name("root"), "root (uid 0)");
        assert_eq!(root.audit_name("ops"), "root (uid 0) as \"ops\"");
        assert_eq!(
            root.audit_name("alice (uid 1000)"),
            "root (uid 0) as \"alice (uid 1000)\""
        );
        let nameless = Caller {
            uid: 4242,
            user: None,
        };
        assert_eq!(nameless.audit_name("ops"), "uid 4242 as \"ops\"");
    }
}
