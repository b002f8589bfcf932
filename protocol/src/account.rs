//! Accounts on the wire: the credentials a `hello` or `register` carries, the rules a username
//! and a password must meet before the server looks at them, and a signed-in device as
//! `sessions` lists it.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

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
    /// The device cookie this device was given when it last signed in to (or registered) the
    /// account, in `welcome` or `registered`; optional. It shows that the device signed in
    /// before, so strangers' wrong passwords for the username do not make it wait (see
    /// PROTOCOL.md, "Accounts"). Never shown in `Debug`.
    #[debug("{}", if device_cookie.is_some() { "Some(<redacted>)" } else { "None" })]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_cookie: Option<String>,
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
    /// The network it was last used from: an IPv4 /24 (`203.0.113.0/24`) or an IPv6 /48, never
    /// the whole address; absent for a session from before networks were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
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

/// Whether `name` ends as a closed account's does, or looks as if it did: compared by
/// [`skeleton`] with white space left out, so that `bob (CLOSED)`, `bob ( closed )`,
/// `bob （closed）` (full-width) and `bob (cl0sed)` are all refused.
pub fn looks_closed(name: &str) -> bool {
    let bare = |text: &str| -> String {
        skeleton(text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    bare(name).ends_with(&bare(CLOSED_MARK))
}

/// What `text` looks like, for comparing names: Unicode's confusables skeleton (UTS #39, after
/// NFKC) lower-cased, taken twice so that case and look-alikes meet whichever comes first
/// (`I` and `l` and `1`, `0` and `o`, `m` and `rn`, Cyrillic `а` and Latin `a`, full-width and
/// ordinary forms). Two names with one skeleton look alike; the skeleton itself is never shown.
pub fn skeleton(text: &str) -> String {
    let pass = |text: &str| -> String {
        unicode_security::skeleton(text)
            .flat_map(char::to_lowercase)
            .collect()
    };
    let compatible: String = text.nfkc().collect();
    pass(&pass(&compatible))
}

/// The key under which a username is looked up when signing in: the name lower-cased (ASCII
/// only, as it is).
pub fn username_key(username: &str) -> String {
    username.to_ascii_lowercase()
}

/// The key under which a username is unique: its [`skeleton`] with `-` read as `_`, so that
/// `Reuse-X`, `reuse_x` and `reuse_X` are one name, and so are `bob1`, `BobI` and `bobl`.
/// On the ASCII that usernames hold this is: `I` as `l`, then lower case, then `-` as `_`,
/// `m` as `rn`, `0` as `o` and `1` as `l` (the stores' migrations fill it so for old rows).
pub fn username_skeleton(username: &str) -> String {
    skeleton(&username.replace('-', "_"))
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
        for free in ["closed", "unclosed", "bob (closed) again", "bob [closed]"] {
            assert!(!looks_closed(free), "{free}");
        }
    }

    #[test]
    fn an_imitation_of_the_closed_mark_is_refused_too() {
        for imitation in [
            "orig ( closed )",
            "orig (c l o s e d)",
            "orig \u{ff08}closed\u{ff09}",
            "orig (\u{ff43}\u{ff4c}osed)",
            "orig \u{207d}closed\u{207e}",
            "orig (cl0sed)",
            "orig (cIosed)",
            "orig (\u{0441}losed)",
            "orig(closed)",
        ] {
            assert!(looks_closed(imitation), "{imitation}");
        }
    }

    #[test]
    fn usernames_that_look_alike_share_a_skeleton() {
        let same = |a: &str, b: &str| username_skeleton(a) == username_skeleton(b);
        assert!(same("reuse-x", "reuse_x"));
        assert!(same("Reuse-X", "reuse_x"));
        assert!(same("bob1", "BobI") && same("bobl", "bob1"));
        assert!(same("m0m", "rnorn"));
        assert!(!same("ada", "adb"));
        assert!(!same("bob2", "bob1"));
    }

    /// The stores' migrations fill the skeleton of old rows in SQL, one character at a time;
    /// this is the same mapping, checked against the Rust function for every character a
    /// username may hold.
    #[test]
    fn the_skeleton_of_a_username_is_the_per_character_mapping_the_migrations_apply() {
        let by_hand = |c: char| -> String {
            let c = if c == 'I' {
                'l'
            } else {
                c.to_ascii_lowercase()
            };
            match c {
                '-' => "_".to_owned(),
                'm' => "rn".to_owned(),
                '0' => "o".to_owned(),
                '1' => "l".to_owned(),
                other => other.to_string(),
            }
        };
        let allowed = ('a'..='z')
            .chain('A'..='Z')
            .chain('0'..='9')
            .chain(['_', '-']);
        for c in allowed {
            assert_eq!(username_skeleton(&c.to_string()), by_hand(c), "{c:?}");
        }
        assert_eq!(username_skeleton("Mim-I_01"), "rnirn_l_ol");
    }

    #[test]
    fn debug_output_never_shows_a_password() {
        let credentials = Credentials {
            username: "ada".to_owned(),
            password: "correct horse battery".to_owned(),
            device: None,
            device_cookie: Some("0123456789abcdef".to_owned()),
        };
        let shown = format!("{credentials:?}");
        assert!(!shown.contains("horse"), "{shown}");
        assert!(!shown.contains("0123456789abcdef"), "{shown}");
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
            crate::ClientMessage::ChangePassword(crate::ChangePassword {
                password: password(),
                new_password: password(),
            }),
            crate::ClientMessage::CloseAccount(crate::CloseAccount {
                password: password(),
            }),
        ] {
            for shown in [format!("{message:?}"), format!("{message:#?}")] {
                assert!(!shown.contains("horse"), "{shown}");
            }
        }
    }
}

/// The `change_password` request: the current password, and the new one.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, derive_more::Debug)]
pub struct ChangePassword {
    #[debug("<redacted>")]
    pub password: String,
    #[debug("<redacted>")]
    pub new_password: String,
}

/// The `close_account` request: the password, asked again.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, derive_more::Debug)]
pub struct CloseAccount {
    #[debug("<redacted>")]
    pub password: String,
}
