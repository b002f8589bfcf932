//! What nodes send each other through Redis is signed: every message published (mail, lobby
//! batches, games' updates) and every value kept for other nodes to read (lobby listings, games'
//! snapshots for watchers, room notes) carries an HMAC-SHA256 under the cluster's secret, so a
//! process that can reach Redis but does not hold the secret cannot speak as a node: it cannot
//! move, chat or resign for a player, end a session, or list a game.
//!
//! A sealed message is one line of header and the message as it would be sent without one:
//!
//! ```text
//! TAG MILLIS COUNT NODE
//! {"mail":"request",…}
//! ```
//!
//! `TAG` is the MAC (base64url, 43 characters) of the channel or key the message is sent on,
//! the rest of the header and the message; `MILLIS` the sender's wall clock, `COUNT` a number
//! the sending process never gives twice, `NODE` the sender. So a message verifies only on the
//! channel (or under the key and field) it was sent on, and only as from the node that sent it:
//! one copied onto another game's channel, or into another node's mailbox, fails.
//!
//! **Replays.** A message published again on its own channel would verify. A message that
//! comes over pub/sub is taken only within [`MAX_AGE`] of its timestamp (either way: the
//! nodes' clocks must agree that well, as NTP keeps them), and only once: each node remembers
//! the tags it took over the last two to three minutes. The timestamp bounds that memory to
//! what a node receives in that time, where a counter per sender would need to know each
//! sender's restarts and would turn away messages that Redis delivers out of the order in
//! which they were sealed (a node seals on many tasks at once); the two together refuse a
//! replay at any time. Kept values are read again and again, long after they were written, so
//! they are checked for their MAC alone: someone with Redis can put back an older value under
//! the same key (a game's earlier snapshot, a listing since removed), which the next real
//! change replaces; it can neither forge one nor move it to another key.
//!
//! What is not sealed carries no message: the counters of the per-address limits, heartbeats,
//! the set of nodes, which nodes a player is connected to (it only says where a node's own,
//! sealed, mail goes), and what [`super::lease`], [`super::slot`] and [`super::ids`] keep.
//! Someone who can write to Redis can still delete or garble all of it, which stops the site
//! as a stopped Redis does, and is why Redis itself asks a password.
//!
//! **Rotation.** The secret file holds one secret, or two on two lines: a node signs with the
//! first and accepts either. To change the secret without stopping the site, add the new one as
//! the second line on every node and restart them one by one; then swap the lines and restart
//! them again; then drop the old line (and restart once more). At every step each node accepts
//! what every other signs.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use prometheus_client::metrics::counter::Counter;
use sha2::Sha256;
use tracing::warn;

type HmacSha256 = Hmac<Sha256>;

/// The shortest secret taken, in bytes.
pub const MIN_SECRET_BYTES: usize = 32;
/// How far a published message's timestamp may be from the receiver's clock.
pub const MAX_AGE: Duration = Duration::from_secs(60);
/// The least time between two log lines about dropped messages.
const LOG_EVERY: Duration = Duration::from_secs(60);
/// The length of a tag in the header: 32 bytes in base64 without padding.
const TAG_CHARS: usize = 43;

/// Never given twice in a process: makes two messages alike sealed in one millisecond differ.
static COUNT: AtomicU64 = AtomicU64::new(0);

/// The cluster's secret: the one a node signs with, and one more it also accepts while the
/// secret changes. Shown as `ClusterSecret(..)`.
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterSecret {
    /// One or two; the first signs.
    keys: Vec<Vec<u8>>,
}

impl std::fmt::Debug for ClusterSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterSecret(..)")
    }
}

/// Why a cluster secret was refused.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("cannot read it: {0}")]
    Unreadable(#[from] std::io::Error),
    #[error(
        "others may read it (mode {mode:03o}): make it readable by its owner alone (chmod 600)"
    )]
    Exposed { mode: u32 },
    #[error("it holds no secret")]
    Empty,
    #[error("a secret must be at least {MIN_SECRET_BYTES} bytes; secret {line} has {len}")]
    Short { line: usize, len: usize },
    #[error("it holds {0} secrets: one, or two while the secret changes")]
    TooMany(usize),
}

impl ClusterSecret {
    /// The secrets in the file at `path`, one a line (blank lines and the spaces around a
    /// secret do not count); a file that anyone but its owner may read or write is refused.
    pub fn from_file(path: &Path) -> Result<ClusterSecret, SecretError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(SecretError::Exposed { mode });
            }
        }
        let text = std::fs::read(path)?;
        let lines: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .map(<[u8]>::trim_ascii)
            .filter(|line| !line.is_empty())
            .collect();
        ClusterSecret::new(&lines)
    }

    /// `keys` as a secret: the first signs, every one is accepted.
    pub fn new(keys: &[&[u8]]) -> Result<ClusterSecret, SecretError> {
        match keys.len() {
            0 => return Err(SecretError::Empty),
            1 | 2 => {}
            n => return Err(SecretError::TooMany(n)),
        }
        if let Some((at, key)) = (keys.iter().enumerate()).find(|(_, k)| k.len() < MIN_SECRET_BYTES)
        {
            return Err(SecretError::Short {
                line: at + 1,
                len: key.len(),
            });
        }
        Ok(ClusterSecret {
            keys: keys.iter().map(|k| k.to_vec()).collect(),
        })
    }

    /// `payload` as node `node` holding this secret publishes it on `channel`: for tools and
    /// tests that speak to a cluster as a node does.
    pub fn seal(&self, channel: &str, node: &str, payload: &str) -> String {
        let key = mac(&self.keys[0]);
        seal_with(&key, Place::channel(channel), node, payload)
    }
}

/// A keyed MAC, ready to be cloned for each message.
fn mac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length")
}

/// Where a sealed message goes: published on a channel, or kept under a key; the tag covers it,
/// so that a message cannot be moved from one place to another.
#[derive(Debug, Clone, Copy)]
struct Place<'a> {
    /// `P` for a channel, `K` for a key.
    kind: u8,
    /// The channel's or the key's name.
    name: &'a str,
}

impl<'a> Place<'a> {
    fn channel(name: &'a str) -> Place<'a> {
        Place { kind: b'P', name }
    }

    fn key(name: &'a str) -> Place<'a> {
        Place { kind: b'K', name }
    }
}

/// The MAC of a message: `place` says whether it is published on a channel (`P`) or kept
/// under a key (`K`), and names it; `header` is the header after the tag.
fn tag(key: &HmacSha256, place: Place<'_>, header: &str, payload: &str) -> HmacSha256 {
    let Place { kind, name: place } = place;
    let mut mac = key.clone();
    mac.update(&[kind]);
    mac.update(&(place.len() as u64).to_be_bytes());
    mac.update(place.as_bytes());
    mac.update(header.as_bytes());
    mac.update(b"\n");
    mac.update(payload.as_bytes());
    mac
}

fn seal_with(key: &HmacSha256, place: Place<'_>, node: &str, payload: &str) -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let count = COUNT.fetch_add(1, Ordering::Relaxed);
    let header = format!("{millis} {count} {node}");
    let code = tag(key, place, &header, payload).finalize().into_bytes();
    let mut sealed = String::with_capacity(TAG_CHARS + header.len() + payload.len() + 2);
    URL_SAFE_NO_PAD.encode_string(code, &mut sealed);
    sealed.push(' ');
    sealed.push_str(&header);
    sealed.push('\n');
    sealed.push_str(payload);
    sealed
}

/// Why a message was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No header, or not one a node writes.
    Unsealed,
    /// The MAC is not that of any secret this node holds, for this channel.
    Forged,
    /// Sealed further than [`MAX_AGE`] from now.
    Stale,
    /// Taken once already.
    Replayed,
}

impl Refusal {
    fn as_str(self) -> &'static str {
        match self {
            Refusal::Unsealed => "not sealed",
            Refusal::Forged => "its MAC does not verify",
            Refusal::Stale => "too old, or from a clock far off",
            Refusal::Replayed => "replayed",
        }
    }
}

/// How this node seals what it sends and checks what it receives: with the cluster's secret,
/// or not at all (`--insecure-cluster`).
#[derive(Clone, Default)]
pub(crate) struct Seal {
    /// `None`: messages go and are taken as they are.
    keys: Option<Arc<Keys>>,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.keys.is_some() {
            "Seal(..)"
        } else {
            "Seal(off)"
        })
    }
}

/// A node's keys and what it remembers of the messages it took.
struct Keys {
    /// The node's name, in every header it writes.
    node: String,
    /// Signs; keyed once, cloned for each message.
    signer: HmacSha256,
    /// The signer and, while the secret changes, the other key accepted.
    checkers: Vec<HmacSha256>,
    /// The tags of the published messages taken lately.
    seen: Mutex<Seen>,
    /// Messages dropped, for the tests and whoever asks before the metrics are wired.
    dropped: Counter,
    /// `noughts_forged_messages_total`, once the server's metrics exist.
    metric: OnceLock<Counter>,
    /// When the last line about dropped messages was logged, and how many were dropped since.
    logged: Mutex<(Option<Instant>, u64)>,
}

/// Tags taken in the current and the two earlier periods of [`MAX_AGE`]: one is remembered for
/// at least twice [`MAX_AGE`], as long as a replay could pass the timestamp check.
struct Seen {
    periods: [HashSet<u64>; 3],
    started: Instant,
}

impl Seen {
    /// Notes `tag`; false if it was taken already.
    fn first(&mut self, tag: u64) -> bool {
        if self.started.elapsed() >= MAX_AGE {
            self.periods.rotate_right(1);
            self.periods[0] = HashSet::new();
            self.started = Instant::now();
        }
        if self.periods[1..].iter().any(|seen| seen.contains(&tag)) {
            return false;
        }
        self.periods[0].insert(tag)
    }
}

impl Seal {
    /// Seals as node `node` with `secret`; a node's name must hold no control character (the
    /// header is one line).
    pub(crate) fn new(node: &str, secret: &ClusterSecret) -> Option<Seal> {
        if node.chars().any(char::is_control) {
            return None;
        }
        let checkers: Vec<HmacSha256> = secret.keys.iter().map(|k| mac(k)).collect();
        Some(Seal {
            keys: Some(Arc::new(Keys {
                node: node.to_owned(),
                signer: checkers[0].clone(),
                checkers,
                seen: Mutex::new(Seen {
                    periods: Default::default(),
                    started: Instant::now(),
                }),
                dropped: Counter::default(),
                metric: OnceLock::new(),
                logged: Mutex::new((None, 0)),
            })),
        })
    }

    /// Counts dropped messages in `metric` too from now on.
    pub(crate) fn count_in(&self, metric: Counter) {
        if let Some(keys) = &self.keys {
            let _ = keys.metric.set(metric);
        }
    }

    /// Messages dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        self.keys.as_ref().map_or(0, |keys| keys.dropped.get())
    }

    /// `payload` as it is published on `channel`.
    pub(crate) fn publish<'a>(&self, channel: &str, payload: &'a str) -> Cow<'a, str> {
        match &self.keys {
            Some(keys) => {
                seal_with(&keys.signer, Place::channel(channel), &keys.node, payload).into()
            }
            None => payload.into(),
        }
    }

    /// `value` as it is kept under `key` for other nodes to read.
    pub(crate) fn keep<'a>(&self, key: &str, value: &'a str) -> Cow<'a, str> {
        match &self.keys {
            Some(keys) => seal_with(&keys.signer, Place::key(key), &keys.node, value).into(),
            None => value.into(),
        }
    }

    /// The message in `text`, published on `channel`, if it was sealed by a node for that
    /// channel lately and has not been taken before; otherwise it is counted and dropped.
    pub(crate) fn open<'a>(&self, channel: &str, text: &'a str) -> Option<&'a str> {
        let Some(keys) = &self.keys else {
            return Some(text);
        };
        match keys.check(Place::channel(channel), text) {
            Ok((payload, millis, code)) => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis());
                if now.abs_diff(millis) > MAX_AGE.as_millis() {
                    keys.refuse(channel, Refusal::Stale);
                    return None;
                }
                let first = keys
                    .seen()
                    .first(u64::from_be_bytes(code[..8].try_into().expect("8 bytes")));
                if !first {
                    keys.refuse(channel, Refusal::Replayed);
                    return None;
                }
                Some(payload)
            }
            Err(why) => {
                keys.refuse(channel, why);
                None
            }
        }
    }

    /// The value in `text`, read from `key`, if a node sealed it for that key; otherwise it is
    /// counted and dropped.
    pub(crate) fn open_kept<'a>(&self, key: &str, text: &'a str) -> Option<&'a str> {
        let Some(keys) = &self.keys else {
            return Some(text);
        };
        match keys.check(Place::key(key), text) {
            Ok((payload, _, _)) => Some(payload),
            Err(why) => {
                keys.refuse(key, why);
                None
            }
        }
    }
}

impl Keys {
    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The payload of `text` sealed for `place`, its timestamp and its tag.
    fn check<'a>(
        &self,
        place: Place<'_>,
        text: &'a str,
    ) -> Result<(&'a str, u128, [u8; 32]), Refusal> {
        let (head, payload) = text.split_once('\n').ok_or(Refusal::Unsealed)?;
        let (encoded, header) = head.split_once(' ').ok_or(Refusal::Unsealed)?;
        let mut fields = header.splitn(3, ' ');
        let millis = fields.next().and_then(|m| m.parse::<u128>().ok());
        let count = fields.next().and_then(|c| c.parse::<u64>().ok());
        let (Some(millis), Some(_), Some(_node)) = (millis, count, fields.next()) else {
            return Err(Refusal::Unsealed);
        };
        let mut code = [0u8; 32];
        if encoded.len() != TAG_CHARS || URL_SAFE_NO_PAD.decode_slice(encoded, &mut code) != Ok(32)
        {
            return Err(Refusal::Unsealed);
        }
        let verified = self
            .checkers
            .iter()
            .any(|key| tag(key, place, header, payload).verify_slice(&code).is_ok());
        if verified {
            Ok((payload, millis, code))
        } else {
            Err(Refusal::Forged)
        }
    }

    /// Counts a dropped message, and says so in the log at most once every [`LOG_EVERY`]
    /// (naming the channel or key, never what the message held).
    fn refuse(&self, place: &str, why: Refusal) {
        self.dropped.inc();
        if let Some(metric) = self.metric.get() {
            metric.inc();
        }
        let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
        logged.1 += 1;
        if logged.0.is_none_or(|at| at.elapsed() >= LOG_EVERY) {
            warn!(
                channel = place,
                why = why.as_str(),
                dropped = logged.1,
                "dropped messages between nodes that fail the cluster's check: a node with \
                 another secret, or something that is not a node, writes to Redis"
            );
            *logged = (Some(Instant::now()), 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(keys: &[&str]) -> ClusterSecret {
        let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        ClusterSecret::new(&keys).unwrap()
    }

    const OLD: &str = "an old secret of at least 32 bytes, for tests";
    const NEW: &str = "a new secret of at least 32 bytes, for the tests";

    #[test]
    fn a_message_opens_on_its_own_channel_once_and_nowhere_else() {
        let a = Seal::new("a", &secret(&[OLD])).unwrap();
        let b = Seal::new("b", &secret(&[OLD])).unwrap();
        let sealed = a.publish("mail:b", r#"{"mail":"marked","mark":1}"#);
        assert!(sealed.ends_with("\n{\"mail\":\"marked\",\"mark\":1}"));
        assert_eq!(
            b.open("mail:c", &sealed),
            None,
            "copied onto another channel"
        );
        assert_eq!(
            b.open_kept("mail:b", &sealed),
            None,
            "published is not kept"
        );
        assert_eq!(
            b.open("mail:b", &sealed),
            Some(r#"{"mail":"marked","mark":1}"#)
        );
        assert_eq!(b.open("mail:b", &sealed), None, "replayed");
        // The same payload sealed again is a new message.
        let again = a.publish("mail:b", r#"{"mail":"marked","mark":1}"#);
        assert!(b.open("mail:b", &again).is_some());
        assert_eq!(b.dropped(), 3);
    }

    #[test]
    fn unsealed_altered_and_wrongly_keyed_messages_are_dropped() {
        let a = Seal::new("a", &secret(&[OLD])).unwrap();
        let b = Seal::new("b", &secret(&[OLD])).unwrap();
        let sealed = a.publish("lobby", r#"{"node":"a","changes":[]}"#);
        let payload = sealed.split_once('\n').unwrap().1;
        assert_eq!(b.open("lobby", payload), None, "no header");
        let altered = sealed.replace("\"a\"", "\"b\"");
        assert_eq!(b.open("lobby", &altered), None, "the message altered");
        let renamed = sealed.replacen(" a\n", " c\n", 1);
        assert_eq!(b.open("lobby", &renamed), None, "another sender named");
        let wrong = secret(&[NEW]).seal("lobby", "a", payload);
        assert_eq!(b.open("lobby", &wrong), None, "another secret");
        let garbled = format!("{} {}", "x".repeat(TAG_CHARS), &sealed[TAG_CHARS + 1..]);
        assert_eq!(b.open("lobby", &garbled), None, "not a tag");
        assert_eq!(b.dropped(), 5);
        assert!(b.open("lobby", &sealed).is_some());
    }

    #[test]
    fn a_message_sealed_long_ago_is_dropped() {
        let b = Seal::new("b", &secret(&[OLD])).unwrap();
        let key = mac(OLD.as_bytes());
        let old = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis()
            - MAX_AGE.as_millis()
            - 1_000;
        let header = format!("{old} 1 a");
        let code = tag(&key, Place::channel("lobby"), &header, "{}")
            .finalize()
            .into_bytes();
        let sealed = format!("{} {header}\n{{}}", URL_SAFE_NO_PAD.encode(code));
        assert_eq!(b.open("lobby", &sealed), None);
        assert_eq!(b.dropped(), 1);
        // Kept values are not timed: they are read long after they were written.
        let kept_code = tag(&key, Place::key("room:abc"), &header, "a")
            .finalize()
            .into_bytes();
        let kept = format!("{} {header}\na", URL_SAFE_NO_PAD.encode(kept_code));
        assert_eq!(b.open_kept("room:abc", &kept), Some("a"));
    }

    #[test]
    fn during_a_rotation_every_node_accepts_what_every_other_signs() {
        // Before, the first step (the new secret second), the second (swapped), the third (the
        // old one dropped): a rolling restart goes from each to the next.
        let steps = [vec![OLD], vec![OLD, NEW], vec![NEW, OLD], vec![NEW]];
        for pair in steps.windows(2) {
            let before = Seal::new("a", &secret(&pair[0])).unwrap();
            let after = Seal::new("b", &secret(&pair[1])).unwrap();
            let to_after = before.publish("mail:b", "1");
            let to_before = after.publish("mail:a", "2");
            assert_eq!(after.open("mail:b", &to_after), Some("1"), "{pair:?}");
            assert_eq!(before.open("mail:a", &to_before), Some("2"), "{pair:?}");
        }
        // A node that skipped the first step cannot read the new secret.
        let old = Seal::new("a", &secret(&[OLD])).unwrap();
        let new = Seal::new("b", &secret(&[NEW, OLD])).unwrap();
        assert_eq!(old.open("mail:a", &new.publish("mail:a", "3")), None);
    }

    #[test]
    fn the_secret_file_must_be_private_long_enough_and_hold_one_or_two() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        let write = |text: &str, mode: u32| {
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        write(&format!("{OLD}\n"), 0o644);
        let err = ClusterSecret::from_file(&path).unwrap_err();
        assert!(matches!(err, SecretError::Exposed { mode: 0o644 }), "{err}");
        assert!(err.to_string().contains("chmod 600"), "{err}");
        write(&format!("{OLD}\n"), 0o640);
        assert!(ClusterSecret::from_file(&path).is_err(), "group-readable");
        write(&format!("  {NEW}\r\n\n{OLD}\n"), 0o600);
        assert_eq!(
            ClusterSecret::from_file(&path).unwrap(),
            secret(&[NEW, OLD])
        );
        write("short\n", 0o400);
        assert!(matches!(
            ClusterSecret::from_file(&path),
            Err(SecretError::Short { line: 1, len: 5 })
        ));
        write("\n \n", 0o600);
        assert!(matches!(
            ClusterSecret::from_file(&path),
            Err(SecretError::Empty)
        ));
        write(&format!("{OLD}\n{NEW}\n{OLD}\n"), 0o600);
        assert!(matches!(
            ClusterSecret::from_file(&path),
            Err(SecretError::TooMany(3))
        ));
        assert!(matches!(
            ClusterSecret::from_file(&dir.path().join("missing")),
            Err(SecretError::Unreadable(_))
        ));
        assert_eq!(format!("{:?}", secret(&[OLD])), "ClusterSecret(..)");
    }

    #[test]
    fn without_a_secret_messages_go_and_come_as_they_are() {
        let off = Seal::default();
        assert_eq!(off.publish("lobby", "{}"), "{}");
        assert_eq!(off.open("lobby", "{}"), Some("{}"));
        assert!(Seal::new("a\nb", &secret(&[OLD])).is_none());
    }
}
