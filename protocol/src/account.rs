//! Accounts on the wire: the credentials a `hello` or `register` carries, the rules a username
//! and a password must meet before the server looks at them, and a signed-in device as
//! `sessions` lists it.

use serde::{Deserialize, Serialize};

/// The fewest characters in a username.
pub const USERNAME_MIN_CHARS: usize = 2;
/// The most characters in a username.
pub const USERNAME_MAX_CHARS: usize = 20;
/// The fewest characters in a password.
pub const PASSWORD_MIN_CHARS: usize = 8;
/// The most characters in a password (longer ones only cost hashing time).
pub const PASSWORD_MAX_CHARS: usize = 128;
/// The most characters of a device's label; a longer one is cut.
pub const DEVICE_MAX_CHARS: usize = 64;

/// A username and a password, as `hello` (to sign in) and `register` carry them. Its `Debug`
/// leaves the password out, so a logged message cannot give it away.
#[derive(derive_more::Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    pub username: String,
    #[debug("<redacted>")]
    pub password: String,
    /// What the client calls the device it runs on ("terminal on linux", "Firefox"), shown in
    /// `sessions`; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// One signed-in device of an account, as `sessions` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The session's id, for `revoke_session`.
    pub session: u64,
    /// The device's label, when its client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// When the session began (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// When the session was last used.
    pub last_seen_ms: u64,
    /// Whether it is the session of the connection that asked.
    pub current: bool,
}

/// Why a username is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsernameError {
    /// Shorter than 2 characters or longer than 20.
    Length,
    /// A character other than an ASCII letter, a digit, `_` or `-`.
    Characters,
}

impl std::fmt::Display for UsernameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UsernameError::Length => write!(
                f,
                "a username has {USERNAME_MIN_CHARS} to {USERNAME_MAX_CHARS} characters"
            ),
            UsernameError::Characters => {
                f.write_str("a username holds only ASCII letters, digits, '_' and '-'")
            }
        }
    }
}

impl std::error::Error for UsernameError {}

/// Checks a username: 2 to 20 ASCII letters, digits, `_` and `-`.
pub fn validate_username(username: &str) -> Result<(), UsernameError> {
    if !(USERNAME_MIN_CHARS..=USERNAME_MAX_CHARS).contains(&username.len()) {
        return Err(UsernameError::Length);
    }
    if !username
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
    {
        return Err(UsernameError::Characters);
    }
    Ok(())
}

/// What follows a closed account's name wherever the records show it (a seat of an old game,
/// a history, a profile): `ada (closed)`. No player may choose a name that ends so.
pub const CLOSED_MARK: &str = " (closed)";

/// `name` as the records show it once its account is closed.
pub fn closed_name(name: &str) -> String {
    format!("{name}{CLOSED_MARK}")
}

/// Whether `name` ends as a closed account's does (ignoring case), so that no player may take it.
pub fn looks_closed(name: &str) -> bool {
    name.trim_end()
        .to_lowercase()
        .ends_with(CLOSED_MARK.trim_start())
}

/// The key under which a username is unique: the name lower-cased (ASCII only, as it is).
pub fn username_key(username: &str) -> String {
    username.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_follow_the_rules() {
        for good in ["ab", "Ada_Lovelace-1815", "x-_9", "ABCDEFGHIJKLMNOPQRST"] {
            assert_eq!(validate_username(good), Ok(()), "{good}");
        }
        assert_eq!(validate_username("a"), Err(UsernameError::Length));
        assert_eq!(
            validate_username(&"a".repeat(21)),
            Err(UsernameError::Length)
        );
        for bad in ["ad a", "adé", "ada!", "a.b", "ada\n"] {
            assert_eq!(
                validate_username(bad),
                Err(UsernameError::Characters),
                "{bad}"
            );
        }
        assert_eq!(username_key("AdA"), username_key("aDa"));
    }

    #[test]
    fn a_closed_accounts_name_is_marked_and_no_player_may_take_the_mark() {
        assert_eq!(closed_name("ada"), "ada (closed)");
        assert!(looks_closed(&closed_name("ada")));
        for taken in ["bob (Closed)", "bob(CLOSED) ", "(closed)"] {
            assert!(looks_closed(taken), "{taken}");
        }
        for free in ["closed", "unclosed", "bob (closed) again"] {
            assert!(!looks_closed(free), "{free}");
        }
    }

    #[test]
    fn debug_output_never_shows_a_password() {
        let credentials = Credentials {
            username: "ada".to_owned(),
            password: "correct horse battery".to_owned(),
            device: None,
        };
        let shown = format!("{credentials:?}");
        assert!(!shown.contains("horse"), "{shown}");
        assert!(shown.contains("ada"), "{shown}");
        let password = || "correct horse battery".to_owned();
        for message in [
            crate::ClientMessage::Register(credentials.clone()),
            crate::ClientMessage::Hello {
                protocol: 2,
                name: "ada".to_owned(),
                token: None,
                credentials: Some(credentials.clone()),
            },
            crate::ClientMessage::ChangePassword {
                password: password(),
                new_password: password(),
            },
            crate::ClientMessage::CloseAccount {
                password: password(),
            },
        ] {
            for shown in [format!("{message:?}"), format!("{message:#?}")] {
                assert!(!shown.contains("horse"), "{shown}");
            }
        }
    }
}
