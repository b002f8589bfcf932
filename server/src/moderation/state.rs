//! What the moderation log says now, folded into maps every request can ask at once: who mutes
//! and blocks whom, who is banned or muted by the operator, which address ranges are banned and
//! which names are reserved. Each fact sets or clears one thing, so folding the log's facts in
//! id order, even some of them twice, gives the same state.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::net::IpAddr;

use noughts_engine::Level;
use noughts_protocol::{GameId, PlayerId};

use crate::net::proxy::Cidr;
use crate::store::ModerationEntry;

/// What a fact asks of the running server beyond the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// End every connection of the player, with the reason.
    Ban(PlayerId, String),
    /// End the game, as aborted.
    EndGame(GameId),
}

/// The words no new player may be called, beside the operator's (compared by [`name_key`]).
const BUILT_IN_RESERVED: [&str; 4] = ["ai", "admin", "noughts", "moderator"];

/// A name as reserved names are compared: lower case, letters and digits alone, so that
/// "AI (perfect)", "A.I." and "ADMIN" meet "aiperfect", "ai" and "admin".
pub(crate) fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The folded log.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The id of the last fact folded in.
    pub(crate) applied: u64,
    /// Whom each player mutes, in the order they did.
    mutes: HashMap<PlayerId, Vec<PlayerId>>,
    /// Who mutes each player: the recipients their chat skips.
    muted_by: HashMap<PlayerId, HashSet<PlayerId>>,
    /// Whom each player blocks, in the order they did.
    blocks: HashMap<PlayerId, Vec<PlayerId>>,
    /// Players whose chat the operator muted: until when, and why.
    chat_muted: HashMap<PlayerId, (u64, String)>,
    /// Banned players, with why.
    banned: HashMap<PlayerId, String>,
    /// Banned address ranges, as given, with why.
    ranges: Vec<(String, Cidr, String)>,
    /// The operator's reserved names, by [`name_key`].
    reserved: BTreeSet<String>,
}

impl State {
    /// Folds `entry` in; returns what the running server must do about it.
    pub(crate) fn apply(&mut self, entry: &ModerationEntry) -> Option<Effect> {
        self.applied = self.applied.max(entry.id);
        let (actor, target) = (entry.actor, entry.target);
        match (entry.kind.as_str(), actor, target) {
            ("mute", Some(actor), Some(target)) => {
                add(self.mutes.entry(actor).or_default(), target);
                self.muted_by.entry(target).or_default().insert(actor);
            }
            ("unmute", Some(actor), Some(target)) => {
                remove(&mut self.mutes, actor, target);
                if let Some(by) = self.muted_by.get_mut(&target) {
                    by.remove(&actor);
                }
            }
            ("block", Some(actor), Some(target)) => {
                add(self.blocks.entry(actor).or_default(), target);
            }
            ("unblock", Some(actor), Some(target)) => remove(&mut self.blocks, actor, target),
            ("chat_mute", _, Some(target)) => {
                let until = entry.until_ms.unwrap_or(u64::MAX);
                self.chat_muted
                    .insert(target, (until, entry.reason.clone()));
            }
            ("chat_unmute", _, Some(target)) => {
                self.chat_muted.remove(&target);
            }
            ("ban", _, Some(target)) => {
                self.banned.insert(target, entry.reason.clone());
                return Some(Effect::Ban(target, entry.reason.clone()));
            }
            ("unban", _, Some(target)) => {
                self.banned.remove(&target);
            }
            ("ban_range", _, _) => {
                if let Ok(cidr) = entry.detail.parse::<Cidr>() {
                    self.ranges.retain(|(text, _, _)| *text != entry.detail);
                    self.ranges
                        .push((entry.detail.clone(), cidr, entry.reason.clone()));
                }
            }
            ("unban_range", _, _) => self.ranges.retain(|(text, _, _)| *text != entry.detail),
            ("reserve", _, _) => {
                self.reserved.insert(name_key(&entry.detail));
            }
            ("unreserve", _, _) => {
                self.reserved.remove(&name_key(&entry.detail));
            }
            ("end_game", _, _) => return entry.game.map(Effect::EndGame),
            _ => {}
        }
        None
    }

    /// Whether `player` mutes anyone.
    pub(crate) fn mutes_anyone(&self, player: PlayerId) -> bool {
        self.mutes
            .get(&player)
            .is_some_and(|muted| !muted.is_empty())
    }

    /// Whether `player` mutes `other`.
    pub(crate) fn mutes(&self, player: PlayerId, other: PlayerId) -> bool {
        self.muted_by
            .get(&other)
            .is_some_and(|by| by.contains(&player))
    }

    /// The players who mute `speaker`.
    pub(crate) fn muted_by(&self, speaker: PlayerId) -> HashSet<PlayerId> {
        self.muted_by.get(&speaker).cloned().unwrap_or_default()
    }

    /// Whether either of `a` and `b` blocks the other.
    pub(crate) fn blocked(&self, a: PlayerId, b: PlayerId) -> bool {
        let blocks = |x: PlayerId, y: PlayerId| self.blocks.get(&x).is_some_and(|v| v.contains(&y));
        blocks(a, b) || blocks(b, a)
    }

    /// Whom `player` mutes and blocks, oldest first.
    pub(crate) fn lists(&self, player: PlayerId) -> (Vec<PlayerId>, Vec<PlayerId>) {
        let of = |map: &HashMap<PlayerId, Vec<PlayerId>>| map.get(&player).cloned();
        (
            of(&self.mutes).unwrap_or_default(),
            of(&self.blocks).unwrap_or_default(),
        )
    }

    /// Until when, and why, the operator mutes `player`'s chat, if they do at `now_ms`.
    pub(crate) fn chat_muted(&self, player: PlayerId, now_ms: u64) -> Option<(u64, String)> {
        self.chat_muted
            .get(&player)
            .filter(|(until, _)| *until > now_ms)
            .cloned()
    }

    /// Why `player` is banned, if they are.
    pub(crate) fn banned(&self, player: PlayerId) -> Option<String> {
        self.banned.get(&player).cloned()
    }

    /// Why `ip` is banned, if a banned range holds it.
    pub(crate) fn banned_address(&self, ip: IpAddr) -> Option<String> {
        self.ranges
            .iter()
            .find(|(_, cidr, _)| cidr.contains(ip))
            .map(|(_, _, why)| why.clone())
    }

    /// Whether no new player may take `name`.
    pub(crate) fn reserved(&self, name: &str) -> bool {
        let key = name_key(name);
        let ai_level = |level: Level| {
            key == name_key(level.name()) || key == format!("ai{}", name_key(level.name()))
        };
        BUILT_IN_RESERVED.contains(&key.as_str())
            || Level::ALL.into_iter().any(ai_level)
            || self.reserved.contains(&key)
    }
}

fn add(list: &mut Vec<PlayerId>, player: PlayerId) {
    if !list.contains(&player) {
        list.push(player);
    }
}

fn remove(map: &mut HashMap<PlayerId, Vec<PlayerId>>, actor: PlayerId, target: PlayerId) {
    if let Some(list) = map.get_mut(&actor) {
        list.retain(|p| *p != target);
        if list.is_empty() {
            map.remove(&actor);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: u64, kind: &str, actor: u64, target: u64) -> ModerationEntry {
        ModerationEntry {
            id,
            at_ms: 0,
            kind: kind.to_owned(),
            actor: Some(PlayerId(actor)),
            operator: None,
            target: Some(PlayerId(target)),
            game: None,
            detail: String::new(),
            reason: String::new(),
            until_ms: None,
        }
    }

    #[test]
    fn folding_a_suffix_twice_changes_nothing() {
        let log = [
            fact(1, "mute", 1, 2),
            fact(2, "block", 2, 1),
            fact(3, "unmute", 1, 2),
            fact(4, "mute", 1, 3),
        ];
        let mut state = State::default();
        log.iter().for_each(|f| drop(state.apply(f)));
        log[1..].iter().for_each(|f| drop(state.apply(f)));
        assert!(!state.mutes(PlayerId(1), PlayerId(2)));
        assert!(state.mutes(PlayerId(1), PlayerId(3)));
        assert!(state.blocked(PlayerId(1), PlayerId(2)));
        assert_eq!(state.lists(PlayerId(1)), (vec![PlayerId(3)], vec![]));
        assert_eq!(state.applied, 4);
    }

    #[test]
    fn reserved_names_ignore_case_and_punctuation() {
        let mut state = State::default();
        for name in [
            "AI",
            "A.I.",
            "AI (perfect)",
            "perfect",
            "Admin",
            "NOUGHTS",
            "moderator",
        ] {
            assert!(state.reserved(name), "{name}");
        }
        assert!(!state.reserved("ada"));
        let mut reserve = fact(1, "reserve", 0, 0);
        reserve.detail = "Ada".to_owned();
        state.apply(&reserve);
        assert!(state.reserved("ADA"));
    }

    #[test]
    fn a_range_ban_holds_its_addresses() {
        let mut state = State::default();
        let mut ban = fact(1, "ban_range", 0, 0);
        ban.detail = "10.1.0.0/16".to_owned();
        ban.reason = "spam".to_owned();
        state.apply(&ban);
        assert_eq!(
            state.banned_address("10.1.2.3".parse().unwrap()),
            Some("spam".to_owned())
        );
        assert_eq!(state.banned_address("10.2.0.1".parse().unwrap()), None);
    }
}
