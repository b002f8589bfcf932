//! The account commands, each one request over a connection of its own: `noughts register` (this
//! identity claims a username and a password), `noughts login` (signing in is the hello itself),
//! `noughts sessions` (and `--revoke`) and `noughts password`.

use std::io::Write;

use anyhow::bail;
use noughts_protocol::{
    ChangePassword, ClientMessage, Credentials, ErrorCode, ServerMessage, SessionInfo,
};

use crate::config::TokenStore;
use crate::history::date_time;
use crate::net::{LOGGED_OUT, Link};

/// What to ask of the server, with what was asked of the person. Its `Debug` leaves the
/// passwords out.
pub enum Request {
    /// Turn the identity this client keeps into the account `username`.
    Register { username: String, password: String },
    /// Sign in as `username`: the hello carried the credentials; nothing more to ask.
    Login { username: String },
    /// List the account's sessions, after ending `revoke` if given.
    Sessions { revoke: Option<u64> },
    /// Change the password from `old` to `new`.
    Password { old: String, new: String },
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Request::Register { username, .. } => f
                .debug_struct("Register")
                .field("username", username)
                .finish_non_exhaustive(),
            Request::Login { username } => {
                f.debug_struct("Login").field("username", username).finish()
            }
            Request::Sessions { revoke } => {
                f.debug_struct("Sessions").field("revoke", revoke).finish()
            }
            Request::Password { .. } => f.write_str("Password { .. }"),
        }
    }
}

/// What this client calls its device in the account's list of sessions.
pub fn device_label() -> String {
    format!("terminal on {}", std::env::consts::OS)
}

/// The credentials `noughts login` says hello with.
pub fn credentials(username: String, password: String) -> Credentials {
    Credentials {
        username,
        password,
        device: Some(device_label()),
        device_cookie: None,
    }
}

/// Carries out `request` over `link`, saying what became of it on `out`; keeps the device
/// cookie a sign-in or `register` brings in `kept`.
pub async fn run(
    mut link: Link,
    request: Request,
    kept: &TokenStore,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let (player, name) = loop {
        match link.next_message().await {
            Ok(ServerMessage::Welcome {
                player,
                name,
                device_cookie,
                username,
                ..
            }) => {
                // An account is named by its username; a guest by the name it chose.
                let name = username.unwrap_or(name);
                if let (Request::Login { username }, Some(cookie)) = (&request, device_cookie) {
                    kept.set_device_cookie(username, &cookie);
                }
                break (player, name);
            }
            Ok(_) => {}
            Err(err) if matches!(request, Request::Login { .. }) => {
                bail!("cannot sign in: {err}")
            }
            Err(err) => return Err(err),
        }
    };
    match request {
        Request::Login { .. } => {
            writeln!(
                out,
                "signed in as {name} (player #{player}); this client plays as the account from now on"
            )?;
            Ok(())
        }
        Request::Register { username, password } => {
            link.request(
                1,
                ClientMessage::Register(Credentials {
                    username,
                    password,
                    device: Some(device_label()),
                    device_cookie: None,
                }),
            );
            if let ServerMessage::Registered {
                player,
                username,
                device_cookie,
            } = answer(&mut link).await?
            {
                if let Some(cookie) = device_cookie {
                    kept.set_device_cookie(&username, &cookie);
                }
                writeln!(
                    out,
                    "registered {username}: player #{player} is now an account, with its games \
                     and ratings; sign in on another machine with `noughts login`"
                )?;
            }
            Ok(())
        }
        Request::Password { old, new } => {
            link.request(
                1,
                ClientMessage::ChangePassword(ChangePassword {
                    password: old,
                    new_password: new,
                }),
            );
            answer(&mut link).await?;
            writeln!(out, "password changed; every other session has ended")?;
            Ok(())
        }
        Request::Sessions { revoke } => {
            if let Some(session) = revoke {
                link.request(1, ClientMessage::RevokeSession { session });
                match answer(&mut link).await {
                    Ok(_) => writeln!(out, "session {session} has ended")?,
                    Err(err) if err.to_string() == LOGGED_OUT => {
                        writeln!(
                            out,
                            "session {session} was this one: this client is signed out"
                        )?;
                        return Ok(());
                    }
                    Err(err) => return Err(err),
                }
            }
            link.request(2, ClientMessage::Sessions);
            match answer(&mut link).await {
                Ok(ServerMessage::SessionList { sessions }) => print_sessions(&sessions, out)?,
                Ok(_) => {}
                // The session ended was this one (its `ok` came before the connection closed).
                Err(err) if revoke.is_some() && err.to_string() == LOGGED_OUT => {
                    writeln!(out, "that was this client's own session: it is signed out")?;
                }
                Err(err) => return Err(err),
            }
            Ok(())
        }
    }
}

/// The answer to the request just sent: `ok`, `registered` or `session_list`; an error in words.
async fn answer(link: &mut Link) -> anyhow::Result<ServerMessage> {
    loop {
        match link.next_message().await? {
            ServerMessage::Error { code, message } => bail!("{}", refusal(code, &message)),
            message @ (ServerMessage::Ok
            | ServerMessage::Registered { .. }
            | ServerMessage::SessionList { .. }) => return Ok(message),
            _ => {}
        }
    }
}

/// What a refusal means, in words, with the server's own words and code.
fn refusal(code: ErrorCode, message: &str) -> String {
    let hint = match code {
        ErrorCode::NotAnAccount => {
            "; `noughts register` turns this identity into an account, `noughts login` signs in \
             to one"
        }
        ErrorCode::NoSuchSession => "; `noughts sessions` lists the account's sessions",
        _ => "",
    };
    format!("{message} ({code}){hint}")
}

/// The sessions, newest first, one a line: id, device, when last seen and from which network;
/// this one marked.
pub fn print_sessions(sessions: &[SessionInfo], out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<18} {:<28} {:<22} {:<20}",
        "SESSION", "DEVICE", "LAST SEEN (UTC)", "FROM"
    )?;
    for session in sessions {
        let device = session.device.as_deref().unwrap_or("(unnamed)");
        let network = session.network.as_deref().unwrap_or("-");
        let mark = if session.current { "  (this one)" } else { "" };
        writeln!(
            out,
            "{:<18} {:<28} {:<22} {:<20}{mark}",
            session.session,
            device,
            date_time(session.last_seen_ms),
            network
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_print_one_a_line_with_this_one_marked() {
        let sessions = [
            SessionInfo {
                session: 40718,
                device: Some("laptop".to_owned()),
                created_ms: 0,
                last_seen_ms: 1_767_225_660_000,
                network: Some("203.0.113.0/24".to_owned()),
                current: false,
            },
            SessionInfo {
                session: 98112,
                device: None,
                created_ms: 0,
                last_seen_ms: 1_767_225_600_000,
                network: None,
                current: true,
            },
        ];
        let mut out = Vec::new();
        print_sessions(&sessions, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].starts_with("40718") && lines[1].contains("laptop"));
        assert!(lines[1].contains("2026-01-01 00:01") && !lines[1].contains("this one"));
        assert!(lines[1].contains("203.0.113.0/24"), "{text}");
        assert!(lines[2].contains("(unnamed)") && lines[2].ends_with("(this one)"));
    }
}
