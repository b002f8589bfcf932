//! The arenas this node knows, by id: those it directs, each with its queue (its director takes
//! [`ArenaAsk`]s from it), and in a cluster those another node directs, with that node; what
//! lists show of each, kept fresh by its director (or, from another node's note, by the keeper);
//! and, in a cluster, which of this node's connections follow which arena, so that they follow
//! it again wherever it moves.

use std::collections::HashMap;
use std::sync::Arc;

use dashmap::DashMap;
use noughts_protocol::{ArenaId, ArenaInfo, ArenaStatus, PlayerId, ServerMessage};
use tokio::sync::{mpsc, oneshot};

use crate::error::Refusal;
use crate::net::network::Network;
use crate::net::outbound::{ConnId, Outbound};
use crate::registry::games::Requester;
use crate::session::Session;

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

/// An arena this node knows.
#[derive(Debug, Clone)]
struct Entry {
    /// Where this node's director takes asks; `None` when another node directs it.
    queue: Option<mpsc::Sender<ArenaAsk>>,
    /// The node that directs it, when another does (as last seen).
    node: Option<String>,
    info: ArenaInfo,
    creator: Option<PlayerId>,
}

/// A connection of this node that follows an arena (its standings), with what it takes to ask
/// for them again.
#[derive(Debug, Clone)]
pub(crate) struct Follower {
    pub out: Outbound,
    pub session: Arc<Session>,
    /// A private arena's invite code, as the connection gave it.
    pub code: Option<String>,
    /// The connection's address, as other nodes are told it.
    pub network: Network,
}

/// The arenas this node knows.
#[derive(Debug, Default)]
pub(crate) struct Arenas {
    by_id: DashMap<ArenaId, Entry>,
    /// In a cluster, this node's connections following each arena.
    followers: DashMap<ArenaId, HashMap<ConnId, Follower>>,
    /// Held while this node takes an arena up, so that it starts one director for it.
    pub(crate) taking: tokio::sync::Mutex<()>,
}

impl Arenas {
    /// Adds an arena, directed here by whoever reads `queue`.
    pub(crate) fn add(
        &self,
        info: ArenaInfo,
        creator: Option<PlayerId>,
        queue: mpsc::Sender<ArenaAsk>,
    ) {
        self.by_id.insert(
            info.arena,
            Entry {
                queue: Some(queue),
                node: None,
                info,
                creator,
            },
        );
    }

    /// Notes an arena another node directs (`node`, when known), as lists show it; true if
    /// what lists show changed. An arena directed here is left as it is.
    pub(crate) fn elsewhere(
        &self,
        info: ArenaInfo,
        creator: Option<PlayerId>,
        node: Option<String>,
    ) -> bool {
        let mut entry = self.by_id.entry(info.arena).or_insert_with(|| Entry {
            queue: None,
            node: None,
            info: info.clone(),
            creator,
        });
        if entry.queue.as_ref().is_some_and(|q| !q.is_closed()) {
            return false;
        }
        entry.queue = None;
        entry.node = node;
        let changed = entry.info != info;
        entry.info = info;
        changed
    }

    /// What lists show of `arena`, if this node knows it.
    pub(crate) fn info(&self, arena: ArenaId) -> Option<ArenaInfo> {
        self.by_id.get(&arena).map(|entry| entry.info.clone())
    }

    /// The arenas another node directs (or none does, as far as this node knows).
    pub(crate) fn not_here(&self) -> Vec<ArenaId> {
        let entries = self.by_id.iter();
        entries
            .filter(|e| e.queue.is_none())
            .map(|e| *e.key())
            .collect()
    }

    /// Notes that connection `follower` follows `arena`.
    pub(crate) fn follow(&self, arena: ArenaId, follower: Follower) {
        let mut followers = self.followers.entry(arena).or_default();
        followers.retain(|_, f| !f.out.is_closed());
        followers.insert(follower.out.conn, follower);
    }

    /// Notes that connection `conn` follows `arena` no more.
    pub(crate) fn unfollow(&self, arena: ArenaId, conn: ConnId) {
        if let Some(mut followers) = self.followers.get_mut(&arena) {
            followers.remove(&conn);
        }
    }

    /// This node's connections following `arena`, still open.
    pub(crate) fn followers(&self, arena: ArenaId) -> Vec<Follower> {
        let Some(mut followers) = self.followers.get_mut(&arena) else {
            return Vec::new();
        };
        followers.retain(|_, f| !f.out.is_closed());
        followers.values().cloned().collect()
    }

    /// What lists show of an arena, changed.
    pub(crate) fn update(&self, info: ArenaInfo) {
        if let Some(mut entry) = self.by_id.get_mut(&info.arena) {
            entry.info = info;
        }
    }

    /// Forgets an arena (and who follows it).
    pub(crate) fn remove(&self, arena: ArenaId) {
        self.by_id.remove(&arena);
        self.followers.remove(&arena);
    }

    /// Forgets that this node directs `arena`, which it knows still (another node may direct
    /// it now).
    pub(crate) fn step_down(&self, arena: ArenaId) {
        if let Some(mut entry) = self.by_id.get_mut(&arena) {
            entry.queue = None;
        }
    }

    /// The queue of an arena's director, when this node directs it.
    pub(crate) fn queue(&self, arena: ArenaId) -> Option<mpsc::Sender<ArenaAsk>> {
        self.by_id.get(&arena).and_then(|entry| entry.queue.clone())
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
