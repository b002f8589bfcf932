//! Passwords: hashed with argon2id (OWASP's minimum: 19 MiB, two passes, one lane) into PHC
//! strings, checked against them, and judged for strength, all on the blocking pool and no more
//! at once than a few turns allow, the turns shared fairly between addresses. An unknown username
//! is checked against a fixed dummy hash, so it costs as long as a wrong password.

use std::sync::OnceLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use noughts_protocol::{PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS};

use super::fair::FairTurns;
use crate::net::network::Network;

/// OWASP's minimum for argon2id: 19 MiB of memory, two passes, one lane.
const MEMORY_KIB: u32 = 19 * 1024;
const PASSES: u32 = 2;
const LANES: u32 = 1;

/// The hasher with the parameters above.
fn argon2() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes `password` with a fresh random salt into a PHC string.
fn hash_now(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|err| err.to_string())?;
    let salt = SaltString::encode_b64(&salt).map_err(|err| err.to_string())?;
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| err.to_string())
}

/// Whether `password` matches the PHC string `phc` (false for a string that does not parse).
fn verify_now(phc: &str, password: &str) -> bool {
    PasswordHash::new(phc)
        .is_ok_and(|hash| argon2().verify_password(password.as_bytes(), &hash).is_ok())
}

/// The hash an unknown username's password is checked against, made once.
fn dummy() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_now("no account has this password").unwrap_or_default())
}

/// Why a new password is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Strength {
    Ok,
    /// Too short or too long.
    Length,
    /// Among the commonest passwords, or as easy to guess.
    Common,
}

impl Strength {
    /// The sentence a refusal carries.
    pub(crate) fn reason(&self) -> String {
        match self {
            Strength::Ok => String::new(),
            Strength::Length => {
                format!("a password has {PASSWORD_MIN_CHARS} to {PASSWORD_MAX_CHARS} characters")
            }
            Strength::Common => {
                "that password is among the commonest, or as easy to guess; choose another"
                    .to_owned()
            }
        }
    }
}

/// Judges a new password: its length, then zxcvbn's estimate (which knows the commonest
/// passwords of real leaks, keyboard walks, dates and the username itself). A score below 2 is
/// guessable by an online attacker within the limits the server sets.
fn strength_now(password: &str, username: &str) -> Strength {
    let chars = password.chars().count();
    if !(PASSWORD_MIN_CHARS..=PASSWORD_MAX_CHARS).contains(&chars) {
        return Strength::Length;
    }
    let score = zxcvbn::zxcvbn(password, &[username]).score();
    if (score as u8) < 2 {
        return Strength::Common;
    }
    Strength::Ok
}

/// Hashes and checks passwords on the blocking pool, a few at a time, each address in turn.
#[derive(Debug, Clone)]
pub(crate) struct Passwords {
    /// Bounds the hashes in progress (each takes a core and 19 MiB for a moment), and shares
    /// the turns fairly between the addresses asking.
    turns: FairTurns,
}

impl Passwords {
    pub(crate) fn new(concurrent: usize) -> Passwords {
        Passwords {
            turns: FairTurns::new(concurrent),
        }
    }

    /// Runs `work` on the blocking pool once `network` has its turn.
    async fn run<T: Send + 'static>(
        &self,
        network: Network,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, String> {
        let _turn = self.turns.turn(network).await;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|err| err.to_string())
    }

    /// A PHC string for `password`, if its strength allows it.
    pub(crate) async fn hash_new(
        &self,
        network: Network,
        password: String,
        username: String,
    ) -> Result<Result<String, Strength>, String> {
        self.run(network, move || match strength_now(&password, &username) {
            Strength::Ok => hash_now(&password).map(Ok),
            weak => Ok(Err(weak)),
        })
        .await?
    }

    /// Whether `password` matches `phc`; with no `phc` (an unknown username), it is checked
    /// against the dummy hash, taking as long, and is false.
    pub(crate) async fn verify(
        &self,
        network: Network,
        phc: Option<String>,
        password: String,
    ) -> bool {
        self.run(network, move || match phc {
            Some(phc) => verify_now(&phc, &password),
            None => {
                let _ = verify_now(dummy(), &password);
                false
            }
        })
        .await
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_argon2id_with_owasp_parameters_and_checks() {
        let phc = hash_now("a long unusual sentence").unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(!phc.contains("unusual"));
        assert!(verify_now(&phc, "a long unusual sentence"));
        assert!(!verify_now(&phc, "a long unusual sentencE"));
        assert!(!verify_now("not a hash", "anything"));
        assert!(!verify_now(dummy(), "anything"));
    }

    #[test]
    fn weak_passwords_are_refused() {
        assert_eq!(strength_now("short", "ada"), Strength::Length);
        assert_eq!(strength_now(&"x".repeat(129), "ada"), Strength::Length);
        for common in [
            "password",
            "password1",
            "12345678",
            "qwertyuiop",
            "iloveyou1",
        ] {
            assert_eq!(strength_now(common, "ada"), Strength::Common, "{common}");
        }
        assert_eq!(
            strength_now("ada_lovelace", "ada_lovelace"),
            Strength::Common
        );
        assert_eq!(strength_now("tangerine umbrella 42", "ada"), Strength::Ok);
    }
}
