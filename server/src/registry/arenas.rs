//! The arenas this node directs, by id: each one's queue (its director takes [`ArenaAsk`]s from
//! it) and what lists show of it, kept fresh by the director.

use dashmap::DashMap;
use noughts_protocol::{ArenaId, ArenaInfo, ArenaStatus, PlayerId, ServerMessage};
use tokio::sync::{mpsc, oneshot};

use crate::error::Refusal;
use crate::registry::games::Requester;

/// How soon an arena starts for the lobby to list it, in milliseconds.
const SOON_MS: u64 = 3_600_000;

/// How many asks wait for one arena's director before more are refused.
pub(crate) const ARENA_QUEUE: usize = 256;

/// What a player asks of an arena.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArenaRequest {
    /// Join, or come back (`code`: a private arena's invite code).
    Join { code: Option<String> },
    /// Stop being paired.
    Withdraw,
    /// The standings now, and their changes from then on.
    View { code: Option<String> },
    /// Stop following the standings.
    Unwatch,
    /// A page of the standings.
    Page { offset: u32 },
}

/// One ask of an arena: who asks, on which connection, and where the answer goes (the director
/// answers; the handler sends it).
#[derive(Debug)]
pub(crate) struct ArenaAsk {
    pub from: Requester,
    /// Whether the asking player has an account (only accounts join).
    pub account: bool,
    /// Whether the asking player is a bot (bots join only arenas for bots).
    pub bot: bool,
    pub request: ArenaRequest,
    pub reply: oneshot::Sender<Result<ServerMessage, Refusal>>,
}

/// An arena this node directs.
#[derive(Debug, Clone)]
struct Entry {
    queue: mpsc::Sender<ArenaAsk>,
    info: ArenaInfo,
    creator: Option<PlayerId>,
}

/// The arenas this node directs.
#[derive(Debug, Default)]
pub(crate) struct Arenas {
    by_id: DashMap<ArenaId, Entry>,
}

impl Arenas {
    /// Adds an arena, directed by whoever reads `queue`.
    pub(crate) fn add(
        &self,
        info: ArenaInfo,
        creator: Option<PlayerId>,
        queue: mpsc::Sender<ArenaAsk>,
    ) {
        self.by_id.insert(
            info.arena,
            Entry {
                queue,
                info,
                creator,
            },
        );
    }

    /// What lists show of an arena, changed.
    pub(crate) fn update(&self, info: ArenaInfo) {
        if let Some(mut entry) = self.by_id.get_mut(&info.arena) {
            entry.info = info;
        }
    }

    pub(crate) fn remove(&self, arena: ArenaId) {
        self.by_id.remove(&arena);
    }

    /// The queue of an arena's director.
    pub(crate) fn queue(&self, arena: ArenaId) -> Option<mpsc::Sender<ArenaAsk>> {
        self.by_id.get(&arena).map(|entry| entry.queue.clone())
    }

    /// How many arenas `creator` created that have not finished.
    pub(crate) fn unfinished_by(&self, creator: PlayerId) -> usize {
        self.by_id
            .iter()
            .filter(|e| e.creator == Some(creator) && e.info.status != ArenaStatus::Finished)
            .count()
    }

    /// Whether an arena of `slot`'s schedule is directed here already.
    pub(crate) fn has_named(&self, name: &str, start_ms: u64) -> bool {
        self.by_id
            .iter()
            .any(|e| e.creator.is_none() && e.info.name == name && e.info.start_ms == start_ms)
    }

    /// What the lobby lists: the public arenas running or ending, and those starting within the
    /// hour, soonest first, at most `limit`.
    pub(crate) fn for_lobby(&self, now_ms: u64, limit: usize) -> Vec<ArenaInfo> {
        let mut listed: Vec<ArenaInfo> = self
            .by_id
            .iter()
            .filter(|e| !e.info.private && e.info.status != ArenaStatus::Finished)
            .filter(|e| e.info.start_ms <= now_ms + SOON_MS)
            .map(|e| e.info.clone())
            .collect();
        listed.sort_by_key(|info| (info.start_ms, info.arena));
        listed.truncate(limit);
        listed
    }

    /// A page of the public arenas not finished, by id: at most `limit` above `after`, and
    /// whether more follow.
    pub(crate) fn page(&self, after: Option<ArenaId>, limit: usize) -> (Vec<ArenaInfo>, bool) {
        let mut listed: Vec<ArenaInfo> = self
            .by_id
            .iter()
            .filter(|e| !e.info.private && e.info.status != ArenaStatus::Finished)
            .filter(|e| after.is_none_or(|after| e.info.arena > after))
            .map(|e| e.info.clone())
            .collect();
        listed.sort_by_key(|info| info.arena);
        let more = listed.len() > limit;
        listed.truncate(limit);
        (listed, more)
    }
}
